#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The correlator block and the Mode X bundle against the numpy references written from
the spec (correlator_reference.correlate, channelizer_reference.channelize), on the
CPU and the emulated device: random data of distinct values, odd and edge shapes
(A = 1, prime T), integration within and across chunks, channel integration, P = 1;
the tags they rewrite; the visibility_sink's files read back; and the refusals.

Tolerance: the CPU computes in double and rounds once to float32, so every output
is within 2^-24 |V| + 1e-16 S of the reference (S = sum |x_i||x_j|); the checks
allow 2^-23 S + 2^-23 |V| (ci8 products are exact integers).
"""

import os

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt
from channelizer_reference import channelize
from correlator_reference import correlate, scale

TOLERANCE = 2.0**-23


def cf32_chunks(rng, n, shape):
    return (rng.normal(size=(n, *shape)) + 1j * rng.normal(size=(n, *shape))).astype(numpy.complex64)


def ci8_chunks(rng, n, shape):
    return rng.integers(-100, 101, size=(n, *shape, 2), dtype=numpy.int8)


def ci8_values(chunks):
    return chunks[..., 0].astype(numpy.complex128) + 1j * chunks[..., 1]


class qa_correlator(bt.FileTestCase, gr_unittest.TestCase):
    seed = 20

    def assert_close(self, got, want, size, what):
        error = numpy.abs(got - want)
        bound = TOLERANCE * (size + numpy.abs(want)) + 1e-30
        worst = float(numpy.max(error / bound))
        self.assertLessEqual(worst, 1.0, f"{what}: error {worst:.3g} x the bound")

    def run_correlator(self, chunks, shape, input_type, integration, fc=1, device="cpu", tags=(), path="auto"):
        block = blade.correlator(shape, input_type, integration, fc, path, device)
        out, out_tags = bt.run_chunks([block], chunks, shape, input_type, block.output_shape(), "cf32", tags)
        return block, out, out_tags

    def test_random_shapes_against_the_reference(self):
        cases = [
            # shape [A, F, T, P], type, I, Fc, chunks
            ([1, 1, 1, 1], "cf32", 1, 1, 2),
            ([3, 5, 7, 2], "cf32", 7, 1, 2),
            ([5, 4, 12, 2], "ci8", 4, 2, 3),
            ([2, 3, 13, 1], "ci8", 13, 3, 2),
            ([7, 2, 8, 2], "cf32", 24, 1, 6),  # 3 chunks per output, two outputs
            ([4, 6, 16, 2], "ci8", 32, 3, 4),
        ]
        for shape, dtype, integration, fc, n in cases:
            with self.subTest(shape=shape, dtype=dtype, integration=integration, fc=fc):
                chunks = (ci8_chunks if dtype == "ci8" else cf32_chunks)(self.rng, n, shape)
                values = ci8_values(chunks) if dtype == "ci8" else chunks
                block, got, _ = self.run_correlator(chunks, shape, dtype, integration, fc)
                want = correlate(values, integration, fc)
                self.assertEqual(list(got.shape), [want.shape[0]] + list(block.output_shape()))
                self.assert_close(got, want, scale(values, integration, fc), f"{shape} {dtype}")
                a = shape[0]
                self.assertEqual(block.baselines(), a * (a + 1) // 2)
                self.assertEqual(block.chunks_per_output(), max(1, integration // shape[2]))
                self.assertEqual(block.path(), "fp64")
                if dtype == "ci8":  # integer products: exact
                    self.assertTrue(numpy.array_equal(got, want.astype(numpy.complex64)))

    def test_fp32_on_the_cpu_sums_in_float32_through_blas(self):
        # Where gr-blade has OpenBLAS (tools/bootstrap installs it), path fp32 on the CPU
        # sums each chunk in float32: within n 2^-24 S of the reference (n samples and
        # channels per chunk), across chunks in double.
        if blade.correlator([1, 1, 1, 1], "cf32", 1, 1, "fp32", "cpu").path() != "fp32":
            self.skipTest("built without OpenBLAS: fp32 on the CPU is the fp64 reference")
        for shape, dtype, integration, fc, n in [
            ([5, 3, 300, 2], "cf32", 300, 1, 2),
            ([9, 4, 64, 1], "ci8", 128, 2, 4),  # across 2 chunks, channel integration
            ([28, 2, 1100, 2], "cf32", 550, 1, 1),
        ]:
            with self.subTest(shape=shape, dtype=dtype):
                chunks = (ci8_chunks if dtype == "ci8" else cf32_chunks)(self.rng, n, shape)
                values = ci8_values(chunks) if dtype == "ci8" else chunks
                block, got, _ = self.run_correlator(chunks, shape, dtype, integration, fc, path="fp32")
                self.assertEqual(block.path(), "fp32")
                want = correlate(values, integration, fc)
                terms = min(integration, shape[2]) * fc
                error = numpy.abs(got - want)
                bound = terms * 2.0**-24 * scale(values, integration, fc) + 2.0**-23 * numpy.abs(want)
                self.assertTrue(numpy.all(error <= bound), f"{shape} {dtype}: {numpy.max(error / bound):.3g} x")

    def test_emulated_device_gives_the_cpu_bits(self):
        shape = [6, 3, 16, 2]
        chunks = cf32_chunks(self.rng, 4, shape)
        _, cpu, _ = self.run_correlator(chunks, shape, "cf32", 32, 1, "cpu")
        _, emulated, _ = self.run_correlator(chunks, shape, "cf32", 32, 1, "emulated")
        self.assertTrue(bt.same_bits(cpu, emulated))

    def test_tags(self):
        shape = [3, 4, 8, 2]
        chunks = ci8_chunks(self.rng, 4, shape)
        tsamp, jd, first, width = 2e-6, 2460000.5, 1.4e9, 0.5e6
        tags = []
        for c in range(4):
            tags += bt.blade_tags(
                c, tsamp=tsamp, jd_mid=jd + c * 8 * tsamp / 86400, time_mid_unix=100.0 + c * 8 * tsamp
            )
        tags += bt.blade_tags(0, freq_first=first, chan_bw=width, nchan=4, aspect="antenna")
        block, got, out_tags = self.run_correlator(chunks, shape, "ci8", 16, 2, tags=tags)
        by = bt.tags_by_offset(out_tags)
        keys = blade.tag_keys()
        self.assertEqual(sorted(by), [0, 1])  # one output per two chunks
        self.assertAlmostEqual(by[0][keys["tsamp"]], 16 * tsamp)
        # the output's middle is the group's: half a chunk after the first chunk's middle
        self.assertAlmostEqual(by[0][keys["time_mid_unix"]], 100.0 + 4 * tsamp, places=9)
        self.assertAlmostEqual(by[1][keys["jd_mid"]], jd + (2 * 8 + 4) * tsamp / 86400, places=12)
        self.assertAlmostEqual(by[0][keys["chan_bw"]], 2 * width)
        self.assertAlmostEqual(by[0][keys["freq_first"]], first + width / 2)
        self.assertEqual(by[0][keys["nchan"]], 2)
        self.assertEqual(by[0][keys["aspect"]], "baseline")

    def test_lower_sideband_conjugates(self):
        shape = [3, 2, 8, 2]
        chunks = ci8_chunks(self.rng, 2, shape)
        tags = bt.blade_tags(0, chan_bw=-0.5e6)
        _, got, _ = self.run_correlator(chunks, shape, "ci8", 8, tags=tags)
        want = correlate(ci8_values(chunks), 8, lower_sideband=True)
        self.assertTrue(numpy.array_equal(got, want.astype(numpy.complex64)))

    def test_refusals_name_the_problem(self):
        cases = [
            (dict(shape=[2, 3, 8]), "shape"),
            (dict(shape=[2, 3, 8, 3]), "1 or 2|polarization"),
            (dict(shape=[2, 3, 8, 2], input_type="ci16"), "cf32|ci8"),
            (dict(shape=[2, 3, 8, 2], integration=3), "integration|divide|multiple"),
            (dict(shape=[2, 3, 8, 2], integration=12), "integration|multiple"),
            (dict(shape=[2, 3, 8, 2], channel_integration=2), "channel"),
            (dict(shape=[2, 3, 8, 2], path="fp8"), "fp32|fp16"),
            (dict(shape=[2, 3, 8, 2], operand_scale=-1.0), "scale"),
            (dict(shape=[2, 3, 8, 2], device="cuda:99"), "cuda|GPU|device"),
        ]
        for kwargs, pattern in cases:
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                with self.assertRaisesRegex((ValueError, RuntimeError), pattern):
                    blade.correlator(**kwargs)

    # --- Mode X ---------------------------------------------------------------------

    def run_bundle(self, bundle, chunks, shape, dtype, tags=()):
        return bt.run_chunks([bundle], chunks, shape, dtype, bundle.output_shape(), "cf32", tags)[0]

    def test_mode_x_against_channelizer_and_correlator_references(self):
        cases = [
            # shape, rate, taps, I, Fc, chunks, devices
            ([4, 3, 32, 2], 4, 1, 8, 2, 3, []),
            ([3, 2, 16, 2], 1, 1, 32, 1, 4, []),  # ci8 straight to the correlator, across chunks
            ([5, 2, 24, 1], 8, 4, 6, 1, 4, []),  # polyphase filterbank, P = 1, I = 2 chunks
            ([3, 4, 16, 2], 4, 1, 4, 2, 2, ["cpu", "cpu"]),  # two sub-bands
        ]
        for shape, rate, taps, integration, fc, n, devices in cases:
            with self.subTest(shape=shape, rate=rate, taps=taps, integration=integration, devices=devices):
                chunks = ci8_chunks(self.rng, n, shape)
                options = blade.correlator_options(
                    input_type="ci8",
                    channelizer_rate=rate,
                    taps=taps,
                    window="hamming",
                    integration=integration,
                    channel_integration=fc,
                    device="cpu" if not devices else "auto",
                    devices=devices,
                )
                bundle = blade.mode_x(shape, options)
                got = self.run_bundle(bundle, chunks, shape, "ci8")
                voltages = ci8_values(chunks)
                if rate > 1 or taps > 1:
                    voltages = channelize(voltages, rate, taps, "hamming")
                want = correlate(voltages, integration, fc)
                self.assertEqual(list(got.shape), [want.shape[0]] + list(bundle.output_shape()))
                self.assertEqual(bundle.output_type(), "cf32")
                self.assertEqual(bundle.precision(), "fp64")
                fine = shape[2] // rate
                self.assertEqual(bundle.chunks_per_output(), max(1, integration // fine))
                # the channelizer's float32 FFT is the larger error: its outputs are
                # within ~1e-6 relative, so their products within a few 1e-6 of S
                self.assert_close_loosely(got, want, scale(voltages, integration, fc))

    def assert_close_loosely(self, got, want, size):
        worst = float(numpy.max(numpy.abs(got - want) / (size + 1e-30)))
        self.assertLess(worst, 2e-6, f"error {worst:.3g} of sum |x_i||x_j|")

    def test_mode_x_options_and_refusals(self):
        o = blade.correlator_options(channelizer_rate=16, precision="fp16")
        self.assertEqual((o.channelizer_rate, o.precision, o.integration, o.input_type), (16, "fp16", 1, "ci8"))
        self.assertIsNone(blade.correlator_options().channelizer_rate)
        with self.assertRaisesRegex(TypeError, "correlator_options has no field 'stokes'"):
            blade.correlator_options(stokes="I")
        with self.assertRaisesRegex(ValueError, "precision: 'fp8'"):
            blade.mode_x([2, 2, 8, 2], blade.correlator_options(precision="fp8", device="cpu"))
        with self.assertRaisesRegex(ValueError, "channel"):
            blade.mode_x([2, 3, 8, 2], blade.correlator_options(channel_integration=2, device="cpu"))
        bundle = blade.mode_x([2, 2, 8, 2], blade.correlator_options(device="cpu"))
        self.assertIsInstance(bundle, blade.tensor_block)
        self.assertEqual(bundle.output_shape(), [3, 2, 8, 4])

    # --- the visibility sink ------------------------------------------------------------

    def correlated_chunks(self, shape, n, integration):
        chunks = ci8_chunks(self.rng, n, shape)
        block = blade.correlator(shape, "ci8", integration, 1, "auto", "cpu")
        return chunks, block

    def run_into_sink(self, shape, n, integration, sink_args, tsamp=2e-6):
        chunks, block = self.correlated_chunks(shape, n, integration)
        jd = 2460000.5
        tags = []
        for c in range(n):
            tags += bt.blade_tags(c, tsamp=tsamp, jd_mid=jd + (c + 0.5) * shape[2] * tsamp / 86400)
        tags += bt.blade_tags(0, freq_first=1.4e9, chan_bw=0.5e6)
        source = blocks.vector_source_b(blade.pack(chunks, "ci8").tolist(), False, blade.item_size(shape, "ci8"), tags)
        sink = blade.visibility_sink(shape=block.output_shape(), **sink_args)
        tb = gr.top_block()
        tb.connect(source, block, sink)
        tb.run()
        want = correlate(ci8_values(chunks), integration).astype(numpy.complex64)
        return sink, want, jd

    def array(self, antennas):
        names = [f"a{k}" for k in range(antennas)]
        return dict(antenna_names=names)

    def test_visibility_sink_dumps(self):
        from gnuradio.blade.formats import visibilities

        shape = [3, 4, 8, 2]
        for format in ("h5", "npz"):
            with self.subTest(format=format):
                path = self.path(f"vis.{format}")
                sink, want, jd = self.run_into_sink(shape, 3, 4, dict(path=path, array=self.array(3), format=format))
                self.assertIsNone(sink.error)
                self.assertEqual(sink.files(), [path])
                self.assertEqual(sink.integrations_written(), 6)
                self.assertFalse(os.path.exists(path + ".partial"))
                data = visibilities.read(path)
                # [chunks, B, F, T', P*P] -> integrations in time order
                self.assertTrue(
                    numpy.array_equal(data["visibilities"], want.transpose(0, 3, 1, 2, 4).reshape(6, 6, 4, 4))
                )
                self.assertEqual(list(data["products"]), ["XX", "XY", "YX", "YY"])
                self.assertEqual(list(data["ant_1"]), [0, 0, 0, 1, 1, 2])
                self.assertEqual(list(data["ant_2"]), [0, 1, 2, 1, 2, 2])
                self.assertEqual(list(data["antenna_names"]), ["a0", "a1", "a2"])
                numpy.testing.assert_allclose(data["frequencies"], 1.4e9 + 0.5e6 * numpy.arange(4))
                self.assertAlmostEqual(float(data["integration_time"]), 4 * 2e-6)
                # two integrations per chunk, a quarter chunk either side of its middle
                step = 4 * 2e-6 / 86400
                want_times = [jd + (c + 0.5) * 8 * 2e-6 / 86400 + d * step / 2 for c in range(3) for d in (-1, 1)]
                numpy.testing.assert_allclose(data["time_jd"], want_times, rtol=0, atol=1e-11)

    def test_visibility_sink_refusals(self):
        with self.assertRaisesRegex(ValueError, "2 antenna names make 3 baselines, the chunks have 6"):
            blade.visibility_sink(self.path("x.uvh5"), [6, 4, 1, 4], self.array(2))
        with self.assertRaisesRegex(ValueError, "needs the array's antenna_positions, site, phase_centre"):
            blade.visibility_sink(self.path("x.uvh5"), [6, 4, 1, 4], self.array(3))
        with self.assertRaisesRegex(ValueError, "format 'fits'"):
            blade.visibility_sink(self.path("x.fits"), [6, 4, 1, 4], self.array(3), format="fits")
        with self.assertRaisesRegex(ValueError, "1 or 4"):
            blade.visibility_sink(self.path("x.h5"), [6, 4, 1, 2], self.array(3), format="h5")
        existing = self.path("old.h5")
        open(existing, "w").close()
        with self.assertRaisesRegex(FileExistsError, "old.h5 exists"):
            blade.visibility_sink(existing, [6, 4, 1, 4], self.array(3), format="h5")

    def test_visibility_sink_leaves_no_half_file(self):
        """Chunks without times (no tags) fail the sink: it ends the flowgraph, keeps the
        error, and neither the file nor its partial copy remains."""
        shape = [3, 4, 8, 2]
        chunks, block = self.correlated_chunks(shape, 2, 8)
        path = self.path("vis.h5")
        source = blocks.vector_source_b(blade.pack(chunks, "ci8").tolist(), False, blade.item_size(shape, "ci8"))
        sink = blade.visibility_sink(
            path, block.output_shape(), self.array(3), format="h5", frequencies=[1, 2, 3, 4], channel_width=1.0
        )
        tb = gr.top_block()
        tb.connect(source, block, sink)
        tb.run()
        self.assertRegex(sink.error, "chunk 0 has no time")
        self.assertEqual(sink.files(), [])
        self.assertEqual(sorted(os.listdir(self.dir)), [])

    def test_writers_leave_no_half_file(self):
        """A writer that fails (or is left) mid-file removes its NAME.partial and never
        makes NAME; a bad integration is refused with its shape named."""
        from gnuradio.blade.formats import uvh5, visibilities

        site = (-2.12, 0.71, 1000.0)
        positions = uvh5.site_ecef(site) + numpy.array([[0.0, 0, 0], [10, 0, 0], [0, 20, 0]])
        uvh5_args = dict(
            antenna_names=["a", "b", "c"],
            antenna_positions=positions,
            site=site,
            integration_time=1.0,
            frequencies=[1.4e9, 1.41e9],
            channel_width=1e7,
            phase_centre=(1.0, 0.5),
            phase_centre_name="test",
        )
        dump_args = dict(
            antenna_names=["a", "b", "c"], frequencies=[1.4e9, 1.41e9], channel_width=1e7, integration_time=1.0
        )
        good = numpy.ones((6, 2, 4), numpy.complex64)
        for name, make in (
            ("v.uvh5", lambda p: uvh5.UVH5Writer(p, **uvh5_args)),
            ("v.h5", lambda p: visibilities.VisibilityWriter(p, **dump_args)),
            ("v.npz", lambda p: visibilities.VisibilityWriter(p, **dump_args)),
        ):
            with self.subTest(name=name):
                path = self.path(name)
                with self.assertRaisesRegex(ValueError, r"shape \[5, 2, 4\]"):
                    with make(path) as writer:
                        writer.append(good, 2460000.5)
                        writer.append(good[:5], 2460000.6)
                self.assertEqual(os.listdir(self.dir), [])
                with self.assertRaisesRegex(ValueError, "no integration"):
                    make(path).close()
                self.assertEqual(os.listdir(self.dir), [])
        with self.assertRaisesRegex(ValueError, r"antenna_positions must be \[3, 3\]"):
            uvh5.UVH5Writer(self.path("w.uvh5"), **dict(uvh5_args, antenna_positions=positions[:2]))
        with self.assertRaisesRegex(ValueError, "no antennas"):
            uvh5.UVH5Writer(
                self.path("w.uvh5"), **dict(uvh5_args, antenna_names=[], antenna_positions=numpy.zeros((0, 3)))
            )


if __name__ == "__main__":
    gr_unittest.run(qa_correlator)
