#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.device_sink: a chain ends in device memory, and nothing is downloaded."""

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_device_sink(gr_unittest.TestCase):
    def chain(self, shape, chunks, device):
        rng = numpy.random.default_rng(11)
        pattern = blade.pack(bt.random_chunks(rng, "cf32", 2, shape), "cf32").tolist()
        source = blade.device_source(shape, "cf32", chunks, pattern, device)
        detector = blade.detector(shape, "I", 1, device)
        return source, detector

    def test_products_stay_on_the_device(self):
        shape = [2, 3, 8, 2]
        source, detector = self.chain(shape, 7, "emulated")
        sink = blade.device_sink(detector.output_item_size(), "emulated")
        tb = gr.top_block()
        tb.connect(source, detector, sink)
        blade.reset_copy_stats()
        tb.run()
        stats = blade.copy_stats()
        self.assertEqual(sink.chunks_received(), 7)
        self.assertEqual(sink.device(), "emulated")
        # the pattern went up once; no chunk came down
        self.assertEqual((stats["host_to_device"], stats["device_to_host"]), (1, 0))

    def test_a_host_sink_downloads_every_chunk(self):
        # the contrast that makes the device sink worth having in benchmarks
        shape = [2, 3, 8, 2]
        source, detector = self.chain(shape, 5, "emulated")
        sink = blocks.null_sink(detector.output_item_size())
        tb = gr.top_block()
        tb.connect(source, detector, sink)
        blade.reset_copy_stats()
        tb.run()
        self.assertEqual(blade.copy_stats()["device_to_host"], 5)

    def test_counts_restart_with_the_flowgraph(self):
        shape = [1, 2, 4, 2]
        source, detector = self.chain(shape, 3, "cpu")
        sink = blade.device_sink(detector.output_item_size(), "cpu")
        tb = gr.top_block()
        tb.connect(source, detector, sink)
        tb.run()
        self.assertEqual(sink.chunks_received(), 3)
        tb.run()  # the source emits its 3 chunks again
        self.assertEqual(sink.chunks_received(), 3)

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "item_size: 0"):
            blade.device_sink(0, "cpu")
        with self.assertRaisesRegex(ValueError, "tpu"):
            blade.device_sink(64, "tpu")
        with self.assertRaisesRegex(RuntimeError, "cuda:7|GPU"):
            blade.device_sink(64, "cuda:7")


if __name__ == "__main__":
    gr_unittest.run(qa_device_sink)
