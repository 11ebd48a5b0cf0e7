#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.permutation on CUDA equals numpy.transpose bit for bit, through real device buffers."""

import itertools

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_permutation_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(31)

    def check(self, shape, axes, dtype, chunks, device="cuda:0"):
        block = blade.permutation(shape, list(axes), dtype, device)
        out_shape = [shape[a] for a in axes]
        got = bt.run_chunks_through_files([block], chunks, shape, dtype, out_shape, dtype)
        extra = [len(shape) + 1] if chunks.ndim == len(shape) + 2 else []
        expected = numpy.ascontiguousarray(numpy.transpose(chunks, [0] + [1 + a for a in axes] + extra))
        self.assertTrue(bt.same_bits(got, expected), f"{dtype} {shape} axes {axes}")

    def test_every_permutation_at_the_benchmark_size(self):
        shape = [2, 192, 8192, 2]
        chunks = bt.random_chunks(self.rng, "cf32", 2, shape)
        for axes in itertools.permutations(range(4)):
            with self.subTest(axes=axes):
                self.check(shape, axes, "cf32", chunks)

    def test_every_permutation_every_type_at_odd_sizes(self):
        shape = [3, 7, 129, 2]
        for dtype in bt.COMPLEX_TYPES + bt.REAL_TYPES:
            chunks = bt.random_chunks(self.rng, dtype, 2, shape)
            for axes in itertools.permutations(range(4)):
                with self.subTest(dtype=dtype, axes=axes):
                    self.check(shape, axes, dtype, chunks)

    def test_five_axes(self):
        shape = [3, 5, 2, 7, 4]
        chunks = bt.random_chunks(self.rng, "ci8", 2, shape)
        for axes in [(4, 3, 2, 1, 0), (0, 2, 4, 1, 3), (1, 0, 3, 2, 4), (2, 3, 4, 0, 1)]:
            with self.subTest(axes=axes):
                self.check(shape, axes, "ci8", chunks)

    def test_gpu_chain_downloads_once(self):
        # file -> cast -> permutation -> download -> two host sinks, all on the GPU
        shape, n = [2, 192, 8192, 2], 3
        chunks = bt.random_chunks(self.rng, "ci8", n, shape)
        chain = [
            blade.cast(shape, "ci8", "cf32", "cuda"),
            blade.permutation(shape, [0, 2, 3, 1], "cf32", "cuda"),
            blade.download([2, 8192, 2, 192], "cf32", "cuda"),
        ]
        blade.reset_copy_stats()
        outputs = bt.run_chain_files(
            chain, blade.pack(chunks, "ci8"), blade.item_size(shape, "ci8"), chain[-1].item_size(), ports=(0, 0)
        )
        stats = blade.copy_stats()
        expected = numpy.transpose(bt.to_values(chunks, "ci8"), (0, 1, 3, 4, 2)).astype(numpy.complex64)
        for data in outputs:
            numpy.testing.assert_array_equal(blade.unpack(data, [2, 8192, 2, 192], "cf32"), expected)
        tensor = 2 * 192 * 8192 * 2 * 8
        self.assertEqual(stats["host_to_device_bytes"], n * blade.item_size(shape, "ci8"))
        self.assertEqual((stats["device_to_host"], stats["device_to_host_bytes"]), (n, n * tensor))
        self.assertEqual(stats["device_to_device"], 0)


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_permutation_gpu)
