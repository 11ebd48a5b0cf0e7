#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade.download with the host-emulated GPU: each chunk is copied from device to host
exactly once, by the download block, and nothing else is copied; its host output
feeds any number of host blocks, and the GPU output it reads can feed GPU blocks too.
"""

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt


def sink_chunks(sink, shape, dtype):
    return blade.unpack(numpy.array(sink.data(), numpy.uint8), shape, dtype)


class qa_download(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(77)

    def source(self, chunks, shape, dtype, tags=()):
        return blocks.vector_source_b(
            blade.pack(chunks, dtype).tolist(), False, blade.item_size(shape, dtype), list(tags)
        )

    def test_emulated_chain_downloads_each_chunk_once(self):
        # host -> cast -> permutation -> download -> two host sinks
        shape, out_shape, n = [3, 5, 7, 2], [3, 7, 2, 5], 6
        chunks = bt.random_chunks(self.rng, "ci8", n, shape)
        tb = gr.top_block()
        cast = blade.cast(shape, "ci8", "cf32", "emulated")
        permutation = blade.permutation(shape, [0, 2, 3, 1], "cf32", "emulated")
        download = blade.download(out_shape, "cf32", "emulated")
        sinks = [blocks.vector_sink_b(download.item_size()) for _ in range(2)]
        tb.connect(self.source(chunks, shape, "ci8"), cast, permutation, download)
        for sink in sinks:
            tb.connect(download, sink)
        blade.reset_copy_stats()
        tb.run()
        stats = blade.copy_stats()
        expected = numpy.transpose(bt.to_values(chunks, "ci8"), (0, 1, 3, 4, 2)).astype(numpy.complex64)
        for sink in sinks:
            numpy.testing.assert_array_equal(sink_chunks(sink, out_shape, "cf32"), expected)
        self.assertEqual(stats["host_to_device_bytes"], n * blade.item_size(shape, "ci8"))  # into cast
        self.assertEqual(stats["device_to_host"], n)  # the download block, once per chunk
        self.assertEqual(stats["device_to_host_bytes"], n * 3 * 5 * 7 * 2 * 8)  # tensor bytes only
        self.assertEqual(stats["device_to_device"], 0)
        self.assertEqual(stats["host_to_host"], 0)

    def test_one_gpu_output_feeds_a_gpu_block_and_host_blocks(self):
        # cast's device buffer has two device readers (permutation, download): no
        # transfer-type conflict, no device copy.
        shape, n = [2, 4, 9, 2], 5
        chunks = bt.random_chunks(self.rng, "ci8", n, shape)
        tb = gr.top_block()
        cast = blade.cast(shape, "ci8", "cf32", "emulated")
        permutation = blade.permutation(shape, [1, 0, 2, 3], "cf32", "emulated")
        download = blade.download(shape, "cf32", "emulated")
        permuted_sink = blocks.vector_sink_b(permutation.output_item_size())
        host_sinks = [blocks.vector_sink_b(download.item_size()) for _ in range(3)]
        tb.connect(self.source(chunks, shape, "ci8"), cast)
        tb.connect(cast, permutation, permuted_sink)
        tb.connect(cast, download)
        for sink in host_sinks:
            tb.connect(download, sink)
        blade.reset_copy_stats()
        tb.run()
        stats = blade.copy_stats()
        values = bt.to_values(chunks, "ci8").astype(numpy.complex64)
        numpy.testing.assert_array_equal(
            sink_chunks(permuted_sink, [4, 2, 9, 2], "cf32"), numpy.transpose(values, (0, 2, 1, 3, 4))
        )
        for sink in host_sinks:
            numpy.testing.assert_array_equal(sink_chunks(sink, shape, "cf32"), values)
        # per chunk: one upload; one download by this block, one by permutation's buffer
        tensor = 2 * 4 * 9 * 2 * 8
        self.assertEqual(stats["host_to_device_bytes"], n * blade.item_size(shape, "ci8"))
        self.assertEqual(stats["device_to_host_bytes"], n * tensor + n * permutation.output_item_size())
        self.assertEqual(stats["device_to_device"], 0)

    def test_many_chunks_and_tags(self):
        shape, n = [1, 3, 5, 2], 40
        chunks = numpy.stack([numpy.full(shape, k - 3j * k, numpy.complex64) for k in range(n)])
        tags = [gr.tag_utils.python_to_tag((k, pmt.intern("k"), pmt.from_long(k))) for k in range(0, n, 3)]
        blade.reset_copy_stats()
        got, out_tags = bt.run_chunks(
            [blade.cast(shape, "cf32", "cf32", "emulated"), blade.download(shape, "cf32", "emulated")],
            chunks,
            shape,
            "cf32",
            shape,
            "cf32",
            tags,
        )
        numpy.testing.assert_array_equal(got, chunks)
        self.assertEqual([(t.offset, pmt.to_long(t.value)) for t in out_tags], [(k, k) for k in range(0, n, 3)])
        self.assertEqual(blade.copy_stats()["device_to_host"], n)

    def test_after_a_host_block_it_is_a_host_copy(self):
        # GNU Radio 3.10 gives a block with a device input and a host output a host
        # buffer after a host writer (it takes the buffer type from the output
        # signature): the block notices, copies host to host, and logs that it is useless.
        shape, n = [2, 2, 3, 1], 4
        chunks = bt.random_chunks(self.rng, "f32", n, shape)
        blade.reset_copy_stats()
        got, _ = bt.run_chunks([blade.download(shape, "f32", "emulated")], chunks, shape, "f32", shape, "f32")
        self.assertTrue(bt.same_bits(got, chunks))
        stats = blade.copy_stats()
        self.assertEqual((stats["host_to_device"], stats["device_to_host"], stats["host_to_host"]), (0, 0, n))

    def test_on_the_cpu_it_is_a_plain_copy(self):
        shape, n = [2, 3, 4, 2], 3
        chunks = bt.random_chunks(self.rng, "ci4", n, shape)
        blade.reset_copy_stats()
        got, _ = bt.run_chunks([blade.download(shape, "ci4", "cpu")], chunks, shape, "ci4", shape, "ci4")
        self.assertTrue(bt.same_bits(got, chunks))
        stats = blade.copy_stats()
        self.assertEqual((stats["host_to_host"], stats["host_to_device"], stats["device_to_host"]), (n, 0, 0))

    def test_properties_and_bad_configurations(self):
        block = blade.download([2, 192, 8192, 2], "cf32", "emulated")
        self.assertEqual(block.device(), "emulated")
        self.assertEqual(block.item_size(), 2 * 192 * 8192 * 2 * 8)
        with self.assertRaises(ValueError) as caught:
            blade.download([2, 3, 0], "cf32", "cpu")
        self.assertIn("extent 0 on axis 2", str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            blade.download([2, 3], "int8", "cpu")
        self.assertIn("unknown element type 'int8'", str(caught.exception))

    def test_wrong_upstream_tensor_is_refused_at_start(self):
        shape = [2, 3, 5, 2]
        blade.clear_failures()
        tb = gr.top_block()
        source = blocks.vector_source_b([0] * 4096 * 2, False, 4096)
        cast = blade.cast(shape, "ci8", "cf32", "emulated")
        download = blade.download(shape, "cf16", "emulated")  # same 4096-byte items
        tb.connect(source, cast, download, blocks.null_sink(4096))
        tb.run()
        failures = blade.failures()
        self.assertEqual(len(failures), 1)
        self.assertIn("upstream produces cf32 [2, 3, 5, 2] but this block expects cf16 [2, 3, 5, 2]", failures[0])


if __name__ == "__main__":
    gr_unittest.run(qa_download)
