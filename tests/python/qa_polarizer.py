#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.polarizer against L = X + iY, R = X - iY written with numpy (CPU backend)."""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt


def circular(chunks):
    """The spec's formula: index 0 = X + iY (L), index 1 = X - iY (R), no 1/sqrt(2).
    Computed in complex128, where it is exact for complex64 inputs, then rounded."""
    x = chunks[..., 0].astype(numpy.complex128)
    y = chunks[..., 1].astype(numpy.complex128)
    return numpy.stack([x + 1j * y, x - 1j * y], axis=-1).astype(numpy.complex64)


class qa_polarizer(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(20261201)

    def check(self, shape, nchunks=3, device="cpu"):
        chunks = bt.random_complex(self.rng, (nchunks, *shape), 100.0)
        got, _ = bt.run_chunks([blade.polarizer(shape, device)], chunks, shape, "cf32", shape, "cf32")
        numpy.testing.assert_array_equal(got, circular(chunks), err_msg=f"{shape}")

    def test_hand_values(self):
        # (X, Y) = (1+2i, 3+4i): L = -3+5i, R = 5-i; (1, 0): L = R = 1; (0, 1): L = i, R = -i
        chunks = numpy.array([[[[1 + 2j, 3 + 4j]], [[1, 0]], [[0, 1]]]], numpy.complex64)
        got, _ = bt.run_chunks([blade.polarizer([3, 1, 2], "cpu")], chunks, [3, 1, 2], "cf32", [3, 1, 2], "cf32")
        expected = numpy.array([[[[-3 + 5j, 5 - 1j]], [[1, 1]], [[1j, -1j]]]], numpy.complex64)
        numpy.testing.assert_array_equal(got, expected)

    def test_edge_shapes(self):
        for shape in ([1, 1, 1, 2], [2], [3, 5, 7, 2], [1, 13, 17, 2], [2, 2, 3, 5, 2], [1, 1, 4099, 2]):
            with self.subTest(shape=shape):
                self.check(shape)

    def test_upstream_shape_one_chunk(self):
        # [2, 192, 8192, 2]: a full-size chunk (50 MB), through files.
        shape = [2, 192, 8192, 2]
        chunks = bt.random_complex(self.rng, (1, *shape), 100.0)
        got = bt.run_chunks_via_files([blade.polarizer(shape, "cpu")], chunks, "cf32", shape, "cf32")
        numpy.testing.assert_array_equal(got, circular(chunks))

    def test_power_doubles(self):
        shape = [2, 4, 64, 2]
        chunks = bt.random_complex(self.rng, (2, *shape), 100.0)
        got, _ = bt.run_chunks([blade.polarizer(shape, "cpu")], chunks, shape, "cf32", shape, "cf32")
        power_in = numpy.sum(numpy.abs(chunks.astype(numpy.complex128)) ** 2)
        power_out = numpy.sum(numpy.abs(got.astype(numpy.complex128)) ** 2)
        self.assertAlmostEqual(power_out / power_in, 2.0, places=6)

    def test_linear_output_is_a_pass_through(self):
        shape = [2, 3, 5, 2]
        chunks = bt.random_complex(self.rng, (4, *shape), 100.0)
        block = blade.polarizer(shape, "cpu", "linear")
        self.assertEqual(block.output_basis(), "linear")
        got, _ = bt.run_chunks([block], chunks, shape, "cf32", shape, "cf32")
        numpy.testing.assert_array_equal(got, chunks)

    def test_chunks_stay_in_order_and_tags_pass(self):
        shape = [1, 2, 3, 2]
        chunks = numpy.stack([numpy.full(shape, step + 1j * step, numpy.complex64) for step in range(5)])
        tags = [t for i in range(5) for t in bt.blade_tags(i, tsamp=1e-6 * (i + 1))]
        got, out_tags = bt.run_chunks([blade.polarizer(shape, "cpu")], chunks, shape, "cf32", shape, "cf32", tags)
        numpy.testing.assert_array_equal(got, circular(chunks))
        received = bt.tags_by_offset(out_tags)
        self.assertEqual(sorted(received), list(range(5)))
        for i in range(5):
            self.assertEqual(received[i]["blade_tsamp"], 1e-6 * (i + 1))

    def test_properties(self):
        block = blade.polarizer([16, 192, 8192, 2], "cpu")
        self.assertEqual(block.device(), "cpu")
        self.assertEqual(block.output_basis(), "circular")
        self.assertEqual(list(block.output_shape()), [16, 192, 8192, 2])
        self.assertEqual(block.input_item_size(), 16 * 192 * 8192 * 2 * 8)
        self.assertEqual(block.output_item_size(), block.input_item_size())

    def test_bad_configurations_are_refused_with_reasons(self):
        cases = [
            (([2, 4, 8, 1],), {}, "the last axis must hold 2 polarizations"),
            (([2, 4, 8, 3],), {}, "[2, 4, 8, 3] has 3"),
            (([2, 4, 8, 2],), {"output_basis": "elliptical"}, "unknown polarization basis 'elliptical'"),
            (([2, 0, 8, 2],), {}, "extent 0 on axis 1"),
        ]
        for args, kwargs, reason in cases:
            with self.subTest(args=args, kwargs=kwargs):
                with self.assertRaises(ValueError) as caught:
                    blade.polarizer(*args, device="cpu", **kwargs)
                self.assertIn(reason, str(caught.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_polarizer)
