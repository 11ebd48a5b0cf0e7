#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.cast against numpy conversions written from the spec (CPU backend)."""

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_cast(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(20261130)

    def check_pair(self, source, target, shape, nchunks=3, device="cpu"):
        chunks = bt.random_chunks(self.rng, source, nchunks, shape)
        # identical types are a plain copy (NaN payloads included)
        expected = chunks if source == target else bt.from_values(bt.to_values(chunks, source), target)
        got, _ = bt.run_chunks([blade.cast(shape, source, target, device)], chunks, shape, source, shape, target)
        self.assertTrue(
            bt.same_bits(got, expected),
            f"{source} -> {target} {shape}: {numpy.count_nonzero(got != expected)} elements differ",
        )

    def test_every_complex_pair(self):
        for source in bt.COMPLEX_TYPES:
            for target in bt.COMPLEX_TYPES:
                with self.subTest(source=source, target=target):
                    self.check_pair(source, target, [3, 5, 7, 2])

    def test_every_real_pair(self):
        for source in bt.REAL_TYPES:
            for target in bt.REAL_TYPES:
                with self.subTest(source=source, target=target):
                    self.check_pair(source, target, [2, 3, 11, 1])

    def test_edge_shapes(self):
        for shape in ([1], [1, 1, 1, 1], [7], [2, 13, 17, 1], [1, 1, 4097, 2], [2, 2, 1, 2, 3]):
            with self.subTest(shape=shape):
                self.check_pair("ci8", "cf32", shape, nchunks=2)
                self.check_pair("cf32", "ci4", shape, nchunks=2)

    def test_upstream_benchmark_shape_ci8_to_cf32(self):
        # One chunk of the ATA shape [2, 192, 8192, 2]: 6 MiB in, 25 MiB out.
        self.check_pair("ci8", "cf32", [2, 192, 8192, 2], nchunks=1)

    def test_ci8_data_per_step_is_distinct_and_in_order(self):
        shape = [2, 3, 4, 2]
        chunks = numpy.stack([numpy.full(shape + [2], step, numpy.int8) for step in range(6)])
        got, _ = bt.run_chunks([blade.cast(shape, "ci8", "cf32", "cpu")], chunks, shape, "ci8", shape, "cf32")
        for step in range(6):
            self.assertTrue(numpy.all(got[step] == step + 1j * step))

    def test_tags_travel_with_their_chunk(self):
        shape = [2, 4, 8, 2]
        chunks = bt.random_chunks(self.rng, "ci8", 4, shape)
        tags = [gr.tag_utils.python_to_tag((i, pmt.intern("step"), pmt.from_long(10 * i))) for i in range(4)]
        _, out_tags = bt.run_chunks(
            [blade.cast(shape, "ci8", "cf32", "cpu")], chunks, shape, "ci8", shape, "cf32", tags
        )
        self.assertEqual(sorted((t.offset, pmt.to_long(t.value)) for t in out_tags), [(i, 10 * i) for i in range(4)])

    def test_properties(self):
        block = blade.cast([20, 192, 8192, 2], "ci8", "cf32", "cpu")
        self.assertEqual(block.device(), "cpu")
        self.assertEqual(list(block.output_shape()), [20, 192, 8192, 2])
        self.assertEqual(block.input_item_size(), 20 * 192 * 8192 * 2 * 2)
        self.assertEqual(block.output_item_size(), 20 * 192 * 8192 * 2 * 8)
        self.assertEqual(blade.item_size([3, 5, 7, 1], "ci4"), 4096)

    def test_bad_configurations_are_refused_with_reasons(self):
        cases = [
            (([2, 4], "cf32", "f32"), "complex-to-real"),
            (([2, 4], "f32", "cf32"), "f32 -> cf32"),
            (([2, 4], "ci9", "cf32"), "unknown element type 'ci9'"),
            (([2, 0, 4], "ci8", "cf32"), "extent 0 on axis 1"),
            (([1, 2, 3, 4, 5, 6], "ci8", "cf32"), "rank 6"),
            (([], "ci8", "cf32"), "rank 0"),
        ]
        for args, reason in cases:
            with self.subTest(args=args):
                with self.assertRaises(ValueError) as caught:
                    blade.cast(*args, "cpu")
                self.assertIn(reason, str(caught.exception))
        with self.assertRaises(Exception) as caught:
            blade.cast([2, 4], "ci8", "cf32", "quantum")
        self.assertIn("'quantum'", str(caught.exception))

    def test_cuda_without_a_gpu_is_a_clear_error(self):
        if blade.gpus():
            self.skipTest("a GPU is present")
        for device in ("cuda", "cuda:0", "cuda:3"):
            with self.assertRaises(RuntimeError) as caught:
                blade.cast([2, 4], "ci8", "cf32", device)
            self.assertIn("requested", str(caught.exception))
        self.assertEqual(blade.cast([2, 4], "ci8", "cf32", "auto").device(), "cpu")

    def test_item_size_mismatch_is_refused_at_connect(self):
        tb = gr.top_block()
        a = blade.cast([2, 192, 64, 2], "ci8", "cf32", "cpu")  # 196608-byte items
        b = blade.cast([2, 192, 64, 2], "cf32", "cf32", "cpu")
        c = blade.cast([2, 192, 32, 2], "cf32", "cf32", "cpu")  # 98304-byte items
        tb.connect(a, b)
        with self.assertRaises(ValueError) as caught:
            tb.connect(b, c)
        self.assertIn("itemsize mismatch", str(caught.exception))

    def test_same_size_but_different_tensor_is_refused_at_start(self):
        shape = [2, 3, 5, 2]  # cf32 and cf16 chunks both fit one 4096-byte item
        blade.clear_failures()
        tb = gr.top_block()
        source = blocks.vector_source_b([0] * 4096 * 3, True, 4096)
        head = blade.cast(shape, "ci8", "cf32", "cpu")
        wrong = blade.cast(shape, "cf16", "cf32", "cpu")
        sink = blocks.vector_sink_b(4096)
        tb.connect(source, head, wrong, sink)
        tb.run()  # ends on its own although the source repeats forever
        failures = blade.failures()
        self.assertEqual(len(failures), 1)
        self.assertIn("upstream produces cf32 [2, 3, 5, 2] but this block expects cf16 [2, 3, 5, 2]", failures[0])
        self.assertEqual(len(sink.data()), 0)


if __name__ == "__main__":
    gr_unittest.run(qa_cast)
