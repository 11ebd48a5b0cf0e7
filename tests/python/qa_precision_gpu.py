#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
qa_precision's bundle checks with both chains on a CUDA GPU: the fp16 chain (cf16
through cuFFT's channelizer, the polarizer, the beamformer and the detector's float
sums) against the fp32 chain on the same GPU, within the same derived bounds (plus
1e-5 of the row's power for the two chains' float32 arithmetic). Exits 77 without a
GPU.
"""

from gnuradio import gr_unittest

import blade_testing as bt
import qa_precision as cpu


class qa_mode_h_fp16_gpu(cpu.qa_mode_h_fp16):
    device16 = device32 = "cuda"


class qa_mode_b_fp16_gpu(cpu.qa_mode_b_fp16):
    device16 = device32 = "cuda"


class qa_mode_b_fp16_many_beams_gpu(cpu.qa_mode_b_fp16_many_beams):
    device16 = device32 = "cuda"


class qa_mode_bh_fp16_gpu(cpu.qa_mode_bh_fp16):
    device16 = device32 = "cuda"


class qa_fp16_on_the_gpu_against_fp32_on_the_cpu(cpu.qa_mode_h_fp16):
    device16, device32 = "cuda", "cpu"


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.main()
