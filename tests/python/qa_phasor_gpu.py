#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The phasor block on a CUDA GPU: phasors are computed on the host and uploaded
into the block's device buffer, so the output must equal the CPU block's bit for
bit, with exactly one upload per chunk and, into a GPU consumer, no copy between.
"""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade

import blade_testing

blade_testing.require_gpu()

# 16 of 64 channels of 0.5 MHz around 1.42 GHz from channel 8, channelized by 8.


class qa_phasor_gpu(gr_unittest.TestCase):
    def block(self, device):
        array = blade_testing.meerkat_like_array(antennas=16)
        boresight = (array["ra"], array["dec"])
        beams = [(boresight[0] + 0.001 * b, boresight[1] - 0.0005 * b) for b in range(8)]
        axis = blade.Observation.band(1.42e9, 0.5e6, 64).channels(8, 16).channelized(8)
        geometry = blade.array_geometry(
            reference=array["reference"], antenna_positions=array["positions"], boresight=boresight, beams=beams
        )
        return blade.phasor(axis, geometry, blade.phasor_options(device=device))

    def run_phasor(self, block, extra=()):
        """Five chunks through block (and extra blocks after it); the output as cf32."""
        times = blade_testing.chunk_time_items([dict(jd_mid=2460400.75 + i / 1440.0) for i in range(5)])
        ((data, _),) = blade_testing.run_graph_chain(block, list(extra), times, 64, block.output_item_size())
        return blade.unpack(data, block.output_shape(), "cf32")

    def test_gpu_output_equals_cpu_with_one_upload_per_chunk(self):
        reference = self.run_phasor(self.block("cpu"))
        gpu = self.block("cuda")
        self.assertTrue(gpu.device().startswith("cuda"))
        blade.reset_copy_stats()
        out = self.run_phasor(gpu, [blade.cast(gpu.output_shape(), "cf32", "cf32", "cuda")])
        stats = blade.copy_stats()
        numpy.testing.assert_array_equal(out, reference)
        self.assertEqual(stats["host_to_device"], 5)
        self.assertEqual(stats["device_to_host"], 5)
        self.assertEqual(blade.failures(), [])


if __name__ == "__main__":
    gr_unittest.run(qa_phasor_gpu)
