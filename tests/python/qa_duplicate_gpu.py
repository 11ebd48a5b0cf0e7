#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.duplicate on CUDA: identical, independent copies at the benchmark size."""

import os
import tempfile

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt


class qa_duplicate_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(32)

    def test_benchmark_size_two_copies_to_host(self):
        # [20, 192, 8192, 2] cf32: 503 MB per chunk, two chunks.
        shape = [20, 192, 8192, 2]
        chunks = bt.random_chunks(self.rng, "cf32", 2, shape)
        block = blade.duplicate(shape, "cf32", 2, "cuda")
        size = block.item_size()
        outputs = bt.run_chain_files([block], blade.pack(chunks, "cf32"), size, size, ports=(0, 1))
        for data in outputs:
            self.assertTrue(bt.same_bits(blade.unpack(data, shape, "cf32"), chunks))

    def test_gpu_and_host_consumers(self):
        # output 0 -> permutation on the GPU -> download; output 1 -> host sink
        shape, n = [2, 192, 8192, 2], 3
        chunks = bt.random_chunks(self.rng, "ci8", n, shape)
        out_shape = [2, 8192, 2, 192]
        chain = [blade.cast(shape, "ci8", "cf32", "cuda"), blade.duplicate(shape, "cf32", 2, "cuda")]
        blade.clear_failures()
        with tempfile.TemporaryDirectory() as folder:
            source_path = os.path.join(folder, "in.bin")
            blade.pack(chunks, "ci8").tofile(source_path)
            tb = gr.top_block()
            permutation = blade.permutation(shape, [0, 2, 3, 1], "cf32", "cuda")
            download = blade.download(out_shape, "cf32", "cuda")
            paths = [os.path.join(folder, name) for name in ("t.bin", "p.bin")]
            sinks = [
                blocks.file_sink(download.item_size(), paths[0], False),
                blocks.file_sink(chain[1].item_size(), paths[1], False),
            ]
            tb.connect(blocks.file_source(blade.item_size(shape, "ci8"), source_path, False), *chain)
            tb.connect((chain[1], 0), permutation, download, sinks[0])
            tb.connect((chain[1], 1), sinks[1])
            tb.run()
            for sink in sinks:
                sink.close()
            transposed = blade.unpack(numpy.fromfile(paths[0], numpy.uint8), out_shape, "cf32")
            plain = blade.unpack(numpy.fromfile(paths[1], numpy.uint8), shape, "cf32")
        values = bt.to_values(chunks, "ci8").astype(numpy.complex64)
        numpy.testing.assert_array_equal(plain, values)
        numpy.testing.assert_array_equal(transposed, numpy.transpose(values, (0, 1, 3, 4, 2)))
        self.assertEqual(blade.failures(), [])


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_duplicate_gpu)
