#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Two GPUs: channel split and merge through cuda:0 and cuda:1 give the chunks back
bit for bit with one upload and one download per sub-band and chunk; Mode B and
Mode H over both GPUs equal one GPU (and the CPU to the bundles' tolerance); a
sub-band read on the wrong GPU is reported. Exits 77 with fewer than two GPUs.
"""

import sys

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt
from qa_bundles import BundleTestCase, chunk_axis, ci8_chunks

GPUS = ["cuda:0", "cuda:1"]


def relative_error(got, expected):
    scale = numpy.maximum(numpy.abs(expected).max(), 1e-30)
    return float(numpy.abs(got - expected).max() / scale)


class qa_multidevice_gpu(BundleTestCase):
    def test_split_and_merge_through_two_gpus(self):
        shape = [28, 192, 512, 2]
        chunks = bt.random_chunks(self.rng, "ci8", 4, shape)
        merged, stats = bt.run_split_merge(chunks, shape, "ci8", 2, GPUS)
        self.assertEqual(blade.failures(), [])
        self.assertTrue(bt.same_bits(merged, chunks))
        self.assertEqual((stats["host_to_device"], stats["host_to_device_bytes"]), (8, chunks.nbytes))
        self.assertEqual((stats["device_to_host"], stats["device_to_host_bytes"]), (8, chunks.nbytes))
        self.assertEqual(stats["device_to_device"], 0)

    def test_a_sub_band_read_on_the_wrong_gpu_is_reported(self):
        shape = [2, 4, 64, 2]
        part = [2, 2, 64, 2]
        tb = gr.top_block()
        source = blocks.vector_source_b([0] * blade.item_size(shape, "ci8"), False, blade.item_size(shape, "ci8"))
        split = blade.channel_split(shape, "ci8", 2, GPUS)
        tb.connect(source, split)
        tb.connect(
            (split, 0), blade.cast(part, "ci8", "cf32", "cuda:1"), blocks.null_sink(blade.item_size(part, "cf32"))
        )
        tb.connect(
            (split, 1), blade.cast(part, "ci8", "cf32", "cuda:1"), blocks.null_sink(blade.item_size(part, "cf32"))
        )
        tb.run()
        self.assertRegex("\n".join(blade.failures()), "upstream runs on cuda:0 and this block on cuda:1")

    def test_mode_b_on_two_gpus_equals_one(self):
        shape = [28, 8, 256, 2]
        recipe, _, _, _ = self.recipe(28, 8)
        voltages = ci8_chunks(self.rng, 4, shape)
        items, _ = self.chunk_times(4, shape[2])
        outputs = {}
        for name, device, devices in (("cpu", "cpu", []), ("one", "cuda:0", []), ("two", "auto", GPUS)):
            bundle = blade.mode_b(
                shape,
                chunk_axis(shape[1]),
                blade.read_bfr5(recipe),
                blade.beamforming_options(device=device, devices=devices),
            )
            blade.reset_copy_stats()
            data = self.run_bundle(bundle, voltages, items, shape)
            outputs[name] = (blade.unpack(data, list(bundle.output_shape()), "f32"), blade.copy_stats())
        two, stats = outputs["two"]
        one = outputs["one"][0]
        print(
            f"Mode B: two GPUs vs one, largest relative difference {relative_error(two, one):.3g} "
            f"({'bit for bit' if bt.same_bits(two, one) else 'not bit for bit'})"
        )
        self.assertLess(relative_error(two, one), 1e-6)
        self.assertLess(relative_error(two, outputs["cpu"][0]), 5e-5)
        self.assertEqual(stats["device_to_device"], 0)
        self.assertEqual(stats["device_to_host"], 2 * 4)  # each GPU's sub-band of each chunk, once

    def test_mode_h_on_two_gpus_equals_one(self):
        shape = [4, 8, 1024, 2]
        voltages = ci8_chunks(self.rng, 4, shape)
        results = {}
        for name, device, devices in (("one", "cuda:0", []), ("two", "auto", GPUS)):
            bundle = blade.mode_h(
                shape,
                blade.spectrometer_options(
                    channelizer_rate=64, taps=4, detector="IQUV", integration=8, device=device, devices=devices
                ),
            )
            blade.reset_copy_stats()
            got, _ = bt.run_chunks([bundle], voltages, shape, "ci8", list(bundle.output_shape()), "f32")
            self.assertEqual(blade.failures(), [])
            results[name] = (got, blade.copy_stats())
        two, stats = results["two"]
        print(f"Mode H: two GPUs vs one, largest relative difference {relative_error(two, results['one'][0]):.3g}")
        self.assertLess(relative_error(two, results["one"][0]), 1e-6)
        self.assertEqual((stats["host_to_device"], stats["host_to_device_bytes"]), (2 * 4, voltages.nbytes))
        self.assertEqual(stats["device_to_device"], 0)


if __name__ == "__main__":
    if len(blade.gpus()) < 2:
        print(f"{len(blade.gpus())} CUDA GPU(s): the two-GPU tests are skipped")
        sys.exit(77)
    gr_unittest.run(qa_multidevice_gpu)
