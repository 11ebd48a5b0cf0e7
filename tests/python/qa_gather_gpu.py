#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.gather on CUDA gives exactly numpy.concatenate, through real device buffers."""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt
from qa_gather import concatenate


class qa_gather_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(93)

    def test_every_axis_and_type(self):
        shape = [3, 5, 7, 2]
        for dtype in ("ci4", "ci8", "cf32", "f64"):
            for axis in range(4):
                with self.subTest(dtype=dtype, axis=axis):
                    chunks = bt.random_chunks(self.rng, dtype, 6, shape)
                    block = blade.gather(shape, axis, 3, dtype, "cuda")
                    got, _ = bt.run_chunks([block], chunks, shape, dtype, list(block.output_shape()), dtype)
                    self.assertTrue(bt.same_bits(got, concatenate(chunks, axis, 3)))

    def test_upstream_shape_along_time(self):
        shape = [5, 192, 8192, 2]
        chunks = bt.random_complex(self.rng, (4, *shape), 100.0)
        got = bt.run_chunks_via_files(
            [blade.gather(shape, 2, 4, "cf32", "cuda")], chunks, "cf32", [5, 192, 4 * 8192, 2], "cf32"
        )
        self.assertTrue(bt.same_bits(got, concatenate(chunks, 2, 4)))


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_gather_gpu)
