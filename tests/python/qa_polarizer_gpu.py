#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.polarizer on CUDA gives exactly the CPU's bytes, through real device buffers."""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_polarizer_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(91)

    def test_cuda_matches_the_cpu(self):
        for shape, basis in (([1, 1, 1, 2], "circular"), ([3, 7, 13, 2], "circular"), ([2, 5, 1031, 2], "linear")):
            with self.subTest(shape=shape, basis=basis):
                chunks = bt.random_complex(self.rng, (3, *shape), 100.0)
                cpu, _ = bt.run_chunks([blade.polarizer(shape, "cpu", basis)], chunks, shape, "cf32", shape, "cf32")
                cuda, _ = bt.run_chunks([blade.polarizer(shape, "cuda", basis)], chunks, shape, "cf32", shape, "cf32")
                self.assertTrue(bt.same_bits(cpu, cuda))

    def test_upstream_shape(self):
        shape = [16, 192, 8192, 2]
        chunks = bt.random_complex(self.rng, (1, *shape), 100.0)
        cpu = bt.run_chunks_via_files([blade.polarizer(shape, "cpu")], chunks, "cf32", shape, "cf32")
        cuda = bt.run_chunks_via_files([blade.polarizer(shape, "cuda")], chunks, "cf32", shape, "cf32")
        self.assertTrue(bt.same_bits(cpu, cuda))

    def test_auto_picks_the_gpu(self):
        self.assertEqual(blade.polarizer([2, 4, 2], "auto").device(), "cuda:0")


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_polarizer_gpu)
