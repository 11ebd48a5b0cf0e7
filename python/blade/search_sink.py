# SPDX-License-Identifier: MIT
"""
search_sink: a dedoppler search in place of a filterbank sink. Detector chunks
[B, F, Tc, P] go to blade.dedoppler (on the device), its hits to blade.hits_sink:
one turbo_seti .dat table (and CSV) per beam, STEM.beamBBBB.dat, with the hits of
every window of `spectra` spectra, rewritten whole after each window. This is what
blade-cli mode-b/mode-h --search and blade.mode_bs end in; no filterbank is written.

    sink = blade.search_sink("out/obs", [B, F, Tc, 1], 16, spectrum_axis, tsamp_s)

`spectrum_axis` is the blade.Observation of the detector's channels (channelized:
freq_first, chan_bw, nfpc, unix_start); `tsamp_s` the time between spectra;
source_names and positions ((ra hours, dec degrees) per beam) name each table's
source (default: the observation's source and boresight).
"""

import math

from gnuradio import gr

from .hits_sink import hits_sink


def search_geometry(spectrum_axis, channels):
    """(foff_hz, nfpc, fch1_mhz, tstart_mjd, blank_dc) of a spectrum axis: unchannelized
    data (nfpc 1) is normalised over the whole band, one 'coarse channel' of F."""
    nfpc = int(spectrum_axis.nfpc or 1)
    if nfpc < 3 or channels % nfpc:
        nfpc, blank = channels, False
    else:
        blank = True
    mjd = spectrum_axis.unix_start / 86400.0 + 40587.0
    return spectrum_axis.chan_bw, nfpc, spectrum_axis.freq_first * 1e-6, mjd, blank


class search_sink(gr.hier_block2):
    def __init__(
        self,
        stem,
        shape,
        spectra,
        spectrum_axis,
        tsamp_s,
        min_drift=0.0,
        max_drift=4.0,
        snr=10.0,
        normalization="turbo_seti",
        device="auto",
        formats="dat,csv",
        per_window=False,
        aspect="beam",
        source_names=None,
        positions=None,
    ):
        from gnuradio import blade

        item = blade.item_size(list(shape), "f32")
        gr.hier_block2.__init__(self, "search_sink", gr.io_signature(1, 1, item), gr.io_signature(0, 0, 0))
        foff_hz, nfpc, fch1, mjd, blank = search_geometry(spectrum_axis, int(shape[1]))
        self.spectra = int(spectra)
        self.search = blade.dedoppler(
            list(shape),
            self.spectra,
            foff_hz,
            tsamp_s,
            nfpc,
            min_drift=min_drift,
            max_drift=max_drift,
            snr=snr,
            normalization=normalization,
            blank_dc=blank,
            fch1_mhz=fch1,
            tstart_mjd=mjd,
            device=device,
        )
        self.sink = hits_sink(
            stem,
            foff_hz,
            tsamp_s,
            nfpc,
            self.spectra,
            fch1_mhz=fch1,
            tstart_mjd=mjd,
            max_drift=max_drift,
            window=self.search.window(),
            padded_spectra=self.search.padded_spectra(),
            source_name=spectrum_axis.source_name,
            ra_hours=math.degrees(spectrum_axis.ra) / 15 if spectrum_axis.has_position else None,
            dec_degrees=math.degrees(spectrum_axis.dec) if spectrum_axis.has_position else None,
            formats=formats,
            per_window=per_window,
            beams=int(shape[0]),
            aspect=aspect,
            source_names=source_names,
            positions=positions,
        )
        self.beams = int(shape[0])
        self.stem, self.formats, self.aspect = stem, formats, aspect
        self.connect(self, self.search)
        self.msg_connect(self.search, "hits", self.sink, "hits")

    def files(self):
        """The .dat (or .csv) table of each beam."""
        kind = "dat" if "dat" in self.formats else "csv"
        return [f"{self.stem}.{self.aspect}{b:04d}.{kind}" for b in range(self.beams)]

    def nitems_read(self, port):
        """Chunks consumed (the dedoppler block's), as a sink block says it."""
        return self.search.nitems_read(port)

    def spectra_written(self):
        """Spectra searched per beam."""
        return self.search.windows() * self.spectra

    def hits(self, beam=None):
        """Hits found, of all beams or of one."""
        if beam is None:
            return self.search.hits()
        return len(self.sink.tables.get(beam, []))

    def search_seconds(self):
        return self.search.search_seconds()
