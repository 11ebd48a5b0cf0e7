#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade.beamformer on the CPU (and the emulated GPU) against numpy references written
from the spec: y[b, f, t, p] = sum_a x[a, f, t, p] w[b, a, f, 0, p], the incoherent
beam sum_a |w[0, a, f, 0, p]|^2 |x|^2, and [B, A] phasors broadcast.
"""

import numpy
import pmt
from gnuradio import gr, gr_unittest

from gnuradio import blade
import blade_testing as bt

# float32 sums over at most 64 antennas: rounding stays below 64 * 2^-24 of sum |x||w|.
RTOL = 1e-5


class qa_beamformer(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(20261201)

    def chunks(self, A, F, T, P, B, nchunks=2, meerkat=False):
        x = bt.random_complex(self.rng, (nchunks, A, F, T, P), 30.0)
        w_shape = (nchunks, B, A) if meerkat else (nchunks, B, A, F, 1, P)
        w = bt.random_complex(self.rng, w_shape, 0.7)
        return x, w

    def check(
        self,
        A,
        F,
        T,
        P,
        B,
        nchunks=2,
        incoherent=False,
        incoherent_sqrt=False,
        meerkat=False,
        device="cpu",
        path="auto",
    ):
        x, w = self.chunks(A, F, T, P, B, nchunks, meerkat)
        phasor_shape = [B, A] if meerkat else [B, A, F, 1, P]
        block = blade.beamformer([A, F, T, P], phasor_shape, "cf32", "cf32", incoherent, incoherent_sqrt, path, device)
        got, _ = bt.run_beamformer(block, x, w)
        self.assertEqual(got.shape, (nchunks, B + int(incoherent), F, T, P))
        error = bt.beamformer_error(got, x, w, incoherent, incoherent_sqrt)
        self.assertLess(error.max(), RTOL, f"A={A} F={F} T={T} P={P} B={B}: max error {error.max():.3g}")
        return got

    def test_hand_worked_values(self):
        # x[a, t] = [[1+2i, 3-i], [i, -2]], w[0, a] = [1+i, -i]: no conjugation, so
        # y = (1+2i)(1+i) + i(-i) = 3i and (3-i)(1+i) + (-2)(-i) = 4+4i; the
        # incoherent power is 2*5 + 1*1 = 11 and 2*10 + 1*4 = 24.
        x = numpy.array([[[[1 + 2j], [3 - 1j]]], [[[1j], [-2]]]], numpy.complex64)[None]
        w = numpy.array([[[[[1 + 1j]]], [[[-1j]]]]], numpy.complex64)[None]
        for root, power in ((False, [11, 24]), (True, numpy.sqrt([11, 24]))):
            block = blade.beamformer([2, 1, 2, 1], [1, 2, 1, 1, 1], "cf32", "cf32", True, root, "auto", "cpu")
            got, _ = bt.run_beamformer(block, x, w)
            numpy.testing.assert_allclose(got[0, 0, 0, :, 0], [3j, 4 + 4j], rtol=1e-7)
            numpy.testing.assert_allclose(got[0, 1, 0, :, 0], power, rtol=1e-7)

    def test_random_shapes_including_primes(self):
        for A, F, T, P, B in [
            (1, 1, 1, 1, 1),
            (7, 3, 13, 2, 5),
            (13, 7, 29, 1, 1),
            (2, 11, 131, 2, 9),
            (20, 4, 256, 2, 8),
            (64, 2, 64, 2, 17),
            (5, 2, 300, 1, 16),
        ]:
            with self.subTest(A=A, F=F, T=T, P=P, B=B):
                self.check(A, F, T, P, B)

    def test_more_than_256_beams(self):
        self.check(3, 5, 7, 2, 300, nchunks=1)
        self.check(11, 2, 17, 1, 257, nchunks=1, incoherent=True)

    def test_one_time_sample_after_full_channelization(self):
        # After a channelizer with N = T every chunk has T = 1 and many channels.
        self.check(4, 1031, 1, 2, 3, incoherent=True)
        self.check(6, 512, 1, 1, 33)

    def test_incoherent_beam_with_and_without_square_root(self):
        for root in (False, True):
            with self.subTest(sqrt=root):
                got = self.check(9, 3, 40, 2, 4, incoherent=True, incoherent_sqrt=root)
                self.assertTrue(numpy.all(got[:, -1].imag == 0))
                self.assertTrue(numpy.all(got[:, -1].real >= 0))

    def test_incoherent_beam_uses_beam_zero_amplitudes_only(self):
        # Unit-modulus phasors for beam 0 with a calibration amplitude per antenna: the
        # incoherent beam is sum_a |cal_a|^2 |x_a|^2, whatever the phases.
        A, F, T, P = 3, 2, 8, 2
        x, _ = self.chunks(A, F, T, P, 1, 1)
        cal = numpy.array([0.5, 2.0, 1.0])
        phases = numpy.exp(2j * numpy.pi * self.rng.uniform(size=(1, 2, A, F, 1, P)))
        w = (cal[None, None, :, None, None, None] * phases).astype(numpy.complex64)
        block = blade.beamformer([A, F, T, P], [2, A, F, 1, P], "cf32", "cf32", True, False, "auto", "cpu")
        got, _ = bt.run_beamformer(block, x, w)
        expected = numpy.einsum("a,afTp->fTp", cal**2, numpy.abs(x[0].astype(complex)) ** 2)
        numpy.testing.assert_allclose(got[0, 2].real, expected, rtol=2e-6)

    def test_meerkat_weights_per_beam_and_antenna(self):
        self.check(8, 5, 32, 2, 6, meerkat=True, incoherent=True)
        self.check(3, 2, 9, 1, 2, meerkat=True)
        # The same numbers as [B, A, F, 1, P] phasors with the weight repeated.
        A, F, T, P, B = 4, 3, 16, 2, 3
        x, w = self.chunks(A, F, T, P, B, 1, meerkat=True)
        full = numpy.broadcast_to(w[:, :, :, None, None, None], (1, B, A, F, 1, P)).astype(numpy.complex64)
        a, _ = bt.run_beamformer(blade.beamformer([A, F, T, P], [B, A], device="cpu"), x, w)
        b, _ = bt.run_beamformer(blade.beamformer([A, F, T, P], [B, A, F, 1, P], device="cpu"), x, full)
        self.assertTrue(bt.same_bits(a, b))

    def test_polarizations_use_their_own_phasors(self):
        A, F, T, P, B = 2, 1, 4, 2, 1
        x, w = self.chunks(A, F, T, P, B, 1)
        w[..., 1] = 0  # pol 1 weights zero: its beam is zero, pol 0 unaffected
        got, _ = bt.run_beamformer(blade.beamformer([A, F, T, P], [B, A, F, 1, P], device="cpu"), x, w)
        self.assertTrue(numpy.all(got[..., 1] == 0))
        self.assertTrue(numpy.all(got[..., 0] != 0))

    def test_ci8_voltages_equal_cast_then_beamform(self):
        A, F, T, P, B = 6, 3, 50, 2, 5
        raw = bt.random_chunks(self.rng, "ci8", 3, [A, F, T, P])
        _, w = self.chunks(A, F, T, P, B, 3)
        fused = blade.beamformer([A, F, T, P], [B, A, F, 1, P], "ci8", "cf32", True, False, "auto", "cpu")
        direct, _ = bt.run_beamformer(fused, raw, w, input_type="ci8")

        cast = blade.cast([A, F, T, P], "ci8", "cf32", "cpu")
        plain = blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf32", "cf32", True, False, "auto", "cpu")
        cast_first, _ = bt.run_chain_into_beamformer([cast], plain, raw, w, "ci8")
        self.assertTrue(bt.same_bits(direct, cast_first))
        error = bt.beamformer_error(direct, bt.to_values(raw, "ci8"), w, True)
        self.assertLess(error.max(), RTOL)

    def test_cf16_voltages_equal_cast_then_beamform(self):
        A, F, T, P, B = 6, 3, 50, 2, 5
        x, w = self.chunks(A, F, T, P, B, 3)
        raw = bt.from_values(x.astype(numpy.complex128), "cf16")
        fused = blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf16", "cf32", True, False, "auto", "cpu")
        direct, _ = bt.run_beamformer(fused, raw, w, input_type="cf16")

        cast = blade.cast([A, F, T, P], "cf16", "cf32", "cpu")
        plain = blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf32", "cf32", True, False, "auto", "cpu")
        cast_first, _ = bt.run_chain_into_beamformer([cast], plain, raw, w, "cf16")
        self.assertTrue(bt.same_bits(direct, cast_first))
        error = bt.beamformer_error(direct, bt.to_values(raw, "cf16"), w, True)
        self.assertLess(error.max(), RTOL)

    def test_fp16_path_is_emulated_on_the_cpu(self):
        # Operands rounded to half (numpy's float16: round to nearest even), then float32
        # sums: within 1e-5 of sum |x||w| of the rounded-operand reference, and about
        # 2^-11 of it (bound 2^-10) from the unrounded one. The incoherent beam is the
        # fp32 path's.
        A, F, T, P, B = 9, 3, 40, 2, 6
        x, w = self.chunks(A, F, T, P, B)
        block = blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf32", "cf32", True, False, "fp16", "cpu")
        self.assertEqual(block.path(), "fp16")
        got, _ = bt.run_beamformer(block, x, w)
        full, _ = bt.run_beamformer(
            blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf32", "cf32", True, False, "fp32", "cpu"), x, w
        )

        def rounded(values):
            return values.real.astype(numpy.float16).astype(numpy.float64) + 1j * values.imag.astype(
                numpy.float16
            ).astype(numpy.float64)

        coherent = numpy.s_[:, :B]
        error = bt.beamformer_error(got[coherent], rounded(x), rounded(w))
        self.assertLess(error.max(), RTOL)
        error = bt.beamformer_error(got[coherent], x, w)
        self.assertLess(error.max(), 2.0**-10)
        self.assertGreater(error.max(), 1e-5)  # the rounding happened
        self.assertTrue(bt.same_bits(got[:, B], full[:, B]))

    def test_cf16_output_is_the_rounded_cf32_output(self):
        A, F, T, P, B = 5, 2, 24, 2, 3
        x, w = self.chunks(A, F, T, P, B)
        wide, _ = bt.run_beamformer(
            blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf32", "cf32", True, True, "auto", "cpu"), x, w
        )
        half, _ = bt.run_beamformer(
            blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf32", "cf16", True, True, "auto", "cpu"),
            x,
            w,
            output_type="cf16",
        )
        self.assertTrue(bt.same_bits(half, bt.from_values(wide.astype(numpy.complex128), "cf16")))

    def test_every_chunk_uses_its_own_phasors_in_order(self):
        A, F, T, P, B, n = 3, 2, 8, 1, 2, 6
        x = numpy.ones((n, A, F, T, P), numpy.complex64)
        w = numpy.zeros((n, B, A, F, 1, P), numpy.complex64)
        for step in range(n):
            w[step, :, 0] = step + 1  # antenna 0 only: beam = step + 1
        got, _ = bt.run_beamformer(blade.beamformer([A, F, T, P], [B, A, F, 1, P], device="cpu"), x, w)
        for step in range(n):
            self.assertTrue(numpy.all(got[step] == step + 1), f"chunk {step}")
        self.check(4, 3, 10, 2, 3, nchunks=7)  # random data differing per chunk

    def test_voltage_tags_pass_and_phasor_tags_stay(self):
        A, F, T, P, B = 2, 2, 8, 2, 1
        x, w = self.chunks(A, F, T, P, B, 3)
        vtags = [gr.tag_utils.python_to_tag((i, pmt.intern("rx_time"), pmt.from_double(1.5 * i))) for i in range(3)]
        ptags = [gr.tag_utils.python_to_tag((i, pmt.intern("phasor_step"), pmt.from_long(i))) for i in range(3)]
        _, tags = bt.run_beamformer(
            blade.beamformer([A, F, T, P], [B, A, F, 1, P], device="cpu"), x, w, voltage_tags=vtags, phasor_tags=ptags
        )
        self.assertEqual(
            sorted((t.offset, pmt.symbol_to_string(t.key)) for t in tags), [(i, "rx_time") for i in range(3)]
        )

    def test_properties(self):
        block = blade.beamformer([20, 192, 8192, 2], [8, 20, 192, 1, 2], "ci8", "cf16", True, True, "auto", "cpu")
        self.assertEqual(block.device(), "cpu")
        self.assertEqual(block.path(), "fp32")
        self.assertEqual(block.beams(), 8)
        self.assertEqual(list(block.output_shape()), [9, 192, 8192, 2])
        self.assertEqual(block.input_item_size(), 20 * 192 * 8192 * 2 * 2)
        self.assertEqual(block.phasor_item_size(), blade.item_size([8, 20, 192, 1, 2], "cf32"))
        self.assertEqual(block.output_item_size(), 9 * 192 * 8192 * 2 * 4)
        self.assertEqual(list(blade.beamformer([3, 2, 4, 1], [5, 3], device="cpu").output_shape()), [5, 2, 4, 1])

    def test_cpu_computes_float32_for_every_path(self):
        for path in ("fp32", "tf32", "tf32x3"):
            with self.subTest(path=path):
                self.check(33, 2, 64, 2, 40, nchunks=1, path=path)
                block = blade.beamformer([33, 2, 64, 2], [40, 33, 2, 1, 2], path=path, device="cpu")
                self.assertEqual(block.path(), "fp32")

    def test_phasor_shape_mismatches_name_the_axis(self):
        voltages = [20, 192, 64, 2]
        cases = [
            ([8, 21, 192, 1, 2], "A (antennas) (axis 1) is 21, expected 20"),
            ([8, 20, 191, 1, 2], "F (channels) (axis 2) is 191, expected 192"),
            ([8, 20, 192, 2, 2], "the time axis (one phasor per chunk) (axis 3) is 2, expected 1"),
            ([8, 20, 192, 1, 1], "P (polarizations) (axis 4) is 1, expected 2"),
            ([8, 19], "A (antennas) (axis 1) is 19, expected 20"),
            ([8, 20, 192, 2], "phasors must be [B, A, F, 1, P] = [B, 20, 192, 1, 2] or"),
            ([8], "(rank 1)"),
        ]
        for phasors, reason in cases:
            with self.subTest(phasors=phasors):
                with self.assertRaises(ValueError) as caught:
                    blade.beamformer(voltages, phasors, device="cpu")
                self.assertIn(reason, str(caught.exception))

    def test_phasors_for_another_beam_count_are_refused_at_connect(self):
        # Phasor chunks of 4 beams (items of another size) cannot feed a block made for 8.
        tb = gr.top_block()
        block = blade.beamformer([4, 16, 64, 2], [8, 4, 16, 1, 2], device="cpu")
        four_beams = blade.cast([4, 4, 16, 1, 2], "cf32", "cf32", "cpu")
        with self.assertRaises(ValueError) as caught:
            tb.connect(four_beams, (block, 1))
        self.assertIn("itemsize mismatch", str(caught.exception))

    def test_bad_configurations_are_refused_with_reasons(self):
        cases = [
            (([4, 2, 8, 2], [2, 4, 2, 1, 2], "ci16"), "voltages must be cf32, cf16 or ci8"),
            (([4, 2, 8, 2], [2, 4, 2, 1, 2], "cf32", "ci8"), "beams are written as cf32 or cf16, given ci8"),
            (([4, 2, 8, 2], [2, 4, 2, 1, 2], "cf32", "cf32", False, True), "incoherent_sqrt"),
            (([4, 2, 8, 2], [2, 4, 2, 1, 2], "cf32", "cf32", False, False, "fp8"), "unknown path 'fp8'"),
            (([4, 2, 8, 3], [2, 4, 2, 1, 3]), "P (polarizations, axis 3 of the voltages [4, 2, 8, 3]) must be 1 or 2"),
            (([4, 2, 8], [2, 4]), "voltages must be [A, F, T, P] (rank 4)"),
            (([4, 0, 8, 2], [2, 4]), "extent 0 on axis 1"),
        ]
        for args, reason in cases:
            with self.subTest(args=args):
                with self.assertRaises(ValueError) as caught:
                    blade.beamformer(*args, device="cpu")
                self.assertIn(reason, str(caught.exception))

    def test_emulated_gpu_chain_with_phasors_from_the_host(self):
        # cast (emulated) -> beamformer (emulated) port 0; phasors from a host source on
        # port 1. Each chunk crosses the host/GPU boundary once per host edge: voltages
        # and phasors up, beams down; the cast -> beamformer edge copies nothing.
        A, F, T, P, B, n = 5, 3, 32, 2, 4, 6
        raw = bt.random_chunks(self.rng, "ci8", n, [A, F, T, P])
        _, w = self.chunks(A, F, T, P, B, n)
        cast = blade.cast([A, F, T, P], "ci8", "cf32", "emulated")
        block = blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf32", "cf32", True, False, "auto", "emulated")
        got, stats = bt.run_chain_into_beamformer([cast], block, raw, w, "ci8")
        error = bt.beamformer_error(got, bt.to_values(raw, "ci8"), w, True)
        self.assertLess(error.max(), RTOL)
        self.assertEqual(block.device(), "emulated")
        self.assertEqual((stats["host_to_device"], stats["device_to_host"], stats["device_to_device"]), (2 * n, n, 0))
        self.assertEqual(stats["host_to_device_bytes"], n * (cast.input_item_size() + block.phasor_item_size()))
        self.assertEqual(stats["device_to_host_bytes"], n * block.output_item_size())


if __name__ == "__main__":
    gr_unittest.run(qa_beamformer)
