# SPDX-License-Identifier: MIT
"""
Benchmark of the array API against the C benchmark of the same modules.

    python3 -m gnuradio.blade.array.bench [--device cpu|cuda:0] [--quick] [--repeat N]
                                          [--overhead-only] [--least] [--library cupy|torch]
                                          [--json FILE]

1. Per-call overhead at small shapes: the median time of one call, for the raw ctypes
   call of the module's process function on prepared descriptors (the floor: what C
   would pay plus ctypes' own ~1 us), a module object called with out=, a module object
   allocating its output, and the function (cached plan, allocating). The overhead of
   the Python layer is the difference to the floor.
2. Throughput at the module benchmark shapes: blade-module-bench (C) runs each case
   named below (--case LABEL); the same shapes, plans and preallocated outputs run
   through the array API, timed alike (a warm-up call, then the median of --repeat
   calls; on a GPU, as the C benchmark's events time the GPU's work alone, the
   median over rounds of --repeat calls queued back to back, so that the host's
   time shows only where it exceeds the GPU's). C and Python take turns for --rounds
   rounds and the least median of each is reported with their ratio (on a shared
   machine, load from elsewhere only ever adds time). Also reported, as "layer": the
   array API call minus the same core call replayed alone (the process function with
   the descriptors the API call prepared), the two timed in turns 5 x --repeat times (median of their
   differences' rounds), and that as a fraction of the C time: the Python layer's cost
   at that shape, free of the noise that separate runs of two programs carry.

blade-module-bench is $BLADE_MODULE_BENCH, else on PATH, else in the build tree.
"""

import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy

from gnuradio.blade import array as ba

from . import _arrays


def module_bench_program():
    here = os.path.dirname(os.path.abspath(__file__))
    build_tree = os.path.normpath(os.path.join(here, "..", "..", "..", "..", "apps", "blade-module-bench"))
    return (
        os.environ.get("BLADE_MODULE_BENCH")
        or shutil.which("blade-module-bench")
        or (build_tree if os.path.exists(build_tree) else "blade-module-bench")
    )


class Arrays:
    """Allocation and synchronisation on the benchmark's device (numpy or CuPy/PyTorch:
    `library` picks one, else CuPy where it is installed)."""

    def __init__(self, device, library=None):
        self.device = device
        self.gpu = device != "cpu"
        self.lib = None
        if self.gpu:
            try:
                if library == "torch":
                    raise ImportError
                import cupy

                self.lib = "cupy"
                self.cupy = cupy
            except ImportError:
                if library == "cupy":
                    raise
                import torch

                self.lib = "torch"
                self.torch = torch

    def put(self, host):
        if not self.gpu:
            return host
        if self.lib == "cupy":
            return self.cupy.asarray(host)
        return self.torch.from_numpy(host).cuda()

    def random(self, rng, shape, dtype):
        if dtype == "ci8":
            host = rng.integers(-128, 128, tuple(shape) + (2,), dtype=numpy.int8)
        else:
            host = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(numpy.complex64)
        return self.put(host)

    def empty(self, shape, dtype):
        host_dtype, full = _arrays.array_shape(dtype, shape)
        return self.put(numpy.empty(full, host_dtype))

    def sync(self):
        if not self.gpu:
            return
        if self.lib == "cupy":
            self.cupy.cuda.get_current_stream().synchronize()
        else:
            self.torch.cuda.current_stream().synchronize()


def recorded_raw_call(call, plan):
    """The core call that `call` makes, replayable alone: the plan's process function
    with the arguments of `call`'s last use (descriptors already pointing at the
    arrays). Timing it against `call` isolates the Python layer's cost."""
    original, seen = plan._process, []

    def record(*args):
        seen[:] = args
        return original(*args)

    plan._process = record
    call()
    plan._process = original
    args = tuple(seen)
    if isinstance(plan, ba.Gather):  # each call writes the next step's place: so must the replay
        steps = [args[:2] + (ctypes.c_int64(step),) + args[3:] for step in range(plan.multiplier)]
        turn = iter(range(1 << 62))
        return lambda: original(*steps[next(turn) % len(steps)])
    return lambda: original(*args)


def interleaved_medians(first, second, repeat, sync):
    """Medians of `first` and `second` timed in turns (load falls on both alike)."""
    a, b = [], []
    for _ in range(repeat):
        for f, times in ((first, a), (second, b)):
            start = time.perf_counter()
            f()
            sync()
            times.append(time.perf_counter() - start)
    return statistics.median(a), statistics.median(b)


def median_time(call, repeat, sync, gpu=False):
    """Median seconds per call. On a GPU, of `repeat` rounds of `repeat` calls queued
    back to back (what a pipeline of asynchronous calls sees: the host's time per call
    shows only where it exceeds the GPU's)."""
    call()
    sync()
    if gpu:
        rounds = []
        for _ in range(repeat):
            start = time.perf_counter()
            for _ in range(repeat):
                call()
            sync()
            rounds.append((time.perf_counter() - start) / repeat)
        return statistics.median(rounds)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --- throughput cases: (C label, builder(arrays, rng, shrink) -> call) ----------------


def _cast(a, rng, shrink, antennas):
    x = a.random(rng, [antennas, 192, 8192 // shrink, 2], "ci8")
    plan, out = ba.Cast("cf32"), a.empty([antennas, 192, 8192 // shrink, 2], "cf32")
    return (lambda: plan(x, out=out)), plan


def _channelizer(a, rng, shrink, antennas, rate, taps, t=8192):
    t //= shrink
    rate = min(rate, t)  # as the C benchmark's quick runs
    x = a.random(rng, [antennas, 192, t, 2], "cf32")
    plan = ba.Channelizer(rate, taps, "hamming")
    out = plan(x)
    return (lambda: plan(x, out=out)), plan


def _detector(a, rng, shrink, antennas, mode, integration):
    x = a.random(rng, [antennas, 192, 8192 // shrink, 2], "cf32")
    plan = ba.Detector(mode, min(integration, 8192 // shrink))
    out = plan(x)
    return (lambda: plan(x, out=out)), plan


def _beamformer(a, rng, shrink, beams, antennas, dtype):
    x = a.random(rng, [antennas, 192, 8192 // shrink, 2], dtype)
    w = a.random(rng, [beams, antennas, 192, 1, 2], "cf32")
    plan = ba.Beamformer(path="fp32")
    out = plan(x, w)
    return (lambda: plan(x, w, out=out)), plan


def _polarizer(a, rng, shrink, antennas):
    x = a.random(rng, [antennas, 192, 8192 // shrink, 2], "cf32")
    plan = ba.Polarizer("circular")
    out = plan(x)
    return (lambda: plan(x, out=out)), plan


def _permutation(a, rng, shrink, antennas, axes):
    x = a.random(rng, [antennas, 192, 8192 // shrink, 2], "cf32")
    plan = ba.Permutation(axes)
    out = plan(x)
    return (lambda: plan(x, out=out)), plan


def _gather(a, rng, shrink, antennas, axis, multiplier):
    x = a.random(rng, [antennas, 192, 8192 // shrink, 2], "cf32")
    plan = ba.Gather(axis, multiplier)
    shape = [antennas, 192, 8192 // shrink, 2]
    shape[axis] *= multiplier
    out = a.empty(shape, "cf32")
    return (lambda: plan(x, out=out)), plan


def _duplicate(a, rng, shrink, antennas, copies):
    x = a.random(rng, [antennas, 192, 8192 // shrink, 2], "cf32")
    plan = ba.Duplicate(copies)
    out = plan(x)
    return (lambda: plan(x, out=out)), plan


def _correlator(a, rng, shrink, antennas, dtype):
    x = a.random(rng, [antennas, 192, 8192 // shrink, 2], dtype)
    plan = ba.Correlator(integration=8192 // shrink, path="fp32" if a.gpu else "auto")
    out = plan(x)
    return (lambda: plan(x, out=out)), plan


CASES = [
    ("cast", "ci8->cf32 [2, 192, 8192, 2]", lambda a, r, s: _cast(a, r, s, 2)),
    ("cast", "ci8->cf32 [16, 192, 8192, 2]", lambda a, r, s: _cast(a, r, s, 16)),
    ("channelizer", "[2, 192, 8192, 2] N=64", lambda a, r, s: _channelizer(a, r, s, 2, 64, 1)),
    ("channelizer", "[2, 192, 8192, 2] N=8192", lambda a, r, s: _channelizer(a, r, s, 2, 8192, 1)),
    ("channelizer", "[2, 192, 8192, 2] N=1024 PFB M=4 hamming", lambda a, r, s: _channelizer(a, r, s, 2, 1024, 4)),
    ("detector", "IQUV I=8 [2, 192, 8192, 2]", lambda a, r, s: _detector(a, r, s, 2, "IQUV", 8)),
    ("detector", "IQUV I=8 [16, 192, 8192, 2]", lambda a, r, s: _detector(a, r, s, 16, "IQUV", 8)),
    ("beamformer", "(B, A) = (8, 20) cf32 fp32", lambda a, r, s: _beamformer(a, r, s, 8, 20, "cf32")),
    ("beamformer", "(B, A) = (8, 28) ci8 fp32", lambda a, r, s: _beamformer(a, r, s, 8, 28, "ci8")),
    ("polarizer", "circular [2, 192, 8192, 2]", lambda a, r, s: _polarizer(a, r, s, 2)),
    ("permutation", "cf32 [2, 192, 8192, 2] -> ATPF", lambda a, r, s: _permutation(a, r, s, 2, (0, 2, 3, 1))),
    ("gather", "T x64 step [5, 192, 8192, 2]", lambda a, r, s: _gather(a, r, s, 5, 2, 64)),
    ("duplicate", "cf32 [20, 192, 8192, 2] x2", lambda a, r, s: _duplicate(a, r, s, 20, 2)),
    ("correlator", "A = 28 cf32 fp32", lambda a, r, s: _correlator(a, r, s, 28, "cf32")),
]


def c_medians(device, labels, quick, repeat):
    """{label: median ms} from one blade-module-bench run over `labels`."""
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "c.json")
        command = [module_bench_program(), "--device", device, "--repeat", str(repeat), "--json", path]
        command += ["--quick"] if quick else []
        for label in labels:
            command += ["--case", label]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"blade-module-bench failed: {result.stderr.strip() or result.stdout[-400:]}")
        with open(path) as f:
            report = json.load(f)
    return {case["case"]: case["time_ms"] for case in report["cases"]}


def throughput(device, quick, repeat, only=None, rounds=3, library=None):
    a = Arrays(device, library)
    rng = numpy.random.default_rng(1)
    shrink = 64 if quick else 1
    cases = [c for c in CASES if not only or c[0] in only]
    labels = [label for _, label, _ in cases]
    c_runs = {label: [] for label in labels}
    python_runs = {label: [] for label in labels}
    layer_runs = {label: [] for label in labels}
    for _ in range(rounds):  # C, then the array API, in turns: load from elsewhere falls on both
        for label, ms in c_medians(device, labels, quick, repeat).items():
            c_runs[label].append(ms)
        for module, label, build in cases:
            call, plan = build(a, rng, shrink)
            python_runs[label].append(median_time(call, repeat, a.sync, a.gpu) * 1e3)
            api, raw = interleaved_medians(call, recorded_raw_call(call, plan), 5 * repeat, a.sync)
            layer_runs[label].append((api - raw) * 1e3)
            del call, plan
            ba.clear_cache()
    rows = []
    for module, label, _ in cases:
        c_ms, python_ms = min(c_runs[label]), min(python_runs[label])
        rows.append(
            {
                "module": module,
                "case": label,
                "c_ms": c_ms,
                "python_ms": python_ms,
                "ratio": python_ms / c_ms,
                "layer_ms": statistics.median(layer_runs[label]),
                "layer_fraction": statistics.median(layer_runs[label]) / c_ms,
                "c_ms_runs": c_runs[label],
                "python_ms_runs": python_runs[label],
            }
        )
    return rows


# --- per-call overhead at small shapes -------------------------------------------------


def overhead(device, repeat_calls=2000, rounds=7, library=None, least=False):
    a = Arrays(device, library)
    rng = numpy.random.default_rng(2)
    x = a.random(rng, [1, 1, 8, 2], "cf32")
    x8 = a.random(rng, [1, 1, 8, 2], "ci8")
    w = a.random(rng, [1, 1, 1, 1, 2], "cf32")
    cases = [
        ("cast ci8->cf32 [1, 1, 8, 2]", ba.Cast("cf32"), (x8,), lambda: ba.cast(x8, "cf32")),
        ("channelizer N=8 [1, 1, 8, 2]", ba.Channelizer(8), (x,), lambda: ba.channelize(x, 8)),
        ("detector I [1, 1, 8, 2]", ba.Detector("I", 8), (x,), lambda: ba.detect(x, "I", 8)),
        ("polarizer [1, 1, 8, 2]", ba.Polarizer(), (x,), lambda: ba.polarize(x)),
        ("permutation ATPF [1, 1, 8, 2]", ba.Permutation((0, 2, 3, 1)), (x,), lambda: ba.permute(x, (0, 2, 3, 1))),
        ("beamformer B=1 [1, 1, 8, 2]", ba.Beamformer(), (x, w), lambda: ba.beamform(x, w)),
    ]

    def per_call(fn):
        fn()
        a.sync()
        best = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(repeat_calls):
                fn()
            a.sync()
            best.append((time.perf_counter() - start) / repeat_calls)
        return (min(best) if least else statistics.median(best)) * 1e6

    rows = []
    for label, plan, args, functional in cases:
        out = plan(*args)
        # the floor: the process function itself on the plan's prepared descriptors
        process, handle = plan._process, plan._handle
        refs = [op.ref for op in ([plan._input, plan._phasors] if len(args) == 2 else [plan._input])]
        out_ref = plan._output.ref
        stream = None if device == "cpu" else ctypes.c_void_p(_arrays.stream_handle(None, _arrays.view(args[0])))
        raw = per_call(lambda: process(handle, *refs, out_ref, stream))
        rows.append(
            {
                "case": label,
                "raw_us": raw,
                "object_out_us": per_call(lambda: plan(*args, out=out)),
                "object_us": per_call(lambda: plan(*args)),
                "function_us": per_call(functional),
            }
        )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--quick", action="store_true", help="T / 64 (as blade-module-bench --quick)")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--module", action="append", help="only these modules' throughput cases")
    parser.add_argument("--rounds", type=int, default=3, help="turns of C and Python timing")
    parser.add_argument("--overhead-only", action="store_true")
    parser.add_argument(
        "--library", choices=("cupy", "torch"), help="GPU arrays of this library (default: CuPy if installed)"
    )
    parser.add_argument(
        "--least", action="store_true", help="per-call times: the least round, not the median (a loaded machine)"
    )
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    record = {"device": args.device, "quick": args.quick, "repeat": args.repeat}
    arrays = Arrays(args.device, args.library)
    record["library"] = arrays.lib or "numpy"
    print(f"per-call time at small shapes on {args.device}, {record['library']} arrays (us):")
    print(f"{'case':34} {'raw':>7} {'obj+out':>8} {'object':>8} {'function':>9}")
    record["overhead"] = overhead(args.device, library=args.library, least=args.least)
    for r in record["overhead"]:
        print(
            f"{r['case']:34} {r['raw_us']:7.2f} {r['object_out_us']:8.2f} {r['object_us']:8.2f} "
            f"{r['function_us']:9.2f}"
        )
    if not args.overhead_only:
        print(
            f"\nthroughput at the module benchmark shapes{' (quick: T/64)' if args.quick else ''}, "
            f"median of {args.repeat}:"
        )
        print(f"{'module':12} {'case':42} {'C ms':>9} {'array ms':>9} {'ratio':>6} {'layer ms':>9} {'layer':>7}")
        record["throughput"] = throughput(args.device, args.quick, args.repeat, args.module, args.rounds, args.library)
        for r in record["throughput"]:
            print(
                f"{r['module']:12} {r['case']:42} {r['c_ms']:9.4f} {r['python_ms']:9.4f} {r['ratio']:6.3f} "
                f"{r['layer_ms']:9.4f} {100 * r['layer_fraction']:6.2f}%"
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
