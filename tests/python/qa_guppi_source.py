#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
guppi_source against recordings written by numpy (blade.guppi.write_raw): the
samples and tags must be exactly the generator's, computed here from the spec
(docs/formats.md), and malformed files must fail with the file and byte offset.
"""

import math
import os

import numpy
from gnuradio import blocks, gr, gr_unittest

import blade_testing
from gnuradio import blade

SYNCTIME = 1_700_000_000
HEADER = {
    "OBSFREQ": 1420.0,
    "CHAN_BW": -0.5,
    "OBSBW": -2.5,
    "TBIN": 2e-6,
    "SYNCTIME": SYNCTIME,
    "SCHAN": 96,
    "DUT1": -0.125,
    "SRC_NAME": "3C286",
    "TELESCOP": "ATA",
    "RA_STR": "13:31:08.2880",
    "DEC_STR": "+30:30:32.960",
}
RA = (13 + 31 / 60 + 8.288 / 3600) * math.pi / 12
DEC = (30 + 30 / 60 + 32.96 / 3600) * math.pi / 180


def run_source(source, with_times=False):
    """Run source into vector sinks: (bytes of port 0, tags, chunk_time items or None)."""
    tb = gr.top_block()
    data = blocks.vector_sink_b(source.output_item_size())
    tb.connect((source, 0), data)
    times = None
    if with_times:
        times = blocks.vector_sink_b(blade.CHUNK_TIME_DTYPE.itemsize)
        tb.connect((source, 1), times)
    tb.run()
    items = numpy.array(times.data(), numpy.uint8).view(blade.CHUNK_TIME_DTYPE) if times else None
    return numpy.array(data.data(), numpy.uint8), data.tags(), items


def tags_by_item(tags):
    """{item offset: {key: python value}}."""
    import pmt

    table = {}
    for tag in tags:
        key = pmt.symbol_to_string(tag.key)
        value = tag.value
        if key == "rx_time":
            value = (pmt.to_uint64(pmt.tuple_ref(value, 0)), pmt.to_double(pmt.tuple_ref(value, 1)))
        elif pmt.is_symbol(value):
            value = pmt.symbol_to_string(value)
        else:
            value = pmt.to_python(value)
        table.setdefault(tag.offset, {})[key] = value
    return table


def stream_of(blocks_, pktidx, piperblk, zero_fill=True):
    """The generator's blocks as one [A, F, time, P] stream, missing blocks as zeros."""
    n_blocks, A, F, T, P = blocks_.shape
    step = piperblk
    positions = [(p - pktidx[0]) // step for p in pktidx]
    total = positions[-1] + 1
    if not zero_fill:
        total = next((i for i in range(1, len(positions)) if positions[i] != positions[i - 1] + 1), len(positions))
        positions = positions[:total]
    stream = numpy.zeros((A, F, total * T, P), numpy.complex128)
    for b, position in enumerate(positions):
        stream[:, :, position * T : (position + 1) * T] = blocks_[b]
    return stream


class qa_guppi_source(blade_testing.FileTestCase, gr_unittest.TestCase):
    seed = 20240611

    def check_chunks(self, data, shape, dtype, expected):
        chunks = blade.unpack(data, shape, dtype)
        values = blade_testing.to_values(chunks, dtype)
        self.assertEqual(values.shape[0], len(expected))
        for got, want in zip(values, expected):
            numpy.testing.assert_array_equal(got, want)

    def test_multi_antenna_multi_file_directio_quoted_long_headers(self):
        # 3 antennas x 5 channels x 16 samples x 2 pols, 5 blocks over 3 files, with
        # DIRECTIO padding, quoted numbers and 320 header cards; chunks of 24 samples
        # span blocks and files.
        A, F, T, P = 3, 5, 16, 2
        data_blocks = blade.guppi.random_blocks(self.rng, 5, A, F, T, P, nbits=8)
        paths = blade.guppi.write_raw(
            self.path("rec"),
            data_blocks,
            HEADER,
            directio=True,
            blocks_per_file=2,
            quoted={"DIRECTIO", "CHAN_BW", "NBITS", "TBIN"},
            filler_cards=300,
            pktidx=[1000 + 16 * b for b in range(5)],
        )
        self.assertEqual(len(paths), 3)
        self.assertGreater(os.path.getsize(paths[0]), 2 * 300 * 80)
        source = blade.guppi_source(self.path("rec"), 24, "ci8")
        self.assertEqual(source.output_shape(), [A, F, 24, P])
        self.assertEqual(source.files(), paths)
        self.assertEqual(source.chunks(), 80 // 24)
        data, tags, times = run_source(source, with_times=True)

        stream = stream_of(data_blocks, [1000 + 16 * b for b in range(5)], 16)
        expected = [stream[:, :, c * 24 : (c + 1) * 24] for c in range(3)]
        self.check_chunks(data, [A, F, 24, P], "ci8", expected)

        table = tags_by_item(tags)
        self.assertEqual(sorted(table), [0, 1, 2])
        for c in range(3):
            tag = table[c]
            first = c * 24
            block, sample = divmod(first, T)
            # t = SYNCTIME + PKTIDX * (TBIN * NTIME / PIPERBLK) + n * TBIN, PIPERBLK = NTIME
            pktidx = 1000 + 16 * block
            start = SYNCTIME + pktidx * 2e-6 + sample * 2e-6
            mid = start + 24 * 2e-6 / 2
            self.assertAlmostEqual(tag[blade.tag.time_start_unix], start, delta=1e-6)
            self.assertAlmostEqual(tag[blade.tag.time_mid_unix], mid, delta=1e-6)
            self.assertAlmostEqual(tag[blade.tag.jd_start], start / 86400 + 2440587.5, delta=1e-10)
            self.assertAlmostEqual(tag[blade.tag.jd_mid], mid / 86400 + 2440587.5, delta=1e-10)
            self.assertEqual(tag[blade.tag.tsamp], 2e-6)
            self.assertEqual(tag[blade.tag.dut1], -0.125)
            # f_c = OBSFREQ + (c - (NCHAN - 1)/2) * CHAN_BW, channel 0, in Hz
            self.assertEqual(tag[blade.tag.freq_first], (1420.0 + (0 - 2) * -0.5) * 1e6)
            self.assertEqual(tag[blade.tag.chan_bw], -0.5e6)
            self.assertEqual(tag[blade.tag.nfpc], 1)
            self.assertEqual(tag[blade.tag.coarse_first], 96)
            self.assertEqual(tag[blade.tag.block_index], block)
            self.assertEqual(tag[blade.tag.file_name], paths[block // 2])
            self.assertEqual(tag[blade.tag.source_name], "3C286")
            self.assertEqual(tag[blade.tag.telescope], "ATA")
            self.assertAlmostEqual(tag[blade.tag.ra], RA, delta=1e-12)
            self.assertAlmostEqual(tag[blade.tag.dec], DEC, delta=1e-12)
            self.assertEqual(tag[blade.tag.aspect], "antenna")
            self.assertNotIn(blade.tag.dropped, tag)
            whole, fraction = tag["rx_time"]
            self.assertEqual(whole, math.floor(start))
            self.assertAlmostEqual(whole + fraction, start, delta=1e-6)
            # the chunk-time item says the same
            self.assertEqual(times[c]["step"], c)
            self.assertEqual(times[c]["flags"], 0)
            self.assertEqual(times[c]["unix_start"], tag[blade.tag.time_start_unix])
            self.assertEqual(times[c]["unix_mid"], tag[blade.tag.time_mid_unix])
            self.assertEqual(times[c]["jd_mid"], tag[blade.tag.jd_mid])
            self.assertEqual(times[c]["dut1"], -0.125)
            self.assertEqual(times[c]["tsamp"], 2e-6)

    def test_four_bit_samples_as_ci8_cf32_and_ci4(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 3, 2, 3, 8, 2, nbits=4)
        blade.guppi.write_raw(self.path("four.raw"), data_blocks, HEADER, nbits=4)
        stream = stream_of(data_blocks, [0, 8, 16], 8)
        for dtype in ("ci8", "cf32", "ci4", "cf16", "ci16"):
            source = blade.guppi_source(self.path("four.raw"), 12, dtype)
            data, _, _ = run_source(source)
            self.check_chunks(data, [2, 3, 12, 2], dtype, [stream[:, :, :12], stream[:, :, 12:24]])

    def test_channel_subset(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 2, 2, 6, 8, 2)
        blade.guppi.write_raw(self.path("sub.raw"), data_blocks, HEADER)
        source = blade.guppi_source(self.path("sub.raw"), 8, "cf32", 2, 3)
        self.assertEqual(source.output_shape(), [2, 3, 8, 2])
        data, tags, _ = run_source(source)
        stream = stream_of(data_blocks, [0, 8], 8)
        self.check_chunks(data, [2, 3, 8, 2], "cf32", [stream[:, 2:5, :8], stream[:, 2:5, 8:]])
        tag = tags_by_item(tags)[0]
        # channel 2 of 6: OBSFREQ + (2 - 2.5) * CHAN_BW
        self.assertEqual(tag[blade.tag.freq_first], (1420.0 + (2 - 2.5) * -0.5) * 1e6)
        self.assertEqual(tag[blade.tag.coarse_first], 96 + 2)

    def test_dropped_blocks_zero_filled(self):
        # PIPERBLK = 4 PKTIDX steps per 8-sample block; blocks at 0, 4, 16 (two missing), 20.
        data_blocks = blade.guppi.random_blocks(self.rng, 4, 1, 2, 8, 2)
        pktidx = [100, 104, 116, 120]
        blade.guppi.write_raw(self.path("gap.raw"), data_blocks, HEADER, pktidx=pktidx, piperblk=4)
        source = blade.guppi_source(self.path("gap.raw"), 12, "ci8")
        self.assertEqual(source.chunks(), 6 * 8 // 12)
        self.assertTrue(any("2 blocks missing" in w and "zero-filled" in w for w in source.warnings()))
        data, tags, times = run_source(source, with_times=True)
        stream = stream_of(data_blocks, pktidx, 4)
        self.check_chunks(data, [1, 2, 12, 2], "ci8", [stream[:, :, c * 12 : (c + 1) * 12] for c in range(4)])
        table = tags_by_item(tags)
        # samples 16..31 are missing: chunk 1 (12..23) and chunk 2 (24..35) hold them
        self.assertEqual(table[1][blade.tag.dropped], 1)
        self.assertEqual(table[2][blade.tag.dropped], 1)
        self.assertNotIn(blade.tag.dropped, table[0])
        self.assertNotIn(blade.tag.dropped, table[3])
        self.assertEqual(list(times["flags"]), [0, 1, 1, 0])
        self.assertEqual(source.zero_filled_blocks(), 2)
        # time stays on PKTIDX: chunk 3 starts at sample 36 = block 4 (PKTIDX 116) + 4
        start = SYNCTIME + 116 * (2e-6 * 8 / 4) + 4 * 2e-6
        self.assertAlmostEqual(table[3][blade.tag.time_start_unix], start, delta=1e-6)
        self.assertEqual(table[3][blade.tag.block_index], 4)

    def test_dropped_blocks_stop(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 4, 1, 2, 8, 1)
        pktidx = [0, 8, 32, 40]
        blade.guppi.write_raw(self.path("stop.raw"), data_blocks, HEADER, pktidx=pktidx)
        source = blade.guppi_source(self.path("stop.raw"), 4, "ci8", on_gap="stop")
        self.assertEqual(source.chunks(), 4)  # 16 samples before the gap
        data, _, _ = run_source(source)
        stream = stream_of(data_blocks, pktidx, 8, zero_fill=False)
        self.check_chunks(data, [1, 2, 4, 1], "ci8", [stream[:, :, c * 4 : (c + 1) * 4] for c in range(4)])
        self.assertTrue(any("stream stops here" in w for w in source.warnings()))

    def test_npol_conventions(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 1, 1, 2, 8, 2)
        blade.guppi.write_raw(self.path("npol4.raw"), data_blocks, HEADER, npol_card=4)
        source = blade.guppi_source(self.path("npol4.raw"), 8, "ci8")
        self.assertEqual(source.output_shape(), [1, 2, 8, 2])
        data, _, _ = run_source(source)
        self.check_chunks(data, [1, 2, 8, 2], "ci8", [data_blocks[0]])

        single = blade.guppi.random_blocks(self.rng, 2, 2, 2, 8, 1)
        blade.guppi.write_raw(self.path("npol1.raw"), single, HEADER)
        source = blade.guppi_source(self.path("npol1.raw"), 16, "cf32")
        self.assertEqual(source.output_shape(), [2, 2, 16, 1])
        data, _, _ = run_source(source)
        self.check_chunks(data, [2, 2, 16, 1], "cf32", [stream_of(single, [0, 8], 8)])

    def test_sixteen_bit_and_float_samples(self):
        ints = blade.guppi.random_blocks(self.rng, 2, 1, 2, 4, 2, nbits=16)
        blade.guppi.write_raw(self.path("i16.raw"), ints, HEADER, nbits=16)
        data, _, _ = run_source(blade.guppi_source(self.path("i16.raw"), 8, "cf32"))
        self.check_chunks(data, [1, 2, 8, 2], "cf32", [stream_of(ints, [0, 4], 4)])
        with self.assertRaisesRegex(ValueError, "without losing"):
            blade.guppi_source(self.path("i16.raw"), 8, "ci8")

        floats = blade.guppi.random_blocks(self.rng, 2, 1, 2, 4, 2, nbits=32).astype(numpy.complex64)
        blade.guppi.write_raw(self.path("f32.raw"), floats, HEADER, nbits=32)
        data, _, _ = run_source(blade.guppi_source(self.path("f32.raw"), 8, "cf32"))
        self.check_chunks(data, [1, 2, 8, 2], "cf32", [stream_of(floats, [0, 4], 4)])

    def test_opening_by_stem_member_or_single_file(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 3, 1, 2, 4, 2)
        paths = blade.guppi.write_raw(self.path("seq"), data_blocks, HEADER, blocks_per_file=1)
        by_stem = blade.guppi_source(self.path("seq"), 4)
        by_member = blade.guppi_source(paths[1], 4)
        self.assertEqual(by_stem.files(), paths)
        self.assertEqual(by_member.files(), paths)
        self.assertEqual(blade.guppi_source(paths[2], 4, single_file=True).files(), [paths[2]])
        data, _, _ = run_source(by_member)
        self.check_chunks(data, [1, 2, 4, 2], "ci8", list(data_blocks))
        with self.assertRaisesRegex(RuntimeError, "no such file.*nothing.0000.raw"):
            blade.guppi_source(self.path("nothing"), 4)

    def test_read_header_types_and_describe(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 2, 2, 4, 8, 2)
        blade.guppi.write_raw(
            self.path("h.raw"), data_blocks, dict(HEADER, OBSID="00123"), quoted={"DIRECTIO", "CHAN_BW"}, pktidx=[7, 15]
        )
        header = blade.guppi.read_header(self.path("h.raw"), block=1)
        self.assertEqual(header["PKTIDX"], 15)
        self.assertIsInstance(header["DIRECTIO"], int)  # quoted '0'
        self.assertEqual(header["CHAN_BW"], -0.5)  # quoted '-5.0...E-01'
        self.assertEqual(header["TBIN"], 2e-6)  # exponent form
        self.assertEqual(header["OBSID"], "00123")  # text, though it looks like a number
        self.assertEqual(header["SRC_NAME"], "3C286")
        info = blade.guppi.describe(self.path("h.raw"))
        self.assertEqual((info["nants"], info["nchan"], info["npol"], info["ntime"], info["blocks"]), (2, 4, 2, 8, 2))
        self.assertEqual(info["blocsize"], 2 * 4 * 8 * 2 * 2)
        self.assertEqual(blade.guppi.chunk_shape(self.path("h.raw"), 5, 1), [2, 3, 5, 2])

    # --- malformed recordings ------------------------------------------------------

    def write_bytes(self, name, content):
        with open(self.path(name), "wb") as handle:
            handle.write(content)
        return self.path(name)

    def one_block(self, header=HEADER, **geometry):
        cards = dict({"BLOCSIZE": 64, "NANTS": 1, "OBSNCHAN": 2, "NPOL": 2, "NBITS": 8, "PKTIDX": 0}, **geometry)
        cards.update(header)
        return blade.guppi.format_header(cards)

    def assert_refused(self, path, *patterns):
        with self.assertRaises((RuntimeError, ValueError)) as caught:
            blade.guppi_source(path, 4)
        message = str(caught.exception)
        self.assertIn(path, message)
        for pattern in patterns:
            self.assertRegex(message, pattern)

    def test_empty_file(self):
        self.assert_refused(self.write_bytes("empty.raw", b""), "byte offset 0", "empty")

    def test_binary_garbage(self):
        garbage = bytes(self.rng.integers(0, 256, 4000, dtype=numpy.uint8))
        self.assert_refused(self.write_bytes("garbage.raw", garbage), "byte offset 0", "not printable ASCII")

    def test_missing_end(self):
        header = self.one_block()[:-80]  # drop the END card
        data = bytes(self.rng.integers(-128, 0, 256, dtype=numpy.int8).view(numpy.uint8))
        n_cards = len(header) // 80
        self.assert_refused(
            self.write_bytes("noend.raw", header + data), f"byte offset {len(header)} ", "END card missing"
        )
        # a header that runs to the end of the file without END
        self.assert_refused(self.write_bytes("noend2.raw", header), "without an END card", "byte offset 0")
        self.assertGreater(n_cards, 5)

    def test_blocsize_larger_than_file(self):
        header = self.one_block(BLOCSIZE=1 << 20)
        self.assert_refused(
            self.write_bytes("big.raw", header + bytes(64)),
            "byte offset 0",
            "BLOCSIZE = 1048576",
            f"only {len(header) + 64} bytes",
        )

    def test_nbits_three(self):
        self.assert_refused(
            self.write_bytes("nbits.raw", self.one_block(NBITS=3) + bytes(64)),
            "byte offset 0",
            "NBITS = 3 is not supported",
        )

    def test_obsnchan_not_multiple_of_nants(self):
        self.assert_refused(
            self.write_bytes("nants.raw", self.one_block(NANTS=3, OBSNCHAN=4) + bytes(64)),
            "byte offset 0",
            "OBSNCHAN = 4 is not a multiple of NANTS = 3",
        )

    def test_pktidx_backwards(self):
        first = self.one_block(PKTIDX=32)
        second = self.one_block(PKTIDX=16)
        path = self.write_bytes("back.raw", first + bytes(64) + second + bytes(64))
        self.assert_refused(path, f"byte offset {len(first) + 64}", "PKTIDX = 16 follows")

    def test_truncated_last_block_warns_and_ends_cleanly(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 3, 1, 2, 8, 2)
        (path,) = blade.guppi.write_raw(self.path("cut.raw"), data_blocks, HEADER)
        size = os.path.getsize(path)
        with open(path, "r+b") as handle:
            handle.truncate(size - 10)
        source = blade.guppi_source(path, 8)
        self.assertEqual(source.chunks(), 2)
        self.assertTrue(any("truncated" in w and "ignored" in w for w in source.warnings()))
        data, _, _ = run_source(source)
        self.check_chunks(data, [1, 2, 8, 2], "ci8", list(data_blocks[:2]))
        self.assertEqual(blade.failures(), [])

    def test_file_vanishing_while_running_ends_the_flowgraph(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 4, 1, 2, 8, 2)
        paths = blade.guppi.write_raw(self.path("gone"), data_blocks, HEADER, blocks_per_file=2)
        source = blade.guppi_source(self.path("gone"), 8, readahead_blocks=1)
        os.remove(paths[1])
        data, _, _ = run_source(source)  # must end, not hang
        self.assertLessEqual(len(data) // source.output_item_size(), 2)
        failures = blade.failures()
        self.assertEqual(len(failures), 1)
        self.assertIn(paths[1], failures[0])
        self.assertIn("cannot open", failures[0])

    def test_bad_arguments(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 1, 1, 4, 8, 2)
        blade.guppi.write_raw(self.path("ok.raw"), data_blocks, HEADER)
        with self.assertRaisesRegex(ValueError, "channels 2 .. 4"):
            blade.guppi_source(self.path("ok.raw"), 8, "ci8", 2, 3)
        with self.assertRaisesRegex(ValueError, "zero-fill"):
            blade.guppi_source(self.path("ok.raw"), 8, on_gap="skip")
        with self.assertRaisesRegex(ValueError, "chunk_samples"):
            blade.guppi_source(self.path("ok.raw"), -1)


if __name__ == "__main__":
    gr_unittest.run(qa_guppi_source)
