# SPDX-License-Identifier: MIT
"""
visibility_sink: a GNU Radio sink that writes the correlator's (or Mode X's) output
chunks [B, F, T', P*P] as one UVH5 file (gnuradio.blade.formats.uvh5), or as a plain
HDF5 or numpy dump (gnuradio.blade.formats.visibilities), one integration at a time.

Times come from the chunks' tags: blade_jd_mid (the middle of the output chunk,
which the correlator moves to the middle of a group of chunks) and blade_tsamp (the
seconds per integration, the correlator's I times the input's sample time); the
T' integrations of a chunk are centred on jd_mid, tsamp apart. The frequencies are
given, or come from the first chunk's blade_freq_first and blade_chan_bw tags.

    sink = blade.visibility_sink("obs.uvh5", bundle.output_shape(), array=dict(
        antenna_names=names, antenna_positions=ecef, site=(lon, lat, alt),
        phase_centre=(ra, dec), phase_centre_name="3C286", dut1=0.0))
    tb.connect(bundle, sink)  # ... tb.run(); sink.files(), sink.integrations_written()

The file is written as NAME.partial and renamed when the flowgraph stops (stop());
a failure while writing is kept in sink.error (and logged), the partial file removed.
"""

import os

import numpy
import pmt
from gnuradio import gr

from .tensor import _item_size

FORMATS = {"uvh5": "UVH5", "h5": "HDF5 dump", "npz": "numpy dump"}
UNIX_JD0 = 2440587.5


def _tag_number(tags, key):
    for tag in tags:
        if pmt.symbol_to_string(tag.key) == key and pmt.is_number(tag.value) and not pmt.is_complex(tag.value):
            return pmt.to_double(tag.value)
    return None


class visibility_sink(gr.sync_block):
    """
    path: the file (.uvh5, .h5 or .npz by `format`).
    shape: the visibility chunks' shape [B, F, T', P*P] (bundle.output_shape()).
    array: for UVH5, dict(antenna_names, antenna_positions (ITRS m [A, 3]), site
        (lon, lat rad, alt m), phase_centre (ra, dec rad), phase_centre_name, and
        optionally telescope_name, dut1, antenna_diameters, history); for the dumps
        antenna_names (and antenna_positions) suffice.
    format: "uvh5", "h5" or "npz".
    frequencies, channel_width: the F channel centres and width (Hz); None: from tags.
    integration_time: seconds per integration; None: from the blade_tsamp tag.
    """

    def __init__(
        self,
        path,
        shape,
        array,
        format="uvh5",
        frequencies=None,
        channel_width=None,
        integration_time=None,
        overwrite=False,
    ):
        shape = [int(d) for d in shape]
        if len(shape) != 4 or shape[3] not in (1, 4):
            raise ValueError(f"visibility_sink shape {shape}: expected the correlator's [B, F, T', 1 or 4]")
        if format not in FORMATS:
            raise ValueError(f"visibility_sink format {format!r}: expected one of {', '.join(FORMATS)}")
        names = list(array.get("antenna_names") or [])
        antennas = len(names)
        if antennas * (antennas + 1) // 2 != shape[0]:
            raise ValueError(
                f"visibility_sink: {antennas} antenna names make {antennas * (antennas + 1) // 2} baselines, "
                f"the chunks have {shape[0]}"
            )
        if format == "uvh5":
            missing = [k for k in ("antenna_positions", "site", "phase_centre") if array.get(k) is None]
            if missing:
                raise ValueError(f"visibility_sink: a UVH5 file needs the array's {', '.join(missing)}")
        self.item_size = _item_size(shape, "cf32")
        gr.sync_block.__init__(self, name="visibility_sink", in_sig=[(numpy.uint8, self.item_size)], out_sig=None)
        self.path, self.shape, self.array, self.format = os.fspath(path), shape, dict(array), format
        self.frequencies = None if frequencies is None else numpy.asarray(frequencies, numpy.float64).reshape(-1)
        if self.frequencies is not None and len(self.frequencies) != shape[1]:
            raise ValueError(f"visibility_sink: {len(self.frequencies)} frequencies for {shape[1]} channels")
        self.channel_width = channel_width
        self.integration_time = integration_time
        self.overwrite = overwrite
        if os.path.exists(self.path) and not overwrite:
            raise FileExistsError(f"{self.path} exists (choose another name, or overwrite)")
        self.writer = None
        self.error = None
        self._written = 0
        self._tsamp = integration_time
        self._last_jd = None
        self._files = []

    # --- what it wrote ----------------------------------------------------------

    def files(self):
        """The file written (after the flowgraph stopped): [path] or []."""
        return list(self._files)

    def integrations_written(self):
        return self._written

    # --- writing ----------------------------------------------------------------

    def _open(self, tags):
        frequencies = self.frequencies
        width = self.channel_width
        tag_width = _tag_number(tags, "blade_chan_bw")
        if frequencies is None:
            first = _tag_number(tags, "blade_freq_first")
            if first is None or tag_width is None:
                raise ValueError("the first chunk has no blade_freq_first and blade_chan_bw tags: give the frequencies")
            frequencies = first + tag_width * numpy.arange(self.shape[1])
        if width is None:
            if tag_width is None:
                raise ValueError("the first chunk has no blade_chan_bw tag: give the channel width")
            width = abs(tag_width)
        if self._tsamp is None:
            raise ValueError("the first chunk has no blade_tsamp tag: give the integration time")
        a = self.array
        if self.format == "uvh5":
            from .formats import uvh5

            self.writer = uvh5.UVH5Writer(
                self.path,
                antenna_names=a["antenna_names"],
                antenna_positions=a["antenna_positions"],
                site=a["site"],
                integration_time=self._tsamp,
                frequencies=frequencies,
                channel_width=width,
                phase_centre=a["phase_centre"],
                phase_centre_name=a.get("phase_centre_name") or "boresight",
                telescope_name=a.get("telescope_name") or "unknown",
                dut1=a.get("dut1", 0.0) or 0.0,
                antenna_diameters=a.get("antenna_diameters"),
                history=a.get("history", ""),
                overwrite=self.overwrite,
            )
        else:
            from .formats import visibilities

            self.writer = visibilities.VisibilityWriter(
                self.path,
                antenna_names=a["antenna_names"],
                antenna_positions=a.get("antenna_positions"),
                frequencies=frequencies,
                channel_width=width,
                integration_time=self._tsamp,
                overwrite=self.overwrite,
            )

    def work(self, input_items, output_items):
        items = input_items[0]
        if self.error is not None:
            return len(items)
        try:
            B, F, T, P = self.shape
            first = self.nitems_read(0)
            for n in range(len(items)):
                tags = self.get_tags_in_window(0, n, n + 1)
                tsamp = _tag_number(tags, "blade_tsamp")
                if tsamp is not None:
                    self._tsamp = tsamp if self.integration_time is None else self.integration_time
                jd = _tag_number(tags, "blade_jd_mid")
                if jd is None:
                    unix = _tag_number(tags, "blade_time_mid_unix")
                    jd = None if unix is None else unix / 86400.0 + UNIX_JD0
                if jd is None:
                    if self._last_jd is None or self._tsamp is None:
                        raise ValueError(
                            f"chunk {first + n} has no time (no blade_jd_mid tag, none before it to count from)"
                        )
                    jd = self._last_jd + T * self._tsamp / 86400.0
                self._last_jd = jd
                if self.writer is None:
                    self._open(tags)
                chunk = numpy.frombuffer(items[n].tobytes()[: B * F * T * P * 8], numpy.complex64).reshape(B, F, T, P)
                for t in range(T):
                    centre = jd + (t - (T - 1) / 2) * self._tsamp / 86400.0
                    self.writer.append(chunk[:, :, t, :], centre)
                    self._written += 1
        except Exception as error:  # a sink cannot raise into the scheduler: keep it
            self.error = f"{self.path}: {error}"
            try:
                gr.logger("visibility_sink").error(self.error)
            except Exception:  # logging is a courtesy; sink.error is what callers read
                pass
            if self.writer is not None:
                self.writer.abort()
            return -1  # WORK_DONE: the flowgraph ends
        return len(items)

    def stop(self):
        if self.writer is not None and self.error is None:
            try:
                if self.writer.integrations:
                    self._files = [self.writer.close()]
                else:
                    self.writer.abort()
            except Exception as error:
                self.error = f"{self.path}: {error}"
        return True


def array_from_bfr5(path, source_name=None):
    """The `array` of a visibility_sink from a BFR5 recipe: antenna names and ITRS
    positions, the site, the phase centre (the recipe's boresight), DUT1."""
    from gnuradio import blade

    recipe = blade.read_bfr5(os.fspath(path))
    names = [str(n) for n in (recipe.antenna_names or [])] or [f"ant{a:03d}" for a in range(recipe.antennas)]
    return dict(
        antenna_names=names,
        antenna_positions=numpy.asarray(recipe.antenna_positions_ecef, numpy.float64),
        site=tuple(float(v) for v in recipe.reference),
        phase_centre=tuple(float(v) for v in recipe.boresight),
        phase_centre_name=source_name or str(recipe.obsid or "") or "boresight",
        telescope_name=str(recipe.telescope_name or "") or "unknown",
        dut1=float(recipe.dut1),
    )
