#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
gather -> polarizer -> detector on the emulated GPU (device buffers in host memory)
against the same chain in numpy: results, tags, and copies only at the host edges.
"""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt
from detector_reference import detect
from qa_gather import concatenate
from qa_polarizer import circular


class qa_modules_chain(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(20261204)

    def run_chain(self, devices, nchunks=9, tags=()):
        # 9 chunks [2, 3, 16, 2] -> gather along T x2 (4 long chunks, one chunk left
        # waiting) -> circular -> IQUV over 64 samples = 2 long chunks -> 2 outputs
        shape, long_shape = [2, 3, 16, 2], [2, 3, 32, 2]
        chunks = bt.random_complex(self.rng, (nchunks, *shape), 100.0)
        chain = [
            blade.gather(shape, 2, 2, "cf32", devices[0]),
            blade.polarizer(long_shape, devices[1]),
            blade.detector(long_shape, "IQUV", 64, devices[2]),
        ]
        blade.reset_copy_stats()
        got, out_tags = bt.run_chunks(chain, chunks, shape, "cf32", [2, 3, 1, 4], "f32", tags)
        expected, scale = detect(circular(concatenate(chunks, 2, 2)), "IQUV", 64)
        error = numpy.abs(got - expected) / scale[..., None]
        self.assertEqual(got.shape, (2, 2, 3, 1, 4))
        self.assertLess(numpy.max(error), 1e-5)
        return out_tags, blade.copy_stats()

    def test_gpu_chain_copies_only_at_the_host_edges(self):
        _, stats = self.run_chain(["emulated"] * 3)
        # the 8 chunks of whole groups go up once (the 9th may too), 2 results come down
        chunk = blade.item_size([2, 3, 16, 2], "cf32")
        self.assertIn(stats["host_to_device_bytes"], (8 * chunk, 9 * chunk))
        self.assertEqual(stats["device_to_host_bytes"], 2 * blade.item_size([2, 3, 1, 4], "f32"))
        self.assertEqual(stats["device_to_device"], 0)

    def test_host_block_in_the_middle_moves_each_chunk_once_per_edge(self):
        # gather (GPU) -> polarizer (CPU) -> detector (GPU): the 4 long chunks come
        # down after the gather and go up again before the detector.
        _, stats = self.run_chain(["emulated", "cpu", "emulated"])
        chunk, long_chunk = blade.item_size([2, 3, 16, 2], "cf32"), blade.item_size([2, 3, 32, 2], "cf32")
        self.assertIn(stats["host_to_device_bytes"], (8 * chunk + 4 * long_chunk, 9 * chunk + 4 * long_chunk))
        self.assertEqual(stats["device_to_host_bytes"], 4 * long_chunk + 2 * blade.item_size([2, 3, 1, 4], "f32"))
        self.assertEqual(stats["device_to_device"], 0)

    def test_all_cpu_chain_gives_the_same_result(self):
        _, stats = self.run_chain(["cpu"] * 3)
        self.assertEqual(stats["host_to_device"] + stats["device_to_host"] + stats["device_to_device"], 0)

    def test_tags_of_each_group_reach_the_output(self):
        tsamp = 2e-6
        tags = []
        for i in range(9):
            tags += bt.blade_tags(i, tsamp=tsamp, time_mid_unix=10.0 + 16 * tsamp * (i + 0.5), block_index=i)
        out_tags, _ = self.run_chain(["emulated"] * 3, tags=tags)
        received = bt.tags_by_offset(out_tags)
        self.assertEqual(sorted(received), [0, 1])
        for k in (0, 1):
            # output k spans input chunks 4k .. 4k + 3: 64 samples from 10 + 64 tsamp k
            self.assertEqual(received[k]["blade_block_index"], 4 * k)
            self.assertAlmostEqual(received[k]["blade_tsamp"], 64 * tsamp, delta=1e-15)
            self.assertAlmostEqual(received[k]["blade_time_mid_unix"], 10.0 + 64 * tsamp * k + 32 * tsamp, delta=1e-9)


if __name__ == "__main__":
    gr_unittest.run(qa_modules_chain)
