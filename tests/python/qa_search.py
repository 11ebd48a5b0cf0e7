#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade-cli search end to end, on numpy-written SIGPROC filterbanks (16 spectra x 4
coarse channels x 4096 fine channels at Breakthrough Listen's high-resolution
channel width and spectrum time) with Gaussian noise and drifting tones injected at
known start channel, drift rate and amplitude: positive, negative and zero drift, at
+-3.8 Hz/s (the edge of turbo_seti's range for --max-drift 4), one crossing a
coarse-channel edge and one at 3.95 Hz/s (inside ours, beyond turbo_seti's).

* Truth: every tone found at its start channel's frequency within one channel and
  its drift within one drift step; no other hit (no false hit at SNR 10).
* turbo_seti 2.3.2 (its own venv; skipped without it) on the same file: its nine
  header lines equal ours character for character; every hit of either is matched
  (same coarse channel, frequency within one channel, drift within one step, SNR
  within 10 %) except the two tones documented as searched differently (coarse-edge
  crossing, beyond turbo_seti's drift range); turbo_seti's own reader
  (find_event.read_dat), find_events and find_event_pipeline (an ON/OFF cadence)
  accept our .dat, and plot_event_pipeline plots an event from them.
* The same spectrogram as FBH5 .h5, and with the band reversed (negative foff), gives
  the same hits; windows; the CSV has the .dat's values; bad files give one-line
  errors and leave no table.
"""

import csv
import math
import os
import struct

import numpy
from gnuradio import gr_unittest

import blade_testing
from gnuradio.blade.formats import hits as hit_tables

FOFF_HZ = 2.7939677238464355
TSAMP_S = 18.253611008
SPECTRA, NFPC, COARSE = 16, 4096, 4
FCH1_MHZ = 1400.0
STEP = FOFF_HZ / ((SPECTRA - 1) * TSAMP_S)  # drift step, Hz/s
# (coarse channel, index in it, drift rate Hz/s, amplitude per spectrum in noise sigmas)
TONES = [
    (0, 1000, 0.5, 4.0),
    (0, 3000, -1.3, 4.0),
    (1, 1500, 0.0, 4.0),
    (1, 3000, 3.8, 5.0),
    (2, 1000, -3.8, 5.0),
    (2, 4060, 1.0, 5.0),  # crosses into coarse channel 3 at spectrum 6
    (3, 2000, 3.95, 6.0),  # beyond turbo_seti's 3.827 Hz/s
    (3, 2900, -0.05, 3.5),
]
EDGE_CROSSING, BEYOND_TURBO_SETI = TONES[5], TONES[6]


def sigproc_header(fields):
    def name(text):
        return struct.pack("<i", len(text)) + text.encode()

    out = name("HEADER_START")
    for key, value in fields:
        out += name(key)
        if isinstance(value, str):
            out += name(value)
        elif isinstance(value, float):
            out += struct.pack("<d", value)
        else:
            out += struct.pack("<i", value)
    return out + name("HEADER_END")


def fil_fields(channels, fch1=FCH1_MHZ, foff_mhz=FOFF_HZ * 1e-6, nbits=32):
    return [
        ("telescope_id", 6),
        ("machine_id", 20),
        ("data_type", 1),
        ("source_name", "INJECTED"),
        ("src_raj", 123456.78),
        ("src_dej", -301500.5),
        ("tstart", 60000.25),
        ("tsamp", TSAMP_S),
        ("nbits", nbits),
        ("fch1", fch1),
        ("foff", foff_mhz),
        ("nchans", channels),
        ("nifs", 1),
        ("nbeams", 1),
        ("ibeam", 1),
    ]


def write_fil(path, data, **fields):
    with open(path, "wb") as f:
        f.write(sigproc_header(fil_fields(data.shape[1], **fields)))
        f.write(numpy.ascontiguousarray(data, dtype="<f4").tobytes())


def inject(data, channel, rate, amplitude):
    """A tone starting at `channel`, moving rate·tsamp/foff channels per spectrum, its
    power split between the two nearest channels (as a real drifting tone smears)."""
    per_spectrum = rate * TSAMP_S / FOFF_HZ
    for t in range(data.shape[0]):
        position = channel + per_spectrum * t
        low = math.floor(position)
        for c, weight in ((low, 1 - (position - low)), (low + 1, position - low)):
            if 0 <= c < data.shape[1] and weight > 0:
                data[t, c] += amplitude * weight


def injected(seed=19, tones=TONES):
    rng = numpy.random.default_rng(seed)
    data = rng.normal(100.0, 1.0, (SPECTRA, COARSE * NFPC)).astype(numpy.float32)
    for coarse, index, rate, amplitude in tones:
        inject(data, coarse * NFPC + index, rate, amplitude)
    return data


def tone_frequency(tone):
    return FCH1_MHZ + (tone[0] * NFPC + tone[1]) * FOFF_HZ * 1e-6


def matches(row, tone):
    return (
        abs(row.frequency - tone_frequency(tone)) <= FOFF_HZ * 1e-6 * 1.0001
        and abs(row.drift_rate - tone[2]) <= STEP * 1.0001
    )


def same_hit(a, b):
    return (
        a.coarse_channel == b.coarse_channel
        and abs(a.frequency - b.frequency) <= FOFF_HZ * 1e-6 * 1.0001
        and abs(a.drift_rate - b.drift_rate) <= STEP * 1.0001
        and abs(a.snr - b.snr) <= 0.1 * abs(b.snr)
    )


TURBO_SETI = r"""
import glob, json, logging, os, sys
import pandas
from blimpy import Waterfall
from turbo_seti.find_doppler.find_doppler import FindDoppler
from turbo_seti.find_event.find_event import read_dat, find_events
from turbo_seti.find_event.find_event_pipeline import find_event_pipeline
from turbo_seti.find_event.plot_event_pipeline import plot_event_pipeline
path, out, ours, off, off_fil = sys.argv[1:6]
os.chdir(out)  # FindDoppler writes its .h5 copy of the .fil here
FindDoppler(path, max_drift=4.0, min_drift=1e-5, snr=10.0, out_dir=out, n_coarse_chan=4,
            log_level_int=logging.WARNING).search()
table = read_dat(ours)
events = find_events([ours, off], filter_threshold=3, on_off_first='ON')
# find_event_pipeline and plot_event_pipeline on our tables, with the FBH5 copies of
# the files they name (File ID), one event plotted
Waterfall(off_fil).write_to_hdf5(os.path.join(out, 'off.h5'))
with open('dats.lst', 'w') as f:
    f.write(ours + '\n' + off + '\n')
with open('h5s.lst', 'w') as f:
    f.write(os.path.join(out, 'injected.h5') + '\n' + os.path.join(out, 'off.h5') + '\n')
found = find_event_pipeline('dats.lst', 'h5s.lst', filter_threshold=3, number_in_cadence=2,
                            csv_name='events_ours_f3.csv', sortby_tstart=False)
pandas.read_csv('events_ours_f3.csv')[:1].to_csv('one_event_f3.csv')
plot_event_pipeline('one_event_f3.csv', 'h5s.lst', sortby_tstart=False, plot_dir=out + '/')  # prefixed as is
print(json.dumps({"read": {k: [float(v) for v in table[k]] for k in ("DriftRate", "SNR", "Freq")},
                  "events": 0 if events is None else len(events),
                  "pipeline_events": len(found), "pngs": len([n for n in os.listdir(out) if n.endswith('.png')])}))
"""


class qa_search(blade_testing.FileTestCase, gr_unittest.TestCase):
    def search(self, *args, expect=0):
        code, out, err = blade_testing.run_cli_main("search", "--device", "cpu", "--output", self.dir, *args)
        self.assertEqual(code, expect, out + err)
        return out, err

    def test_injected_tones_found_at_their_frequency_and_drift_and_nothing_else(self):
        path = self.path("injected.fil")
        write_fil(path, injected())
        out, _ = self.search(path, "--nfpc", NFPC)
        self.assertRegex(out, r"injected.fil: 8 hits; 1 x 16 spectra x 16384 channels \(4 coarse\)")
        self.assertIn("real-time factor", out)
        _, rows = hit_tables.read_dat(self.path("injected.dat"))
        for tone in TONES:
            found = [r for r in rows if matches(r, tone)]
            self.assertEqual(len(found), 1, f"tone {tone}: {rows}")
            # A path collects one of the two channels a tone is split between in each
            # spectrum: 50 to 100 % of its power (turbo_seti the same).
            self.assertGreater(found[0].snr, 10.0)
        self.assertEqual(len(rows), len(TONES), "false hits")
        zero = [r for r in rows if matches(r, TONES[2])][0]
        self.assertEqual(zero.drift_rate, 0.0)

    def test_same_hits_and_header_as_turbo_seti_which_reads_our_dat(self):
        path, off = self.path("injected.fil"), self.path("off.fil")
        write_fil(path, injected())
        write_fil(off, injected(seed=7, tones=[]))
        os.makedirs(self.path("ours"))
        os.makedirs(self.path("theirs"))
        code, out, err = blade_testing.run_cli_main(
            "search", "--device", "cpu", "--output", self.path("ours"), path, off, "--nfpc", NFPC, "--min-drift", 1e-5
        )
        self.assertEqual(code, 0, out + err)
        ours_dat = self.path("ours/injected.dat")
        result = blade_testing.run_in_reader_venv(
            self, "turbo_seti", TURBO_SETI, path, self.path("theirs"), ours_dat, self.path("ours/off.dat"), off
        )
        self.assertEqual(result["pipeline_events"], 8)  # find_event_pipeline: every ON hit
        self.assertEqual(result["pngs"], 1)  # plot_event_pipeline drew the one event kept
        # blimpy's FBH5 (bitshuffle-compressed): searched where the filter is installed,
        # else one line that says which package provides it
        code, out, err = blade_testing.run_cli_main(
            "search", self.path("theirs/off.h5"), "--nfpc", NFPC, "--output", self.path("theirs"), "--device", "cpu"
        )
        if code == 0:
            self.assertIn("off.h5: 0 hits", out)
        else:
            self.assertEqual((code, err.count("\n")), (1, 1), err)
            self.assertIn("off.h5: its data cannot be read", err)
            self.assertIn("hdf5-filter-plugin", err)
        with open(ours_dat) as f:
            ours_lines = f.readlines()
        with open(self.path("theirs/injected.dat")) as f:
            theirs_lines = f.readlines()
        self.assertEqual(ours_lines[:9], theirs_lines[:9])
        _, ours = hit_tables.read_dat(ours_dat)
        _, theirs = hit_tables.read_dat(self.path("theirs/injected.dat"))

        def documented(row):  # searched differently by design (docs/dedoppler.md)
            # turbo_seti rolls drift blocks around each coarse channel: the tone that
            # leaves coarse channel 2 at its top edge also shows at the top of 3.
            wrapped = (EDGE_CROSSING[0] + 1, EDGE_CROSSING[1])
            return any(
                abs(row.frequency - tone_frequency(t)) <= 2 * FOFF_HZ * 1e-6
                for t in (EDGE_CROSSING, BEYOND_TURBO_SETI, wrapped)
            )

        for row in theirs:
            if not documented(row):
                self.assertTrue(any(same_hit(o, row) for o in ours), f"turbo_seti's {row} not ours: {ours}")
        for row in ours:
            if not documented(row):
                self.assertTrue(any(same_hit(row, t) for t in theirs), f"our {row} not turbo_seti's: {theirs}")
        matched = [r for r in ours if not documented(r)]
        self.assertEqual(len(matched), len(TONES) - 2)
        self.assertTrue(any(matches(r, BEYOND_TURBO_SETI) for r in ours))
        # turbo_seti's reader takes our table as written
        self.assertEqual(result["read"]["Freq"], [r.frequency for r in ours])
        self.assertEqual(result["read"]["DriftRate"], [r.drift_rate for r in ours])
        self.assertEqual(result["read"]["SNR"], [r.snr for r in ours])
        self.assertEqual(result["events"], len(ours))  # no hit in the OFF file: all are events

    def test_fbh5_and_a_reversed_band_give_the_same_hits(self):
        import h5py

        data = injected()
        write_fil(self.path("a.fil"), data)
        with h5py.File(self.path("b.h5"), "w") as f:
            dataset = f.create_dataset("data", data=data[:, None, :])
            for key, value in fil_fields(data.shape[1]):
                dataset.attrs[key] = value.encode() if isinstance(value, str) else value
            dataset.attrs["src_raj"] = 12 + 34 / 60 + 56.78 / 3600
            dataset.attrs["src_dej"] = -(30 + 15 / 60 + 0.5 / 3600)
            dataset.attrs["nfpc"] = NFPC
        top = FCH1_MHZ + (data.shape[1] - 1) * FOFF_HZ * 1e-6
        write_fil(self.path("c.fil"), data[:, ::-1], fch1=top, foff_mhz=-FOFF_HZ * 1e-6)
        self.search(self.path("a.fil"), self.path("b.h5"), self.path("c.fil"), "--nfpc", NFPC, "--format", "dat")
        a_obs, a = hit_tables.read_dat(self.path("a.dat"))
        b_obs, b = hit_tables.read_dat(self.path("b.dat"))
        _, c = hit_tables.read_dat(self.path("c.dat"))
        self.assertEqual((a_obs.file_id, b_obs.file_id), ("a.h5", "b.h5"))
        b_obs.file_id = a_obs.file_id
        self.assertEqual(a_obs, b_obs)
        self.assertEqual(a_obs.ra, "12h34m56.78s")
        self.assertEqual(a_obs.dec, "-30d15m00.5s")
        self.assertEqual(a, b)
        # Reversed: the same tones, drifting the same way in frequency; the search
        # runs the other way along the channels, so SNRs agree to the tree's paths.
        self.assertEqual(len(c), len(TONES))
        for tone in TONES:
            self.assertTrue(any(matches(r, tone) for r in c), f"{tone}: {c}")

    def test_windows_and_csv(self):
        path = self.path("long.fil")
        data = numpy.concatenate([injected(), injected(seed=3, tones=TONES[:2])])
        write_fil(path, data)
        out, _ = self.search(path, "--nfpc", NFPC, "--window", 16, "--max-drift", 2)
        self.assertIn("2 x 16 spectra", out)
        _, first = hit_tables.read_dat(self.path("long.w0000.dat"))
        second_obs, second = hit_tables.read_dat(self.path("long.w0001.dat"))
        self.assertAlmostEqual(second_obs.mjd, 60000.25 + 16 * TSAMP_S / 86400, places=9)
        self.assertEqual(len(second), 2)
        with open(self.path("long.w0000.csv")) as f:
            table = list(csv.DictReader(f))
        self.assertEqual(len(table), len(first))
        for row, dat in zip(table, first):
            self.assertAlmostEqual(float(row["Uncorrected_Frequency"]), dat.frequency, places=6)
            self.assertAlmostEqual(float(row["Drift_Rate"]), dat.drift_rate, places=6)
            self.assertAlmostEqual(float(row["SNR"]), dat.snr, places=5)
            self.assertEqual(int(row["Index"]), dat.index)
            self.assertEqual(row["source"], "INJECTED")

    def test_groups_of_coarse_channels_when_a_window_exceeds_memory(self):
        path = self.path("injected.fil")
        write_fil(path, injected())
        self.search(path, "--nfpc", NFPC, "--format", "dat")
        os.rename(self.path("injected.dat"), self.path("whole.dat"))
        _, err = self.search(path, "--nfpc", NFPC, "--format", "dat", "--memory", 0.0003)  # 315 kB: 1 coarse channel
        self.assertIn("4 groups of coarse channels per window", err)
        self.assertIn("coarse channels 3-3 of 4", err)
        _, whole = hit_tables.read_dat(self.path("whole.dat"))
        _, grouped = hit_tables.read_dat(self.path("injected.dat"))

        def away_from_the_edge(rows):  # the crossing tone's path is cut at the group's edge
            return [(r.frequency, r.drift_rate, r.snr) for r in rows if not matches(r, EDGE_CROSSING)]

        self.assertEqual(away_from_the_edge(grouped), away_from_the_edge(whole))
        self.assertEqual(len(away_from_the_edge(whole)), len(TONES) - 1)

    def test_bad_files_one_line_errors_and_no_table(self):
        def error(path, *fragments, args=()):
            out, err = self.search(path, *args, expect=1)
            lines = [line for line in err.splitlines() if line.strip()]
            self.assertEqual(len(lines), 1, err)
            self.assertRegex(lines[0], r"^blade-cli search: error: ")
            for fragment in fragments:
                self.assertIn(fragment, lines[0])

        error(self.path("missing.fil"), "missing.fil: no such file")
        with open(self.path("text.fil"), "w") as f:
            f.write("not a filterbank\n" * 10)
        error(self.path("text.fil"), "text.fil", "not a SIGPROC filterbank")
        data = injected()
        write_fil(self.path("eight.fil"), data, nbits=8)
        error(self.path("eight.fil"), "nbits 8")
        write_fil(self.path("good.fil"), data)
        error(self.path("good.fil"), "not whole coarse channels of 5000", args=("--nfpc", 5000))
        error(self.path("good.fil"), "16 spectra, fewer than --window 32", args=("--window", 32))
        error(self.path("good.fil"), "min-drift", args=("--min-drift", 2, "--max-drift", 1))
        with open(self.path("good.fil"), "rb") as f:
            head = f.read(300)
        with open(self.path("header.fil"), "wb") as f:
            f.write(head[:200])
        error(self.path("header.fil"), "header.fil")
        with open(self.path("h.h5"), "wb") as f:
            f.write(b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
        error(self.path("h.h5"), "h.h5", "not an HDF5 file")
        self.assertEqual([n for n in os.listdir(self.dir) if n.endswith((".dat", ".csv", ".part"))], [])
        # A cut last spectrum is ignored with a warning
        with open(self.path("good.fil"), "ab") as f:
            f.write(b"\0" * 100)
        out, err = self.search(self.path("good.fil"), "--nfpc", NFPC)
        self.assertIn("100 bytes after the last whole spectrum are ignored", err)


if __name__ == "__main__":
    gr_unittest.run(qa_search)
