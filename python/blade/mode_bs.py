# SPDX-License-Identifier: MIT
"""
mode_bs: beamform and search. Mode B's beams (blade.mode_b: channelizer, beamformer,
detector on the device) go straight into blade.dedoppler on the same device: no
filterbank is written; the hits leave on the message port "hits" (connect a
blade.hits_sink, or use blade.search_sink, which blade-cli mode-b --search does).

    bundle = blade.mode_bs(shape, recording.observation, recipe, options, spectra=16)
    tb.connect((source, 0), (bundle, 0)); tb.connect((source, 1), (bundle, 1))
    tb.msg_connect(bundle, "hits", sink, "hits")

The search's channel width, fch1, nfpc and start time come from the observation and
the chain (options.channelizer_rate, integration); tsamp() is the time between
spectra. Inputs as mode_b's: voltage chunks and the chunk-time stream.
"""

from gnuradio import gr

from .search_sink import search_geometry


def spectrum_axis(axis, rate):
    """The observation of the detector's channels after a channelizer of `rate`."""
    return axis.channelized(rate) if rate and rate > 1 else axis


class mode_bs(gr.hier_block2):
    def __init__(
        self,
        shape,
        axis,
        recipe,
        options,
        spectra=16,
        min_drift=0.0,
        max_drift=4.0,
        snr=10.0,
        normalization="turbo_seti",
    ):
        from gnuradio import blade

        if options.detector == "none":
            raise ValueError("blade.mode_bs: the search needs power (a detector), not voltages")
        beamform = blade.mode_b(list(shape), axis, recipe, options)
        gr.hier_block2.__init__(
            self,
            "mode_bs",
            gr.io_signature.makev(2, 2, [int(beamform.input_item_size()), blade.CHUNK_TIME_DTYPE.itemsize]),
            gr.io_signature(0, 0, 0),
        )
        self.beamform = beamform
        out_shape = list(beamform.output_shape())
        rate = options.channelizer_rate or 1
        self.axis = spectrum_axis(axis, rate)
        samples = int(shape[2]) * int(self.beamform.chunks_per_output())
        self.spectrum_seconds = samples * axis.tsamp / out_shape[2]
        foff_hz, nfpc, fch1, mjd, blank = search_geometry(self.axis, out_shape[1])
        self.search = blade.dedoppler(
            out_shape,
            spectra,
            foff_hz,
            self.spectrum_seconds,
            nfpc,
            min_drift=min_drift,
            max_drift=max_drift,
            snr=snr,
            normalization=normalization,
            blank_dc=blank,
            fch1_mhz=fch1,
            tstart_mjd=mjd,
            device=self.beamform.device(),
        )
        self.message_port_register_hier_out("hits")
        self.connect((self, 0), (self.beamform, 0))
        self.connect((self, 1), (self.beamform, 1))
        self.connect(self.beamform, self.search)
        self.msg_connect(self.search, "hits", self, "hits")

    def tsamp(self):
        """Seconds between the searched spectra."""
        return self.spectrum_seconds

    def output_shape(self):
        """[B, F, T, P] of the beams searched."""
        return list(self.beamform.output_shape())
