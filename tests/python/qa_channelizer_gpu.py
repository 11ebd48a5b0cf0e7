#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade.channelizer on CUDA against the CPU block: both GPU paths (single-pass kernel
for power-of-two N <= 8192, planarize + cuFFT + reorder otherwise), the polyphase
filter across chunks, and a cast -> channelizer chain that stays on the GPU.

Tolerance: float32 transforms of length N by two different algorithms differ by
about 1e-7 * log2(N) of the output RMS; we allow max |cuda - cpu| <= 1e-6 * log2(N)
* RMS(cpu) (twice that with a polyphase filter).
"""

import math

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt

bt.require_gpu()


def output_shape(shape, rate):
    a, f, t, p = shape
    return [a, f * rate, t // rate, p]


def relative_difference(got, expected):
    rms = numpy.sqrt(numpy.mean(numpy.abs(expected.astype(numpy.complex128)) ** 2)) or 1.0
    difference = numpy.abs(got.astype(numpy.complex128) - expected)
    return math.inf if numpy.isnan(difference).any() else float(difference.max()) / rms


class qa_channelizer_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(9)

    def parity(self, shape, rate, nchunks=2, taps=1, window="hamming", through_files=False):
        size = (nchunks,) + tuple(shape) + (2,)
        chunks = (30 * self.rng.standard_normal(size, dtype=numpy.float32)).view(numpy.complex64)[..., 0]
        out_shape = output_shape(shape, rate)
        results = []
        for device in ("cpu", "cuda"):
            block = blade.channelizer(shape, rate, device, taps, window)
            if through_files:
                results.append(bt.run_chunks_through_files([block], chunks, shape, "cf32", out_shape, "cf32"))
            else:
                results.append(bt.run_chunks([block], chunks, shape, "cf32", out_shape, "cf32")[0])
        cpu, cuda = results
        limit = 1e-6 * max(1.0, math.log2(rate)) * (2 if taps > 1 else 1)
        difference = relative_difference(cuda, cpu)
        self.assertLess(difference, limit, f"{shape} N={rate} M={taps}: {difference:.3g}")

    def test_single_pass_kernel(self):
        for shape, rate in [
            ([2, 3, 16, 2], 2),
            ([1, 4, 256, 2], 16),
            ([2, 3, 128, 2], 64),
            ([1, 2, 4096, 4], 4096),
            ([1, 2, 8192, 2], 8192),
            ([3, 1, 24, 1], 8),
        ]:
            with self.subTest(shape=shape, rate=rate):
                self.parity(shape, rate)

    def test_general_path(self):
        for shape, rate in [
            ([2, 3, 12, 2], 1),
            ([2, 3, 21, 2], 3),
            ([1, 5, 35, 2], 5),
            ([2, 3, 49, 2], 7),
            ([1, 3, 192, 2], 96),
            ([2, 2, 64, 3], 16),
            ([1, 1, 16384, 2], 16384),
        ]:
            with self.subTest(shape=shape, rate=rate):
                self.parity(shape, rate)

    def test_polyphase_across_chunks(self):
        for shape, rate, taps, window in [
            ([2, 3, 256, 2], 16, 4, "hamming"),
            ([1, 2, 64, 2], 64, 8, "blackman-harris"),
            ([2, 3, 60, 2], 5, 3, "hann"),
            ([1, 2, 8192, 2], 8192, 4, "blackman"),
        ]:
            with self.subTest(shape=shape, rate=rate, taps=taps):
                self.parity(shape, rate, nchunks=3, taps=taps, window=window)

    def test_upstream_benchmark_shape(self):
        self.parity([16, 192, 8192, 2], 8192, nchunks=1, through_files=True)

    def test_gpu_chain_copies_only_at_the_host_edges(self):
        shape, rate, nchunks = [2, 192, 512, 2], 64, 4
        raw = bt.random_chunks(self.rng, "ci8", nchunks, shape)
        out_shape = output_shape(shape, rate)
        chain = [blade.cast(shape, "ci8", "cf32", "cuda"), blade.channelizer(shape, rate, "cuda", 4, "hamming")]
        blade.reset_copy_stats()
        got, _ = bt.run_chunks(chain, raw, shape, "ci8", out_shape, "cf32")
        stats = blade.copy_stats()
        expected, _ = bt.run_chunks(
            [blade.cast(shape, "ci8", "cf32", "cpu"), blade.channelizer(shape, rate, "cpu", 4, "hamming")],
            raw,
            shape,
            "ci8",
            out_shape,
            "cf32",
        )
        self.assertLess(relative_difference(got, expected), 2e-6 * math.log2(rate))
        self.assertEqual(stats["host_to_device"], nchunks)
        self.assertEqual(stats["device_to_host"], nchunks)
        self.assertEqual(stats["device_to_device"], 0)


if __name__ == "__main__":
    gr_unittest.run(qa_channelizer_gpu)
