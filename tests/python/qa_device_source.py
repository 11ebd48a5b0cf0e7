#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.device_source: chunks uploaded once, then emitted from device memory."""

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_device_source(gr_unittest.TestCase):
    def run_source(self, source, shape, dtype, downstream=()):
        tb = gr.top_block()
        sink = blocks.vector_sink_b(blade.item_size(shape, dtype))
        tb.connect(source, *downstream, sink)
        tb.run()
        return blade.unpack(sink.data(), shape, dtype)

    def test_pattern_cycles_with_one_upload(self):
        shape = [2, 3, 5, 2]
        rng = numpy.random.default_rng(5)
        chunks = bt.random_chunks(rng, "cf32", 3, shape)
        blade.reset_copy_stats()
        source = blade.device_source(shape, "cf32", 7, blade.pack(chunks, "cf32").tolist(), "emulated")
        got = self.run_source(source, shape, "cf32", [blade.cast(shape, "cf32", "cf32", "emulated")])
        stats = blade.copy_stats()
        self.assertTrue(bt.same_bits(got, chunks[[0, 1, 2, 0, 1, 2, 0]]))
        # the pattern once up; 7 chunks device to device (source) and down to the sink
        self.assertEqual((stats["host_to_device"], stats["device_to_device"], stats["device_to_host"]), (1, 7, 7))

    def test_random_chunks_are_valid_values_of_every_type(self):
        for dtype in ("ci8", "ci4", "cf16", "cf32", "f32"):
            with self.subTest(dtype=dtype):
                got = self.run_source(blade.device_source([2, 4, 8, 2], dtype, 4, [], "cpu"), [2, 4, 8, 2], dtype)
                self.assertEqual(len(got), 4)
                self.assertTrue(bt.same_bits(got[0], got[2]))
                self.assertFalse(bt.same_bits(got[0], got[1]))
                if dtype in ("cf16", "cf32", "f32"):
                    values = bt.to_values(got, dtype)
                    self.assertTrue(numpy.all(numpy.abs(values.real) <= 100))

    def test_without_refill_each_slot_is_written_once(self):
        shape = [1, 2, 4, 2]
        rng = numpy.random.default_rng(6)
        chunks = bt.random_chunks(rng, "cf32", 3, shape)
        blade.reset_copy_stats()
        source = blade.device_source(shape, "cf32", 9, blade.pack(chunks, "cf32").tolist(), "emulated", False)
        got = self.run_source(source, shape, "cf32")
        stats = blade.copy_stats()
        # two buffer slots: the first two chunks are written, then the slots repeat
        self.assertTrue(bt.same_bits(got, chunks[[0, 1] * 4 + [0]]))
        self.assertEqual((stats["device_to_device"], stats["device_to_host"]), (2, 9))

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "not a whole number"):
            blade.device_source([2, 3], "cf32", 1, [0] * 100, "cpu")
        with self.assertRaisesRegex(ValueError, "forever"):
            blade.device_source([2, 3], "cf32", -1, [], "cpu")


if __name__ == "__main__":
    gr_unittest.run(qa_device_source)
