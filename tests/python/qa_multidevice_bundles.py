#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Mode B, Mode H and Mode BH spread over several devices give exactly the one-device
output (itself checked against numpy in qa_bundles): two and four CPU "devices",
two emulated devices (one device, twice) and two distinct emulated devices (where
any edge between devices would be refused), with a channelizer, voltages out,
integration across chunks, a beam subset and calibration that differs per channel.
On emulated devices each sub-band is uploaded once per chunk, straight from the
input, and nothing is copied between devices. Device lists are resolved and
checked.
"""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt
from qa_bundles import BundleTestCase, chunk_axis, ci8_chunks

SPREADS = (["cpu", "cpu"], ["emulated", "emulated"], ["emulated:0", "emulated:1"], ["cpu"] * 4)


class qa_multidevice_bundles(BundleTestCase):
    def mode_b(self, devices, shape, nchunks=3, recipe=None, **options):
        if recipe is None:
            recipe, _, _, _ = self.recipe(shape[0], 3)
        voltages = ci8_chunks(numpy.random.default_rng(5), nchunks, shape)
        items, _ = self.chunk_times(nchunks, shape[2])
        device = devices if isinstance(devices, str) else "auto"
        listed = [] if isinstance(devices, str) else list(devices)
        bundle = blade.mode_b(
            shape,
            chunk_axis(shape[1]),
            blade.read_bfr5(recipe),
            blade.beamforming_options(device=device, devices=listed, **options),
        )
        blade.reset_copy_stats()
        data = self.run_bundle(bundle, voltages, items, shape)
        return bundle, data, blade.copy_stats()

    def check_mode_b(self, shape, **options):
        recipe, _, _, _ = self.recipe(shape[0], 3)  # calibration differs per channel and antenna
        one, data, _ = self.mode_b("cpu", shape, recipe=recipe, **options)
        # Compare chunks, not items: the padding of an item is unspecified.
        single = blade.unpack(data, list(one.output_shape()), one.output_type())
        self.assertGreater(len(single), 0)
        for devices in SPREADS:
            if shape[1] % len(devices):
                continue
            bundle, data, stats = self.mode_b(devices, shape, recipe=recipe, **options)
            spread = blade.unpack(data, list(bundle.output_shape()), bundle.output_type())
            self.assertEqual(list(bundle.devices()), [blade.resolve_device(d) for d in devices])
            self.assertTrue(bt.same_bits(spread, single), f"{devices} {options}")
            self.assertEqual(stats["device_to_device"], 0)

    def test_mode_b_power(self):
        self.check_mode_b([5, 4, 32, 2])

    def test_mode_b_channelized_with_integration(self):
        self.check_mode_b([3, 4, 32, 2], channelizer_rate=4, integration=2, detector="IQUV")

    def test_mode_b_voltages_of_a_beam_subset(self):
        self.check_mode_b([4, 4, 16, 2], detector="none", beams=[2, 0], incoherent=False)

    def test_mode_b_uploads_each_sub_band_once(self):
        shape = [5, 4, 32, 2]
        bundle, _, stats = self.mode_b(["emulated:0", "emulated:1"], shape, nchunks=3)
        self.assertEqual(bundle.device(), "emulated,emulated:1")
        voltage_bytes = 3 * numpy.prod(shape) * 2
        # Voltages: one upload per sub-band per chunk, their bytes exactly once; the
        # rest of the uploads are the phasors (one per sub-band per chunk).
        phasor_bytes = 3 * 2 * bundle.beams() * shape[0] * (shape[1] // 2) * shape[3] * 8
        self.assertEqual(stats["host_to_device"], 3 * 2 + 3 * 2)
        self.assertEqual(stats["host_to_device_bytes"], voltage_bytes + phasor_bytes)
        self.assertEqual(stats["device_to_host"], 3 * 2)

    def test_mode_h(self):
        shape = [3, 6, 64, 2]
        voltages = ci8_chunks(numpy.random.default_rng(8), 4, shape)
        for options in (
            dict(channelizer_rate=8, detector="IQUV", integration=16, circular=True),
            dict(channelizer_rate=4, taps=4, detector="I", integration=2),
        ):

            def run(device, devices=()):
                bundle = blade.mode_h(
                    shape, blade.spectrometer_options(device=device, devices=list(devices), **options)
                )
                blade.reset_copy_stats()
                got, _ = bt.run_chunks([bundle], voltages, shape, "ci8", list(bundle.output_shape()), "f32")
                self.assertEqual(blade.failures(), [])
                return got, blade.copy_stats(), bundle

            single, _, _ = run("cpu")
            self.assertGreater(len(single), 0)
            for devices in (["cpu", "cpu"], ["cpu"] * 3, ["emulated:0", "emulated:1", "emulated:2"]):
                spread, stats, bundle = run("auto", devices)
                self.assertTrue(bt.same_bits(spread, single), f"{devices} {options}")
                if devices[0].startswith("emulated"):
                    self.assertEqual((stats["host_to_device"], stats["host_to_device_bytes"]), (4 * 3, voltages.nbytes))
                    self.assertEqual((stats["device_to_host"], stats["device_to_device"]), (3 * len(single), 0))

    def test_mode_bh(self):
        shape = [4, 4, 16, 2]
        recipe, _, _, _ = self.recipe(4, 2)
        voltages = ci8_chunks(numpy.random.default_rng(9), 4, shape)
        items, _ = self.chunk_times(4, shape[2])

        def run(device, devices=()):
            bundle = blade.mode_bh(
                shape,
                chunk_axis(shape[1]),
                blade.read_bfr5(recipe),
                blade.beamforming_options(
                    gather=2, channelizer_rate=0, detector="XXYY", device=device, devices=list(devices)
                ),
            )
            return blade.unpack(self.run_bundle(bundle, voltages, items, shape), list(bundle.output_shape()), "f32")

        single = run("cpu")
        self.assertGreater(len(single), 0)
        for devices in (["cpu", "cpu"], ["emulated:0", "emulated:1"], ["cpu"] * 4):
            self.assertTrue(bt.same_bits(run("auto", devices), single), f"{devices}")

    def test_device_lists_are_resolved_and_checked(self):
        self.assertEqual(list(blade.resolve_devices("cpu")), ["cpu"])
        self.assertEqual(list(blade.resolve_devices("auto", ["cpu", "emulated:1"])), ["cpu", "emulated:1"])
        self.assertEqual(list(blade.resolve_devices("auto", ["emulated", "emulated"])), ["emulated", "emulated"])
        gpus = len(blade.gpus())
        if gpus:
            self.assertEqual(list(blade.resolve_devices("all")), [f"cuda:{i}" for i in range(gpus)])
        else:  # every GPU of none is no device, not the CPU without a word
            with self.assertRaisesRegex(RuntimeError, "no CUDA GPU was found; use 'auto' or 'cpu'"):
                blade.resolve_devices("all")
        with self.assertRaisesRegex(ValueError, "not both"):
            blade.resolve_devices("cpu", ["cpu", "cpu"])
        with self.assertRaisesRegex(ValueError, "'all' stands alone"):
            blade.resolve_devices("auto", ["all"])
        with self.assertRaisesRegex(ValueError, "4 channels cannot be split evenly across 3 devices"):
            blade.mode_h([2, 4, 16, 2], blade.spectrometer_options(channelizer_rate=4, devices=["cpu"] * 3))
        recipe, _, _, _ = self.recipe(2, 1)
        with self.assertRaisesRegex(ValueError, "4 channels cannot be split evenly across 3 devices"):
            blade.mode_b(
                [2, 4, 16, 2], chunk_axis(4), blade.read_bfr5(recipe), blade.beamforming_options(devices=["cpu"] * 3)
            )
        with self.assertRaisesRegex(ValueError, "not both"):
            blade.mode_h(
                [2, 4, 16, 2], blade.spectrometer_options(channelizer_rate=4, device="cpu", devices=["cpu", "cpu"])
            )

    def test_one_device_in_a_list_is_the_one_device_chain(self):
        shape = [2, 4, 32, 2]
        one = blade.mode_h(shape, blade.spectrometer_options(channelizer_rate=8, devices=["cpu"]))
        self.assertEqual(one.device(), "cpu")
        self.assertEqual(list(one.devices()), ["cpu"])
        voltages = ci8_chunks(numpy.random.default_rng(3), 2, shape)
        a, _ = bt.run_chunks([one], voltages, shape, "ci8", list(one.output_shape()), "f32")
        b, _ = bt.run_chunks(
            [blade.mode_h(shape, blade.spectrometer_options(channelizer_rate=8, device="cpu"))],
            voltages,
            shape,
            "ci8",
            list(one.output_shape()),
            "f32",
        )
        self.assertTrue(bt.same_bits(a, b))


if __name__ == "__main__":
    gr_unittest.run(qa_multidevice_bundles)
