# SPDX-License-Identifier: MIT
"""
blade-bench: gr-blade benchmarks kept over time.

    blade-bench run [--device cuda:0|cpu] [--suite NAME]... [--quick] [--threads N] [--module NAME]... [--case LABEL]...
                    [--record] [--history FILE]
    blade-bench plot [--history FILE] [--output DIR]
    blade-bench compare [--history FILE] [--threshold 0.10]

`run` times the core modules (blade-module-bench, modules.py), and with --suite the
bundles and other flowgraphs (flowgraphs.py), several GPUs (multigpu.py) or the CPU
backend against numpy (numpy_suite.py), and writes one JSON record:
commit, date, host, CPU and GPU models, driver and CUDA versions, settings and
every figure, each with the fraction of the limit it is bound by. `--record`
appends it to the history (docs/benchmarks/history.jsonl in the repository);
On the CPU, `--threads N` runs the modules and measures the CPU's limits (STREAM
copy and triad, an FMA loop) with N threads and names the figures module-Nt/...,
for a scaling table (1, 2, ... all cores); `--module NAME` keeps one module's cases.
`plot` draws one chart per benchmark (figure over commits, one line per device)
and a markdown summary; `compare` flags any figure more than 10 % worse than the
previous record of the same device.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import socket
import subprocess
import sys

from . import timeline
from .modules import module_figures

DEFAULT_HISTORY = os.path.join("docs", "benchmarks", "history.jsonl")


# --- the record ----------------------------------------------------------------


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _nvidia_smi(field):
    if not shutil.which("nvidia-smi"):
        return None
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={field}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


def _commit():
    """The commit measured: BLADE_BENCH_COMMIT when set (a copied tree whose .git is
    not the one built, as on the lent GPU machine), else git's HEAD, else the build's."""
    from gnuradio import blade

    if os.environ.get("BLADE_BENCH_COMMIT"):
        return os.environ["BLADE_BENCH_COMMIT"]
    commit = blade.build_commit()
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, timeout=10)
        if out.returncode == 0 and out.stdout.strip():
            commit = out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return commit


def environment(device):
    """Where and on what a record was measured."""
    from gnuradio import blade, gr

    gpus = {f"cuda:{g.index}": g for g in blade.gpus()}
    gpu = gpus.get(device)
    return {
        "commit": _commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "cpu": _cpu_model(),
        "cpu_cores": os.cpu_count(),
        "device": device,
        "device_name": gpu.name if gpu else _cpu_model(),
        "gpu_driver": _nvidia_smi("driver_version") if gpu else None,
        "cuda": _cuda_version() if gpu else None,
        "gnuradio": gr.version(),
        "gr_blade": blade.version(),
        # 1, 5 and 15 minute load averages at the start: a CPU record taken while
        # other work shares the cores says so.
        "load_average": [round(value, 2) for value in os.getloadavg()],
    }


def _cuda_version():
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=20)
        for line in out.stdout.splitlines():
            if "release" in line:
                return line.split("release", 1)[1].split(",")[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return None


def run(args):
    if args.threads and os.environ.get("OMP_NUM_THREADS") != str(args.threads):
        # The CPU backend's default thread count is OpenMP's, which OpenMP reads from the
        # environment as the library loads (already loaded here, by this package's
        # import): run again with it set, so that it reaches the flowgraph suites too
        # (blade-module-bench takes --threads itself).
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
        sys.stdout.flush()
        os.execv(sys.executable, [sys.executable] + sys.orig_argv[1:])
    from gnuradio import blade

    device = blade.resolve_device(args.device)
    record = environment(device)
    record["settings"] = {"quick": args.quick, "repeat": args.repeat, "suites": args.suite}
    if args.threads:
        record["settings"]["threads"] = args.threads
    if args.module:
        record["settings"]["modules"] = args.module
    if args.case:
        record["settings"]["cases"] = args.case
    record["figures"] = []
    record["limits"] = {}
    if "modules" in args.suite:
        figures, limits = module_figures(
            device, args.quick, args.repeat, args.threads, args.module or (), args.case or ()
        )
        record["figures"] += figures
        record["limits"].update(limits)
    for suite in args.suite:
        if suite == "multigpu":
            from . import multigpu

            figures, limits = multigpu.run_suite(suite, device, args.quick)
            record["figures"] += figures
            record["limits"].update(limits)
        elif suite == "rawspec":
            from . import rawspec_suite

            figures, limits = rawspec_suite.run_suite(device, args.quick)
            record["figures"] += figures
            record["limits"].update(limits)
        elif suite == "numpy":
            from . import numpy_suite

            figures, limits = numpy_suite.run_suite(device, args.quick)
            record["figures"] += figures
            record["limits"].update(limits)
        elif suite != "modules":
            from . import flowgraphs

            figures, limits = flowgraphs.run_suite(suite, device, args.quick)
            record["figures"] += figures
            record["limits"].update(limits)
    text = json.dumps(record, sort_keys=True)
    if args.output:
        with open(args.output, "w") as out:
            out.write(text + "\n")
    if args.record:
        os.makedirs(os.path.dirname(os.path.abspath(args.history)), exist_ok=True)
        with open(args.history, "a") as history:
            history.write(text + "\n")
        print(f"recorded {len(record['figures'])} figures for {device} ({record['device_name']}) in {args.history}")
    return 0


# --- history: plot and compare ------------------------------------------------


def load_history(path):
    records = []
    with open(path) as history:
        for number, line in enumerate(history, 1):
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not a JSON record ({error})") from None
    return records


def _series(records):
    """{benchmark: {device label: [(record index, commit, figure)]}}"""
    series = {}
    for index, record in enumerate(records):
        label = f"{record['device_name']} ({record['device']})"
        for figure in record["figures"]:
            series.setdefault(figure["benchmark"], {}).setdefault(label, []).append((index, record["commit"], figure))
    return series


def _slug(name):
    keep = "".join(c if c.isalnum() else "-" for c in name)
    return "-".join(part for part in keep.split("-") if part)[:90]


def plot(args):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = load_history(args.history)
    if not records:
        raise ValueError(f"{args.history} holds no records")
    os.makedirs(args.output, exist_ok=True)
    commits = []
    for record in records:
        if record["commit"] not in commits:
            commits.append(record["commit"])
    rows = []
    for benchmark, by_device in sorted(_series(records).items()):
        figure, axis = plt.subplots(figsize=(7, 3.6))
        for label, points in sorted(by_device.items()):
            xs = [commits.index(commit) for _, commit, _ in points]
            ys = [f["time_ms"] for _, _, f in points]
            axis.plot(xs, ys, marker="o", label=label)
            last = points[-1][2]
            rows.append((benchmark, label, points[-1][1], last))
        times = [f["time_ms"] for points in by_device.values() for _, _, f in points if f["time_ms"] > 0]
        if times and max(times) > 10 * min(times):
            axis.set_yscale("log")  # a CPU and a GPU line on one chart differ by 100-1000x
        axis.set_xticks(range(len(commits)))
        axis.set_xticklabels(commits, rotation=45, ha="right", fontsize=7)
        axis.set_ylabel("time per run (ms)")
        axis.set_title(benchmark, fontsize=9)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
        figure.tight_layout()
        figure.savefig(os.path.join(args.output, _slug(benchmark) + ".png"), dpi=110)
        plt.close(figure)
    summary = os.path.join(args.output, "README.md")
    with open(summary, "w") as out:
        out.write("# gr-blade benchmarks\n\n")
        out.write(
            f"Latest figure of every benchmark on every device, from `{args.history}` "
            f"({len(records)} records). Made by `blade-bench plot`.\n\n"
        )
        columns = [
            "benchmark",
            "device",
            "commit",
            "time (ms)",
            "fraction of bound",
            "upstream BLADE (ms)",
            "target (ms)",
            "chart",
        ]
        out.write("| " + " | ".join(columns) + " |\n")
        out.write("|---|---|---|---|---|---|---|---|\n")
        for benchmark, label, commit, f in rows:
            fraction = f"{100 * f['fraction_of_bound']:.1f} % of {f['bound']}" if f.get("fraction_of_bound") else ""
            upstream = (
                f"{f['upstream_ms']:.3f} (x{f['upstream_ms'] / f['time_ms']:.2f})" if f.get("upstream_ms") else ""
            )
            target = (
                f"{f['target_ms']:.3f} ({'met' if f['time_ms'] <= f['target_ms'] else 'missed'})"
                if f.get("target_ms")
                else ""
            )
            out.write(
                f"| {benchmark} | {label} | {commit} | {f['time_ms']:.4g} | {fraction} | {upstream} | {target} "
                f"| [png]({_slug(benchmark)}.png) |\n"
            )
    print(f"wrote {len(_series(records))} charts and {summary}")
    return 0


def compare(args):
    """Every figure of the newest commit on the newest record's device against the
    same benchmark's latest figure from an earlier commit on that device. A commit's
    suites may be recorded apart (one record per run), so all its records count."""
    records = load_history(args.history)
    if not records:
        print("no records: nothing to compare")
        return 0
    latest = records[-1]

    def same_device(record):
        return record["device"] == latest["device"] and record["device_name"] == latest["device_name"]

    current, before = {}, {}
    for record in records:
        if not same_device(record):
            continue
        target = current if record["commit"] == latest["commit"] else before
        for figure in record["figures"]:
            target[figure["benchmark"]] = (record["commit"], figure)
    compared = [name for name in current if name in before]
    if not compared:
        print(
            f"no earlier figures for {latest['commit']} on {latest['device_name']} ({latest['device']}): "
            "nothing to compare"
        )
        return 0
    worse = []
    for name in compared:
        old_commit, old = before[name]
        new = current[name][1]
        if old["time_ms"] > 0 and new["time_ms"] > old["time_ms"] * (1 + args.threshold):
            worse.append((name, old_commit, old["time_ms"], new["time_ms"]))
    earlier = sorted({before[name][0] for name in compared})
    print(
        f"{latest['commit']} vs {', '.join(earlier)} on {latest['device_name']} ({latest['device']}): "
        f"{len(compared)} figures compared, {len(worse)} more than {100 * args.threshold:.0f} % slower"
    )
    for name, old_commit, old, new in worse:
        print(f"  SLOWER {name}: {old:.4g} ms ({old_commit}) -> {new:.4g} ms ({100 * (new / old - 1):+.1f} %)")
    return 1 if worse else 0


def build_parser():
    parser = argparse.ArgumentParser(prog="blade-bench", description="gr-blade benchmarks kept over time.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    run_parser = commands.add_parser("run", help="run the benchmarks and write a JSON record")
    run_parser.add_argument("--device", default="auto")
    run_parser.add_argument("--quick", action="store_true", help="tiny shapes: a seconds-long smoke run")
    run_parser.add_argument("--repeat", type=int, default=20)
    run_parser.add_argument(
        "--suite",
        action="append",
        default=None,
        help="modules (default), bundles, cpu-bundles, overhead, spectrometer, multigpu, numpy or rawspec; repeatable",
    )
    run_parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="CPU threads for the modules, the measured CPU limits and the cpu-bundles suite (default: every core)",
    )
    run_parser.add_argument(
        "--module", action="append", default=None, help="time only this module's cases (modules suite); repeatable"
    )
    run_parser.add_argument(
        "--case",
        action="append",
        default=None,
        help="time only the case of this label, as blade-module-bench --case takes it (modules suite); repeatable",
    )
    run_parser.add_argument("--output", help="write the record to this file")
    run_parser.add_argument("--record", action="store_true", help="append the record to the history")
    run_parser.add_argument("--history", default=DEFAULT_HISTORY)
    run_parser.set_defaults(handler=run)
    plot_parser = commands.add_parser("plot", help="charts and a markdown summary from the history")
    plot_parser.add_argument("--history", default=DEFAULT_HISTORY)
    plot_parser.add_argument("--output", default=os.path.join("docs", "benchmarks"))
    plot_parser.set_defaults(handler=plot)
    compare_parser = commands.add_parser("compare", help="flag figures worse than the previous record")
    compare_parser.add_argument("--history", default=DEFAULT_HISTORY)
    compare_parser.add_argument("--threshold", type=float, default=0.10)
    compare_parser.set_defaults(handler=compare)
    timeline.add_parser(commands)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    if getattr(args, "suite", None) is None and args.command == "run":
        args.suite = ["modules"]
    try:
        return args.handler(args)
    except (RuntimeError, ValueError, OSError) as error:
        print(f"blade-bench {args.command}: error: {error}", file=sys.stderr)
        return 1
