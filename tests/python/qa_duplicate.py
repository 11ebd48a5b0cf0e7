#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.duplicate: every output gets its own, identical copy of every chunk."""

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_duplicate(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(42)

    def run_duplicate(self, shape, dtype, copies, device, chunks, tags=()):
        block = blade.duplicate(shape, dtype, copies, device)
        size = blade.item_size(shape, dtype)
        outputs = bt.run_graph(block, [(blade.pack(chunks, dtype), size)], [size] * copies, tags=[tags])
        return [(blade.unpack(data, shape, dtype), out_tags) for data, out_tags in outputs]

    def test_every_output_equals_the_input(self):
        for dtype in ("ci4", "ci8", "cf16", "cf32", "f32", "f64"):
            for copies in (1, 2, 3):
                with self.subTest(dtype=dtype, copies=copies):
                    shape = [3, 5, 7, 2]
                    chunks = bt.random_chunks(self.rng, dtype, 4, shape)
                    outputs = self.run_duplicate(shape, dtype, copies, "cpu", chunks)
                    self.assertEqual(len(outputs), copies)
                    for got, _ in outputs:
                        self.assertTrue(bt.same_bits(got, chunks))

    def test_tags_reach_every_output(self):
        shape = [2, 2, 4, 2]
        chunks = bt.random_chunks(self.rng, "cf32", 3, shape)
        tags = [gr.tag_utils.python_to_tag((i, pmt.intern("step"), pmt.from_long(7 * i))) for i in range(3)]
        for got, out_tags in self.run_duplicate(shape, "cf32", 2, "cpu", chunks, tags):
            self.assertEqual(sorted((t.offset, pmt.to_long(t.value)) for t in out_tags), [(i, 7 * i) for i in range(3)])

    def test_emulated_copies_to_host_sinks_download_once_each(self):
        # Each output has its own device buffer; each buffer downloads to its host sink.
        shape = [3, 7, 33, 2]
        chunks = bt.random_chunks(self.rng, "cf32", 6, shape)
        blade.reset_copy_stats()
        outputs = self.run_duplicate(shape, "cf32", 3, "emulated", chunks)
        stats = blade.copy_stats()
        for got, _ in outputs:
            self.assertTrue(bt.same_bits(got, chunks))
        # (device buffers copy whole work calls: count bytes)
        size = blade.item_size(shape, "cf32")
        self.assertEqual(stats["host_to_device_bytes"], 6 * size)
        self.assertEqual(stats["device_to_host_bytes"], 3 * 6 * size)
        self.assertEqual(stats["device_to_device"], 0)

    def test_one_gpu_chain_feeds_a_gpu_block_and_a_host_block(self):
        # The reason duplicate exists: output 0 stays on the device for the next GPU
        # block, output 1 is downloaded by its buffer for a host sink. The first
        # consumer transposes its copy; the second still receives the original.
        shape = [2, 3, 5, 2]
        chunks = bt.random_chunks(self.rng, "ci8", 5, shape)
        tb = gr.top_block()
        source = blocks.vector_source_b(blade.pack(chunks, "ci8").tolist(), False, blade.item_size(shape, "ci8"))
        cast = blade.cast(shape, "ci8", "cf32", "emulated")
        duplicate = blade.duplicate(shape, "cf32", 2, "emulated")
        permutation = blade.permutation(shape, [0, 2, 3, 1], "cf32", "emulated")
        download = blade.download([2, 5, 2, 3], "cf32", "emulated")
        transposed_sink = blocks.vector_sink_b(download.item_size())
        plain_sink = blocks.vector_sink_b(duplicate.item_size())
        tb.connect(source, cast, duplicate)
        tb.connect((duplicate, 0), permutation, download, transposed_sink)
        tb.connect((duplicate, 1), plain_sink)
        blade.reset_copy_stats()
        tb.run()
        stats = blade.copy_stats()
        values = bt.to_values(chunks, "ci8").astype(numpy.complex64)
        plain = blade.unpack(numpy.array(plain_sink.data(), numpy.uint8), shape, "cf32")
        transposed = blade.unpack(numpy.array(transposed_sink.data(), numpy.uint8), [2, 5, 2, 3], "cf32")
        numpy.testing.assert_array_equal(plain, values)
        numpy.testing.assert_array_equal(transposed, numpy.transpose(values, (0, 1, 3, 4, 2)))
        # per chunk one upload (into cast), two downloads (the download block, the
        # plain sink's buffer), nothing copied on the device
        ci8_size, cf32_size = blade.item_size(shape, "ci8"), blade.item_size(shape, "cf32")
        self.assertEqual(stats["host_to_device_bytes"], 5 * ci8_size)
        self.assertEqual(stats["device_to_host_bytes"], 5 * (2 * 3 * 5 * 2 * 8) + 5 * cf32_size)
        self.assertEqual(stats["device_to_device"], 0)

    def test_a_host_output_feeding_two_gpu_blocks_is_refused_and_duplicate_fixes_it(self):
        # GNU Radio lets each GPU reader replace a host writer's buffer; the first
        # reader's buffer would be orphaned and the flowgraph would hang. It ends with a
        # failure that says what to do instead.
        shape = [2, 3, 5, 2]
        chunks = bt.random_chunks(self.rng, "cf32", 3, shape)
        size = blade.item_size(shape, "cf32")

        def fan_out(through_duplicate):
            tb = gr.top_block()
            source = blocks.vector_source_b(blade.pack(chunks, "cf32").tolist(), False, size)
            blocks_out = [blade.permutation(shape, axes, "cf32", "emulated") for axes in ([0, 2, 1, 3], [3, 2, 1, 0])]
            sinks = [blocks.vector_sink_b(size) for _ in blocks_out]
            if through_duplicate:
                duplicate = blade.duplicate(shape, "cf32", 2, "emulated")
                tb.connect(source, duplicate)
                for port, (block, sink) in enumerate(zip(blocks_out, sinks)):
                    tb.connect((duplicate, port), block, sink)
            else:
                for block, sink in zip(blocks_out, sinks):
                    tb.connect(source, block, sink)
            blade.clear_failures()
            tb.run()
            return [
                blade.unpack(numpy.array(s.data(), numpy.uint8), [shape[a] for a in axes], "cf32")
                for s, axes in zip(sinks, ([0, 2, 1, 3], [3, 2, 1, 0]))
            ]

        fan_out(through_duplicate=False)
        failures = blade.failures()
        self.assertEqual(len(failures), 1)
        self.assertIn("a host output can feed only one GPU block", failures[0])
        self.assertIn("blade.duplicate", failures[0])

        first, second = fan_out(through_duplicate=True)
        self.assertEqual(blade.failures(), [])
        numpy.testing.assert_array_equal(first, numpy.transpose(chunks, (0, 1, 3, 2, 4)))
        numpy.testing.assert_array_equal(second, numpy.transpose(chunks, (0, 4, 3, 2, 1)))

    def test_many_distinct_chunks_in_order(self):
        shape = [1, 3, 11, 1]
        chunks = numpy.stack([numpy.full(shape, i, numpy.float32) for i in range(40)])
        for got, _ in self.run_duplicate(shape, "f32", 2, "emulated", chunks):
            numpy.testing.assert_array_equal(got, chunks)

    def test_properties_and_bad_configurations(self):
        block = blade.duplicate([20, 192, 8192, 2], "cf32", 2, "cpu")
        self.assertEqual(block.copies(), 2)
        self.assertEqual(block.device(), "cpu")
        self.assertEqual(block.item_size(), 20 * 192 * 8192 * 2 * 8)
        for copies in (0, -1, 65):
            with self.assertRaises(ValueError) as caught:
                blade.duplicate([2, 3], "cf32", copies, "cpu")
            self.assertIn(f"copies must be 1 to 64, got {copies}", str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            blade.duplicate([2, 0], "cf32", 2, "cpu")
        self.assertIn("extent 0 on axis 1", str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            blade.duplicate([2, 3], "complex", 2, "cpu")
        self.assertIn("unknown element type 'complex'", str(caught.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_duplicate)
