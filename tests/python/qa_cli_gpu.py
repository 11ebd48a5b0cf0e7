#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade-cli on a CUDA GPU gives the files it gives on the CPU: Mode B (channelizer,
beamformer with phasors, incoherent beam, detector) and Mode H on a synthetic
observation, compared spectrum by spectrum. Tolerance: 5e-5 of each spectrum's
total power (float32 sums over the antennas and the integration, FFTs in a
different order on each side). The demo runs on the GPU too.
"""

import os
import shutil
import tempfile

import contextlib
import io

import numpy
from gnuradio import gr_unittest

import blade_testing
from gnuradio.blade import synth

from qa_filterbank_sink import parse_fil


run_cli = blade_testing.run_cli_main


class qa_cli_gpu(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        blade_testing.require_gpu()
        cls.dir = tempfile.mkdtemp(prefix="qa_cli_gpu")
        cls.files = synth.SyntheticObservation(blocks=8, block_samples=16384, tone_amplitude=1.0).write(cls.dir, "obs")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def compare(self, mode, stems, *options):
        spectra = {}
        for device in ("cpu", "cuda"):
            code, out, err = run_cli(
                f"mode-{mode}",
                "-i",
                self.files["stem"],
                "-o",
                self.dir,
                "--name",
                f"{mode}-{device}",
                "--device",
                device,
                "--no-progress",
                *options,
            )
            self.assertEqual(code, 0, err)
            self.assertIn(f"on {'cpu' if device == 'cpu' else 'cuda:'}", out)
            spectra[device] = [parse_fil(os.path.join(self.dir, f"{mode}-{device}.{stem}.fil"))[1] for stem in stems]
        for cpu, gpu in zip(spectra["cpu"], spectra["cuda"]):
            self.assertEqual(cpu.shape, gpu.shape)
            total = numpy.sum(numpy.abs(cpu), axis=-1, keepdims=True)
            self.assertLess(numpy.max(numpy.abs(gpu - cpu) / total), 5e-5)

    def test_mode_b(self):
        self.compare(
            "b",
            ["beam0000", "beam0001", "beam0002"],
            "-r",
            self.files["recipe"],
            "--channelizer-rate",
            64,
            "--integration",
            16,
        )

    def test_mode_b_polyphase_circular_cross(self):
        self.compare(
            "b",
            ["beam0000", "beam0001"],
            "-r",
            self.files["recipe"],
            "--channelizer-rate",
            32,
            "--pfb-taps",
            4,
            "--circular",
            "--stokes",
            "cross",
            "--no-incoherent",
            "--integration",
            8,
        )

    def test_mode_h(self):
        self.compare(
            "h", [f"ant{a:04d}" for a in range(8)], "--channelizer-rate", 1024, "--integration", 4, "--pfb-taps", 4
        )

    def test_the_demo(self):
        from gnuradio.blade.cli import demo

        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = demo.run(output=os.path.join(self.dir, "demo"), device="cuda", figure=False)
        self.assertEqual(code, 0, out.getvalue())
        self.assertIn("on cuda:", out.getvalue())


if __name__ == "__main__":
    gr_unittest.main()
