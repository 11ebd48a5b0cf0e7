#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Half precision (precision="fp16": cf16 intermediates after the cast) against the fp32
chain, on each bundle's products, on the CPU and the emulated device; the module
blocks' cf16 ports and scales; and bad values of the option.

Tolerances, from half's unit roundoff u = 2^-11 (a rounding to nearest moves a value
by at most u of its magnitude; each complex component is rounded on its own, so a
complex value moves by at most u of its modulus). The range scale 2^-k ahead of a
channelizer and its 2^2k in the detector are exact (8-bit values times 2^-k are
halves), so only the roundings to half count:

* Mode H from ci8 (the cast is exact): the channelizer rounds its output (k = 1), a
  polarizer after it rounds again and carries its inputs' errors (|L| moves by at
  most u(|X| + |Y|) + u|L|: k = 3 in all). A power |v|^2 then moves by at most
  (1 + k u)^2 - 1 of itself, and so does a sum of powers (the detector adds without
  rounding to half); cross products Re, Im(X Y*), Q, U, V are bounded by the row's
  total power XX + YY (Cauchy-Schwarz), the scale every output is compared with.
* Mode B: a beam sample moves by at most c u sum_a |w_a||x_a|: the beamformer's
  fp16 path rounds the phasors (1), the beam is rounded (1), each antenna's voltage
  is rounded (none from ci8 without a channelizer; 1 after a channelizer; 2 after a
  channelizer and a polarizer, with |x_a| read as |L_a| + |R_a|): c = 2, 3 or 4.
  detected_bound() turns such a bound e on voltages y into one on detected power,
  2 sum (2|y| e + e^2) per output row.
* Mode BH: cf32 beams from the fp16 path (u sum_a |w||x| from its rounded phasors)
  rounded to cf16 (u |y_n|), then an N-point FFT: an output Y_k moves by at most
  u sum_n 2 M_n + u |Y_k|, M_n = sum_a |w||x| of beam sample n.

Observed errors are typically 5-10x below these bounds (rms about u/3 per rounding).
"""

import os
import shutil
import tempfile

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt
from channelizer_reference import channelize
from qa_bundles import BundleTestCase, as_complex, chunk_axis, ci8_chunks

U = 2.0**-11


def relative_errors(got, want):
    """|got - want| of every output over its row's total power in `want` (the sum of
    the row's XX and YY; for mode I the output itself)."""
    return numpy.abs(got - want) / numpy.maximum(row_power(want), 1e-30)


def row_power(products):
    """Total power of every output row of f32 products [..., Pout]: Pout 1 is I, 2 is
    XX, YY, 4 is XX, YY, Re, Im (cross) or I, Q, U, V (IQUV: I is the first)."""
    pout = products.shape[-1]
    if pout == 1:
        return products
    return (products[..., 0:1] + products[..., 1:2]) if pout == 2 else products[..., 0:1]


def row_power_of(products, detector):
    if detector == "cross":
        return products[..., 0:1] + products[..., 1:2]
    return row_power(products)


class qa_precision_options(gr_unittest.TestCase):
    def test_fp32_is_the_default_and_bundles_report_their_precision(self):
        self.assertEqual(blade.spectrometer_options().precision, "fp32")
        self.assertEqual(blade.beamforming_options(precision="fp16").precision, "fp16")
        bundle = blade.mode_h([2, 2, 16, 2], blade.spectrometer_options(device="cpu"))
        self.assertEqual(bundle.precision(), "fp32")
        bundle = blade.mode_h([2, 2, 16, 2], blade.spectrometer_options(precision="fp16", device="cpu"))
        self.assertEqual(bundle.precision(), "fp16")

    def test_bad_precisions_are_refused_naming_the_choices(self):
        for bad in ("fp8", "FP16", "half", "", "fp64"):
            with self.assertRaisesRegex(ValueError, f'blade.mode_h precision: \'{bad}\' is not "fp32" or "fp16"'):
                blade.mode_h([2, 2, 16, 2], blade.spectrometer_options(precision=bad, device="cpu"))
        with self.assertRaisesRegex(TypeError, "spectrometer_options field 'precision' takes str, not 16"):
            blade.spectrometer_options(precision=16)
        with self.assertRaisesRegex(TypeError, "incompatible constructor arguments"):
            blade.spectrometer_options("fp16")  # keywords only

    def test_module_blocks_refuse_other_types(self):
        with self.assertRaisesRegex(ValueError, "blade.polarizer dtype: 'ci8'"):
            blade.polarizer([1, 2, 4, 2], "cpu", "circular", "ci8")
        with self.assertRaisesRegex(ValueError, "blade.detector input_type: 'cf64'"):
            blade.detector([1, 2, 4, 2], "I", 1, "cpu", "cf64")
        with self.assertRaisesRegex(ValueError, "blade.channelizer dtype: 'f16'"):
            blade.channelizer([1, 2, 4, 2], 2, "cpu", 1, "hamming", "f16")
        with self.assertRaisesRegex(ValueError, "blade.cast scale"):
            blade.cast([1, 2, 4, 2], "ci8", "cf16", "cpu", -1.0)
        with self.assertRaisesRegex(ValueError, "blade.detector scale"):
            blade.detector([1, 2, 4, 2], "I", 1, "cpu", "cf16", 0.0)


class qa_module_blocks(gr_unittest.TestCase):
    def test_polarizer_and_detector_blocks_take_cf16(self):
        """cf16 through the blocks: the polarizer rounds float sums of the halves once,
        the detector sums the widened halves (as the cast to cf32 would give them)."""
        rng = numpy.random.default_rng(5)
        shape = [2, 3, 16, 2]
        x = bt.random_complex(rng, (2, *shape), 50.0)
        halves = numpy.stack([x.real, x.imag], axis=-1).astype(numpy.float16)  # cf16 as numpy packs it
        wide = halves[..., 0].astype(numpy.float32) + 1j * halves[..., 1].astype(numpy.float32)
        wide = wide.astype(numpy.complex64)
        out, _ = bt.run_chunks(
            [blade.polarizer(shape, "cpu", "circular", "cf16")], halves, shape, "cf16", shape, "cf16"
        )
        got = out[..., 0].astype(numpy.float32) + 1j * out[..., 1].astype(numpy.float32)
        xr, xi = wide[..., 0].real, wide[..., 0].imag  # float32
        yr, yi = wide[..., 1].real, wide[..., 1].imag
        parts = [xr - yi, xi + yr, xr + yi, xi - yr]  # L = X + iY, R = X - iY, in float32
        h = [v.astype(numpy.float16).astype(numpy.float32) for v in parts]  # rounded once
        want = numpy.stack([h[0] + 1j * h[1], h[2] + 1j * h[3]], axis=-1)
        self.assertTrue(numpy.array_equal(got, want))

        detector16 = blade.detector(shape, "IQUV", 4, "cpu", "cf16")
        detector32 = blade.detector(shape, "IQUV", 4, "cpu")
        out_shape = list(detector16.output_shape())
        p16, _ = bt.run_chunks([detector16], halves, shape, "cf16", out_shape, "f32")
        p32, _ = bt.run_chunks([detector32], wide, shape, "cf32", out_shape, "f32")
        self.assertTrue(numpy.array_equal(p16, p32))


class qa_mode_h_fp16(BundleTestCase):
    # where each chain runs (qa_precision_gpu runs both on a GPU)
    device16, device32 = "emulated", "cpu"

    def products(self, shape, precision, device="cpu", nchunks=3, **options):
        voltages = ci8_chunks(numpy.random.default_rng(77), nchunks, shape)
        bundle = blade.mode_h(shape, blade.spectrometer_options(precision=precision, device=device, **options))
        blade.reset_copy_stats()
        got, _ = bt.run_chunks([bundle], voltages, shape, "ci8", list(bundle.output_shape()), "f32")
        return got, blade.copy_stats()

    def check(self, shape, bound, nchunks=3, **options):
        p32, _ = self.products(shape, "fp32", device=self.device32, nchunks=nchunks, **options)
        p16, stats = self.products(shape, "fp16", device=self.device16, nchunks=nchunks, **options)
        self.assertEqual(p16.shape, p32.shape)
        errors = numpy.abs(p16 - p32) / numpy.maximum(row_power_of(p32, options.get("detector", "I")), 1e-30)
        # + 1e-5: the float32 arithmetic of both chains (cuFFT's, say, against FFTW's)
        self.assertLess(errors.max(), bound + 1e-5, options)
        self.assertGreater(errors.max(), 0)  # the chain did run in half precision
        # one upload and one download per chunk, as in fp32
        self.assertEqual((stats["host_to_device"], stats["device_to_host"]), (nchunks, len(p16)))
        return errors

    def test_polarizer_and_detector_without_channelizer(self):
        """8-bit voltages: the polarizer's sums are integers below 2048, halves exactly,
        so the fp16 chain gives the fp32 chain's bits."""
        shape, options = [3, 4, 16, 2], dict(circular=True, detector="IQUV", integration=2)
        p32, _ = self.products(shape, "fp32", device=self.device32, **options)
        p16, _ = self.products(shape, "fp16", device=self.device16, **options)
        self.assertTrue(numpy.array_equal(p16, p32))

    def test_channelized_power_spectra(self):
        self.check([3, 4, 64, 2], 2 * 1 * U, channelizer_rate=16, detector="XXYY", integration=2)
        self.check([2, 3, 48, 2], 2 * 3 * U, channelizer_rate=8, circular=True, detector="IQUV", integration=3)

    def test_a_full_scale_tone_stays_within_half_range(self):
        """127 + 127i in every sample of a channel: 1024 x 180 in its bin, beyond
        half's 65504, were it not for the range scale 2^-10 ahead of the channelizer."""
        shape = [1, 2, 2048, 2]
        voltages = numpy.zeros((2, *shape, 2), numpy.int8)
        voltages[:, :, 1] = 127
        for precision in ("fp32", "fp16"):
            device = self.device16 if precision == "fp16" else self.device32
            bundle = blade.mode_h(
                shape, blade.spectrometer_options(channelizer_rate=1024, precision=precision, device=device)
            )
            got, _ = bt.run_chunks([bundle], voltages, shape, "ci8", list(bundle.output_shape()), "f32")
            if precision == "fp32":
                p32 = got
        self.assertTrue(numpy.all(numpy.isfinite(got)))
        # the tone's bin: (1024 * 127)^2 * 2 (re, im) * 2 polarizations, in both chains
        self.assertLess(abs(p32.max() / (4 * (1024 * 127) ** 2) - 1), 1e-6)
        self.assertLess(abs(got.max() / p32.max() - 1), 2 * U)

    def test_polyphase_filterbank_and_integration_across_chunks(self):
        self.check([2, 2, 64, 2], 2 * 1 * U, nchunks=6, channelizer_rate=16, taps=4, detector="cross", integration=8)


def detected_bound(y, e, integration):
    """Bound on |p16 - p32| for every detector output row, from the fp32 chain's
    voltages y [n, B, F, T, P] into the detector and bounds e on |y16 - y32|: a power
    moves by at most 2|y|e + e^2 per sample, a cross product X Y* by at most
    |X|e_Y + |Y|e_X + e_X e_Y, which the same sum bounds; U and V are twice Re, Im.
    Returns [n, B, F, T/I, 1]."""
    per_sample = (2 * numpy.abs(y) * e + e**2).sum(axis=-1)
    n, b, f, t = per_sample.shape
    return 2 * per_sample.reshape(n, b, f, t // integration, integration).sum(axis=-1)[..., None]


class qa_mode_b_fp16(BundleTestCase):
    """Mode B: |y16 - y32| <= c u sum_a |w_a||x_a| per beam sample (the file's
    description says which roundings make c)."""

    shape = [5, 4, 32, 2]
    device16, device32 = "emulated", "cpu"

    def setUp(self):
        super().setUp()
        self.made = self.recipe(5, 3)  # one recipe (and calibration) for both chains

    def products(self, precision, nchunks=4, device="cpu", **options):
        recipe = self.made[0]
        voltages = ci8_chunks(numpy.random.default_rng(78), nchunks, self.shape)
        items, mids = self.chunk_times(nchunks, self.shape[2])
        bundle = blade.mode_b(
            self.shape,
            chunk_axis(self.shape[1]),
            blade.read_bfr5(recipe),
            blade.beamforming_options(precision=precision, device=device, **options),
        )
        data = self.run_bundle(bundle, voltages, items, self.shape)
        return blade.unpack(data, list(bundle.output_shape()), bundle.output_type()), bundle, voltages, mids

    def beam_error_bound(self, voltages, mids, rate, circular, incoherent):
        """The fp32 chain's beams y and the bound c u M on |y16 - y32|."""
        _, array, directions, cal_all = self.made
        w = self.phasors(array, directions, cal_all, self.shape[1], rate, mids)
        x = channelize(as_complex(voltages), rate) if rate > 1 else as_complex(voltages)
        magnitude_of = numpy.abs(x)
        if circular:
            x = numpy.stack([x[..., 0] + 1j * x[..., 1], x[..., 0] - 1j * x[..., 1]], axis=-1)
            both = numpy.abs(x).sum(axis=-1, keepdims=True)
            magnitude_of = numpy.broadcast_to(both, x.shape)
        y = bt.beamform_reference(x, w, incoherent, incoherent_sqrt=True)
        magnitude = bt.beamform_magnitude(magnitude_of, w, incoherent)
        if incoherent:
            magnitude[:, -1] = numpy.sqrt(magnitude[:, -1])
        # + 1: the beamformer's fp16 path rounds the phasors to half too (the bundle takes
        # it for A, B >= 32 only: here the bound is then one rounding loose)
        c = (3 if circular else (2 if rate > 1 else 1)) + 1
        return y, c * U * magnitude

    def check(self, rate=1, circular=False, incoherent=True, detector="I", integration=4):
        options = dict(
            channelizer_rate=rate, circular=circular, incoherent=incoherent, detector=detector, integration=integration
        )
        p32, *_ = self.products("fp32", device=self.device32, **options)
        p16, bundle, voltages, mids = self.products("fp16", device=self.device16, **options)
        self.assertEqual((bundle.precision(), p16.shape), ("fp16", p32.shape))
        y, e = self.beam_error_bound(voltages, mids, rate, circular, incoherent)
        bound = detected_bound(y, e, integration)
        slack = 1e-5 * row_power_of(p32, detector)  # the float32 arithmetic of both chains
        excess = numpy.abs(p16 - p32) - (bound + slack)
        self.assertLessEqual(excess.max(), 0, options)
        self.assertGreater(numpy.abs(p16 - p32).max(), 0)  # the chain did run in half precision
        # what the error table reports: relative to the row's total power
        return (numpy.abs(p16 - p32) / numpy.maximum(row_power_of(p32, detector), 1e-30)).max()

    def test_beams_from_ci8(self):
        # ci8 straight into the beamformer (exact): rounded phasors and beams, c = 2
        self.check(detector="I")
        self.check(detector="IQUV", incoherent=False)

    def test_beams_of_channelized_voltages(self):
        self.check(rate=4, detector="IQUV")
        self.check(rate=2, circular=True, detector="XXYY", incoherent=False)

    def test_voltages_of_output_type(self):
        """detector none: the beams are written as output_type, whatever the precision;
        both chains round the beams once, the fp16 one also its channelized voltages."""
        options = dict(detector="none", output_type="cf16", incoherent=False, channelizer_rate=2, integration=1)
        p32, *_ = self.products("fp32", device=self.device32, **options)
        p16, bundle, voltages, mids = self.products("fp16", device=self.device16, **options)
        self.assertEqual(bundle.output_type(), "cf16")
        p16, p32 = (p[..., 0].astype(numpy.float64) + 1j * p[..., 1] for p in (p16, p32))  # cf16 unpacks as pairs
        y, e = self.beam_error_bound(voltages, mids, 2, False, False)
        # e bounds fp16 - exact; the fp32 chain's beams are within u|y| of exact
        self.assertLessEqual((numpy.abs(p16 - p32) - (e + U * numpy.abs(y)) * (1 + 1e-5)).max(), 0)

    def test_bad_precision(self):
        recipe = blade.read_bfr5(self.made[0])
        with self.assertRaisesRegex(ValueError, "blade.mode_b precision: 'fp64'"):
            blade.mode_b(self.shape, chunk_axis(4), recipe, blade.beamforming_options(precision="fp64", device="cpu"))
        with self.assertRaisesRegex(ValueError, "blade.mode_bh precision: 'bf16'"):
            blade.mode_bh(self.shape, chunk_axis(4), recipe, blade.beamforming_options(precision="bf16", device="cpu"))


class qa_mode_b_fp16_many_beams(qa_mode_b_fp16):
    """A, B = 32 and T = 64 without a channelizer: the bundle takes the beamformer's
    fp16 path (tensor cores on a GPU, emulated on the CPU: phasors rounded to half),
    which the bounds' c already counts."""

    shape = [32, 2, 64, 2]

    def setUp(self):
        BundleTestCase.setUp(self)
        self.made = self.recipe(32, 32)

    def test_beams_of_channelized_voltages(self):
        pass  # T/N < 64: the CUDA-core path, as in qa_mode_b_fp16

    def test_voltages_of_output_type(self):
        pass

    def test_bad_precision(self):
        pass

    def test_the_fp16_path_is_taken(self):
        """Its rounded phasors change the beams: the same chain on the CUDA-core path
        (asked for by name) gives other values."""
        options = dict(detector="I", integration=4)
        taken, *_ = self.products("fp16", device=self.device16, **options)
        named, *_ = self.products("fp16", device=self.device16, beamformer_path="fp32", **options)
        self.assertFalse(numpy.array_equal(taken, named))


class qa_mode_bh_fp16(BundleTestCase):
    """Mode BH: the beams are rounded (u |y|), then channelized: an output Y_k of the
    N-point FFT moves by at most u sum_n |y_n| (its inputs' roundings) + u |Y_k| (its
    own)."""

    device16, device32 = "emulated", "cpu"

    def test_high_resolution_beam_spectra(self):
        shape, gather, nchunks = [4, 2, 16, 2], 4, 8
        recipe, array, directions, cal_all = self.recipe(4, 2)
        voltages = ci8_chunks(numpy.random.default_rng(79), nchunks, shape)
        items, mids = self.chunk_times(nchunks, shape[2])
        products = {}
        for precision, device in (("fp32", self.device32), ("fp16", self.device16)):
            bundle = blade.mode_bh(
                shape,
                chunk_axis(shape[1]),
                blade.read_bfr5(recipe),
                blade.beamforming_options(
                    gather=gather, incoherent=True, detector="I", precision=precision, device=device
                ),
            )
            data = self.run_bundle(bundle, voltages, items, shape)
            products[precision] = blade.unpack(data, list(bundle.output_shape()), "f32")
        w = self.phasors(array, directions, cal_all, shape[1], 1, mids)
        y = bt.beamform_reference(as_complex(voltages), w, incoherent=True)
        # a beam sample's error: u sum_a |w||x| from the fp16 path's rounded phasors,
        # u |y| from the cast to cf16 (the incoherent power: only the latter)
        magnitude = bt.beamform_magnitude(as_complex(voltages), w, incoherent=True)

        def gather_time(v):  # [n, B, F, T, P] -> [n/M, B, F, T*M, P]
            return numpy.moveaxis(v.reshape(nchunks // gather, gather, *v.shape[1:]), 1, 3).reshape(
                nchunks // gather, v.shape[1], v.shape[2], gather * shape[2], 2
            )

        gathered = gather_time(y)
        beam_error = gather_time(2 * magnitude)
        spectra = channelize(gathered, gather * shape[2])
        # each coarse channel's window sum reaches its N fine channels
        window = numpy.repeat(beam_error.sum(axis=3, keepdims=True), gather * shape[2], axis=2)
        e = U * (window + numpy.abs(spectra))
        bound = detected_bound(spectra, e, 1) / 2  # mode I: no doubled cross products
        p16, p32 = products["fp16"], products["fp32"]
        self.assertLessEqual((numpy.abs(p16 - p32) - bound - 1e-5 * p32).max(), 0)
        self.assertGreater(numpy.abs(p16 - p32).max(), 0)


class qa_pipeline_precision(gr_unittest.TestCase):
    def test_cli_takes_fp32_or_fp16_for_beamforming_and_spectrometer_modes(self):
        from gnuradio.blade.cli import build_parser

        parser = build_parser()
        for mode in ("mode-b", "mode-h", "mode-bh"):
            given = [mode, "-i", "in"] + (["-r", "in.bfr5"] if mode != "mode-h" else [])
            self.assertEqual(parser.parse_args(given + ["--precision", "fp16"]).precision, "fp16")
            self.assertEqual(parser.parse_args(given).precision, "fp32")
            with self.assertRaises(SystemExit):  # argparse names the choices
                parser.parse_args(given + ["--precision", "fp64"])
        # rawspec's job too (a gr-blade option beside rawspec's own)
        self.assertEqual(parser.parse_args(["rawspec", "stem", "--precision", "fp16"]).precision, "fp16")
        self.assertEqual(parser.parse_args(["rawspec", "stem"]).precision, "fp32")


class qa_cli_precision(gr_unittest.TestCase):
    """blade-cli with --precision fp16 writes the fp32 run's files to within the
    bounds above (same headers, data within (1 + u)^2 - 1 of each Stokes I value for
    Mode H's one rounding; Mode B's beams within 2 u rms), and says so in its plan."""

    @classmethod
    def setUpClass(cls):
        from gnuradio.blade import synth

        cls.dir = tempfile.mkdtemp(prefix="qa_precision")
        obs = synth.SyntheticObservation(antennas=4, channels=2, block_samples=8192, blocks=2, tone_channel=1)
        cls.files = obs.write(cls.dir, "obs", blocks_per_file=2)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_both(self, mode, *arguments):
        from qa_filterbank_sink import parse_fil

        files = {}
        for precision in ("fp32", "fp16"):
            code, out, err = bt.run_cli_main(
                mode,
                "--input",
                self.files["stem"],
                "--output",
                self.dir,
                "--name",
                f"{mode}-{precision}",
                "--device",
                "cpu",
                "--precision",
                precision,
                *arguments,
            )
            self.assertEqual(code, 0, err)
            self.assertEqual("(fp16: cf16 intermediates)" in out, precision == "fp16", out)
            stem = os.path.join(self.dir, f"{mode}-{precision}")
            names = sorted(p for p in os.listdir(self.dir) if p.startswith(f"{mode}-{precision}."))
            files[precision] = [parse_fil(os.path.join(self.dir, name)) for name in names]
            self.assertTrue(names, stem)
        for (h32, d32), (h16, d16) in zip(files["fp32"], files["fp16"]):
            self.assertEqual(h32, h16)
        return (numpy.stack([d for _, d in files[p]]).astype(numpy.float64) for p in ("fp32", "fp16"))

    def test_mode_h(self):
        p32, p16 = self.run_both("mode-h", "--channelizer-rate", 256, "--integration", 4)
        self.assertLess((numpy.abs(p16 - p32) / p32).max(), (1 + U) ** 2 - 1 + 1e-6)
        self.assertGreater(numpy.abs(p16 - p32).max(), 0)

    def test_mode_b(self):
        p32, p16 = self.run_both(
            "mode-b", "--recipe", self.files["recipe"], "--channelizer-rate", 4, "--integration", 8
        )
        self.assertLess(numpy.linalg.norm(p16 - p32) / numpy.linalg.norm(p32), 2 * U)
        self.assertGreater(numpy.abs(p16 - p32).max(), 0)


if __name__ == "__main__":
    gr_unittest.main()
