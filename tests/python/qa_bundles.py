#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Mode H, Mode B and Mode BH against the numpy chain of the spec's formulas
(channelizer_reference, detector_reference, the beamformer's einsum), with phasors
from blade.compute_phasors (tested against astropy in qa_delays_astropy), on the
CPU and on the emulated device, where every chunk must be uploaded and downloaded
exactly once.
"""

import os
import tempfile

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt
from channelizer_reference import channelize
from detector_reference import detect

OBSFREQ, CHAN_BW, OBSNCHAN, SCHAN, FIRST = 1.42e9, -0.5e6, 16, 100, 3
TBIN = 1.0 / abs(CHAN_BW)
# The recording's band (F-engine channels SCHAN .. SCHAN + OBSNCHAN - 1).
RECORDING = blade.Observation.band(OBSFREQ, CHAN_BW, OBSNCHAN, coarse_first=SCHAN)


def chunk_axis(channels):
    """The observation of chunks of `channels` channels from recorded channel FIRST on."""
    return RECORDING.channels(FIRST, channels)


def ci8_chunks(rng, n, shape):
    return rng.integers(-60, 61, size=(n, *shape, 2), dtype=numpy.int8)


def as_complex(chunks):
    return chunks[..., 0].astype(numpy.complex128) + 1j * chunks[..., 1]


class BundleTestCase(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(2024)
        self.scratch = tempfile.TemporaryDirectory()
        blade.clear_failures()

    def tearDown(self):
        self.scratch.cleanup()

    def recipe(self, antennas, beams, cal=True):
        """A BFR5 recipe for an ATA-like array: beams around the boresight."""
        array = bt.ata_like_array(antennas)
        ra, dec = array["ra"], array["dec"]
        directions = [(ra + 0.002 * b, dec - 0.001 * b) for b in range(beams)]
        nchan = SCHAN + OBSNCHAN + 4
        cal_all = None
        if cal:
            cal_all = (1 + 0.1 * self.rng.normal(size=(nchan, 2, antennas))) * numpy.exp(
                1j * self.rng.uniform(-0.5, 0.5, size=(nchan, 2, antennas))
            )
        path = os.path.join(self.scratch.name, f"recipe{antennas}x{beams}.bfr5")
        blade.write_bfr5(
            path,
            reference=array["reference"],
            antenna_positions=array["positions"],
            boresight=(ra, dec),
            beams=directions,
            cal_all=cal_all,
            nchan=nchan,
            npol=2,
            source_names=[f"target{b}" for b in range(beams)],
        )
        return path, array, directions, cal_all

    def phasors(self, array, directions, cal_all, channels, rate, times):
        """[n, B, A, F*N, 1, P] phasors at each chunk's middle time."""
        calibration = None
        if cal_all is not None:
            calibration = numpy.transpose(cal_all, (2, 0, 1))  # [A, rows, P], rows = absolute channels
        geometry = blade.array_geometry(
            reference=array["reference"],
            antenna_positions=array["positions"].tolist(),
            boresight=[array["ra"], array["dec"]],
            beams=[list(d) for d in directions],
        )
        options = blade.phasor_options(calibration=calibration)
        axis = chunk_axis(channels).channelized(rate)
        return numpy.stack(
            [blade.compute_phasors(axis, geometry, t / 86400.0 + 2440587.5, 0.0, options) for t in times]
        )

    def chunk_times(self, n, samples):
        start = 1.7e9 + 0.25
        mids = [start + (i + 0.5) * samples * TBIN for i in range(n)]
        items = bt.chunk_time_items(
            [{"unix_mid": m, "jd_mid": m / 86400 + 2440587.5, "tsamp": TBIN, "step": i} for i, m in enumerate(mids)]
        )
        return items, mids

    def run_bundle(self, bundle, voltages, times_items, shape):
        ((data, tags),) = bt.run_graph(
            bundle,
            [(blade.pack(voltages, "ci8"), blade.item_size(shape, "ci8")), (times_items, 64)],
            [bundle.output_item_size()],
        )
        self.assertEqual(blade.failures(), [])
        return data


class qa_options(gr_unittest.TestCase):
    def test_options_are_made_by_keyword_with_the_defaults_documented(self):
        o = blade.beamforming_options(channelizer_rate=4, incoherent=False, beams=[1, 0])
        self.assertEqual(
            (o.channelizer_rate, o.incoherent, list(o.beams), o.taps, o.gather, o.detector),
            (4, False, [1, 0], 1, 8, "I"),
        )
        defaults = blade.spectrometer_options()
        self.assertEqual(
            (defaults.channelizer_rate, defaults.input_type, defaults.integration, defaults.device),
            (None, "ci8", 1, "auto"),
        )
        self.assertIsNone(blade.beamforming_options().incoherent)  # each bundle's own default
        with self.assertRaisesRegex(TypeError, "spectrometer_options has no field 'rate'"):
            blade.spectrometer_options(rate=4)
        with self.assertRaisesRegex(TypeError, "beamforming_options field 'gather' takes int, not 'x'"):
            blade.beamforming_options(gather="x")
        with self.assertRaises(TypeError):  # keywords only: no positional meaning to guess
            blade.spectrometer_options("ci8")
        p = blade.phasor_options(calibration=numpy.ones((2, 3, 2)), polarizations=2)
        self.assertEqual(p.calibration.shape, (12,))

    def test_every_bundle_and_module_block_is_a_tensor_block(self):
        shape = [2, 3, 8, 2]
        blocks = [
            (blade.mode_h(shape, blade.spectrometer_options(device="cpu")), "ci8", [2, 3, 8, 1], "f32"),
            (blade.cast(shape, "ci8", "cf32", "cpu"), "ci8", shape, "cf32"),
            (blade.detector(shape, "I", 2, "cpu"), "cf32", [2, 3, 4, 1], "f32"),
        ]
        for block, input_type, output_shape, output_type in blocks:
            self.assertIsInstance(block, blade.tensor_block)
            self.assertEqual(block.device(), "cpu")
            self.assertEqual(block.output_shape(), output_shape)
            self.assertEqual(block.input_item_size(), blade.item_size(shape, input_type))
            self.assertEqual(block.output_item_size(), blade.item_size(output_shape, output_type))


class qa_mode_h(BundleTestCase):
    def check(self, shape, rate, mode, integration, device, nchunks=3, circular=False):
        voltages = ci8_chunks(self.rng, nchunks, shape)
        bundle = blade.mode_h(
            shape,
            blade.spectrometer_options(
                channelizer_rate=rate, circular=circular, detector=mode, integration=integration, device=device
            ),
        )
        blade.reset_copy_stats()
        got, _ = bt.run_chunks([bundle], voltages, shape, "ci8", list(bundle.output_shape()), "f32")
        stats = blade.copy_stats()
        x = channelize(as_complex(voltages), rate)
        if circular:
            x = numpy.stack([x[..., 0] + 1j * x[..., 1], x[..., 0] - 1j * x[..., 1]], axis=-1)
        expected, total = detect(x, mode, integration)
        self.assertEqual(got.shape, expected.shape)
        scale = numpy.maximum(total[..., None], 1e-30)
        self.assertLess(numpy.max(numpy.abs(got - expected) / scale), 2e-5)
        return stats, len(got)

    def test_spectrometer_on_the_cpu(self):
        self.check([3, 4, 64, 2], 16, "I", 2, "cpu")
        self.check([2, 3, 48, 2], 8, "IQUV", 3, "cpu", circular=True)

    def test_integration_across_chunks(self):
        self.check([2, 2, 32, 2], 8, "XXYY", 8, "cpu", nchunks=6)  # T/N = 4: 2 chunks per spectrum

    def test_one_upload_and_one_download_per_chunk(self):
        stats, outputs = self.check([2, 3, 64, 2], 8, "cross", 4, "emulated", nchunks=4)
        self.assertEqual((stats["host_to_device"], stats["device_to_host"], stats["device_to_device"]), (4, outputs, 0))

    def test_bad_options(self):
        with self.assertRaisesRegex(ValueError, "detector"):
            blade.mode_h([2, 2, 32, 2], blade.spectrometer_options(channelizer_rate=8, detector="Q", device="cpu"))
        with self.assertRaisesRegex(ValueError, "divide"):
            blade.mode_h([2, 2, 30, 2], blade.spectrometer_options(channelizer_rate=8, device="cpu"))

    def test_defaults_are_a_plain_power_spectrum(self):
        """No options: no channelizer, Stokes I, no integration, ci8 voltages."""
        shape = [2, 3, 8, 2]
        voltages = ci8_chunks(self.rng, 2, shape)
        bundle = blade.mode_h(shape)
        self.assertEqual(list(bundle.output_shape()), [2, 3, 8, 1])
        got, _ = bt.run_chunks([bundle], voltages, shape, "ci8", list(bundle.output_shape()), "f32")
        x = as_complex(voltages)
        numpy.testing.assert_allclose(got[..., 0], (numpy.abs(x) ** 2).sum(-1), rtol=1e-6)


class qa_mode_b(BundleTestCase):
    def check(self, device, rate=1, incoherent=True, detector="I", integration=1, beams=(), nchunks=3):
        shape = [5, 4, 32, 2]
        recipe, array, directions, cal_all = self.recipe(5, 3)
        voltages = ci8_chunks(self.rng, nchunks, shape)
        items, mids = self.chunk_times(nchunks, shape[2])
        options = blade.beamforming_options(
            channelizer_rate=rate,
            incoherent=incoherent,
            detector=detector,
            integration=integration,
            beams=list(beams),
            device=device,
        )
        bundle = blade.mode_b(shape, chunk_axis(shape[1]), blade.read_bfr5(recipe), options)
        blade.reset_copy_stats()
        data = self.run_bundle(bundle, voltages, items, shape)
        stats = blade.copy_stats()
        got = blade.unpack(data, list(bundle.output_shape()), bundle.output_type())
        chosen = [directions[b] for b in beams] if beams else directions
        w = self.phasors(array, chosen, cal_all, shape[1], rate, mids)
        x = channelize(as_complex(voltages), rate) if rate > 1 else as_complex(voltages)
        y = bt.beamform_reference(x, w, incoherent, incoherent_sqrt=detector != "none")
        if detector == "none":
            scale = bt.beamform_magnitude(x, w, incoherent)
            self.assertLess(numpy.max(numpy.abs(got - y) / numpy.maximum(scale, 1e-30)), 1e-5)
            return stats
        expected, total = detect(y, detector, integration)
        self.assertEqual(got.shape, expected.shape)
        scale = numpy.maximum(total[..., None], 1e-30)
        self.assertLess(numpy.max(numpy.abs(got - expected) / scale), 5e-5)
        return stats

    def test_beams_and_incoherent_power(self):
        self.check("cpu")

    def test_channelized_voltages_of_a_beam_subset(self):
        self.check("cpu", rate=4, detector="none", incoherent=False, beams=(2, 0))

    def test_detected_coherent_beams_without_the_incoherent_one(self):
        self.check("cpu", rate=2, detector="XXYY", incoherent=False, beams=(1,))

    def test_chain_stays_on_the_device(self):
        stats = self.check("emulated", rate=2, detector="XXYY", integration=2, nchunks=4)
        # voltages and phasors up once per chunk, beams down once per chunk
        self.assertEqual((stats["host_to_device"], stats["device_to_host"], stats["device_to_device"]), (8, 4, 0))

    def test_bad_options(self):
        path, *_ = self.recipe(5, 3)
        recipe = blade.read_bfr5(path)

        def make(shape=(5, 4, 32, 2), axis=chunk_axis(4), **kw):
            return blade.mode_b(list(shape), axis, recipe, blade.beamforming_options(device="cpu", **kw))

        with self.assertRaisesRegex(ValueError, "integration 4 needs a detector"):
            make(detector="none", integration=4)
        with self.assertRaisesRegex(ValueError, "beam 7 selected"):
            make(beams=[0, 7])
        with self.assertRaisesRegex(ValueError, "antenna"):
            make(shape=(6, 4, 32, 2))
        with self.assertRaisesRegex(ValueError, "channel"):  # the axis has 3 channels, the chunks 4
            make(axis=chunk_axis(3))
        with self.assertRaisesRegex(ValueError, "channel"):  # beyond the recipe's 120 F-engine channels
            make(axis=blade.Observation.band(OBSFREQ, CHAN_BW, 4, coarse_first=118))


class qa_mode_bh(BundleTestCase):
    def test_high_resolution_beam_spectra(self):
        shape, gather, nchunks = [4, 2, 16, 2], 4, 8
        recipe, array, directions, cal_all = self.recipe(4, 2)
        voltages = ci8_chunks(self.rng, nchunks, shape)
        items, mids = self.chunk_times(nchunks, shape[2])
        bundle = blade.mode_bh(
            shape,
            chunk_axis(shape[1]),
            blade.read_bfr5(recipe),
            blade.beamforming_options(gather=gather, incoherent=True, detector="I", device="emulated"),
        )
        self.assertEqual(list(bundle.output_shape()), [3, 2 * 16 * gather, 1, 1])
        self.assertEqual(bundle.chunks_per_output(), gather)
        data = self.run_bundle(bundle, voltages, items, shape)
        got = blade.unpack(data, list(bundle.output_shape()), "f32")
        w = self.phasors(array, directions, cal_all, shape[1], 1, mids)
        y = bt.beamform_reference(as_complex(voltages), w, incoherent=True)
        # gather M consecutive chunks along time: [n/M, B+1, F, T*M, P]
        gathered = numpy.moveaxis(y.reshape(nchunks // gather, gather, *y.shape[1:]), 1, 3).reshape(
            nchunks // gather, y.shape[1], y.shape[2], gather * shape[2], 2
        )
        expected, total = detect(channelize(gathered, gather * shape[2]), "I", 1)
        self.assertEqual(got.shape, expected.shape)
        self.assertLess(numpy.max(numpy.abs(got - expected) / numpy.maximum(total[..., None], 1e-30)), 5e-5)


if __name__ == "__main__":
    gr_unittest.main()
