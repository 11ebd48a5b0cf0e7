#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The start-up warm-up of gr-blade's programs (python/blade/warm_up.py): which command
lines prepare which GPU, that nothing else (a library import, a CPU run, --help)
starts a thread or touches a GPU, that a machine without a GPU or CUDA driver gets a
quiet False, and that a program run with the warm-up writes what it writes without it.
"""

import os
import subprocess
import sys
import tempfile

from gnuradio import gr_unittest

from gnuradio import blade
from gnuradio.blade import warm_up

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class qa_warm_up(gr_unittest.TestCase):
    def test_requested_gpu_reads_the_programs_device_options(self):
        cases = [
            (["blade-rawspec", "stem"], 0),
            (["/usr/local/bin/blade-rawspec", "-g", "1", "stem"], 1),
            (["blade-rawspec", "--gpu", "3", "stem"], 3),
            (["blade-rawspec", "--device", "cuda:2", "stem"], 2),
            (["blade-cli", "mode-h", "--device=cuda:1", "--input", "x"], 1),
            (["blade-cli", "mode-h", "--device", "cuda", "--input", "x"], 0),
            (["/usr/lib/python3/dist-packages/gnuradio/blade/cli/__main__.py", "rawspec", "-g", "1", "x"], 1),
            (["/usr/lib/python3/dist-packages/gnuradio/other/__main__.py", "x"], None),
            (["blade-cli", "mode-b", "--device", "auto", "--input", "x"], 0),
            (["blade-cli", "mode-h", "--device", "cpu", "--input", "x"], None),
            (["blade-cli", "mode-h", "--device", "emulated:2", "--input", "x"], None),
            (["blade-cli", "mode-h", "--device", "cuda:x", "--input", "x"], None),
            (["blade-cli", "--help"], None),
            (["blade-rawspec", "-h"], None),
            (["blade-cli"], None),
            (["python3", "my_flowgraph.py"], None),
            (["gnuradio-companion"], None),
            ([], None),
        ]
        for argv, expected in cases:
            with self.subTest(argv=argv):
                self.assertEqual(warm_up.requested_gpu(argv), expected)

    def test_a_library_import_starts_nothing(self):
        # This test process is not one of the programs: the package's import started
        # no thread, and start() for another command line does not either.
        self.assertIsNone(warm_up.start(["python3", "flowgraph.py"]))
        self.assertIsNone(warm_up.start(["blade-cli", "mode-h", "--device", "cpu"]))
        self.assertNotIn("blade-gpu-warm-up", [t.name for t in __import__("threading").enumerate()])

    def test_no_gpu_is_a_quiet_false(self):
        if blade.gpus():
            self.skipTest("a GPU is present: prepare_gpu(0) would succeed")
        self.assertFalse(warm_up.prepare_gpu(0))

    def test_the_program_writes_the_same_with_and_without_it(self):
        # blade-rawspec on the CPU of a small recording, once as itself (argv[0] is the
        # program: a GPU, if any, is warmed up; the run uses the CPU) and once with the
        # warm-up switched off: byte-identical files.
        from gnuradio.blade.formats import guppi
        import numpy

        with tempfile.TemporaryDirectory() as folder:
            stem = os.path.join(folder, "rec")
            rng = numpy.random.default_rng(5)
            shape = (2, 1, 2, 256, 2)  # blocks, A, F, T, P
            blocks = rng.integers(-100, 100, size=shape) + 1j * rng.integers(-100, 100, size=shape)
            guppi.write_raw(stem, blocks, {"OBSFREQ": 1420.0, "OBSBW": 2.0, "TBIN": 1e-6}, blocks_per_file=2)
            outputs = []
            for name, env in (("warm", {}), ("off", {"BLADE_NO_WARM_UP": "1"})):
                dest = os.path.join(folder, name)
                os.mkdir(dest)
                command = [
                    sys.executable,
                    os.path.join(ROOT, "apps", "blade-rawspec"),
                    "-f",
                    "16",
                    "-t",
                    "2",
                    "-q",
                    "--no-progress",
                    "--device",
                    "cpu",
                    "-d",
                    dest,
                    stem,
                ]
                done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True)
                self.assertEqual(done.returncode, 0, done.stderr)
                with open(os.path.join(dest, "rec.rawspec.0000.fil"), "rb") as f:
                    outputs.append(f.read())
            self.assertGreater(len(outputs[0]), 400)
            self.assertEqual(outputs[0], outputs[1])


if __name__ == "__main__":
    gr_unittest.run(qa_warm_up)
