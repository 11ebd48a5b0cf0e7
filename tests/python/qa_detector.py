#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blade.detector against the spec's table written with numpy (CPU backend)."""

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt

from detector_reference import OUTPUTS, detect


class qa_detector(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(20261202)

    def assert_power_close(self, got, expected, scale, what=""):
        """float32 sums of <= 64 terms: within 1e-5 of the row's total power (which
        bounds |Re XY*| and |Im XY*| too)."""
        self.assertEqual(got.shape, expected.shape, what)
        error = numpy.abs(got.astype(numpy.float64) - expected)
        bound = 1e-5 * scale[..., None]
        worst = numpy.max(error / bound) if error.size else 0
        self.assertTrue(numpy.all(error <= bound), f"{what}: worst error {worst:.2f} x the bound")

    def check(self, shape, mode, integration, nchunks=2, device="cpu", runner=None):
        chunks = bt.random_complex(self.rng, (nchunks, *shape), 100.0)
        block = blade.detector(shape, mode, integration, device)
        out_shape = list(block.output_shape())
        if runner is None:
            got, _ = bt.run_chunks([block], chunks, shape, "cf32", out_shape, "f32")
        else:
            got = runner([block], chunks, "cf32", out_shape, "f32")
        expected, scale = detect(chunks, mode, integration)
        self.assert_power_close(got, expected, scale, f"{mode} I={integration} {shape}")
        return got

    def test_hand_values(self):
        # (X, Y) = (1+2i, 3+4i): |X|^2 = 5, |Y|^2 = 25, X Y* = 11 + 2i
        # (X, Y) = (-1, i):      |X|^2 = 1, |Y|^2 = 1,  X Y* = i
        chunks = numpy.array([[[[[1 + 2j, 3 + 4j], [-1, 1j]]]]], numpy.complex64)
        shape = [1, 1, 2, 2]
        cases = {
            ("I", 1): [[30], [2]],
            ("XXYY", 1): [[5, 25], [1, 1]],
            ("cross", 1): [[5, 25, 11, 2], [1, 1, 0, 1]],
            ("IQUV", 1): [[30, -20, 22, -4], [2, 0, 0, -2]],
            ("I", 2): [[32]],
            ("cross", 2): [[6, 26, 11, 3]],
            ("IQUV", 2): [[32, -20, 22, -6]],
        }
        for (mode, integration), expected in cases.items():
            with self.subTest(mode=mode, integration=integration):
                block = blade.detector(shape, mode, integration, "cpu")
                out_shape = list(block.output_shape())
                got, _ = bt.run_chunks([block], chunks, shape, "cf32", out_shape, "f32")
                numpy.testing.assert_array_equal(got.reshape(-1), numpy.array(expected, numpy.float32).reshape(-1))

    def test_a_lower_sideband_band_gives_the_sky_s_cross_products(self):
        # Chunks of a lower-sideband band (a negative blade_chan_bw tag, as every
        # gr-blade source and channelizer attaches): the voltages are the sky's
        # conjugates, so Im(X Y*) and V change sign; a positive width leaves them.
        chunks = bt.random_complex(self.rng, (3, 2, 3, 8, 2), 100.0)
        shape = [2, 3, 8, 2]
        for mode in ("cross", "IQUV"):
            expected, scale = detect(chunks, mode, 4)
            for width, sign in ((-0.5e6, -1), (0.5e6, 1)):
                with self.subTest(mode=mode, chan_bw=width):
                    block = blade.detector(shape, mode, 4, "cpu")
                    tags = bt.blade_tags(0, chan_bw=width)
                    got, _ = bt.run_chunks([block], chunks, shape, "cf32", list(block.output_shape()), "f32", tags)
                    want = expected.copy()
                    want[..., 3] *= sign
                    self.assert_power_close(got, want, scale, f"{mode} {width}")

    def test_every_mode_and_integration_on_edge_shapes(self):
        for mode in OUTPUTS:
            for shape, integrations in (
                ([1, 1, 1, 2], [1]),
                ([3, 5, 12, 2], [1, 2, 3, 4, 6, 12]),
                ([2, 7, 13, 2], [1, 13]),  # prime T
                ([1, 3, 64, 2], [8, 64]),
            ):
                for integration in integrations:
                    with self.subTest(mode=mode, shape=shape, integration=integration):
                        self.check(shape, mode, integration)

    def test_one_polarization_total_power(self):
        for integration in (1, 3, 12):
            self.check([3, 5, 12, 1], "I", integration)

    def test_upstream_shapes(self):
        # (A, I, Pout) = (2, 8, 4) at full size [2, 192, 8192, 2], one chunk through
        # files; (16, 8, 4) and (16, 64, 1) with 24 of the 192 channels (runtime on
        # two cores), all 8192 samples.
        self.check([2, 192, 8192, 2], "cross", 8, nchunks=1, runner=bt.run_chunks_via_files)
        self.check([16, 24, 8192, 2], "IQUV", 8, nchunks=1, runner=bt.run_chunks_via_files)
        self.check([16, 24, 8192, 2], "I", 64, nchunks=1, runner=bt.run_chunks_via_files)

    def test_integration_across_chunks_keeps_groups_apart(self):
        # K = 3 chunks per output; 7 chunks: two groups, the 7th waits for a group
        # that never completes. Chunk c is scaled by sqrt(c + 1), so a chunk summed
        # into the wrong group would show.
        shape = [2, 3, 8, 2]
        chunks = bt.random_complex(self.rng, (7, *shape), 100.0)
        chunks *= numpy.sqrt(numpy.arange(1, 8, dtype=numpy.float32))[:, None, None, None, None]
        for mode in OUTPUTS:
            with self.subTest(mode=mode):
                block = blade.detector(shape, mode, 24, "cpu")
                self.assertEqual(block.chunks_per_output(), 3)
                self.assertEqual(list(block.output_shape()), [2, 3, 1, OUTPUTS[mode]])
                got, _ = bt.run_chunks([block], chunks, shape, "cf32", [2, 3, 1, OUTPUTS[mode]], "f32")
                expected, scale = detect(chunks, mode, 24)
                self.assertEqual(got.shape[0], 2)
                self.assert_power_close(got, expected, scale, mode)
                # and the groups are not interchangeable: powers (1+2+3) and (4+5+6)
                ratio = got[1, ..., 0].sum() / got[0, ..., 0].sum()
                self.assertTrue(2.2 < ratio < 2.8, f"{mode}: group power ratio {ratio}")

    def test_integrating_across_chunks_holds_two_input_chunks_whatever_k(self):
        # The block takes one chunk at a time: its upstream buffer holds two chunks
        # for K = 1 and K = 16 alike (as a decimator it held 2 K: BL's 2^20-point
        # product, K = 51 chunks of 1 GiB, asked for 102 GiB). On the emulated device,
        # whose buffers are counted, with cf32 chunks of 2 MiB into a host sink (before: 34
        # chunks held for K = 16, 4 for K = 1); and 32 chunks give 32 / K outputs.
        import gc

        shape = [2, 4, 16384, 2]
        chunk = blade.item_size(shape, "cf32")
        held = {}
        for k in (1, 16):
            gc.collect()
            blade.reset_device_memory_peak()
            baseline = blade.device_memory_stats()["bytes_in_use"]
            tb = gr.top_block()
            source = blade.device_source(shape, "cf32", 32, [], "emulated", False)
            block = blade.detector(shape, "I", k * shape[2], "emulated")
            sink = blocks.vector_sink_b(block.output_item_size())
            tb.connect(source, block, sink)
            tb.run()
            held[k] = blade.device_memory_stats()["peak_bytes"] - baseline
            out = blade.unpack(numpy.array(sink.data(), numpy.uint8), [2, 4, 1, 1], "f32")
            self.assertEqual(out.shape[0], 32 // k)
            del tb, source, block, sink
        # source's buffer (2 chunks) + the detector's output (2 small chunks), for each K
        self.assertLess(held[16], 5 * chunk, held)
        self.assertLess(abs(held[16] - held[1]), chunk // 2, held)

    def test_tsamp_is_multiplied_by_the_integration(self):
        shape = [1, 2, 8, 2]
        chunks = bt.random_complex(self.rng, (3, *shape), 100.0)
        tags = [t for i in range(3) for t in bt.blade_tags(i, tsamp=2e-6, time_mid_unix=100.0 + i, freq_first=1.4e9)]
        block = blade.detector(shape, "I", 4, "cpu")
        _, out_tags = bt.run_chunks([block], chunks, shape, "cf32", [1, 2, 2, 1], "f32", tags)
        received = bt.tags_by_offset(out_tags)
        self.assertEqual(sorted(received), [0, 1, 2])
        for i in range(3):
            self.assertAlmostEqual(received[i]["blade_tsamp"], 8e-6, delta=1e-18)
            self.assertEqual(received[i]["blade_time_mid_unix"], 100.0 + i)  # same span
            self.assertEqual(received[i]["blade_freq_first"], 1.4e9)

    def test_across_chunks_only_the_first_chunk_tags_travel(self):
        # T = 8, I = 32: K = 4. The output spans 4 chunks: its middle is 1.5 chunks
        # (12 samples) after the first chunk's middle.
        shape = [1, 2, 8, 2]
        tsamp = 1e-3
        chunks = bt.random_complex(self.rng, (8, *shape), 100.0)
        tags = []
        for i in range(8):
            tags += bt.blade_tags(
                i,
                tsamp=tsamp,
                time_mid_unix=1000.0 + 8 * tsamp * i,
                jd_mid=2460000.5 + 8 * tsamp * i / 86400,
                block_index=i,
            )
        block = blade.detector(shape, "IQUV", 32, "cpu")
        _, out_tags = bt.run_chunks([block], chunks, shape, "cf32", [1, 2, 1, 4], "f32", tags)
        received = bt.tags_by_offset(out_tags)
        self.assertEqual(sorted(received), [0, 1])
        for group in (0, 1):
            first = 4 * group
            self.assertEqual(received[group]["blade_block_index"], first)
            self.assertAlmostEqual(received[group]["blade_tsamp"], 32 * tsamp, delta=1e-15)
            self.assertAlmostEqual(
                received[group]["blade_time_mid_unix"], 1000.0 + 8 * tsamp * first + 12 * tsamp, delta=1e-9
            )
            self.assertAlmostEqual(
                received[group]["blade_jd_mid"], 2460000.5 + (8 * first + 12) * tsamp / 86400, delta=1e-9
            )

    def test_repeated_runs_give_identical_bits(self):
        shape = [3, 8, 256, 2]
        chunks = bt.random_complex(self.rng, (2, *shape), 100.0)
        runs = [
            bt.run_chunks([blade.detector(shape, "IQUV", 64, "cpu")], chunks, shape, "cf32", [3, 8, 4, 4], "f32")[0]
            for _ in range(2)
        ]
        self.assertTrue(bt.same_bits(runs[0], runs[1]))

    def test_properties(self):
        block = blade.detector([16, 192, 8192, 2], "iquv", 8, "cpu")
        self.assertEqual(block.mode(), "IQUV")
        self.assertEqual(block.integration(), 8)
        self.assertEqual(block.chunks_per_output(), 1)
        self.assertEqual(list(block.output_shape()), [16, 192, 1024, 4])
        self.assertEqual(block.input_item_size(), 16 * 192 * 8192 * 2 * 8)
        self.assertEqual(block.output_item_size(), 16 * 192 * 1024 * 4 * 4)
        long = blade.detector([2, 4, 128, 2], "I", 4 * 128, "cpu")
        self.assertEqual((long.chunks_per_output(), list(long.output_shape())), (4, [2, 4, 1, 1]))

    def test_bad_configurations_are_refused_with_reasons(self):
        cases = [
            (([2, 4, 8, 2], "I", 3), "integration 3 does not divide the T = 8"),
            (([2, 4, 8, 2], "I", 12), "not a multiple of T"),
            (([2, 4, 8, 2], "I", 0), "at least 1"),
            (([2, 4, 8, 1], "XXYY", 1), "mode 'XXYY' needs two polarizations"),
            (([2, 4, 8, 1], "IQUV", 1), "mode 'IQUV' needs two polarizations"),
            (([2, 4, 8, 3], "I", 1), "P = 3"),
            (([4, 8, 2], "I", 1), "[A, F, T, P] (rank 4)"),
            (([2, 4, 8, 2], "AABB", 1), "unknown detector mode 'AABB'"),
        ]
        for args, reason in cases:
            with self.subTest(args=args):
                with self.assertRaises(ValueError) as caught:
                    blade.detector(*args, device="cpu")
                self.assertIn(reason, str(caught.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_detector)
