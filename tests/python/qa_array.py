#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gnuradio.blade.array (the core modules on numpy arrays, CPU backend) against the
numpy references the block tests use, at random and edge shapes, with its errors."""

import itertools
import math
import unittest

import numpy

import blade_testing as bt
import channelizer_reference
import correlator_reference
import dedoppler_reference
import detector_reference
from gnuradio.blade import array as ba

SEED = 20261201


def relative_error(got, expected):
    """max |got - expected| / RMS(expected) (the channelizer tests' measure)."""
    rms = numpy.sqrt(numpy.mean(numpy.abs(expected) ** 2)) or 1.0
    error = numpy.abs(got - expected)
    return math.inf if numpy.isnan(error).any() else float(error.max()) / rms


def channelizer_tolerance(rate, taps=1):
    return 1e-6 * max(1.0, math.log2(rate)) * (2 if taps > 1 else 1)


def one(chunks):
    return numpy.ascontiguousarray(chunks[0])


class qa_array(unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(SEED)

    def random_aftp(self, pols=(1, 2), t_multiple=1, max_t=64):
        a, f = (int(v) for v in self.rng.integers(1, 6, 2))
        t = t_multiple * int(self.rng.integers(1, max_t // t_multiple + 1))
        return [a, f, t, int(self.rng.choice(pols))]

    # --- cast ---------------------------------------------------------------------

    def check_cast(self, source, target, shape):
        x = one(bt.random_chunks(self.rng, source, 1, shape))
        expected = x if source == target else bt.from_values(bt.to_values(x[None], source), target)[0]
        got = ba.cast(x, target, input_type=source if source == "cf16" else None)
        self.assertTrue(bt.same_bits(got, expected), f"{source} -> {target} {shape}")
        return got

    def test_cast_every_pair(self):
        for source, target in itertools.chain(
            itertools.product(bt.COMPLEX_TYPES, repeat=2), itertools.product(bt.REAL_TYPES, repeat=2)
        ):
            with self.subTest(source=source, target=target):
                self.check_cast(source, target, self.random_aftp())

    def test_cast_edge_shapes(self):
        for shape in ([1], [1, 1, 1, 1], [7], [2, 13, 17, 1], [1, 1, 4097, 2], [2, 2, 1, 2, 3]):
            with self.subTest(shape=shape):
                self.check_cast("ci8", "cf32", shape)
                self.check_cast("cf32", "ci4", shape)

    def test_cast_object_reuses_its_plan_and_out(self):
        plan = ba.Cast("cf32")
        out = numpy.empty((2, 3, 4, 2), numpy.complex64)
        for step in range(3):
            x = numpy.full((2, 3, 4, 2, 2), step, numpy.int8)
            self.assertIs(plan(x, out=out), out)
            self.assertTrue(numpy.all(out == step + 1j * step))

    # --- channelizer --------------------------------------------------------------

    def test_channelizer_random_shapes(self):
        for trial in range(12):
            rate = int(self.rng.choice([1, 2, 3, 4, 5, 8, 16, 64]))
            shape = self.random_aftp(t_multiple=rate, max_t=max(64, 2 * rate))
            x = bt.random_complex(self.rng, shape, 10.0)
            got = ba.channelize(x, rate)
            expected = channelizer_reference.channelize(x[None], rate)[0]
            self.assertEqual(got.shape, expected.shape)
            self.assertEqual(got.dtype, numpy.complex64)
            self.assertLess(relative_error(got, expected), channelizer_tolerance(rate), f"{shape} N={rate}")

    def test_channelizer_pfb_keeps_history_across_calls(self):
        for rate, taps, window in ((4, 4, "hamming"), (8, 2, "blackman-harris"), (3, 5, "rectangular")):
            shape = [2, 3, 4 * rate, 2]
            chunks = bt.random_complex(self.rng, (3, *shape), 5.0)
            expected = channelizer_reference.channelize(chunks, rate, taps, window)
            plan = ba.Channelizer(rate, taps, window)
            for i in range(3):
                got = plan(chunks[i])
                self.assertLess(
                    relative_error(got, expected[i]),
                    channelizer_tolerance(rate, taps),
                    f"N={rate} M={taps} {window} chunk {i}",
                )
            plan.reset()  # as before the first chunk
            self.assertLess(relative_error(plan(chunks[0]), expected[0]), channelizer_tolerance(rate, taps))
            # the function starts from zero history every call
            first = ba.channelize(chunks[0], rate, taps, window)
            again = ba.channelize(chunks[0], rate, taps, window)
            numpy.testing.assert_array_equal(first, again)

    def test_channelizer_prototype_is_the_reference_filter(self):
        for window in ("hamming", "hann", "blackman", "blackman-harris", "rectangular"):
            numpy.testing.assert_allclose(
                ba.prototype(16, 4, window), channelizer_reference.prototype(16, 4, window), rtol=1e-9, atol=1e-12
            )

    # --- detector -----------------------------------------------------------------

    def assert_power_close(self, got, expected, scale, what):
        self.assertEqual(got.shape, expected.shape, what)
        error = numpy.abs(got.astype(numpy.float64) - expected)
        self.assertTrue(numpy.all(error <= 1e-5 * scale[..., None]), what)

    def test_detector_modes_and_integrations(self):
        for mode in ("I", "XXYY", "cross", "IQUV"):
            for trial in range(3):
                integration = int(self.rng.choice([1, 2, 3, 8]))
                shape = self.random_aftp(pols=(1, 2) if mode == "I" else (2,), t_multiple=integration)
                x = bt.random_complex(self.rng, shape, 100.0)
                got = ba.detect(x, mode, integration)
                expected, scale = detector_reference.detect(x[None], mode, integration)
                self.assert_power_close(got, expected[0], scale[0], f"{mode} I={integration} {shape}")

    def test_detector_integrates_across_chunks(self):
        shape = [2, 3, 4, 2]
        chunks = bt.random_complex(self.rng, (6, *shape), 10.0)
        expected, scale = detector_reference.detect(chunks, "IQUV", 12)
        plan = ba.Detector("IQUV", 12)
        outputs = [plan(c) for c in chunks]
        self.assertEqual(plan.steps, 3)
        self.assertEqual([o is None for o in outputs], [True, True, False] * 2)
        for k, got in enumerate(outputs[2::3]):
            self.assert_power_close(got, expected[k], scale[k], f"group {k}")
        with self.assertRaisesRegex(ValueError, "Detector object"):
            ba.detect(chunks[0], "I", 12)

    # --- beamformer ---------------------------------------------------------------

    def test_beamformer_random_shapes(self):
        for trial in range(10):
            shape = self.random_aftp()
            a, f, t, p = shape
            beams = int(self.rng.integers(1, 5))
            incoherent = bool(trial % 2)
            sqrt = trial % 4 == 3
            weights = trial % 3 == 2
            x = bt.random_complex(self.rng, shape, 10.0)
            w = bt.random_complex(self.rng, (beams, a) if weights else (beams, a, f, 1, p))
            got = ba.beamform(x, w, incoherent=incoherent, incoherent_sqrt=sqrt)
            error = bt.beamformer_error(got[None], x[None], w[None], incoherent, sqrt)
            self.assertLess(error.max(), 1e-5, f"{shape} B={beams} incoherent={incoherent} weights={weights}")

    def test_beamformer_ci8_voltages_equal_cast_then_cf32(self):
        x = self.rng.integers(-128, 128, (4, 3, 16, 2, 2), dtype=numpy.int8)
        w = bt.random_complex(self.rng, (3, 4, 3, 1, 2))
        numpy.testing.assert_array_equal(ba.beamform(x, w), ba.beamform(ba.cast(x, "cf32"), w))
        half = ba.beamform(x, w, output_type="cf16")
        self.assertEqual((half.dtype, half.shape), (numpy.float16, (3, 3, 16, 2, 2)))

    def test_beamformer_fp16_path(self):
        x = bt.random_complex(self.rng, (5, 2, 24, 2), 30.0)
        w = bt.random_complex(self.rng, (3, 5, 2, 1, 2))
        got = ba.beamform(x, w, path="fp16")
        self.assertEqual(ba.Beamformer(path="fp16", shape=x.shape, phasor_shape=w.shape).path_used, "fp16")
        error = bt.beamformer_error(got[None], x[None], w[None])
        self.assertLess(error.max(), 2.0**-10)
        self.assertGreater(error.max(), 1e-5)  # operands rounded to half

    def test_beamformer_cf16_voltages_are_float16_pairs(self):
        x = bt.random_complex(self.rng, (4, 3, 16, 2), 30.0)
        halves = numpy.stack([x.real, x.imag], axis=-1).astype(numpy.float16)
        w = bt.random_complex(self.rng, (3, 4, 3, 1, 2))
        widened = (halves[..., 0].astype(numpy.float32) + 1j * halves[..., 1].astype(numpy.float32)).astype(
            numpy.complex64
        )
        numpy.testing.assert_array_equal(ba.beamform(halves, w), ba.beamform(widened, w))

    # --- polarizer, permute, gather, duplicate ------------------------------------

    def test_polarizer(self):
        for shape in ([1, 1, 1, 2], [2], [3, 5, 7, 2], [2, 2, 3, 5, 2]):
            x = bt.random_complex(self.rng, shape, 100.0)
            expected = numpy.stack([x[..., 0] + 1j * x[..., 1], x[..., 0] - 1j * x[..., 1]], axis=-1)
            numpy.testing.assert_array_equal(ba.polarize(x), expected.astype(numpy.complex64))
            self.assertIs(ba.polarize(x, out=x), x)  # in place
            numpy.testing.assert_array_equal(x, expected.astype(numpy.complex64))
            numpy.testing.assert_array_equal(ba.polarize(x, "linear"), x)

    def test_permute_every_order(self):
        for dtype in ("cf32", "ci8", "f16", "ci4"):
            for rank in (2, 3, 4):
                shape = [int(v) for v in self.rng.integers(1, 7, rank)]
                x = one(bt.random_chunks(self.rng, dtype, 1, shape))
                for axes in itertools.permutations(range(rank)):
                    got = ba.permute(x, axes)
                    expected = numpy.transpose(x, axes + ((rank,) if x.ndim > rank else ()))
                    numpy.testing.assert_array_equal(
                        got.view(numpy.uint8),
                        numpy.ascontiguousarray(expected).view(numpy.uint8),
                        f"{dtype} {shape} {axes}",
                    )

    def test_gather_is_concatenate(self):
        for axis in range(4):
            shape = self.random_aftp()
            chunks = [bt.random_complex(self.rng, shape) for _ in range(3)]
            numpy.testing.assert_array_equal(ba.gather(chunks, axis), numpy.concatenate(chunks, axis))
        plan = ba.Gather(2, 3)
        self.assertEqual([plan(c) is None for c in chunks], [True, True, False])
        plan(chunks[2])
        plan(chunks[1])
        numpy.testing.assert_array_equal(plan(chunks[0]), numpy.concatenate(chunks[::-1], 2))
        out = numpy.empty((shape[0], shape[1], 3 * shape[2], shape[3]), numpy.complex64)
        self.assertIsNone(plan(chunks[0], out=out))
        with self.assertRaisesRegex(ValueError, "out changed"):
            plan(chunks[1], out=out.copy())
        plan(chunks[1], out=out)
        self.assertIs(plan(chunks[2]), out)
        numpy.testing.assert_array_equal(out, numpy.concatenate(chunks, 2))

    def test_duplicate_copies_are_independent(self):
        x = self.rng.integers(-128, 128, (2, 3, 5, 2, 2), dtype=numpy.int8)
        copies = ba.duplicate(x, 3)
        self.assertEqual(len(copies), 3)
        for c in copies:
            numpy.testing.assert_array_equal(c, x)
        copies[0][...] = 0
        numpy.testing.assert_array_equal(copies[1], x)
        for dtype in ("cf32", "ci16", "f64", "ci4"):
            shape = [int(v) for v in self.rng.integers(1, 9, int(self.rng.integers(1, 5)))]
            y = one(bt.random_chunks(self.rng, dtype, 1, shape))
            out = [numpy.empty_like(y) for _ in range(2)]
            got = ba.duplicate(y, 2, out=out)
            self.assertIs(got[1], out[1])
            for c in got:
                self.assertTrue(bt.same_bits(c, y), f"{dtype} {shape}")

    def test_benchmark_runs(self):
        from gnuradio.blade.array import bench

        rows = bench.overhead("cpu", repeat_calls=5, rounds=1)
        self.assertEqual(len(rows), 6)
        self.assertTrue(all(r["raw_us"] > 0 and r["function_us"] > 0 for r in rows))
        # the replayed core call writes what the API call wrote
        x = bt.random_complex(self.rng, (2, 3, 16, 2))
        plan = ba.Channelizer(4)
        out = plan(x)
        call = lambda: plan(x, out=out)  # noqa: E731
        raw = bench.recorded_raw_call(call, plan)
        out[...] = 0
        raw()
        numpy.testing.assert_array_equal(out, ba.channelize(x, 4))

    # --- phasors ------------------------------------------------------------------

    def test_phasors_from_a_delay_table(self):
        beams, antennas, nchan, pols = 2, 3, 8, 2
        times = numpy.array([100.0, 110.0, 130.0])
        delays = self.rng.uniform(-1e-6, 1e-6, (3, beams, antennas))
        calibration = bt.random_complex(self.rng, (antennas, 2, pols)).astype(numpy.complex128)
        plan = ba.Phasors(
            freq_first=1.4e9,
            chan_bw=-0.5e6,
            nchan=nchan,
            nfpc=4,
            coarse_first=10,
            polarizations=pols,
            delay_table=(times, delays),
            calibration=calibration,
            calibration_first_channel=10,
        )
        when = 117.5
        expected_delays = numpy.stack(
            [numpy.interp(when, times, delays[:, b, a]) for b in range(beams) for a in range(antennas)]
        ).reshape(beams, antennas)
        numpy.testing.assert_allclose(plan.delays(when), expected_delays, rtol=1e-12, atol=1e-20)
        got = plan(when)
        self.assertEqual(got.shape, (beams, antennas, nchan, 1, pols))
        freqs = 1.4e9 - 0.5e6 * numpy.arange(nchan)
        cal = calibration[:, numpy.arange(nchan) // 4]  # [A, F, P]
        turn = numpy.exp(+2j * numpy.pi * expected_delays[:, :, None] * freqs)  # lower sideband: +
        expected = cal[None] * turn[..., None]
        numpy.testing.assert_allclose(got[:, :, :, 0], expected, rtol=2e-6, atol=2e-6 * abs(expected).max())
        plan.set_calibration(None)
        numpy.testing.assert_allclose(plan(when)[:, :, :, 0], turn[..., None].repeat(pols, -1), atol=2e-6)
        with self.assertRaisesRegex(ValueError, "calibration|channel"):
            plan.set_calibration(calibration[:, :1], 10)  # covers coarse channel 10, not 11

    def test_phasors_from_geometry(self):
        positions = bt.geodetic_to_ecef(-2.14, 0.71, 1000.0) + self.rng.uniform(-300, 300, (4, 3))
        boresight = (1.0, 0.6)
        plan = ba.Phasors(
            freq_first=1e9,
            chan_bw=1e6,
            nchan=3,
            polarizations=2,
            reference=(-2.14, 0.71, 1000.0),
            antenna_positions=positions,
            boresight=boresight,
            beam_directions=[boresight, (1.001, 0.6)],
        )
        delays = plan.delays(1.7e9)
        numpy.testing.assert_array_equal(delays[0], 0)  # the boresight's beam
        numpy.testing.assert_array_equal(delays[:, 0], 0)  # the reference antenna
        self.assertTrue(numpy.all(numpy.abs(delays[1, 1:]) > 0))
        got = plan(1.7e9)
        numpy.testing.assert_allclose(plan.last_delays, delays, rtol=0, atol=1e-15)
        expected = numpy.exp(-2j * numpy.pi * delays[:, :, None] * (1e9 + 1e6 * numpy.arange(3)))
        numpy.testing.assert_allclose(got[..., 0, 0], expected, atol=1e-5)

    # --- correlator ---------------------------------------------------------------

    def assert_visibilities(self, got, x, integration, fc=1, lower=False, what=""):
        expected = correlator_reference.correlate(x, integration, fc, lower)
        scale = correlator_reference.scale(x, integration, fc)
        self.assertEqual(got.shape, expected.shape[1:] if len(got.shape) < len(expected.shape) else expected.shape)
        self.assertTrue(
            numpy.all(numpy.abs(got - expected.reshape(got.shape)) <= 1e-6 * scale.reshape(got.shape) + 1e-30), what
        )

    def test_correlator_random_shapes(self):
        for trial in range(6):
            integration = int(self.rng.choice([1, 2, 4]))
            shape = self.random_aftp(t_multiple=integration, max_t=16)
            fc = shape[1] if trial % 2 else 1
            x = bt.random_complex(self.rng, shape, 3.0)
            got = ba.correlate(x, integration, fc, lower_sideband=trial == 3)
            self.assert_visibilities(got, x[None], integration, fc, trial == 3, f"{shape} I={integration} Fc={fc}")
        xi = self.rng.integers(-128, 128, (3, 2, 8, 2, 2), dtype=numpy.int8)
        got = ba.correlate(xi, 8)
        self.assert_visibilities(got, (xi[..., 0] + 1j * xi[..., 1])[None], 8, what="ci8")
        self.assertEqual(ba.baseline_index(3, 1, 2), 4)

    def test_correlator_integrates_across_chunks(self):
        chunks = bt.random_complex(self.rng, (4, 3, 2, 4, 2), 2.0)
        plan = ba.Correlator(integration=8)
        outputs = [plan(c) for c in chunks]
        self.assertEqual([o is None for o in outputs], [True, False, True, False])
        expected = correlator_reference.correlate(chunks, 8)
        for k in range(2):
            numpy.testing.assert_allclose(outputs[2 * k + 1], expected[k], rtol=1e-5, atol=1e-5)

    # --- dedoppler ----------------------------------------------------------------

    def test_dedoppler_plane_and_hits_equal_the_reference(self):
        for shape, method in (((2, 16, 256), "taylor"), ((1, 8, 128), "brute_force"), ((1, 5, 64), "taylor")):
            data = self.rng.normal(100.0, 1.0, shape).astype(numpy.float32)
            for b in range(shape[0]):
                dedoppler_reference.inject_tone(data[b], shape[2] // 3 + 5 * b, 0.5, 8.0)
            foff, tsamp, nfpc = 2.79, 18.25, shape[2] // 2
            plan = ba.Dedoppler(foff, tsamp, nfpc, max_drift=0.2, snr_threshold=8.0, method=method)
            hits = plan.search(data)
            want = dedoppler_reference.search(data, foff, tsamp, nfpc, 0.0, 0.2, 8.0, method=method)
            self.assertEqual(list(plan.drift_indices()), list(want["grid"].drifts))
            numpy.testing.assert_array_equal(plan.integrate(data), want["plane"])
            keys = ("beam", "channel", "drift_index")
            self.assertEqual(
                [tuple(int(h[k]) for k in keys) for h in hits],
                [tuple(int(h[k]) for k in keys) for h in want["hits"]],
                f"{shape} {method}",
            )
            self.assertGreater(len(hits), 0)
            for h, w in zip(hits, want["hits"]):
                self.assertLess(abs(h["snr"] - w["snr"]), 1e-5 * abs(w["snr"]))
            centres, spreads, _ = plan.statistics()
            numpy.testing.assert_allclose(centres, want["centres"], rtol=1e-6)
            numpy.testing.assert_array_equal(
                ba.dedoppler(data, foff, tsamp, nfpc, 0.2, snr_threshold=8.0, method=method), hits
            )

    # --- errors and memory --------------------------------------------------------

    def test_errors_are_clear(self):
        x = bt.random_complex(self.rng, (2, 3, 16, 2))
        cases = [
            (lambda: ba.channelize(x, 5), ValueError, "divide"),
            (lambda: ba.channelize(x.real.copy(), 4), TypeError, "cf32"),
            (lambda: ba.channelize(x[:, :, ::2], 4), ValueError, "C-contiguous"),
            (lambda: ba.channelize(x, 4, 4, "kaiser"), ValueError, "hamming"),
            (lambda: ba.detect(x[..., :1].copy(), "IQUV"), ValueError, "polarization"),
            (lambda: ba.cast(x, "f32"), NotImplementedError, "cast"),
            (lambda: ba.cast(x, "cf8"), ValueError, "unknown"),
            (lambda: ba.beamform(x, numpy.ones((2, 3, 3, 1, 2), numpy.complex64)), ValueError, "antenna|A"),
            (lambda: ba.permute(x, (0, 1, 1, 2)), ValueError, "permutation"),
            (lambda: ba.cast(numpy.zeros((4, 3), numpy.int8), "cf32"), TypeError, "trailing axis of 2"),
            (lambda: ba.cast([1, 2], "cf32"), TypeError, "numpy, CuPy or PyTorch"),
            (lambda: ba.channelize(x, 4, out=numpy.empty((2, 12, 4, 2), numpy.complex128)), ValueError, "out|output"),
            (lambda: ba.Dedoppler(0.0, 1.0, 16).search(numpy.ones((4, 32), numpy.float32)), ValueError, "foff"),
        ]
        for call, kind, pattern in cases:
            with self.subTest(pattern=pattern):
                with self.assertRaisesRegex(kind, pattern):
                    call()

    def test_a_plan_keeps_its_shape(self):
        plan = ba.Channelizer(4)
        plan(bt.random_complex(self.rng, (2, 3, 16, 2)))
        with self.assertRaisesRegex(ValueError, r"shape \(2, 3, 16, 2\).*got complex64 of shape \(2, 3, 8, 2\)"):
            plan(bt.random_complex(self.rng, (2, 3, 8, 2)))

    def test_unaligned_and_out_memory_is_used_in_place(self):
        # an array starting 8 bytes into its buffer: the core reads it where it is
        buffer = bt.random_complex(self.rng, (2 * 3 * 16 * 2 + 1,))
        x = buffer[1:].reshape(2, 3, 16, 2)
        out = numpy.zeros((2, 12, 4, 2), numpy.complex64)
        self.assertIs(ba.channelize(x, 4, out=out), out)
        expected = channelizer_reference.channelize(x[None], 4)[0]
        self.assertLess(relative_error(out, expected), channelizer_tolerance(4))

    def test_read_only_out_is_refused_and_dlpack_host_arrays_are_read_in_place(self):
        x = bt.random_complex(self.rng, (2, 3, 16, 2))
        out = numpy.empty((2, 12, 4, 2), numpy.complex64)
        out.flags.writeable = False
        with self.assertRaisesRegex(ValueError, "read-only"):
            ba.channelize(x, 4, out=out)

        class HostDLPack:  # a host array known only through DLPack
            def __dlpack__(self, stream=None):
                return x.__dlpack__()

            def __dlpack_device__(self):
                return x.__dlpack_device__()

        numpy.testing.assert_array_equal(ba.channelize(HostDLPack(), 4), ba.channelize(x, 4))

    def test_cuda_array_interface_is_read_without_copying(self):
        from gnuradio.blade.array import _arrays

        class Fake:
            __cuda_array_interface__ = {
                "shape": (2, 3, 4, 2, 2),
                "typestr": "|i1",
                "data": (123456, False),
                "version": 3,
                "strides": None,
            }

        v = _arrays.view(Fake())
        self.assertEqual((v.kind, v.ptr, v.shape, v.dtype), (_arrays.CUDA, 123456, (2, 3, 4, 2, 2), numpy.int8))
        self.assertEqual(_arrays.blade_type(v.dtype, v.shape), ("ci8", (2, 3, 4, 2)))
        Fake.__cuda_array_interface__["strides"] = (48, 16, 4, 2, 1)  # dense, spelled out
        self.assertEqual(_arrays.view(Fake()).ptr, 123456)
        Fake.__cuda_array_interface__["strides"] = (96, 32, 8, 2, 1)
        with self.assertRaisesRegex(ValueError, "C-contiguous"):
            _arrays.view(Fake())

    def test_producers_finish_before_the_core_reads(self):
        # JAX dispatches asynchronously (block_until_ready), and version 3 of the CUDA
        # array interface names the producer's stream, which the consumer waits for.
        from gnuradio.blade.array import _arrays, _core

        waited = []

        class Library:
            def blade_stream_synchronize(self, device, stream):
                waited.append((device.kind, device.index, stream))
                return 0

        class Producer:
            __cuda_array_interface__ = {"shape": (2, 8, 2), "typestr": "<c8", "data": (4096, False), "version": 3}

            def block_until_ready(self):
                waited.append("ready")

        opened = _core.library
        _core.library = Library
        try:
            _arrays.view(Producer())
            self.assertEqual(waited, ["ready"])  # no stream given: nothing else to wait for
            Producer.__cuda_array_interface__["stream"] = 7
            _arrays.view(Producer())
            self.assertEqual(waited, ["ready", "ready", (_arrays.CUDA, 0, 7)])
        finally:
            _core.library = opened

    # --- the fast path: cached plans and array readers ----------------------------

    def test_cached_calls_check_every_array(self):
        # Repeated calls find their plan without planning (the function by one lookup of
        # its arguments with the array's shape, type and device; the object by its own
        # plan) and read the array by numpy's fast reader: each array is still checked.
        x = bt.random_complex(self.rng, (2, 3, 16, 2))
        tolerance = channelizer_tolerance(4)

        def expected(a):
            return channelizer_reference.channelize(a[None], 4)[0]

        plan = ba.Channelizer(4)
        wide = bt.random_complex(self.rng, (2, 3, 32, 2))
        read_only = numpy.empty((2, 12, 4, 2), numpy.complex64)
        read_only.flags.writeable = False
        for name, call in (("function", lambda a, **k: ba.channelize(a, 4, **k)), ("object", plan)):
            with self.subTest(call=name):
                for _ in range(3):
                    self.assertLess(relative_error(call(x), expected(x)), tolerance)
                other = bt.random_complex(self.rng, (2, 3, 16, 2))  # same shape, other memory
                self.assertLess(relative_error(call(other), expected(other)), tolerance)
                out = numpy.full((2, 12, 4, 2), numpy.nan, numpy.complex64)
                self.assertIs(call(x, out=out), out)
                self.assertLess(relative_error(out, expected(x)), tolerance)
                with self.assertRaisesRegex(ValueError, "C-contiguous"):
                    call(wide[:, :, ::2])  # the planned shape and type, with gaps
                with self.assertRaisesRegex((TypeError, ValueError), "complex128"):
                    call(x.astype(numpy.complex128))
                with self.assertRaisesRegex(
                    ValueError, r"output must be complex64 of shape \(2, 12, 4, 2\).*got complex128"
                ):
                    call(x, out=numpy.empty((2, 12, 4, 2), numpy.complex128))
                with self.assertRaisesRegex(ValueError, r"output must be .*got complex64 of shape \(2, 12, 4, 1\)"):
                    call(x, out=numpy.empty((2, 12, 4, 1), numpy.complex64))
                with self.assertRaisesRegex(ValueError, "read-only"):
                    call(x, out=read_only)
                with self.assertRaisesRegex(ValueError, "C-contiguous"):
                    call(x, out=numpy.empty((2, 12, 8, 2), numpy.complex64)[:, :, ::2])
                self.assertLess(relative_error(call(x), expected(x)), tolerance)  # and after the errors
        # another shape: the function plans for it, the object refuses it
        y = bt.random_complex(self.rng, (1, 2, 8, 2))
        self.assertLess(relative_error(ba.channelize(y, 4), expected(y)), tolerance)
        with self.assertRaisesRegex(ValueError, r"shape \(2, 3, 16, 2\).*got complex64 of shape \(1, 2, 8, 2\)"):
            plan(y)
        # checks of an argument against the shape hold on a cached argument key too
        ba.detect(x, "I", 16)
        with self.assertRaisesRegex(ValueError, "longer than the chunk's T = 8"):
            ba.detect(numpy.ascontiguousarray(x[:, :, :8]), "I", 16)
        with self.assertRaisesRegex(ValueError, "divide"):
            ba.channelize(x, 5)
        with self.assertRaisesRegex(ValueError, "divide"):
            ba.channelize(x, 5)  # refused again: a failed call leaves no key behind
        # the PFB function starts from zero history on every call, cached or not
        first = ba.channelize(x, 4, taps=4)
        numpy.testing.assert_array_equal(ba.channelize(x, 4, taps=4), first)
        reference = channelizer_reference.channelize(x[None], 4, 4, "hamming")[0]
        self.assertLess(relative_error(first, reference), channelizer_tolerance(4, 4))

    def test_function_cache_is_bounded_and_spellings_share_a_plan(self):
        from gnuradio.blade.array import _plan

        ba.clear_cache()
        plans, keys = _plan._caches()
        x = bt.random_complex(self.rng, (2, 3, 16, 2))
        power = ba.detect(x, "I")
        numpy.testing.assert_array_equal(ba.detect(x, "i"), power)
        numpy.testing.assert_array_equal(ba.detect(x, mode="I", integration=1), power)
        self.assertEqual((len(plans), len(keys)), (1, 2))  # one plan, reached by two spellings
        permuted = ba.permute(x, [0, 2, 3, 1])  # a list: no key, the canonical lookup
        numpy.testing.assert_array_equal(ba.permute(x, [0, 2, 3, 1]), numpy.transpose(x, (0, 2, 3, 1)))
        numpy.testing.assert_array_equal(permuted, numpy.transpose(x, (0, 2, 3, 1)))

        def polarized(a):
            return numpy.stack([a[..., 0] + 1j * a[..., 1], a[..., 0] - 1j * a[..., 1]], axis=-1)

        first = bt.random_complex(self.rng, (1, 2))
        numpy.testing.assert_array_equal(ba.polarize(first), polarized(first).astype(numpy.complex64))
        for n in range(2, _plan.PLANS_KEPT + 12):  # more shapes than plans kept
            z = bt.random_complex(self.rng, (n, 2))
            numpy.testing.assert_array_equal(ba.polarize(z), polarized(z).astype(numpy.complex64))
        self.assertLessEqual(len(plans), _plan.PLANS_KEPT)
        self.assertLessEqual(len(keys), _plan.KEYS_KEPT)
        kept = [id(p) for p in plans.values()]
        for plan in keys.values():  # no key leads to a released plan
            self.assertTrue(plan.planned)
            self.assertIn(id(plan), kept)
        # the first shape's plan was released: the next call plans it again
        numpy.testing.assert_array_equal(ba.polarize(first), polarized(first).astype(numpy.complex64))
        ba.clear_cache()
        self.assertEqual((len(plans), len(keys)), (0, 0))

    def test_device_arrays_take_the_same_cached_path(self):
        # The path of CuPy and PyTorch arrays (a library's fast reader, its allocator
        # and its current stream) on this machine: host arrays posing as a GPU
        # library's, on the core's emulated device (host memory, the CPU backend).
        from gnuradio.blade.array import _arrays, _core, _plan

        emulated = _core.DEVICE_EMULATED

        class DeviceArray:
            def __init__(self, host, index=0, lost=False):
                self.host, self.index, self.lost = host, index, lost  # lost: its pointer reads as NULL

        class Library(_arrays.Family):
            name = "emulated library"
            current = 0

            def read(self, a):
                host = a.host
                if host.flags.c_contiguous:
                    return (0 if a.lost else host.ctypes.data, host.shape, host.dtype, (emulated, a.index))
                return None

            def empty(self, shape, dtype, where):
                a = DeviceArray(numpy.empty(shape, dtype), where[1])
                return a, a.host.ctypes.data

            def current_stream(self, index):
                return self.current

        class Stream:  # as CuPy's: the handle in .ptr
            def __init__(self, ptr):
                self.ptr = ptr

        library = Library()
        _arrays.FAMILIES[DeviceArray] = library
        _arrays.FAMILY_NAMED[library.name] = library
        streams = []

        def recording(plan):
            process = plan._process

            def record(*args):
                streams.append(args[-1].value)
                return process(*args)

            plan._process = record

        def polarized(a):
            return numpy.stack([a[..., 0] + 1j * a[..., 1], a[..., 0] - 1j * a[..., 1]], axis=-1).astype(
                numpy.complex64
            )

        try:
            host = bt.random_complex(self.rng, (3, 5, 2))
            x = DeviceArray(host)
            plan = ba.Polarizer()
            ba.polarize(x)  # plans
            function_plan = _plan.remembered(("polarizer", "circular", host.shape, host.dtype, (emulated, 0)))
            self.assertIsNotNone(function_plan)
            for name, call, made in (("object", plan, plan), ("function", ba.polarize, function_plan)):
                with self.subTest(call=name):
                    del streams[:]
                    library.current = 11
                    got = call(x)  # the object plans here
                    recording(made)
                    self.assertIsInstance(got, DeviceArray)
                    numpy.testing.assert_array_equal(got.host, polarized(host))
                    library.current = 22  # the current stream is asked on every call
                    call(x)
                    call(x, stream=33)
                    call(x, stream=Stream(44))
                    out = DeviceArray(numpy.empty_like(host))
                    self.assertIs(call(x, out=out), out)
                    numpy.testing.assert_array_equal(out.host, polarized(host))
                    self.assertEqual(streams, [22, 33, 44, 22])
                    with self.assertRaisesRegex(TypeError, "stream: expected"):
                        call(x, stream="fast")
                    with self.assertRaisesRegex(ValueError, "output is on cpu"):
                        call(x, out=numpy.empty_like(host))
                    with self.assertRaisesRegex(ba.BladeValueError, "polarizer: input tensor has no data"):
                        call(DeviceArray(host, lost=True))  # the core's own refusal, at process time
            # another device: the object refuses it, the function plans for it
            elsewhere = DeviceArray(host.copy(), index=1)
            with self.assertRaisesRegex(ValueError, "input is on cuda:1, the plan on cuda:0"):
                plan(elsewhere)
            got = ba.polarize(elsewhere)
            self.assertEqual(got.index, 1)
            numpy.testing.assert_array_equal(got.host, polarized(host))
            # another shape and type
            with self.assertRaisesRegex(ValueError, r"must be complex64 of shape \(3, 5, 2\)"):
                plan(DeviceArray(bt.random_complex(self.rng, (4, 5, 2))))
            with self.assertRaisesRegex(TypeError, "cf32"):
                ba.polarize(DeviceArray(host.astype(numpy.complex128)))
        finally:
            del _arrays.FAMILIES[DeviceArray]
            del _arrays.FAMILY_NAMED[library.name]
            ba.clear_cache()

    def test_arrays_without_a_fast_reader_use_the_cached_plans_too(self):
        # DLPack-only (and __cuda_array_interface__, JAX) arrays are read by view() on
        # every call and find their plans through the same keys
        from gnuradio.blade.array import _plan

        x = bt.random_complex(self.rng, (2, 3, 16, 2))

        class HostDLPack:
            def __dlpack__(self, stream=None):
                return x.__dlpack__()

            def __dlpack_device__(self):
                return x.__dlpack_device__()

        ba.clear_cache()
        expected = ba.channelize(x, 4)
        for _ in range(3):
            numpy.testing.assert_array_equal(ba.channelize(HostDLPack(), 4), expected)
        self.assertEqual(len(_plan._caches()[0]), 1)  # numpy and DLPack: one plan
        numpy.testing.assert_array_equal(ba.beamform(HostDLPack(), numpy.ones((1, 2), numpy.complex64)), x.sum(0)[None])

    def test_gpu_arrays_need_a_cuda_build(self):
        if ba.has_cuda():
            self.skipTest("this build has CUDA")

        class Fake:  # an array on a GPU, as __cuda_array_interface__ describes it
            __cuda_array_interface__ = {
                "shape": (2, 3, 16, 2),
                "typestr": "<c8",
                "data": (1 << 40, False),
                "version": 3,
                "strides": None,
            }

        with self.assertRaisesRegex(NotImplementedError, "CUDA|cuda|GPU"):
            ba.channelize(Fake(), 4)


if __name__ == "__main__":
    unittest.main()
