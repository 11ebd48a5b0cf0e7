#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.permutation against numpy.transpose (CPU backend and emulated device buffers)."""

import itertools

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt

ALL_TYPES = bt.COMPLEX_TYPES + ["cf64"] + bt.REAL_TYPES


def transposed(chunks, axes, dtype):
    """numpy.transpose of each chunk; the (re, im) axis of ci8/ci16/cf16 stays last."""
    rank = len(axes)
    extra = [rank + 1] if chunks.ndim == rank + 2 else []
    return numpy.transpose(chunks, [0] + [1 + a for a in axes] + extra)


def random_chunks(rng, dtype, nchunks, shape):
    if dtype == "cf64":  # (not among blade_testing's types: permutation moves any type)
        full = (nchunks,) + tuple(shape)
        return rng.standard_normal(full) + 1j * rng.standard_normal(full)
    return bt.random_chunks(rng, dtype, nchunks, shape)


class qa_permutation(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(1234)

    def run_permutations(self, shape, dtype, permutations, nchunks=2, device="cpu"):
        """One flowgraph: one source fanned out to a permutation block per axes."""
        chunks = random_chunks(self.rng, dtype, nchunks, shape)
        tb = gr.top_block()
        in_size = blade.item_size(shape, dtype)
        source = blocks.vector_source_b(blade.pack(chunks, dtype).tolist(), False, in_size)
        sinks = []
        for axes in permutations:
            block = blade.permutation(shape, list(axes), dtype, device)
            sink = blocks.vector_sink_b(block.output_item_size())
            tb.connect(source, block, sink)
            sinks.append((axes, block, sink))
        tb.run()
        for axes, block, sink in sinks:
            out_shape = [shape[a] for a in axes]
            self.assertEqual(list(block.output_shape()), out_shape)
            got = blade.unpack(numpy.array(sink.data(), numpy.uint8), out_shape, dtype)
            expected = transposed(chunks, axes, dtype)
            self.assertTrue(bt.same_bits(got, numpy.ascontiguousarray(expected)), f"{dtype} {shape} axes {axes}")

    def test_every_permutation_of_four_axes_every_type(self):
        for dtype in ALL_TYPES:
            with self.subTest(dtype=dtype):
                self.run_permutations([3, 5, 7, 2], dtype, itertools.permutations(range(4)))

    def test_five_axes(self):
        permutations = list(itertools.permutations(range(5)))
        picks = [permutations[i] for i in self.rng.choice(len(permutations), 12, replace=False)]
        picks += [(4, 3, 2, 1, 0), (0, 1, 2, 3, 4), (1, 0, 2, 3, 4), (0, 1, 2, 4, 3)]
        for dtype in ("ci8", "cf32", "f32", "cf16"):
            with self.subTest(dtype=dtype):
                self.run_permutations([2, 3, 1, 5, 4], dtype, picks)

    def test_spec_orders_at_the_ata_shape(self):
        # AFTP -> ATFP, AFPT, ATPF on one [2, 192, 8192, 2] cf32 chunk (25 MiB).
        self.run_permutations([2, 192, 8192, 2], "cf32", [(0, 2, 1, 3), (0, 1, 3, 2), (0, 2, 3, 1)], nchunks=1)

    def test_ranks_one_to_three(self):
        self.run_permutations([13], "ci8", [(0,)])
        self.run_permutations([13, 9], "cf32", [(1, 0), (0, 1)])
        self.run_permutations([4, 1, 9], "ci4", itertools.permutations(range(3)))

    def test_emulated_device_buffers(self):
        # (One GPU block per host output: see qa_duplicate for fanning out.)
        for dtype in ("ci8", "cf32", "cf16", "f32"):
            for axes in [(0, 2, 1, 3), (3, 1, 0, 2)]:
                with self.subTest(dtype=dtype, axes=axes):
                    self.run_permutations([3, 5, 7, 2], dtype, [axes], nchunks=3, device="emulated")

    def test_identity_is_a_pass_through(self):
        shape = [2, 3, 4, 2]
        block = blade.permutation(shape, [0, 1, 2, 3], "cf32", "cpu")
        self.assertTrue(block.is_identity())
        self.assertTrue(blade.permutation([2, 1, 4, 1], [1, 0, 3, 2], "cf32", "cpu").is_identity())
        self.assertFalse(blade.permutation(shape, [0, 2, 1, 3], "cf32", "cpu").is_identity())
        chunks = random_chunks(self.rng, "cf32", 4, shape)
        got, _ = bt.run_chunks([block], chunks, shape, "cf32", shape, "cf32")
        self.assertTrue(bt.same_bits(got, chunks))

    def test_distinct_chunks_stay_in_order_with_their_tags(self):
        shape = [2, 3, 5, 2]
        chunks = numpy.stack([numpy.full(shape, step + 1j * step, numpy.complex64) for step in range(5)])
        chunks += random_chunks(self.rng, "cf32", 5, shape)
        tags = [gr.tag_utils.python_to_tag((i, pmt.intern("step"), pmt.from_long(i))) for i in range(5)]
        got, out_tags = bt.run_chunks(
            [blade.permutation(shape, [0, 2, 3, 1], "cf32", "cpu")], chunks, shape, "cf32", [2, 5, 2, 3], "cf32", tags
        )
        numpy.testing.assert_array_equal(got, numpy.transpose(chunks, (0, 1, 3, 4, 2)))
        self.assertEqual([(t.offset, pmt.to_long(t.value)) for t in out_tags], [(i, i) for i in range(5)])

    def test_properties(self):
        block = blade.permutation([2, 192, 8192, 2], [0, 2, 3, 1], "ci8", "cpu")
        self.assertEqual(block.device(), "cpu")
        self.assertEqual(list(block.axes()), [0, 2, 3, 1])
        self.assertEqual(list(block.output_shape()), [2, 8192, 2, 192])
        self.assertEqual(block.input_item_size(), 2 * 192 * 8192 * 2 * 2)
        self.assertEqual(block.output_item_size(), block.input_item_size())
        # padding follows the output shape: [3, 5, 7] f32 = 420 bytes -> 4096
        self.assertEqual(blade.permutation([3, 5, 7], [2, 0, 1], "f32", "cpu").output_item_size(), 4096)

    def test_bad_configurations_are_refused_with_reasons(self):
        cases = [
            (([2, 3, 4, 2], [0, 0, 1, 2]), "axes {0, 0, 1, 2} are not a permutation of 0..3"),
            (([2, 3, 4, 2], [0, 1, 2, 4]), "are not a permutation of 0..3"),
            (([2, 3, 4, 2], [0, 1, -1, 2]), "are not a permutation"),
            (([2, 3, 4, 2], [0, 2, 1]), "3 axes given for a tensor of rank 4"),
            (([2, 3, 4, 2], [0, 1, 2, 3, 4, 5]), "6 axes given for a tensor of rank 4"),
            (([2, 3], []), "0 axes given for a tensor of rank 2"),
            (([2, 0, 4], [0, 1, 2]), "extent 0 on axis 1"),
            (([1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5]), "rank 6"),
        ]
        for (shape, axes), reason in cases:
            with self.subTest(shape=shape, axes=axes):
                with self.assertRaises(ValueError) as caught:
                    blade.permutation(shape, axes, "cf32", "cpu")
                self.assertIn(reason, str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            blade.permutation([2, 3], [1, 0], "cf33", "cpu")
        self.assertIn("unknown element type 'cf33'", str(caught.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_permutation)
