#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
qa_in_place on a CUDA GPU: Mode H with the channelizer and the polarizer in place
(cuFFT-free tile kernels at these N) gives the separate blocks' bits there too, and
holds four chunks of device memory less. Exits 77 without a GPU.
"""

from gnuradio import gr_unittest

import blade_testing as bt
import qa_in_place as cpu


class qa_in_place_gpu(cpu.qa_in_place):
    device = "cuda"


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_in_place_gpu)
