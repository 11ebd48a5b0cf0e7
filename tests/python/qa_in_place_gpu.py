#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
qa_in_place on a CUDA GPU: Mode H with the channelizer and the polarizer in place
(the tile kernels at these N) and Mode BH with the channelizer in place in the
gather's chunk give the separate blocks' bits and tags there too, and hold the
saved buffers less device memory. Exits 77 without a GPU.
"""

from gnuradio import gr_unittest

import blade_testing as bt
import qa_in_place as cpu


class qa_in_place_gpu(cpu.qa_in_place):
    device = "cuda"


class qa_mode_bh_in_place_gpu(cpu.qa_mode_bh_in_place):
    device = "cuda"


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.main()
