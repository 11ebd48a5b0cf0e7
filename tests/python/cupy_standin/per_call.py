#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The array benchmark's per-call cases (gnuradio.blade.array.bench --overhead-only) on
the path CuPy arrays take, without a GPU: the stand-in CuPy of this directory, its
arrays put on the core's emulated device (host memory, the CPU backend) by letting
the array layer's "CUDA" mean that device. Times the layer's own work around the core
call (not CuPy's, not a GPU's). From the project root:

    OMP_NUM_THREADS=1 PYTHONPATH=build/test_modules:tests/python/cupy_standin \\
        /usr/bin/python3 tests/python/cupy_standin/per_call.py [--least]
"""

import sys

import cupy
from gnuradio.blade.array import _arrays, _core, bench

if "cupy_standin" not in cupy.__file__:
    sys.exit(f"{cupy.__file__} is not the stand-in: put tests/python/cupy_standin first on PYTHONPATH")
_arrays.CUDA = _core.DEVICE_CUDA = _core.DEVICE_EMULATED
rows = bench.overhead("cuda:0", least="--least" in sys.argv[1:])
print("per-call time at small shapes, CuPy stand-in on the emulated device (us):")
print(f"{'case':34} {'raw':>7} {'obj+out':>8} {'object':>8} {'function':>9}")
for r in rows:
    print(f"{r['case']:34} {r['raw_us']:7.2f} {r['object_out_us']:8.2f} {r['object_us']:8.2f} {r['function_us']:9.2f}")
