#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
gnuradio.blade chooses OpenBLAS's kernels before OpenBLAS loads (openblas_kernels.py):
SkylakeX where the CPU has the AVX-512 subsets those kernels need and the user chose
nothing; a user's OPENBLAS_CORETYPE is kept; and in a fresh process that imports
gnuradio.blade first, OpenBLAS really runs the kernels chosen.
"""

import ctypes
import os
import subprocess
import sys
import tempfile
import unittest

from gnuradio.blade import openblas_kernels

AVX512 = {"fpu", "sse2", "avx2", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}


class qa_openblas_kernels(unittest.TestCase):
    def test_avx512_cpu_gets_skylakex(self):
        environ = {}
        self.assertEqual(openblas_kernels.prefer_wide_kernels(environ, AVX512), "SkylakeX")
        self.assertEqual(environ, {"OPENBLAS_CORETYPE": "SkylakeX"})

    def test_a_users_choice_is_kept(self):
        environ = {"OPENBLAS_CORETYPE": "Haswell"}
        self.assertEqual(openblas_kernels.prefer_wide_kernels(environ, AVX512), "Haswell")
        self.assertEqual(environ, {"OPENBLAS_CORETYPE": "Haswell"})

    def test_without_every_avx512_subset_nothing_is_set(self):
        for missing in sorted(openblas_kernels.SKYLAKEX_FLAGS):  # e.g. Knights Landing: no BW, DQ, VL
            environ = {}
            self.assertIsNone(openblas_kernels.prefer_wide_kernels(environ, AVX512 - {missing}), missing)
            self.assertEqual(environ, {})
        self.assertIsNone(openblas_kernels.prefer_wide_kernels({}, {"sse2", "avx2"}))

    def test_cpu_flags_reads_the_first_processor(self):
        with tempfile.NamedTemporaryFile("w", suffix=".cpuinfo", delete=False) as f:
            f.write("processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu sse2 avx512f avx512vl\n\n")
            f.write("processor\t: 1\nflags\t\t: fpu\n")
        try:
            self.assertEqual(openblas_kernels.cpu_flags(f.name), {"fpu", "sse2", "avx512f", "avx512vl"})
        finally:
            os.unlink(f.name)
        self.assertEqual(openblas_kernels.cpu_flags("/nonexistent/cpuinfo"), set())

    def test_a_fresh_process_runs_the_kernels_chosen(self):
        try:
            ctypes.CDLL("libopenblas.so.0")
        except OSError:
            self.skipTest("no OpenBLAS here")
        probe = (
            "import ctypes, os\n"
            "from gnuradio import blade\n"
            "lib = ctypes.CDLL('libopenblas.so.0')\n"
            "lib.openblas_get_corename.restype = ctypes.c_char_p\n"
            "print(os.environ.get('OPENBLAS_CORETYPE'), lib.openblas_get_corename().decode())\n"
        )
        expected = openblas_kernels.prefer_wide_kernels({}, openblas_kernels.cpu_flags())
        for chosen, wanted in ((None, expected), ("Haswell", "Haswell")):
            environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
            if chosen:
                environ["OPENBLAS_CORETYPE"] = chosen
            out = subprocess.run(
                [sys.executable, "-c", probe], env=environ, capture_output=True, text=True, check=True
            ).stdout.split()
            self.assertEqual(out[0], str(wanted))
            if wanted is not None:
                self.assertEqual(out[1].lower(), wanted.lower())


if __name__ == "__main__":
    unittest.main()
