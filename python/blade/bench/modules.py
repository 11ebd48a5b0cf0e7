# SPDX-License-Identifier: MIT
"""
The core modules' benchmark: blade-module-bench (apps/bench, C) run from Python, its
JSON report turned into blade-bench figures, and the copy and upload limits it
measures, which the flowgraph suites use as their bounds.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile


def module_bench_program():
    """blade-module-bench: $BLADE_MODULE_BENCH, else on PATH, else beside this file."""
    return (
        os.environ.get("BLADE_MODULE_BENCH")
        or shutil.which("blade-module-bench")
        or os.path.join(os.path.dirname(__file__), "blade-module-bench")
    )


def module_bench_report(device, *options):
    """Run blade-module-bench on `device` with `options`, echo its table and return
    its JSON report."""
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "modules.json")
        command = [module_bench_program(), "--device", device, *options, "--json", path]
        result = subprocess.run(command, capture_output=True, text=True)
        sys.stdout.write(result.stdout)
        if result.returncode != 0:
            raise RuntimeError(f"blade-module-bench failed: {result.stderr.strip() or result.stdout.strip()[-400:]}")
        with open(path) as data:
            return json.load(data)


def module_figures(device, quick, repeat, threads=None, modules=(), cases=()):
    """Run blade-module-bench and turn its JSON into figures. `threads` (CPU only) runs
    the modules and measures the CPU's limits with that many threads, and names the
    figures module-<N>t/..., apart from the all-core figures; `modules` keeps only the
    cases of the modules named, `cases` only the cases labelled so."""
    options = ["--repeat", str(repeat), *(["--quick"] if quick else [])]
    if threads:
        options += ["--threads", str(threads)]
    for name in modules:
        options += ["--module", name]
    for label in cases:
        options += ["--case", label]
    report = module_bench_report(device, *options)
    limits = {"copy_bandwidth": report["copy_bandwidth"], "fp32_peak": report["fp32_peak"]}
    # The CPU's own limits: STREAM copy and triad, read-only, write-only and widening
    # passes, the FMA loop's kind, the BLAS used.
    keys = ("threads", "stream_copy", "stream_triad", "stream_read", "stream_write", "stream_widen", "fma_kind", "blas")
    for key in keys:
        if key in report:
            limits[key] = report[key]
    prefix = f"module{'-quick' if quick else ''}{f'-{threads}t' if threads else ''}"
    figures = []
    for case in report["cases"]:
        figures.append(
            {
                "benchmark": f"{prefix}/{case['module']}/{case['case']}",
                "time_ms": case["time_ms"],
                "samples_per_s": case["samples_per_s"],
                "bytes_per_s": case["bytes_per_s"],
                "macs_per_s": case["macs_per_s"],
                "bound": case["bound"],
                "fraction_of_bound": case["fraction_of_bound"],
                "upstream_ms": case["upstream_ms"] or None,
                "target_ms": case["target_ms"] or None,
            }
        )
    return figures, limits


def limits(device):
    """Copy and pinned-upload bandwidths measured now (blade-module-bench --limits)."""
    out = subprocess.run([module_bench_program(), "--device", device, "--limits"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"blade-module-bench --limits: {out.stderr.strip() or out.stdout.strip()}")
    return json.loads(out.stdout.strip().splitlines()[-1])
