#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gather -> polarizer -> detector on CUDA: numpy's result, copies only at the host edges."""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt
import qa_modules_chain as emulated  # (a module import: its tests are not collected here)


class qa_modules_chain_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.chain = emulated.qa_modules_chain("run_chain")
        self.chain.rng = numpy.random.default_rng(94)

    def test_gpu_chain_copies_only_at_the_host_edges(self):
        _, stats = self.chain.run_chain(["cuda"] * 3)
        chunk = blade.item_size([2, 3, 16, 2], "cf32")
        self.assertIn(stats["host_to_device_bytes"], (8 * chunk, 9 * chunk))
        self.assertEqual(stats["device_to_host_bytes"], 2 * blade.item_size([2, 3, 1, 4], "f32"))
        self.assertEqual(stats["device_to_device"], 0)

    def test_tags_of_each_group_reach_the_output(self):
        tsamp = 2e-6
        tags = [t for i in range(9) for t in bt.blade_tags(i, tsamp=tsamp, block_index=i)]
        out_tags, _ = self.chain.run_chain(["cuda"] * 3, tags=tags)
        received = bt.tags_by_offset(out_tags)
        self.assertEqual([received[k]["blade_block_index"] for k in sorted(received)], [0, 4])


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_modules_chain_gpu)
