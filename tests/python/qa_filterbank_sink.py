#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
filterbank_sink: .fil and .h5 files checked against the format definitions
(parsed here with numpy and h5py), then opened by blimpy, your and sigpyproc, which
must see the same data, frequencies fch1 + j*foff and times tstart + i*tsamp.
"""

import math
import os
import signal
import struct
import subprocess
import sys
import time

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

import blade_testing
from gnuradio import blade

START = 1_700_000_000.25
TSAMP = 2e-6 * 8 * 4  # after a channelizer of 8 and 4 spectra integrated
FREQ_FIRST = 1421.0e6 - 0.5e6 / 2 + 0.5e6 / 16  # fine channel 0 of the coarse channel at 1421 MHz
CHAN_BW = -0.5e6 / 8
RA = (13 + 31 / 60 + 8.288 / 3600) * math.pi / 12
DEC = -(30 + 30 / 60 + 32.96 / 3600) * math.pi / 180

INT_KEYS = {
    "telescope_id",
    "machine_id",
    "data_type",
    "nbits",
    "nchans",
    "nifs",
    "nbeams",
    "ibeam",
    "barycentric",
    "pulsarcentric",
    "nsamples",
}
STRING_KEYS = {"source_name", "rawdatafile"}


def parse_fil(path):
    """A SIGPROC filterbank file parsed from its definition: (header dict, data [T, nifs, F])."""
    with open(path, "rb") as handle:
        raw = handle.read()
    offset = 0

    def string():
        nonlocal offset
        (length,) = struct.unpack_from("<i", raw, offset)
        text = raw[offset + 4 : offset + 4 + length].decode("ascii")
        offset += 4 + length
        return text

    assert string() == "HEADER_START"
    header = {}
    while True:
        key = string()
        if key == "HEADER_END":
            break
        if key in STRING_KEYS:
            header[key] = string()
        elif key in INT_KEYS:
            header[key] = struct.unpack_from("<i", raw, offset)[0]
            offset += 4
        else:
            header[key] = struct.unpack_from("<d", raw, offset)[0]
            offset += 8
    header["header_bytes"] = offset
    data = numpy.frombuffer(raw[offset:], "<f4")
    return header, data.reshape(-1, header["nifs"], header["nchans"])


def beam_identities(count):
    """(name, ra, dec) of `count` beams: the first at the source (RA, DEC), the others
    named beamN and offset in RA, so a file given another beam's position shows."""
    return [("3C286" if b == 0 else f"beam{b}", RA + 0.01 * b, DEC) for b in range(count)]


def beams_tag_value(identities, boresight=(RA, DEC)):
    """The blade_beams tag value (what blade.phasor attaches) for (name, ra, dec) rows."""
    names = pmt.make_vector(len(identities), pmt.PMT_NIL)
    for b, (name, _, _) in enumerate(identities):
        pmt.vector_set(names, b, pmt.intern(name))
    value = pmt.make_dict()
    value = pmt.dict_add(value, pmt.intern("names"), names)
    value = pmt.dict_add(value, pmt.intern("ra"), pmt.init_f64vector(len(identities), [r for _, r, _ in identities]))
    value = pmt.dict_add(value, pmt.intern("dec"), pmt.init_f64vector(len(identities), [d for _, _, d in identities]))
    return pmt.dict_add(value, pmt.intern("boresight"), pmt.init_f64vector(2, list(boresight)))


def observation_tags(aspect="beam", nfpc=8, beams=1):
    """Tags of a chunk as gr-blade's blocks make them; beams of aspect "beam" are
    identified (blade_beams) unless beams is 0."""

    def tag(key, value):
        return gr.tag_utils.python_to_tag((0, pmt.intern(key), value))

    identity = [tag(blade.tag.beams, beams_tag_value(beam_identities(beams)))] if aspect == "beam" and beams else []
    return identity + [
        tag(blade.tag.time_start_unix, pmt.from_double(START)),
        tag(blade.tag.tsamp, pmt.from_double(TSAMP)),
        tag(blade.tag.freq_first, pmt.from_double(FREQ_FIRST)),
        tag(blade.tag.chan_bw, pmt.from_double(CHAN_BW)),
        tag(blade.tag.nfpc, pmt.from_long(nfpc)),
        tag(blade.tag.source_name, pmt.intern("3C286")),
        tag(blade.tag.telescope, pmt.intern("ATA")),
        tag(blade.tag.ra, pmt.from_double(RA)),
        tag(blade.tag.dec, pmt.from_double(DEC)),
        tag(blade.tag.aspect, pmt.intern(aspect)),
    ]


def expected_spectra(chunks, beam):
    """chunks [n, B, F, T, P] -> the file's spectra [n*T, P, F] of one beam."""
    per_beam = numpy.concatenate(list(chunks[:, beam]), axis=1)  # [F, n*T, P]
    return per_beam.transpose(1, 2, 0)


READ_FIL = """
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy
path, nifs = sys.argv[1], int(sys.argv[2])
out = {}
from blimpy import Waterfall
wf = Waterfall(path)
out["blimpy"] = {"freqs": [float(f) for f in wf.get_freqs()], "tstart": float(wf.header["tstart"]),
                 "tsamp": float(wf.header["tsamp"]), "data": wf.data.astype(float).tolist(),
                 "source": str(wf.header["source_name"]), "nifs": int(wf.header["nifs"])}
if nifs in (1, 4):
    from your import Your
    y = Your(path)
    h = y.your_header
    data = y.get_data(0, h.nspectra, npoln=nifs)
    out["your"] = {"fch1": float(h.fch1), "foff": float(h.foff), "tstart": float(h.tstart),
                   "tsamp": float(h.tsamp), "nchans": int(h.nchans), "nspectra": int(h.nspectra),
                   "data": numpy.asarray(data, float).tolist(), "source": str(h.source_name)}
print(json.dumps(out))
"""

READ_FIL_SIGPYPROC = """
import json, sys
from sigpyproc.readers import FilReader
f = FilReader(sys.argv[1])
h = f.header
block = f.read_block(0, h.nsamples)
print(json.dumps({"freqs": [float(x) for x in h.chan_freqs], "fch1": float(h.fch1), "foff": float(h.foff),
                  "tstart": float(h.tstart), "tsamp": float(h.tsamp), "nsamples": int(h.nsamples),
                  "data": block.data.astype(float).tolist(), "source": h.source}))
"""

READ_H5_BLIMPY = """
import json, sys, warnings
warnings.simplefilter("ignore")
from blimpy import Waterfall
wf = Waterfall(sys.argv[1])
print(json.dumps({"freqs": [float(f) for f in wf.get_freqs()], "tstart": float(wf.header["tstart"]),
                  "tsamp": float(wf.header["tsamp"]), "data": wf.data.astype(float).tolist(),
                  "nfpc": int(wf.header["nfpc"]), "ra_hours": float(wf.header["src_raj"].hour)}))
"""

READ_H5_SIGPYPROC = """
import json, sys
from sigpyproc.header import Header
h = Header.from_fbh5(sys.argv[1])
print(json.dumps({"freqs": [float(x) for x in h.chan_freqs], "fch1": float(h.fch1), "foff": float(h.foff),
                  "tstart": float(h.tstart), "tsamp": float(h.tsamp), "nsamples": int(h.nsamples),
                  "nchans": int(h.nchans)}))
"""


class qa_filterbank_sink(blade_testing.FileTestCase, gr_unittest.TestCase):
    seed = 99

    def chunks(self, n, shape):
        return self.rng.uniform(0, 1000, (n, *shape)).astype(numpy.float32)

    def write(self, chunks, fmt="fil", tags=None, aspect="auto", overrides=None, file_overrides=None, **values):
        shape = list(chunks.shape[1:])
        sink = blade.filterbank_sink(
            self.path("obs"), shape, fmt, aspect, overrides or {}, file_overrides or [], **values
        )
        tb = gr.top_block()
        items = blade.pack(chunks, "f32")
        source = blocks.vector_source_b(
            items.tolist(), False, sink.input_item_size(), observation_tags(beams=shape[0]) if tags is None else tags
        )
        tb.connect(source, sink)
        tb.run()
        return sink

    def expected_axes(self, nchans, nspectra):
        fch1, foff = FREQ_FIRST / 1e6, CHAN_BW / 1e6
        tstart = START / 86400 + 40587
        return fch1, foff, tstart, fch1 + foff * numpy.arange(nchans), tstart + TSAMP * numpy.arange(nspectra) / 86400

    def test_stokes_i_fil_one_file_per_beam(self):
        chunks = self.chunks(3, [2, 5, 4, 1])
        sink = self.write(chunks)
        self.assertEqual(sink.files(), [self.path("obs.beam0000.fil"), self.path("obs.beam0001.fil")])
        self.assertEqual(sink.spectra_written(), 12)
        fch1, foff, tstart, _, _ = self.expected_axes(5, 12)
        # Each beam's name and position from the blade_beams tag: beam 1 is 0.01 rad
        # (2.292 min of RA) east of beam 0.
        names, raj = ["3C286", "beam1"], [133108.288, 133325.79787]
        for beam, path in enumerate(sink.files()):
            header, data = parse_fil(path)
            self.assertEqual(header["fch1"], fch1)
            self.assertEqual(header["foff"], foff)
            self.assertEqual(header["tstart"], tstart)
            self.assertEqual(header["tsamp"], TSAMP)
            self.assertEqual((header["nchans"], header["nifs"], header["nbits"]), (5, 1, 32))
            self.assertEqual((header["nbeams"], header["ibeam"]), (2, beam))
            self.assertEqual((header["telescope_id"], header["data_type"]), (9, 1))
            self.assertEqual(header["source_name"], names[beam])
            # packed hhmmss.s / ddmmss.s
            self.assertAlmostEqual(header["src_raj"], raj[beam], delta=1e-3)
            self.assertAlmostEqual(header["src_dej"], -303032.96, delta=1e-6)
            numpy.testing.assert_array_equal(data, expected_spectra(chunks, beam))
            self.assertEqual(
                set(header) - {"header_bytes"},
                {
                    "telescope_id",
                    "machine_id",
                    "data_type",
                    "source_name",
                    "src_raj",
                    "src_dej",
                    "tstart",
                    "tsamp",
                    "nbits",
                    "fch1",
                    "foff",
                    "nchans",
                    "nifs",
                    "nbeams",
                    "ibeam",
                },
            )

    def test_fbh5_structure_and_values(self):
        import h5py

        chunks = self.chunks(2, [1, 6, 3, 4])
        sink = self.write(chunks, "h5", aspect="antenna")
        (path,) = sink.files()
        self.assertEqual(path, self.path("obs.ant0000.h5"))
        fch1, foff, tstart, _, _ = self.expected_axes(6, 6)
        with h5py.File(path, "r") as f:
            self.assertEqual(f.attrs["CLASS"], b"FILTERBANK")
            self.assertEqual(f.attrs["VERSION"], b"1.0")
            data = f["data"]
            self.assertEqual(data.shape, (6, 4, 6))
            self.assertEqual(data.dtype, numpy.float32)
            self.assertEqual(data.maxshape, (None, 4, 6))
            self.assertEqual([d.label for d in data.dims], ["time", "feed_id", "frequency"])
            numpy.testing.assert_array_equal(data[...], expected_spectra(chunks, 0))
            a = data.attrs
            self.assertEqual((a["fch1"], a["foff"], a["tstart"], a["tsamp"]), (fch1, foff, tstart, TSAMP))
            self.assertEqual((a["nchans"], a["nifs"], a["nbits"], a["nfpc"], a["telescope_id"]), (6, 4, 32, 8, 9))
            self.assertAlmostEqual(a["src_raj"], RA * 12 / math.pi, delta=1e-12)  # hours
            self.assertAlmostEqual(a["src_dej"], DEC * 180 / math.pi, delta=1e-12)  # degrees
            self.assertEqual(a["source_name"], b"3C286")

    def test_aspect_from_tags_and_overrides(self):
        chunks = self.chunks(1, [1, 4, 2, 1])
        sink = self.write(chunks, tags=observation_tags(aspect="antenna"))
        self.assertEqual(sink.files(), [self.path("obs.ant0000.fil")])
        # no tags at all: overrides give the axes
        sink = self.write(
            chunks,
            tags=[],
            aspect="beam",
            overrides={
                "fch1": 1400.5,
                "foff": -0.25,
                "tstart": 60000.5,
                "tsamp": 0.001,
                "source_name": "override",
                "telescope_id": 6,
            },
        )
        header, _ = parse_fil(sink.files()[0])
        self.assertEqual(
            (header["fch1"], header["foff"], header["tsamp"], header["telescope_id"]), (1400.5, -0.25, 0.001, 6)
        )
        self.assertAlmostEqual(header["tstart"], 60000.5, delta=1e-9)
        self.assertEqual(header["source_name"], "override")
        self.assertNotIn("src_raj", header)

    def test_beams_nobody_identified_claim_no_position(self):
        # Beamformed data (aspect "beam") without the blade_beams tag that says where
        # each beam points: the boresight (blade_ra, blade_dec) is not theirs, so the
        # files get no src_raj/src_dej, unless file_overrides give them.
        chunks = self.chunks(1, [2, 4, 2, 1])
        sink = self.write(chunks, tags=observation_tags(beams=0))
        for path in sink.files():
            header, _ = parse_fil(path)
            self.assertNotIn("src_raj", header)
            self.assertEqual(header["source_name"], "3C286")
        sink = self.write(
            chunks,
            tags=observation_tags(beams=0),
            file_overrides=[
                {"source_name": "A", "ra": "1.0", "dec": "0.5"},
                {"source_name": "B", "ra": "1.1", "dec": "0.5"},
            ],
        )
        headers = [parse_fil(path)[0] for path in sink.files()]
        self.assertEqual([h["source_name"] for h in headers], ["A", "B"])
        self.assertNotEqual(headers[0]["src_raj"], headers[1]["src_raj"])
        # Antennas all point at the boresight: they keep it.
        sink = self.write(chunks, tags=observation_tags(aspect="antenna"))
        self.assertAlmostEqual(parse_fil(sink.files()[0])[0]["src_raj"], 133108.288, delta=1e-6)

    def test_missing_tags_end_the_flowgraph_with_a_failure(self):
        self.write(self.chunks(2, [1, 4, 2, 1]), tags=[])
        failures = blade.failures()
        self.assertEqual(len(failures), 1)
        self.assertIn("blade_tsamp", failures[0])
        self.assertIn("blade_time_start_unix", failures[0])

    def test_if_scales_multiply_each_if(self):
        # rawspec's Stokes from ours: U and V halved (and the 8-bit 1/127^2 for all).
        chunks = self.chunks(2, [2, 3, 4, 4])
        scales = [1 / 127**2, 1 / 127**2, 0.5 / 127**2, -0.5 / 127**2]
        sink = self.write(chunks, tags=observation_tags(beams=2), if_scales=scales)
        for beam, path in enumerate(sink.files()):
            _, data = parse_fil(path)
            expected = expected_spectra(chunks, beam).astype(numpy.float64) * numpy.array(scales)[None, :, None]
            numpy.testing.assert_allclose(data, expected, rtol=1e-6)
        one = self.write(chunks[:, :, :, :, :1], tags=observation_tags(beams=2), if_scales=[3.0])
        numpy.testing.assert_allclose(
            parse_fil(one.files()[1])[1], 3.0 * expected_spectra(chunks[..., :1], 1), rtol=1e-7
        )

    def test_aspect_weights_write_one_weighted_sum(self):
        # rawspec's -i: the antennas' power summed with weights, into one file.
        chunks = self.chunks(3, [3, 5, 2, 4])
        weights = [0.5, 2.0, -1.0]
        sink = self.write(
            chunks,
            tags=observation_tags(aspect="antenna", beams=3),
            aspect="antenna",
            overrides={"nbeams": 1, "ibeam": -1},
            file_overrides=[{"path": self.path("obs-ics.rawspec.0000.fil")}],
            aspect_weights=weights,
        )
        self.assertEqual(sink.files(), [self.path("obs-ics.rawspec.0000.fil")])
        header, data = parse_fil(sink.files()[0])
        self.assertEqual((header["nbeams"], header["ibeam"], header["nchans"], header["nifs"]), (1, -1, 5, 4))
        expected = sum(w * expected_spectra(chunks, b).astype(numpy.float64) for b, w in enumerate(weights))
        numpy.testing.assert_allclose(data, expected, rtol=1e-6, atol=1e-4)
        self.assertEqual(sink.spectra_written(), 6)

    def test_bad_configurations(self):
        with self.assertRaisesRegex(ValueError, "if_scales: 3 factors for 4 IFs"):
            blade.filterbank_sink(self.path("x"), [1, 4, 4, 4], if_scales=[1, 2, 3])
        with self.assertRaisesRegex(ValueError, "aspect_weights: 1 weights for 2 aspects"):
            blade.filterbank_sink(self.path("x"), [2, 4, 4, 1], aspect_weights=[1.0])
        with self.assertRaisesRegex(ValueError, "path names one file"):
            blade.filterbank_sink(self.path("x"), [1, 4, 4, 1], overrides={"path": "y.fil"})
        with self.assertRaisesRegex(ValueError, "fewer than 3 channels"):
            blade.filterbank_sink(self.path("x"), [1, 2, 4, 1], "h5")
        with self.assertRaisesRegex(ValueError, "unknown key 'nsamples'"):
            blade.filterbank_sink(self.path("x"), [1, 4, 4, 1], overrides={"nsamples": 3})
        with self.assertRaisesRegex(ValueError, "not a number"):
            blade.filterbank_sink(self.path("x"), [1, 4, 4, 1], overrides={"fch1": "high"})
        with self.assertRaisesRegex(ValueError, '"fil" nor "h5"'):
            blade.filterbank_sink(self.path("x"), [1, 4, 4, 1], "fits")
        with self.assertRaisesRegex(ValueError, "B, F, T, P"):
            blade.filterbank_sink(self.path("x"), [4, 4, 1])
        with self.assertRaisesRegex(RuntimeError, "cannot write files"):
            blade.filterbank_sink(self.path("absent/x"), [1, 4, 4, 1])

    def test_fbh5_with_two_spectra_is_still_readable(self):
        import h5py

        sink = self.write(self.chunks(1, [1, 4, 2, 1]), "h5")
        with h5py.File(sink.files()[0], "r") as f:
            self.assertEqual(f["data"].shape, (2, 1, 4))

    # --- third-party readers ----------------------------------------------------------

    def check_axes(self, freqs, tstart, tsamp, nchans, rtol=0.0):
        fch1, foff, want_tstart, want_freqs, _ = self.expected_axes(nchans, 1)
        numpy.testing.assert_allclose(freqs, want_freqs, rtol=rtol, atol=0)
        self.assertEqual(tstart, want_tstart)
        self.assertEqual(tsamp, TSAMP)

    def test_blimpy_and_your_read_fil(self):
        for nifs in (1, 4, 2):
            chunks = self.chunks(2, [1, 7, 3, nifs])
            (path,) = self.write(chunks).files()
            want = expected_spectra(chunks, 0)  # [T, P, F]
            got = blade_testing.run_in_reader_venv(self, "blimpy", READ_FIL, path, nifs)
            b = got["blimpy"]
            # blimpy lists frequencies fch1 + j*foff computed in float64
            self.check_axes(b["freqs"], b["tstart"], b["tsamp"], 7, rtol=1e-15)
            numpy.testing.assert_array_equal(numpy.array(b["data"], numpy.float32), want)
            self.assertEqual((b["source"], b["nifs"]), ("3C286", nifs))
            if nifs == 2:
                self.assertNotIn("your", got)  # your reads 1 or 4 IFs only
                continue
            y = got["your"]
            self.assertEqual(
                (y["fch1"], y["foff"], y["tstart"], y["tsamp"]),
                self.expected_axes(7, 1)[:2] + (START / 86400 + 40587, TSAMP),
            )
            self.assertEqual((y["nchans"], y["nspectra"], y["source"]), (7, 6, "3C286"))
            numpy.testing.assert_array_equal(numpy.array(y["data"], numpy.float32), want[:, 0] if nifs == 1 else want)

    def test_sigpyproc_reads_fil(self):
        chunks = self.chunks(3, [1, 9, 2, 1])
        (path,) = self.write(chunks).files()
        got = blade_testing.run_in_reader_venv(self, "sigpyproc", READ_FIL_SIGPYPROC, path)
        # sigpyproc computes channel frequencies in float32
        self.check_axes(got["freqs"], got["tstart"], got["tsamp"], 9, rtol=1e-7)
        self.assertEqual((got["fch1"], got["foff"]), self.expected_axes(9, 1)[:2])
        self.assertEqual((got["nsamples"], got["source"]), (6, "3C286"))
        numpy.testing.assert_array_equal(numpy.array(got["data"], numpy.float32), expected_spectra(chunks, 0)[:, 0].T)

    def test_blimpy_and_sigpyproc_read_fbh5(self):
        chunks = self.chunks(2, [1, 5, 2, 1])
        (path,) = self.write(chunks, "h5").files()
        b = blade_testing.run_in_reader_venv(self, "blimpy", READ_H5_BLIMPY, path)
        self.check_axes(b["freqs"], b["tstart"], b["tsamp"], 5, rtol=1e-15)
        numpy.testing.assert_array_equal(numpy.array(b["data"], numpy.float32), expected_spectra(chunks, 0))
        self.assertEqual(b["nfpc"], 8)
        self.assertAlmostEqual(b["ra_hours"], RA * 12 / math.pi, delta=1e-9)
        s = blade_testing.run_in_reader_venv(self, "sigpyproc", READ_H5_SIGPYPROC, path)
        self.check_axes(s["freqs"], s["tstart"], s["tsamp"], 5, rtol=1e-7)
        self.assertEqual((s["nchans"], s["nsamples"]), (5, 4))

    # --- interrupted recordings ------------------------------------------------------

    def run_endless(self, fmt, how):
        """Run a child flowgraph writing forever; interrupt it with `how`; return its files."""
        script = f"""
import signal, sys, time
import numpy, pmt
from gnuradio import blocks, gr
from gnuradio import blade
sys.path.insert(0, {os.path.dirname(__file__)!r})
import qa_filterbank_sink as q
shape = [2, 4, 3, 1]
sink = blade.filterbank_sink({self.path("run")!r}, shape, {fmt!r})
items = blade.pack(numpy.ones([4] + shape, numpy.float32), "f32")
source = blocks.vector_source_b(items.tolist(), True, sink.input_item_size(), q.observation_tags())
throttle = blocks.throttle(sink.input_item_size(), 50)
tb = gr.top_block()
tb.connect(source, throttle, sink)
if {how!r} == "handler":
    def stop(*_):
        tb.stop()
        tb.wait()
        sys.exit(0)
    signal.signal(signal.SIGINT, stop)
tb.start()
print("running", flush=True)
tb.wait()
"""
        child = subprocess.Popen(
            [sys.executable, "-c", script],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        )
        child.stdout.readline()
        time.sleep(1.0)
        child.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
        child.communicate(timeout=60)
        return sorted(p for p in os.listdir(self.dir) if p.startswith("run."))

    def assert_complete_fil(self, path):
        header, data = parse_fil(path)
        size = os.path.getsize(path) - header["header_bytes"]
        self.assertEqual(size % (4 * 4), 0)  # whole spectra of 4 channels
        self.assertGreater(data.shape[0], 3)
        self.assertTrue(numpy.all(data == 1))

    def assert_complete_h5(self, path):
        import h5py

        with h5py.File(path, "r") as f:
            data = f["data"][...]
            self.assertGreater(data.shape[0], 3)
            self.assertTrue(numpy.all(data == 1))
            self.assertEqual(f["data"].attrs["nchans"], 4)

    def test_ctrl_c_leaves_complete_files(self):
        for fmt in ("fil", "h5"):
            for how in ("handler", "plain"):
                files = self.run_endless(fmt, how)
                self.assertEqual(files, [f"run.beam0000.{fmt}", f"run.beam0001.{fmt}"], how)
                for name in files:
                    (self.assert_complete_fil if fmt == "fil" else self.assert_complete_h5)(self.path(name))
                    os.remove(self.path(name))

    def test_killed_writer_leaves_readable_files(self):
        # Between chunks everything is on disk: a kill -9 loses at most the chunk in flight.
        for fmt in ("fil", "h5"):
            files = self.run_endless(fmt, "kill")
            for name in files:
                (self.assert_complete_fil if fmt == "fil" else self.assert_complete_h5)(self.path(name))
                os.remove(self.path(name))


if __name__ == "__main__":
    gr_unittest.run(qa_filterbank_sink)
