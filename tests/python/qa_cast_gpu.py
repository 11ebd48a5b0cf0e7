#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.cast on CUDA gives exactly the CPU's bytes, through real device buffers."""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_cast_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(90)

    def run_on(self, device, chunks, shape, source, target):
        got, _ = bt.run_chunks([blade.cast(shape, source, target, device)], chunks, shape, source, shape, target)
        return got

    def test_every_pair_matches_the_cpu(self):
        pairs = [(a, b) for a in bt.COMPLEX_TYPES for b in bt.COMPLEX_TYPES]
        pairs += [(a, b) for a in bt.REAL_TYPES for b in bt.REAL_TYPES]
        for source, target in pairs:
            for shape in ([1, 1, 1, 1], [3, 7, 13, 2]):
                with self.subTest(source=source, target=target, shape=shape):
                    chunks = bt.random_chunks(self.rng, source, 2, shape)
                    cpu = self.run_on("cpu", chunks, shape, source, target)
                    cuda = self.run_on("cuda:0", chunks, shape, source, target)
                    self.assertTrue(bt.same_bits(cpu, cuda))

    def test_gpu_chain_copies_only_at_host_edges(self):
        shape = [4, 16, 512, 2]
        chunks = bt.random_chunks(self.rng, "ci8", 9, shape)
        chain = [
            blade.cast(shape, "ci8", "cf32", "cuda"),
            blade.cast(shape, "cf32", "cf16", "cuda"),
            blade.cast(shape, "cf16", "cf32", "cuda"),
        ]
        blade.reset_copy_stats()
        got, _ = bt.run_chunks(chain, chunks, shape, "ci8", shape, "cf32")
        stats = blade.copy_stats()
        expected = bt.from_values(
            bt.from_values(bt.to_values(chunks, "ci8"), "cf16").astype(numpy.float64)[..., 0]
            + 1j * bt.from_values(bt.to_values(chunks, "ci8"), "cf16").astype(numpy.float64)[..., 1],
            "cf32",
        )
        numpy.testing.assert_array_equal(got, expected)
        self.assertEqual((stats["host_to_device"], stats["device_to_host"], stats["device_to_device"]), (9, 9, 0))

    def test_auto_picks_the_gpu(self):
        self.assertEqual(blade.cast([2, 4], "ci8", "cf32", "auto").device(), "cuda:0")
        self.assertEqual(blade.resolve_device("auto"), "cuda:0")


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_cast_gpu)
