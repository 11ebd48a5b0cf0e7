#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.gather against numpy.concatenate, with distinct data in every chunk (CPU backend)."""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt


def concatenate(chunks, axis, multiplier):
    """The spec: every M consecutive chunks, concatenated along `axis` in arrival
    order; a trailing partial group gives nothing."""
    groups = len(chunks) // multiplier
    return numpy.stack(
        [numpy.concatenate(list(chunks[g * multiplier : (g + 1) * multiplier]), axis=axis) for g in range(groups)]
    )


class qa_gather(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(20261203)

    def run_gather(self, chunks, shape, axis, multiplier, dtype, device="cpu", tags=()):
        block = blade.gather(shape, axis, multiplier, dtype, device)
        out_shape = list(block.output_shape())
        return bt.run_chunks([block], chunks, shape, dtype, out_shape, dtype, tags)

    def test_two_by_three_by_hand(self):
        a = numpy.array([[1, 2, 3], [4, 5, 6]], numpy.float32)
        b = numpy.array([[7, 8, 9], [10, 11, 12]], numpy.float32)
        got, _ = self.run_gather(numpy.stack([a, b]), [2, 3], 1, 2, "f32")
        numpy.testing.assert_array_equal(got[0], [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]])
        got, _ = self.run_gather(numpy.stack([a, b]), [2, 3], 0, 2, "f32")
        numpy.testing.assert_array_equal(got[0], [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]])

    def test_every_axis_type_and_multiplier(self):
        shape = [3, 5, 7, 2]
        for dtype in ("ci4", "ci8", "cf16", "cf32", "f64"):
            for axis in range(4):
                for multiplier in (1, 2, 5):
                    with self.subTest(dtype=dtype, axis=axis, multiplier=multiplier):
                        chunks = bt.random_chunks(self.rng, dtype, 2 * multiplier, shape)
                        got, _ = self.run_gather(chunks, shape, axis, multiplier, dtype)
                        self.assertTrue(bt.same_bits(got, concatenate(chunks, axis, multiplier)))

    def test_edge_shapes(self):
        for shape, axis in (([1], 0), ([1, 1, 1, 1], 2), ([7], 0), ([2, 13, 17, 1], 1), ([2, 2, 1, 3, 2], 4)):
            with self.subTest(shape=shape, axis=axis):
                chunks = bt.random_chunks(self.rng, "cf32", 6, shape)
                got, _ = self.run_gather(chunks, shape, axis, 3, "cf32")
                self.assertTrue(bt.same_bits(got, concatenate(chunks, axis, 3)))

    def test_chunk_order_is_preserved(self):
        # Chunk c holds the value c everywhere: the output must read 0, 1, 2, 3 along
        # the axis, then 4, 5, 6, 7; the 9th chunk waits for a group that never comes.
        shape = [2, 3, 4, 2]
        chunks = numpy.stack([numpy.full(shape, c, numpy.complex64) for c in range(9)])
        got, _ = self.run_gather(chunks, shape, 2, 4, "cf32")
        self.assertEqual(got.shape, (2, 2, 3, 16, 2))
        for group in range(2):
            along_time = got[group, 0, 0, :, 0].real
            numpy.testing.assert_array_equal(along_time, numpy.repeat(numpy.arange(4) + 4 * group, 4))

    def test_upstream_shape_along_time(self):
        # [5, 192, 8192, 2] cf32 along T (full-size chunks), two distinct chunks.
        shape = [5, 192, 8192, 2]
        chunks = bt.random_complex(self.rng, (2, *shape), 100.0)
        block = blade.gather(shape, 2, 2, "cf32", "cpu")
        got = bt.run_chunks_via_files([block], chunks, "cf32", [5, 192, 16384, 2], "cf32")
        self.assertTrue(bt.same_bits(got, concatenate(chunks, 2, 2)))

    def test_only_the_first_chunk_tags_travel(self):
        # Along T of [A, F, T, P] with tsamp: the middle of the long chunk moves by
        # (M - 1) * T * tsamp / 2; along F it stays.
        shape = [1, 2, 8, 2]
        tsamp = 1e-3
        tags = []
        for i in range(6):
            tags += bt.blade_tags(i, tsamp=tsamp, time_mid_unix=50.0 + 8 * tsamp * i, block_index=i)
        chunks = bt.random_complex(self.rng, (6, *shape), 100.0)
        for axis, shift in ((2, 8 * tsamp), (1, 0.0)):
            with self.subTest(axis=axis):
                _, out_tags = self.run_gather(chunks, shape, axis, 3, "cf32", tags=tags)
                received = bt.tags_by_offset(out_tags)
                self.assertEqual(sorted(received), [0, 1])
                for group in (0, 1):
                    self.assertEqual(received[group]["blade_block_index"], 3 * group)
                    self.assertEqual(received[group]["blade_tsamp"], tsamp)
                    self.assertAlmostEqual(
                        received[group]["blade_time_mid_unix"], 50.0 + 8 * tsamp * 3 * group + shift, delta=1e-9
                    )

    def test_properties(self):
        block = blade.gather([5, 192, 8192, 2], 2, 16, "cf32", "cpu")
        self.assertEqual((block.axis(), block.multiplier(), block.decimation()), (2, 16, 16))
        self.assertEqual(list(block.output_shape()), [5, 192, 8192 * 16, 2])
        self.assertEqual(block.input_item_size(), 5 * 192 * 8192 * 2 * 8)
        self.assertEqual(block.output_item_size(), 16 * block.input_item_size())

    def test_bad_configurations_are_refused_with_reasons(self):
        cases = [
            (([2, 3, 4, 2], 4, 2), "axis 4 is out of range"),
            (([2, 3, 4, 2], -1, 2), "axis -1 is out of range"),
            (([2, 3], 2, 2), "axes 0 to 1"),
            (([2, 3, 4, 2], 2, 0), "multiplier 0 must be at least 1"),
            (([2, 3, 4, 2], 2, -4), "multiplier -4"),
            # 64 upstream-size chunks make an 8 GB item: more than GNU Radio allows
            (([5, 192, 8192, 2], 2, 64), "GNU Radio items hold at most 2 GiB"),
        ]
        for args, reason in cases:
            with self.subTest(args=args):
                with self.assertRaises(ValueError) as caught:
                    blade.gather(*args, "cf32", "cpu")
                self.assertIn(reason, str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            blade.gather([2, 3], 0, 2, "ci9", "cpu")
        self.assertIn("unknown element type 'ci9'", str(caught.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_gather)
