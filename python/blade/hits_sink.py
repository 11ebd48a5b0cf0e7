# SPDX-License-Identifier: MIT
"""
hits_sink: writes the hit messages of a dedoppler block as turbo_seti .dat tables and
CSV (blade.formats.hits), one table per beam and search window, each written whole
when the dedoppler block says the window is done ("window_done"), so that a stopped
flowgraph leaves only complete tables.

    search = blade.dedoppler(shape, 16, foff_hz, tsamp_s, nfpc, fch1_mhz=fch1, tstart_mjd=mjd)
    sink = blade.hits_sink("out/obs", foff_hz, tsamp_s, nfpc, 16, fch1_mhz=fch1, tstart_mjd=mjd,
                           window=search.window(), padded_spectra=search.padded_spectra())
    tb.msg_connect(search, "hits", sink, "hits")

Files: STEM.beamBBBB.wWWWW.dat and .csv, one per window and beam (beams 0 ... beams-1
always, empty tables included, and any other beam a hit names); with per_window=False one
STEM.beamBBBB.dat (and .csv) per beam holding every window's hits, numbered on, its
header the first window's (MJD, obs_length of one window), rewritten whole after each
window (what blade-cli mode-b --search writes).
"""

import math
import os

import pmt
from gnuradio import gr

from .formats import hits as hit_tables


class hits_sink(gr.basic_block):
    def __init__(
        self,
        stem,
        foff_hz,
        tsamp_s,
        nfpc,
        spectra,
        fch1_mhz=0.0,
        tstart_mjd=0.0,
        max_drift=4.0,
        window=None,
        padded_spectra=None,
        source_name="",
        ra_hours=None,
        dec_degrees=None,
        formats="dat,csv",
        per_window=True,
        beams=1,
        aspect="beam",
        source_names=None,
        positions=None,
    ):
        gr.basic_block.__init__(self, name="hits_sink", in_sig=None, out_sig=None)
        # The search's grid, unless given (dedoppler.window(), padded_spectra()):
        # T' = spectra rounded up to a power of two, N = 2 ceil(max_drift / step).
        if padded_spectra is None:
            padded_spectra = 1 << max(0, int(spectra) - 1).bit_length()
        if window is None:
            step = abs(foff_hz) / ((padded_spectra - 1) * tsamp_s) if padded_spectra > 1 else 0.0
            top = max_drift / step if step > 0 else 0.0
            window = 2 * math.ceil(top - 1e-9 * max(1.0, top))  # as the core computes it
        self.stem, self.window, self.padded_spectra = str(stem), int(window), padded_spectra
        self.formats = {f.strip() for f in formats.split(",") if f.strip()}
        if not self.formats or self.formats - {"dat", "csv"}:
            raise ValueError(f"blade.hits_sink: formats {formats!r}: expected dat, csv or dat,csv")
        self.per_window, self.beams, self.aspect = per_window, int(beams), aspect
        # Each beam's own source name and (ra hours, dec degrees), where given.
        self.source_names, self.positions = list(source_names or []), list(positions or [])
        self.tables = {}  # beam -> rows so far (per_window=False)
        self.observation = hit_tables.Observation(
            file_id="",
            source=source_name,
            mjd=tstart_mjd,
            ra=hit_tables.format_angle(ra_hours, True) if ra_hours is not None else "0h00m00s",
            dec=hit_tables.format_angle(dec_degrees, False) if dec_degrees is not None else "0d00m00s",
            tsamp=tsamp_s,
            foff_hz=foff_hz,
            max_drift=max_drift,
            obs_length=spectra * tsamp_s,
            fch1_mhz=fch1_mhz,
            nfpc=int(nfpc),
        )
        self.pending, self.beams_seen, self.written, self.hit_count = [], set(), [], 0
        folder = os.path.dirname(os.path.abspath(self.stem))
        os.makedirs(folder, exist_ok=True)
        self.message_port_register_in(pmt.intern("hits"))
        self.set_msg_handler(pmt.intern("hits"), self._handle)

    def files(self):
        """The tables written so far."""
        return list(self.written)

    def hits(self):
        """Hits received so far."""
        return self.hit_count

    def _handle(self, message):
        fields = pmt.to_python(message)
        if "window_done" in fields:
            self._write(int(fields["window_done"]))
            return
        self.pending.append(fields)
        self.hit_count += 1

    def _write(self, window_number):
        by_beam = {}
        for hit in self.pending:
            by_beam.setdefault(int(hit["beam"]), []).append(hit)
        self.beams_seen.update(by_beam)
        self.pending = []
        for beam in sorted(self.beams_seen | set(range(self.beams))):
            name = f"{self.stem}.{self.aspect}{beam:04d}" + (f".w{window_number:04d}" if self.per_window else "")
            observation = hit_tables.Observation(**vars(self.observation))
            observation.file_id = os.path.basename(name) + ".h5"
            if beam < len(self.source_names) and self.source_names[beam]:
                observation.source = self.source_names[beam]
            if beam < len(self.positions) and self.positions[beam] is not None:
                observation.ra = hit_tables.format_angle(self.positions[beam][0], True)
                observation.dec = hit_tables.format_angle(self.positions[beam][1], False)
            if self.per_window:
                observation.mjd += window_number * observation.obs_length / 86400.0
            rows = hit_tables.rows(by_beam.get(beam, []), observation, self.window, self.padded_spectra)
            if not self.per_window:
                earlier = self.tables.setdefault(beam, [])
                for row in rows:
                    row.number += len(earlier)
                rows = self.tables[beam] = earlier + rows
            for kind, write in (("dat", hit_tables.write_dat), ("csv", hit_tables.write_csv)):
                if kind in self.formats:
                    write(f"{name}.{kind}", observation, rows)
                    if f"{name}.{kind}" not in self.written:
                        self.written.append(f"{name}.{kind}")
