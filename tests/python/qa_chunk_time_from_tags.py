#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
chunk_time_from_tags: chunk times rebuilt from tags equal guppi_source's own
chunk-time stream; times carried forward where tags are missing; gaps (missing
chunks) and steps back in time reported with counts and skipped steps; "stop"
ends the flowgraph with a failure; a stream without any time is refused.
"""

import os
import tempfile

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt

SHAPE = [2, 3, 16, 2]
TBIN = 2e-6
DURATION = SHAPE[2] * TBIN
T0 = 1.7e9 + 0.125


def time_tags(offset, start, dut1=None, dropped=None):
    fields = dict(
        time_start_unix=start,
        time_mid_unix=start + DURATION / 2,
        jd_start=start / 86400 + 2440587.5,
        jd_mid=(start + DURATION / 2) / 86400 + 2440587.5,
        tsamp=TBIN,
    )
    if dut1 is not None:
        fields["dut1"] = dut1
    if dropped is not None:
        fields["dropped"] = dropped
    return bt.blade_tags(offset, **fields)


class qa_chunk_time_from_tags(gr_unittest.TestCase):
    def setUp(self):
        blade.clear_failures()

    def run_block(self, starts, on_gap="report", extra=()):
        """Chunks whose time tags start at `starts` (None: no tag); returns (block, items)."""
        tags = []
        for i, start in enumerate(starts):
            if start is not None:
                tags += time_tags(i, start, dut1=0.25 if i == 0 else None)
        tags += list(extra)
        block = blade.chunk_time_from_tags(SHAPE, "ci8", on_gap)
        size = blade.item_size(SHAPE, "ci8")
        ((data, _),) = bt.run_graph(block, [(numpy.zeros(size * len(starts), numpy.uint8), size)], [64], [tags])
        return block, numpy.frombuffer(data.tobytes(), dtype=blade.CHUNK_TIME_DTYPE)

    def test_equals_the_chunk_times_of_guppi_source(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "obs.raw")
            rng = numpy.random.default_rng(4)
            header = {
                "OBSFREQ": 1420.0,
                "CHAN_BW": -0.5,
                "TBIN": TBIN,
                "SYNCTIME": 1700000000,
                "SCHAN": 10,
                "DUT1": -0.125,
            }
            blade.guppi.write_raw(path, blade.guppi.random_blocks(rng, 4, 2, 3, 32, 2), header, pktidx=[0, 32, 96, 128])
            tb = gr.top_block()
            source = blade.guppi_source(path, 16)
            shape = list(source.output_shape())
            own = blocks.vector_sink_b(64)
            rebuilt = blocks.vector_sink_b(64)
            block = blade.chunk_time_from_tags(shape, "ci8")
            tb.connect((source, 0), block, rebuilt)
            tb.connect((source, 1), own)
            tb.run()
            expected = numpy.frombuffer(bytes(own.data()), dtype=blade.CHUNK_TIME_DTYPE)
            got = numpy.frombuffer(bytes(rebuilt.data()), dtype=blade.CHUNK_TIME_DTYPE)
            # The recording's gap (the block at PKTIDX 64) is zero-filled by the source:
            # its two chunks are flagged, and time runs on without a gap.
            self.assertEqual(len(got), 10)
            self.assertEqual(got.tobytes(), expected.tobytes())
            self.assertEqual(list(got["flags"]), [0, 0, 0, 0, 1, 1, 0, 0, 0, 0])
            self.assertEqual((block.chunks(), block.gaps(), block.missing_chunks()), (10, 0, 0))

    def test_times_are_carried_forward_between_tags(self):
        block, items = self.run_block([T0, None, None, T0 + 3 * DURATION, None])
        self.assertEqual(list(items["step"]), [0, 1, 2, 3, 4])
        for i, item in enumerate(items):
            start = T0 + i * DURATION
            self.assertAlmostEqual(item["unix_start"], start, delta=1e-9)
            self.assertAlmostEqual(item["unix_mid"], start + DURATION / 2, delta=1e-9)
            self.assertAlmostEqual(item["jd_mid"], (start + DURATION / 2) / 86400 + 2440587.5, delta=1e-11)
            self.assertEqual(item["tsamp"], TBIN)
            self.assertEqual(item["dut1"], 0.25)
        self.assertEqual(block.gaps(), 0)

    def test_missing_chunks_are_counted_and_skipped(self):
        starts = [T0 + k * DURATION for k in (0, 1, 4, 5, 9)]
        block, items = self.run_block(starts)
        self.assertEqual(list(items["step"]), [0, 1, 4, 5, 9])
        self.assertEqual((block.chunks(), block.gaps(), block.missing_chunks()), (5, 2, 5))
        self.assertEqual(blade.failures(), [])

    def test_a_step_back_in_time_is_a_gap_without_missing_chunks(self):
        block, items = self.run_block([T0, T0 + DURATION, T0])
        self.assertEqual(list(items["step"]), [0, 1, 2])
        self.assertEqual((block.gaps(), block.missing_chunks()), (1, 0))

    def test_jitter_below_half_a_sample_is_not_a_gap(self):
        # Each start is compared with the previous one's plus a chunk.
        block, _ = self.run_block([T0, T0 + DURATION + 0.4 * TBIN, T0 + 2 * DURATION + 0.7 * TBIN])
        self.assertEqual(block.gaps(), 0)

    def test_dropped_blocks_set_the_flag(self):
        _, items = self.run_block([T0, T0 + DURATION], extra=bt.blade_tags(1, dropped=2))
        self.assertEqual(list(items["flags"]), [0, 1])

    def test_stop_on_a_gap(self):
        block, items = self.run_block([T0, T0 + DURATION, T0 + 5 * DURATION, T0 + 6 * DURATION], on_gap="stop")
        self.assertLess(len(items), 4)
        self.assertRegex("\n".join(blade.failures()), r"chunks 2 to 4 missing \(3 chunks")

    def test_no_time_at_all_is_refused(self):
        self.run_block([None, None])
        self.assertRegex("\n".join(blade.failures()), "no blade_time_start_unix tag .* pass_tags=True")

    def test_bad_options(self):
        with self.assertRaisesRegex(ValueError, "on_gap: 'skip'"):
            blade.chunk_time_from_tags(SHAPE, "ci8", "skip")
        with self.assertRaisesRegex(ValueError, "expected \\[A, F, T, P\\]"):
            blade.chunk_time_from_tags([2, 3, 16], "ci8")


if __name__ == "__main__":
    gr_unittest.run(qa_chunk_time_from_tags)
