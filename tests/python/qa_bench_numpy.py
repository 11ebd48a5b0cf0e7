#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade-bench's numpy suite compares like with like: each numpy version of a case
(gnuradio.blade.bench.numpy_suite) gives what the gr-blade CPU block gives on the same
inputs, at the suite's quick shape."""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
from gnuradio.blade.bench import numpy_suite as bench_numpy
import blade_testing as bt

QUICK_TIMES = bench_numpy.TIMES // bench_numpy.QUICK_SHRINK


def case(module, label_start):
    return next(c for c in bench_numpy.CASES if c.module == module and c.label.startswith(label_start))


def numpy_result(one):
    """The case's inputs at the quick shape and numpy's output for them."""
    inputs, out = one.make(QUICK_TIMES, numpy.random.default_rng(5))
    one.maths(*inputs, out)
    return inputs, out


class qa_bench_numpy(gr_unittest.TestCase):
    def assert_close(self, got, expected, scale, what):
        self.assertEqual(got.shape, expected.shape, what)
        worst = numpy.max(numpy.abs(got.astype(numpy.complex128) - expected) / scale)
        self.assertLess(worst, 1e-5, what)

    def test_cast(self):
        (voltages,), ours = numpy_result(case("cast", "ci8->cf32"))
        shape = list(ours.shape)
        got, _ = bt.run_chunks([blade.cast(shape, "ci8", "cf32", "cpu")], voltages[None], shape, "ci8", shape, "cf32")
        numpy.testing.assert_array_equal(got[0], ours)

    def test_beamformer(self):
        (x, w), ours = numpy_result(case("beamformer", "(B, A) = (8, 20)"))
        block = blade.beamformer(list(x.shape), list(w.shape), device="cpu")
        got, _ = bt.run_beamformer(block, x[None], w[None])
        scale = bt.beamform_magnitude(x[None], w[None])[0]
        self.assert_close(got[0], ours, scale, "beamformer")

    def test_detector(self):
        for mode, label in (("I", "I I=8"), ("IQUV", "IQUV I=8")):
            with self.subTest(mode=mode):
                (x,), ours = numpy_result(case("detector", label))
                shape = list(x.shape)
                got, _ = bt.run_chunks(
                    [blade.detector(shape, mode, 8, "cpu")], x[None], shape, "cf32", list(ours.shape), "f32"
                )
                power = (numpy.abs(x) ** 2).sum(axis=-1).reshape(*ours.shape[:3], 8).sum(axis=-1)
                self.assert_close(got[0], ours, power[..., None], mode)

    def test_channelizer(self):
        (x, rate), ours = numpy_result(case("channelizer", "[16, 192, 8192, 2] N=8192"))
        shape = list(x.shape)
        got, _ = bt.run_chunks(
            [blade.channelizer(shape, rate, "cpu")], x[None], shape, "cf32", list(ours.shape), "cf32"
        )
        # each bin sums N terms of |x|: errors scale with that sum
        scale = numpy.abs(x).sum(axis=2).max()
        self.assert_close(got[0], ours, scale, f"channelizer N={rate}")

    def test_polarizer(self):
        (x,), ours = numpy_result(case("polarizer", "circular"))
        shape = list(x.shape)
        got, _ = bt.run_chunks([blade.polarizer(shape, "cpu")], x[None], shape, "cf32", shape, "cf32")
        numpy.testing.assert_array_equal(got[0], ours)

    def test_every_case_checked(self):
        self.assertEqual(
            sorted({c.module for c in bench_numpy.CASES}),
            ["beamformer", "cast", "channelizer", "detector", "polarizer"],
        )

    def test_gpu_device_skips(self):
        self.assertEqual(bench_numpy.run_suite("cuda:0", True), ([], {}))


if __name__ == "__main__":
    gr_unittest.run(qa_bench_numpy)
