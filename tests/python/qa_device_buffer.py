#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The GPU stream buffer, exercised with the host-emulated device: data arrive intact
through chains of device-buffer blocks, uploads and downloads happen once per chunk
at the host edges, and GPU-to-GPU edges copy nothing.
"""

import gc

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_device_buffer(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(7)

    def run_chain(self, shape, nchunks, devices):
        chunks = bt.random_chunks(self.rng, "ci8", nchunks, shape)
        types = ["ci8", "cf32", "cf16", "cf32", "ci16", "cf32"][: len(devices) + 1]
        chain = [blade.cast(shape, a, b, d) for a, b, d in zip(types, types[1:], devices)]
        blade.reset_copy_stats()
        got, tags = bt.run_chunks(chain, chunks, shape, types[0], shape, types[-1])
        expected = chunks[..., 0].astype(numpy.complex128) + 1j * chunks[..., 1]
        return got, bt.to_values(got, types[-1]) if types[-1] != "cf32" else got, expected, blade.copy_stats()

    def test_three_gpu_blocks_copy_only_at_the_host_edges(self):
        shape = [2, 3, 5, 2]
        _, got, expected, stats = self.run_chain(shape, 7, ["emulated"] * 3)
        numpy.testing.assert_array_equal(got, expected)
        self.assertEqual(stats["host_to_device"], 7)
        self.assertEqual(stats["device_to_host"], 7)
        self.assertEqual(stats["device_to_device"], 0)
        self.assertEqual(stats["host_to_device_bytes"], 7 * blade.item_size(shape, "ci8"))
        self.assertEqual(stats["device_to_host_bytes"], 7 * blade.item_size(shape, "cf32"))

    def test_many_chunks_wrap_the_two_chunk_buffers(self):
        shape = [3, 7, 33, 2]  # odd sizes, 40 chunks through 2-chunk buffers
        _, got, expected, stats = self.run_chain(shape, 40, ["emulated"] * 5)
        numpy.testing.assert_array_equal(got, expected)
        self.assertEqual(stats["host_to_device"] + stats["device_to_host"], 80)
        self.assertEqual(stats["device_to_device"], 0)

    def test_mixed_cpu_and_gpu_blocks(self):
        # host -> gpu -> cpu -> gpu -> host: each host/GPU edge moves every chunk once.
        shape = [2, 4, 8, 2]
        _, got, expected, stats = self.run_chain(shape, 5, ["emulated", "cpu", "emulated"])
        numpy.testing.assert_array_equal(got, expected)
        self.assertEqual(stats["host_to_device"], 10)
        self.assertEqual(stats["device_to_host"], 10)
        self.assertEqual(stats["device_to_device"], 0)

    def test_tags_cross_device_edges(self):
        shape = [1, 2, 4, 2]
        chunks = bt.random_chunks(self.rng, "ci8", 3, shape)
        tags = [gr.tag_utils.python_to_tag((i, pmt.intern("rx_time"), pmt.from_double(1.5 * i))) for i in range(3)]
        chain = [blade.cast(shape, "ci8", "cf32", "emulated"), blade.cast(shape, "cf32", "cf32", "emulated")]
        _, out_tags = bt.run_chunks(chain, chunks, shape, "ci8", shape, "cf32", tags)
        self.assertEqual([(t.offset, pmt.to_double(t.value)) for t in out_tags], [(i, 1.5 * i) for i in range(3)])

    def test_buffers_hold_two_chunks(self):
        # A large chunk and a long chain: device memory stays at two chunks per edge.
        shape = [4, 64, 256, 2]
        _, got, expected, _ = self.run_chain(shape, 6, ["emulated"] * 2)
        numpy.testing.assert_array_equal(got, expected)

    def test_a_finished_flowgraph_gives_its_device_memory_back(self):
        # GNU Radio 3.10's single-mapped buffers and their owner blocks referenced
        # each other, so every finished flowgraph kept its device buffers: a process
        # running flowgraph after flowgraph (blade-bench, a notebook) ran out of memory.
        shape = [4, 4, 512, 2]
        gc.collect()
        before = blade.device_memory_stats()["bytes_in_use"]
        for _ in range(3):
            chain = [blade.cast(shape, "ci8", "cf32", "emulated"), blade.cast(shape, "cf32", "cf32", "emulated")]
            source = blade.device_source(shape, "ci8", 4, [], "cpu", False)
            sink = blocks.null_sink(chain[-1].output_item_size())
            tb = gr.top_block()
            tb.connect(source, chain[0], chain[1], sink)
            tb.run()
            # ci8 upload buffer, two cf32 device buffers: two chunks each
            held = 2 * (blade.item_size(shape, "ci8") + 2 * blade.item_size(shape, "cf32"))
            self.assertEqual(blade.device_memory_stats()["bytes_in_use"] - before, held)
            del tb, chain, source, sink
            gc.collect()
            self.assertEqual(blade.device_memory_stats()["bytes_in_use"], before)


if __name__ == "__main__":
    gr_unittest.run(qa_device_buffer)
