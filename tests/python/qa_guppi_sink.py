#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
guppi_sink: files it writes are read back byte by byte here (numpy, from the
format's definition), by guppi_source (round trip), and by blimpy's GUPPI reader.
"""


import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

import blade_testing
from gnuradio import blade

SYNCTIME = 1_700_000_000
HEADER = {
    "OBSFREQ": 1420.0,
    "CHAN_BW": -0.5,
    "TBIN": 2e-6,
    "SYNCTIME": SYNCTIME,
    "SCHAN": 96,
    "DUT1": -0.125,
    "SRC_NAME": "3C286",
    "TELESCOP": "ATA",
    "RA_STR": "13:31:08.2880",
    "DEC_STR": "+30:30:32.960",
}


def parse_file(path):
    """[(cards as {key: text}, data bytes)] of a GUPPI RAW file, parsed here from the spec."""
    blocks_ = []
    with open(path, "rb") as handle:
        raw = handle.read()
    offset = 0
    while offset < len(raw):
        cards = {}
        while True:
            card = raw[offset : offset + 80].decode("ascii")
            offset += 80
            if card.startswith("END"):
                break
            cards[card[:8].strip()] = card[10:].strip().strip("'").strip()
        if int(cards["DIRECTIO"]):
            offset += -offset % 512
        size = int(cards["BLOCSIZE"])
        blocks_.append((cards, raw[offset : offset + size]))
        offset += size
        if int(cards["DIRECTIO"]):
            offset += -offset % 512
    return blocks_


def chunk_tags(start, tsamp=2e-6, freq_first=1420.75e6, chan_bw=-0.5e6):
    return [
        gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.time_start_unix), pmt.from_double(start))),
        gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.tsamp), pmt.from_double(tsamp))),
        gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.freq_first), pmt.from_double(freq_first))),
        gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.chan_bw), pmt.from_double(chan_bw))),
        gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.source_name), pmt.intern("J1234"))),
    ]


class qa_guppi_sink(blade_testing.FileTestCase, gr_unittest.TestCase):
    seed = 7

    def feed(self, sink, chunks, dtype, tags=()):
        tb = gr.top_block()
        items = blade.pack(chunks, dtype)
        source = blocks.vector_source_b(items.tolist(), False, sink.input_item_size(), list(tags))
        tb.connect(source, sink)
        tb.run()

    def read_back(self, path_or_stem, chunk, dtype="ci8"):
        source = blade.guppi_source(path_or_stem, chunk, dtype)
        tb = gr.top_block()
        sink = blocks.vector_sink_b(source.output_item_size())
        tb.connect(source, sink)
        tb.run()
        values = blade_testing.to_values(blade.unpack(sink.data(), source.output_shape(), dtype), dtype)
        return values, sink.tags()

    def test_round_trip_is_bit_exact(self):
        # generator -> guppi_source -> guppi_sink -> guppi_source: same samples, same axes
        data_blocks = blade.guppi.random_blocks(self.rng, 4, 2, 3, 16, 2)
        blade.guppi.write_raw(
            self.path("orig"), data_blocks, HEADER, blocks_per_file=3, pktidx=[64 + 16 * i for i in range(4)]
        )
        tb = gr.top_block()
        source = blade.guppi_source(self.path("orig"), 16, "ci8")
        sink = blade.guppi_sink(
            self.path("copy"),
            source.output_shape(),
            "ci8",
            blocks_per_file=2,
            header={"OBSID": "round trip", "AZ": 12.5},
        )
        tb.connect(source, sink)
        tb.run()
        self.assertEqual(sink.blocks_written(), 4)
        self.assertEqual(sink.files(), [self.path("copy.0000.raw"), self.path("copy.0001.raw")])
        original, original_tags = self.read_back(self.path("orig"), 16)
        copy, copy_tags = self.read_back(self.path("copy"), 16)
        numpy.testing.assert_array_equal(copy, original)
        # the data bytes of every block are identical
        copied = [data for f in sink.files() for _, data in parse_file(f)]
        originals = [data for f in blade.guppi.describe(self.path("orig"))["files"] for _, data in parse_file(f)]
        self.assertEqual(copied, originals)
        # time and frequency tags agree
        want = {(t.offset, pmt.symbol_to_string(t.key)): t.value for t in original_tags}
        for tag in copy_tags:
            key = pmt.symbol_to_string(tag.key)
            if key in (
                blade.tag.time_start_unix,
                blade.tag.jd_mid,
                blade.tag.freq_first,
                blade.tag.chan_bw,
                blade.tag.tsamp,
                blade.tag.coarse_first,
                blade.tag.dut1,
                blade.tag.ra,
                blade.tag.dec,
            ):
                self.assertAlmostEqual(pmt.to_python(tag.value), pmt.to_python(want[(tag.offset, key)]), delta=1e-9)
            if key in (blade.tag.source_name, blade.tag.telescope):
                self.assertEqual(pmt.symbol_to_string(tag.value), pmt.symbol_to_string(want[(tag.offset, key)]))
        # PKTIDX advances by NTIME from the first block, across files
        headers = [cards for f in sink.files() for cards, _ in parse_file(f)]
        self.assertEqual([int(c["PKTIDX"]) for c in headers], [64, 80, 96, 112])
        self.assertEqual({c["PIPERBLK"] for c in headers}, {"16"})
        self.assertEqual(headers[0]["OBSID"], "round trip")
        self.assertEqual(float(headers[0]["AZ"]), 12.5)
        self.assertEqual(int(headers[0]["SYNCTIME"]), SYNCTIME)

    def test_through_emulated_gpu_blocks(self):
        # host source -> (upload) cast ci8->cf32 -> cast cf32->ci8 (download) -> host sink:
        # the device buffers move the chunks and the tags through unchanged
        data_blocks = blade.guppi.random_blocks(self.rng, 3, 2, 2, 8, 2)
        blade.guppi.write_raw(self.path("dev.raw"), data_blocks, HEADER)
        source = blade.guppi_source(self.path("dev.raw"), 8, "ci8")
        shape = source.output_shape()
        up = blade.cast(shape, "ci8", "cf32", "emulated")
        down = blade.cast(shape, "cf32", "ci8", "emulated")
        sink = blade.guppi_sink(self.path("dev_copy"), shape, "ci8")
        tb = gr.top_block()
        tb.connect(source, up, down, sink)
        blade.reset_copy_stats()
        tb.run()
        self.assertEqual(blade.failures(), [])
        self.assertEqual(blade.copy_stats()["host_to_device"], 3)
        original, original_tags = self.read_back(self.path("dev.raw"), 8)
        copy, copy_tags = self.read_back(self.path("dev_copy"), 8)
        numpy.testing.assert_array_equal(copy, original)

        def starts(tags):
            return [pmt.to_double(t.value) for t in tags if pmt.symbol_to_string(t.key) == blade.tag.time_start_unix]

        numpy.testing.assert_allclose(starts(copy_tags), starts(original_tags), rtol=0, atol=1e-9)

    def test_requantization_rounds_and_saturates(self):
        # round(x * scale) to nearest even, saturated; the product in single precision
        shape = [1, 2, 8, 2]
        chunks = (self.rng.uniform(-300, 300, (2, *shape)) + 1j * self.rng.uniform(-300, 300, (2, *shape))).astype(
            numpy.complex64
        )
        chunks[0, 0, 0, 0, :] = [5 - 1000j, 7 + 1000j]  # ties 2.5 -> 2 and 3.5 -> 4; saturation
        sink = blade.guppi_sink(self.path("q"), shape, "cf32", "ci8", scale=0.5)
        self.feed(sink, chunks, "cf32", chunk_tags(SYNCTIME + 0.5))
        blocks_ = parse_file(self.path("q.0000.raw"))
        self.assertEqual(len(blocks_), 2)
        for b, (cards, data) in enumerate(blocks_):
            got = numpy.frombuffer(data, numpy.int8).reshape(*shape, 2)
            scaled = chunks[b] * numpy.float32(0.5)
            want = numpy.stack(
                [numpy.clip(numpy.rint(scaled.real), -128, 127), numpy.clip(numpy.rint(scaled.imag), -128, 127)], -1
            )
            numpy.testing.assert_array_equal(got, want)
            self.assertEqual(cards["NBITS"], "8")
            self.assertEqual(cards["DATATYPE"], "INTEGER")
        self.assertEqual(numpy.frombuffer(blocks_[0][1], numpy.int8)[:4].tolist(), [2, -128, 4, 127])

    def test_float_and_four_bit_files(self):
        shape = [2, 2, 4, 2]
        chunks = (self.rng.normal(0, 3, (3, *shape)) + 1j * self.rng.normal(0, 3, (3, *shape))).astype(numpy.complex64)
        sink = blade.guppi_sink(self.path("f"), shape, "cf32", "cf32")
        self.feed(sink, chunks, "cf32", chunk_tags(SYNCTIME))
        values, _ = self.read_back(self.path("f"), 4, "cf32")
        numpy.testing.assert_array_equal(values, chunks)
        cards = parse_file(self.path("f.0000.raw"))[0][0]
        self.assertEqual((cards["NBITS"], cards["DATATYPE"]), ("32", "FLOAT"))

        ints = blade.guppi.random_blocks(self.rng, 2, 2, 2, 4, 2, nbits=4)[:, ...]
        sink = blade.guppi_sink(self.path("n"), shape, "ci8", "ci4")
        self.feed(sink, blade_testing.from_values(ints, "ci8"), "ci8", chunk_tags(SYNCTIME))
        values, _ = self.read_back(self.path("n"), 4, "ci8")
        numpy.testing.assert_array_equal(values, ints)
        data = parse_file(self.path("n.0000.raw"))[0][1]
        self.assertEqual(len(data), 2 * 2 * 4 * 2)  # one byte per complex sample
        first = ints[0, 0, 0, 0, 0]
        self.assertEqual(data[0], ((int(first.real) & 0xF) << 4) | (int(first.imag) & 0xF))

    def test_directio_padding_and_blocks_that_span_chunks(self):
        shape = [1, 3, 10, 2]
        chunks = blade_testing.from_values(blade.guppi.random_blocks(self.rng, 3, 1, 3, 10, 2)[:, ...], "ci8")
        sink = blade.guppi_sink(self.path("d"), shape, "ci8", directio=True, block_samples=12)
        self.feed(sink, chunks, "ci8", chunk_tags(SYNCTIME + 1.25))
        with open(self.path("d.0000.raw"), "rb") as handle:
            raw = handle.read()
        blocks_ = parse_file(self.path("d.0000.raw"))
        self.assertEqual(len(blocks_), 2)  # 30 samples: two blocks of 12, 6 dropped
        header_bytes = raw.index(b"END") + 80
        self.assertEqual(header_bytes % 80, 0)
        data_offset = header_bytes + (-header_bytes % 512)
        self.assertTrue(raw[header_bytes:data_offset].strip(b" ") == b"")
        self.assertEqual(len(raw) % 512, 0)
        stream = numpy.concatenate(list(blade_testing.to_values(chunks, "ci8")), axis=2)
        for b, (cards, data) in enumerate(blocks_):
            got = blade_testing.to_values(numpy.frombuffer(data, numpy.int8).reshape(1, 3, 12, 2, 2), "ci8")
            numpy.testing.assert_array_equal(got, stream[:, :, 12 * b : 12 * (b + 1)])
        # time: SYNCTIME + PKTIDX * TBIN (PIPERBLK = NTIME) gives the first sample back
        cards = blocks_[0][0]
        self.assertEqual(int(cards["SYNCTIME"]), SYNCTIME + 1)
        self.assertEqual(int(cards["PKTIDX"]), 125000)
        self.assertEqual(int(blocks_[1][0]["PKTIDX"]), 125012)
        self.assertAlmostEqual(float(cards["OBSFREQ"]), 1420.75 - 1 * 0.5, delta=1e-12)  # centre of 3 channels
        self.assertEqual(cards["SRC_NAME"], "J1234")

    def test_fractional_start_time_is_kept(self):
        sink = blade.guppi_sink(self.path("t"), [1, 1, 4, 1], "ci8")
        start = SYNCTIME + 0.3333333
        self.feed(sink, numpy.zeros((1, 1, 1, 4, 1, 2), numpy.int8), "ci8", chunk_tags(start, tsamp=1e-3))
        _, tags = self.read_back(self.path("t"), 4)
        got = [pmt.to_double(t.value) for t in tags if pmt.symbol_to_string(t.key) == blade.tag.time_start_unix]
        self.assertAlmostEqual(got[0], start, delta=1e-6)

    def test_bad_configurations(self):
        with self.assertRaisesRegex(ValueError, "BLOCSIZE is derived"):
            blade.guppi_sink(self.path("x"), [1, 1, 4, 1], header={"BLOCSIZE": 5})
        with self.assertRaisesRegex(ValueError, "keyword 'TOOLONGKEY'"):
            blade.guppi_sink(self.path("x"), [1, 1, 4, 1], header={"TOOLONGKEY": 5})
        with self.assertRaisesRegex(ValueError, "ci8 \\(NBITS 8\\)"):
            blade.guppi_sink(self.path("x"), [1, 1, 4, 1], file_type="cf16")
        with self.assertRaisesRegex(RuntimeError, "cannot write files in .*missing/dir.*No such file"):
            blade.guppi_sink(self.path("missing/dir/x"), [1, 1, 4, 1])

    def test_missing_sample_time_is_a_run_time_failure(self):
        sink = blade.guppi_sink(self.path("m"), [1, 1, 4, 1])
        self.feed(sink, numpy.zeros((1, 1, 1, 4, 1, 2), numpy.int8), "ci8")
        self.assertEqual(len(blade.failures()), 1)
        self.assertIn("no blade_tsamp tag", blade.failures()[0])

    def test_blimpy_reads_our_headers_and_block_layout(self):
        shape = [2, 4, 32, 2]  # BLOCSIZE 1024: DIRECTIO-aligned, as blimpy expects
        chunks = blade_testing.from_values(blade.guppi.random_blocks(self.rng, 3, *shape)[:, ...], "ci8")
        sink = blade.guppi_sink(self.path("b"), shape, "ci8", directio=True, header={"OBSID": "blimpy"})
        self.feed(sink, chunks, "ci8", chunk_tags(SYNCTIME + 2))
        script = """
import json, sys
import numpy
from blimpy.guppi import GuppiRaw
raw = GuppiRaw(sys.argv[1])
blocks = raw.find_n_data_blocks()
raw.file_obj.seek(0)
headers, data = [], []
for _ in range(blocks):
    header, index = raw.read_header()
    raw.file_obj.seek(index)
    data.append(numpy.fromfile(raw.file_obj, dtype="int8", count=header["BLOCSIZE"]).tolist())
    keys = ("BLOCSIZE", "OBSNCHAN", "NPOL", "NBITS", "PKTIDX", "TBIN", "OBSFREQ", "OBSID")
    headers.append({k: header[k] for k in keys})
print(json.dumps({"blocks": blocks, "headers": headers, "data": data}))
"""
        result = blade_testing.run_in_reader_venv(self, "blimpy", script, self.path("b.0000.raw"))
        self.assertEqual(result["blocks"], 3)
        for b, header in enumerate(result["headers"]):
            self.assertEqual((header["BLOCSIZE"], header["OBSNCHAN"], header["NPOL"], header["NBITS"]), (1024, 8, 2, 8))
            self.assertEqual(header["PKTIDX"], 32 * b)  # SYNCTIME + 2 s is a whole second
            self.assertEqual(header["TBIN"], 2e-6)
            self.assertEqual(header["OBSID"], "blimpy")
            self.assertAlmostEqual(header["OBSFREQ"], 1420.75 - 1.5 * 0.5)
            self.assertEqual(result["data"][b], chunks[b].reshape(-1).tolist())


if __name__ == "__main__":
    gr_unittest.run(qa_guppi_sink)
