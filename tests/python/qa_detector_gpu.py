#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade.detector on CUDA against the CPU block (within 2e-5 of each row's total
power: float32 sums against the CPU's double sums), and bit-for-bit identical
results from two CUDA runs.
"""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt
from detector_reference import detect


class qa_detector_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(92)

    def run_on(self, device, chunks, shape, mode, integration, via_files=False):
        block = blade.detector(shape, mode, integration, device)
        out_shape = list(block.output_shape())
        if via_files:
            return bt.run_chunks_via_files([block], chunks, "cf32", out_shape, "f32")
        return bt.run_chunks([block], chunks, shape, "cf32", out_shape, "f32")[0]

    def check(self, shape, mode, integration, nchunks, via_files=False):
        chunks = bt.random_complex(self.rng, (nchunks, *shape), 100.0)
        cpu = self.run_on("cpu", chunks, shape, mode, integration, via_files)
        cuda = self.run_on("cuda", chunks, shape, mode, integration, via_files)
        again = self.run_on("cuda", chunks, shape, mode, integration, via_files)
        _, scale = detect(chunks, mode, integration)
        error = numpy.abs(cuda.astype(numpy.float64) - cpu) / scale[..., None]
        self.assertLess(numpy.max(error), 2e-5, f"{mode} I={integration} {shape}")
        self.assertTrue(bt.same_bits(cuda, again), f"{mode} I={integration} {shape}: runs differ")

    def test_every_mode_within_and_across_chunks(self):
        for mode in ("I", "XXYY", "cross", "IQUV"):
            for integration in (1, 3, 8, 64, 192, 384):  # 384 = 2 chunks of T = 192
                with self.subTest(mode=mode, integration=integration):
                    self.check([3, 5, 192, 2], mode, integration, 4)
        self.check([3, 5, 96, 1], "I", 32, 2)

    def test_upstream_shapes(self):
        self.check([2, 192, 8192, 2], "cross", 8, 1, via_files=True)
        self.check([16, 192, 8192, 2], "IQUV", 8, 1, via_files=True)
        self.check([16, 192, 8192, 2], "I", 64, 1, via_files=True)


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_detector_gpu)
