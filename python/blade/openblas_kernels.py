# SPDX-License-Identifier: MIT
"""
OpenBLAS's kernels for this CPU, chosen before OpenBLAS loads.

Debian's OpenBLAS (0.3.21) picks its kernels by CPU model as it loads. On a CPU model
it does not know (the H200 machine's virtual CPU reports "Intel(R) Xeon(R)
Processor") it falls back to its Prescott (SSE3) kernels: the CPU beamformer ran
(64, 64) at 14 % of the FP32 peak there, and at 4.3x that speed with
OPENBLAS_CORETYPE=SkylakeX (docs/performance.md). OpenBLAS reads the variable only as
it loads, so gnuradio.blade sets it before anything of ours loads OpenBLAS, where the
CPU has AVX-512 and the user has not chosen: SkylakeX's kernels need AVX-512 F, CD,
BW, DQ and VL, and are what OpenBLAS itself picks on the models it knows with them.
A program that imported numpy first has OpenBLAS loaded already; libblade then says
on stderr which variable to set.
"""

import os

SKYLAKEX_FLAGS = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}


def cpu_flags(path="/proc/cpuinfo"):
    """The first processor's feature flags, or an empty set where there is no cpuinfo."""
    try:
        with open(path) as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def prefer_wide_kernels(environ=os.environ, flags=None):
    """Set OPENBLAS_CORETYPE=SkylakeX where the CPU has AVX-512 and it is unset; the
    value now in effect, or None."""
    if "OPENBLAS_CORETYPE" not in environ and SKYLAKEX_FLAGS <= (cpu_flags() if flags is None else flags):
        environ["OPENBLAS_CORETYPE"] = "SkylakeX"
    return environ.get("OPENBLAS_CORETYPE")
