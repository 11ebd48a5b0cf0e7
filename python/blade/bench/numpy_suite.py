# SPDX-License-Identifier: MIT
"""
The numpy suite of blade-bench: gr-blade's CPU backend against numpy.

performance.md sets one target for the CPU backend (no GPU): faster than the same
maths in numpy, on the same machine. This suite measures it. For each case it times

  (a) the gr-blade CPU module: blade-module-bench's case of the same label (the
      program the `modules` suite runs; outputs preallocated, median after warm-up),
  (b) the same maths in numpy, written here from the spec (spec/modules.md), not from
      gr-blade's code: float32 / complex64 arrays at the same shape, any dtype
      conversion the module does included, the output preallocated like (a)'s
      wherever numpy takes one (`out=`), one warm-up, then the median of REPEAT
      runs timed with time.perf_counter,

and reports the ratio numpy / gr-blade ("x faster"; the target is met above 1).
Each numpy version is the fastest plain-numpy form found for its maths (per-(f, p)
matmul for the beamformer, einsum for the detector's sums of products, the spec's
(-1)^n modulation instead of an fftshift copy for the channelizer).

gr-blade's CPU modules use every core (OpenMP); numpy's element-wise maths uses
one, its matmul whatever BLAS numpy is linked with. That is the comparison the
target asks for: the same machine, each as it comes.

--quick shrinks T by 64 exactly as blade-module-bench --quick does (the labels keep
the full shape; the channelizer's N becomes min(N, T)), so the names still match.
On a GPU device the suite is skipped: the target is about the CPU backend.
"""

import collections
import statistics
import time

import numpy

QUICK_SHRINK = 64  # blade-module-bench --quick: T / 64
REPEAT = 5
CHANNELS, TIMES, POLS = 192, 8192, 2


# --- the maths in numpy, from spec/modules.md -----------------------------------


def cast_ci8_to_cf32(voltages, out):
    """ci8 [A, F, T, P, 2] (int8 re, im) -> cf32 [A, F, T, P], no scaling."""
    numpy.copyto(out.view(numpy.float32).reshape(voltages.shape), voltages)


def beamform(x, w, out):
    """y[b, f, t, p] = sum_a x[a, f, t, p] w[b, a, f, 0, p]: one [B, A] x [A, T] matmul per (f, p)."""
    for f in range(x.shape[1]):
        for p in range(x.shape[3]):
            numpy.matmul(w[:, :, f, 0, p], x[:, f, :, p], out=out[:, f, :, p])


def _dot(a, b, out=None):
    """sum over the last axis of a * b, with no temporary."""
    return numpy.einsum("...i,...i->...", a, b, out=out)


def stokes_i(x, integration, out):
    """[A, F, T, 2] cf32 -> [A, F, T/I, 1] f32: sum of |X|^2 + |Y|^2 over I samples,
    i.e. the sum of squares of the 4 I floats (X re, im, Y re, im) of each group."""
    a, f, t, p = x.shape
    groups = x.view(numpy.float32).reshape(a, f, t // integration, integration * p * 2)
    _dot(groups, groups, out=out[..., 0])


def stokes_iquv(x, integration, out):
    """[A, F, T, 2] cf32 -> [A, F, T/I, 4] f32: I = XX + YY, Q = XX - YY,
    U = 2 Re(X Y*), V = -2 Im(X Y*), each summed over I samples."""
    a, f, t, _ = x.shape
    floats = x.view(numpy.float32).reshape(a, f, t // integration, integration, 4)
    xr, xi, yr, yi = (floats[..., k] for k in range(4))
    xx = _dot(xr, xr) + _dot(xi, xi)
    yy = _dot(yr, yr) + _dot(yi, yi)
    numpy.add(xx, yy, out=out[..., 0])
    numpy.subtract(xx, yy, out=out[..., 1])
    numpy.multiply(_dot(xr, yr) + _dot(xi, yi), 2, out=out[..., 2])  # Re(X Y*)
    numpy.multiply(_dot(xr, yi) - _dot(xi, yr), 2, out=out[..., 3])  # -Im(X Y*)


def channelize(x, rate, out):
    """[A, F, T, P] -> [A, F*N, T/N, P]: N-point FFTs over consecutive blocks of time,
    unnormalised, DC at bin N/2 (the spec's (-1)^n factor), back to complex64."""
    a, f, t, p = x.shape
    sign = numpy.where(numpy.arange(rate) % 2, -1, 1).astype(numpy.float32)[:, None]
    spectra = numpy.fft.fft(x.reshape(a, f, t // rate, rate, p) * sign, axis=3)  # complex128
    numpy.copyto(out.reshape(a, f, rate, t // rate, p), spectra.transpose(0, 1, 3, 2, 4))


def to_circular(x, out):
    """Linear -> circular: out0 = X + iY, out1 = X - iY (no 1/sqrt 2)."""
    jy = 1j * x[..., 1]
    numpy.add(x[..., 0], jy, out=out[..., 0])
    numpy.subtract(x[..., 0], jy, out=out[..., 1])


# --- the cases: blade-module-bench's labels, and numpy's inputs and output -------


def _cf32(rng, shape):
    return rng.standard_normal((*shape, 2), dtype=numpy.float32).view(numpy.complex64)[..., 0]


def _ci8(rng, shape):
    return rng.integers(-128, 128, (*shape, 2), dtype=numpy.int8)


def _output(shape, dtype):
    out = numpy.empty(shape, dtype)
    out.fill(0)  # touched, as blade-module-bench touches its outputs
    return out


# make(T, rng) -> (inputs, output); maths(*inputs, output)
Case = collections.namedtuple("Case", "module label make maths")

CASES = [
    Case(
        "cast",
        "ci8->cf32 [16, 192, 8192, 2]",
        lambda t, rng: ((_ci8(rng, (16, CHANNELS, t, POLS)),), _output((16, CHANNELS, t, POLS), numpy.complex64)),
        cast_ci8_to_cf32,
    ),
    Case(
        "beamformer",
        "(B, A) = (8, 20) cf32 fp32",
        lambda t, rng: (
            (_cf32(rng, (20, CHANNELS, t, POLS)), _cf32(rng, (8, 20, CHANNELS, 1, POLS))),
            _output((8, CHANNELS, t, POLS), numpy.complex64),
        ),
        beamform,
    ),
    Case(
        "detector",
        "I I=8 [16, 192, 8192, 2]",
        lambda t, rng: ((_cf32(rng, (16, CHANNELS, t, POLS)),), _output((16, CHANNELS, t // 8, 1), numpy.float32)),
        lambda x, out: stokes_i(x, 8, out),
    ),
    Case(
        "detector",
        "IQUV I=8 [16, 192, 8192, 2]",
        lambda t, rng: ((_cf32(rng, (16, CHANNELS, t, POLS)),), _output((16, CHANNELS, t // 8, 4), numpy.float32)),
        lambda x, out: stokes_iquv(x, 8, out),
    ),
    Case(
        "channelizer",
        "[16, 192, 8192, 2] N=8192",
        lambda t, rng: (
            (_cf32(rng, (16, CHANNELS, t, POLS)), min(8192, t)),
            _output((16, CHANNELS * min(8192, t), t // min(8192, t), POLS), numpy.complex64),
        ),
        channelize,
    ),
    Case(
        "polarizer",
        "circular [16, 192, 8192, 2]",
        lambda t, rng: ((_cf32(rng, (16, CHANNELS, t, POLS)),), _output((16, CHANNELS, t, POLS), numpy.complex64)),
        to_circular,
    ),
]


# --- timing ----------------------------------------------------------------------


def numpy_ms(case, times, repeat=REPEAT):
    """Median milliseconds of `repeat` runs of the case's numpy maths, after one warm-up."""
    inputs, out = case.make(times, numpy.random.default_rng(1))
    case.maths(*inputs, out)
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        case.maths(*inputs, out)
        runs.append(time.perf_counter() - start)
    return 1e3 * statistics.median(runs)


def blade_cases(quick):
    """blade-module-bench on the CPU, only the suite's cases: {label: case}, copy bandwidth."""
    from .modules import module_bench_report

    options = [word for case in CASES for word in ("--case", case.label)]
    report = module_bench_report("cpu", *options, *(["--quick"] if quick else []))
    return {case["case"]: case for case in report["cases"]}, report["copy_bandwidth"]


def run_suite(device, quick):
    """Figures of the numpy suite: gr-blade's CPU time, numpy's, and the ratio."""
    if device != "cpu":
        print(f"numpy suite skipped on {device}: it compares the CPU backend with numpy (use --device cpu)")
        return [], {}
    blade, bandwidth = blade_cases(quick)
    times = TIMES // QUICK_SHRINK if quick else TIMES
    print(
        f"\ngr-blade CPU backend against numpy {numpy.__version__} (target: faster, ratio > 1)"
        f"{', quick shapes (T / 64)' if quick else ''}"
    )
    figures = []
    for case in CASES:
        if case.label not in blade:
            raise RuntimeError(f"blade-module-bench has no case {case.module} {case.label!r}")
        ours = blade[case.label]["time_ms"]
        theirs = numpy_ms(case, times)
        speedup = theirs / ours
        print(
            f"{case.module} {case.label}: gr-blade {ours:.3f} ms, numpy {theirs:.3f} ms, "
            f"{speedup:.2f} x faster (target > 1: {'met' if speedup > 1 else 'MISSED'})",
            flush=True,
        )
        figures.append(
            {
                "benchmark": f"numpy{'-quick' if quick else ''}/{case.module}/{case.label}",
                "time_ms": ours,
                "numpy_ms": theirs,
                "speedup_vs_numpy": speedup,
                "bound": "numpy",
                "fraction_of_bound": None,
                "upstream_ms": None,
                "target_ms": theirs,  # the target: at most numpy's time
            }
        )
    return figures, {"copy_bandwidth": bandwidth}
