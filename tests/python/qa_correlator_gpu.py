#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The correlator block and Mode X on CUDA against the CPU (the fp64 reference), for
both GPU paths:

* fp32 (CUDA cores): within 1e-5 of S = sum |x_i||x_j| per output (x sqrt(n/4096)
  beyond 4096 summed samples), the bound test_correlator_cuda uses;
* fp16 (tensor cores, sm_80+): ci8 operands are exact in fp16, so only the float32
  sums round: within n 2^-23 S; cf32 operands round to fp16: within
  (2^-10 + n 2^-23) S;
* two runs on the GPU give the same bits; the bundle's precision() names the path;
  CPU and CUDA bundles (channelizer + correlator) agree within 2e-5 S.

Exits 77 (skipped) without a GPU. On the GPU machine:
    ctest --test-dir build -L gpu -R correlator --output-on-failure
"""

import math

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt
from correlator_reference import scale


def cf32_chunks(rng, n, shape):
    return (rng.normal(size=(n, *shape)) + 1j * rng.normal(size=(n, *shape))).astype(numpy.complex64)


def ci8_chunks(rng, n, shape):
    return rng.integers(-127, 128, size=(n, *shape, 2), dtype=numpy.int8)


def values(chunks, dtype):
    return chunks[..., 0] + 1j * chunks[..., 1].astype(numpy.float64) if dtype == "ci8" else chunks


class qa_correlator_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(93)

    def run_on(self, device, chunks, shape, dtype, integration, fc, path):
        block = blade.correlator(shape, dtype, integration, fc, path, device)
        out = bt.run_chunks([block], chunks, shape, dtype, block.output_shape(), "cf32")[0]
        return block, out

    def check(self, shape, dtype, integration, fc, nchunks, path):
        chunks = (ci8_chunks if dtype == "ci8" else cf32_chunks)(self.rng, nchunks, shape)
        _, cpu = self.run_on("cpu", chunks, shape, dtype, integration, fc, "auto")
        block, cuda = self.run_on("cuda", chunks, shape, dtype, integration, fc, path)
        _, again = self.run_on("cuda", chunks, shape, dtype, integration, fc, path)
        self.assertEqual(block.path(), "fp32" if path == "auto" else path)
        n = integration * fc  # samples summed per output
        if path == "fp16":
            bound = n * 2.0**-23 + (0.0 if dtype == "ci8" else 2.0**-10)
        else:
            bound = 1e-5 * max(1.0, math.sqrt(n / 4096))
        size = scale(values(chunks, dtype), integration, fc)
        error = float(numpy.max(numpy.abs(cuda - cpu) / (size + 1e-30)))
        what = f"{shape} {dtype} I={integration} Fc={fc} {path}"
        self.assertLessEqual(error, bound, what)
        self.assertTrue(bt.same_bits(cuda, again), f"{what}: runs differ")
        print(f"{what}: worst error {error:.3g} S (bound {bound:.3g})")

    def test_paths_against_the_cpu(self):
        paths = ["fp32"] + (["fp16"] if max(g.compute_major for g in blade.gpus()) >= 8 else [])
        for path in paths:
            for shape, dtype, integration, fc, n in (
                ([1, 3, 64, 2], "cf32", 64, 1, 1),
                ([17, 4, 96, 2], "ci8", 32, 2, 2),
                ([33, 2, 128, 1], "cf32", 256, 1, 4),
                ([28, 8, 8192, 2], "ci8", 8192, 1, 1),  # the ATA node's antennas
                ([64, 2, 1024, 2], "ci8", 1024, 1, 1),
            ):
                with self.subTest(path=path, shape=shape, dtype=dtype):
                    self.check(shape, dtype, integration, fc, n, path)

    def test_mode_x_on_cuda_agrees_with_the_cpu(self):
        shape = [8, 4, 8192, 2]
        chunks = ci8_chunks(self.rng, 2, shape)
        outs = {}
        for device in ("cpu", "cuda"):
            options = blade.correlator_options(channelizer_rate=64, integration=256, device=device)
            bundle = blade.mode_x(shape, options)
            outs[device] = bt.run_chunks([bundle], chunks, shape, "ci8", bundle.output_shape(), "cf32")[0]
            self.assertEqual(bundle.precision(), "fp64" if device == "cpu" else "fp32")
        size = numpy.abs(outs["cpu"]).max()
        self.assertLess(float(numpy.max(numpy.abs(outs["cuda"] - outs["cpu"]))) / size, 2e-5)

    def test_cli_mode_x_files_agree_with_the_cpu(self):
        """blade-cli mode-x on the demo's generator: the UVH5 data of the fp32 and fp16
        paths against the CPU's, within 2e-5 and 2e-3 of the autocorrelations' scale."""
        import importlib.util
        import os
        import tempfile

        import h5py

        from gnuradio.blade import synth

        if importlib.util.find_spec("erfa") is None:
            # UVH5 needs ERFA for uvw (the GPU machine's Python kit lacks it; the
            # bootstrap installs python3-erfa): the block cases above still ran.
            self.skipTest("the Python module erfa is missing: UVH5 cannot be written")

        with tempfile.TemporaryDirectory() as folder:
            files = synth.SyntheticObservation(block_samples=8192, blocks=4, tone_amplitude=3.0).write(folder, "demo")
            data = {}
            for device, precision in (("cpu", "auto"), ("cuda", "fp32"), ("cuda", "fp16")):
                out = os.path.join(folder, f"{device}-{precision}")
                code, _, err = bt.run_cli_main(
                    "mode-x",
                    "--input",
                    files["stem"],
                    "--output",
                    out,
                    "--channelizer-rate",
                    64,
                    "--device",
                    device,
                    "--precision",
                    precision,
                    "-q",
                )
                self.assertEqual(code, 0, err)
                with h5py.File(os.path.join(out, "demo.mode_x.uvh5"), "r") as f:
                    values = f["Data/visdata"][()]
                data[precision] = values["r"] + 1j * values["i"] if values.dtype.names else values
        size = numpy.abs(data["auto"]).max()
        for precision, bound in (("fp32", 2e-5), ("fp16", 2e-3)):
            error = float(numpy.abs(data[precision] - data["auto"]).max()) / size
            print(f"blade-cli mode-x --precision {precision}: worst error {error:.3g} of the largest visibility")
            self.assertLess(error, bound, precision)


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_correlator_gpu)
