# SPDX-License-Identifier: MIT
"""
rawspec's job end to end (blade-bench --suite rawspec): a GUPPI RAW recording of
Breakthrough Listen's GBT shape (64 coarse channels of 2.9296875 MHz, 2 pols, 8-bit,
blocks of 2^19 samples = 128 MiB; 13 GiB by default, so that the 2^20-point product
integrating 51 spectra writes one) in the page cache, reduced by
blade-rawspec, each run a fresh process timed from its start to its exit:

  * BL's three standard products in one pass (-f 1048576,8,1024 -t 51,128,3072);
  * the single products -f 1024 -t 16 and -f 65536 -t 2.

Each figure is against `cat` of the same files measured in the same run (the rate
at which the recording can be read at all), and against rawspec itself when a
rawspec program is given ($RAWSPEC or on PATH): same files, same run, as a ratio.
The start-up (process start to exit on a one-block recording) is measured too.
Runs are repeated; the median is the figure and the spread is kept.

    python3 -m gnuradio.blade.bench.rawspec_suite [--gib 13] [--repeat 3] [--device cuda:0]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy

NCHAN, NTIME, NPOL = 64, 1 << 19, 2  # BL GBT: 128 MiB blocks
BLOCK_BYTES = NCHAN * NTIME * NPOL * 2
JOBS = [
    ("BL standard products -f 1048576,8,1024 -t 51,128,3072", ["-f", "1048576,8,1024", "-t", "51,128,3072"]),
    ("-f 1024 -t 16", ["-f", "1024", "-t", "16"]),
    ("-f 65536 -t 2", ["-f", "65536", "-t", "2"]),
]
TARGETS = {JOBS[0][0]: 0.70, JOBS[1][0]: 0.85, JOBS[2][0]: 0.85}  # fraction of cat (issue 17)


def write_recording(folder, blocks, stem="bench"):
    """blocks of random 8-bit samples, 16 blocks per file (as BL's 2 GiB files)."""
    from ..formats import guppi

    rng = numpy.random.default_rng(17)
    data = rng.integers(-40, 40, size=BLOCK_BYTES, dtype=numpy.int8).tobytes()
    tbin = NCHAN / 187.5e6
    paths = []
    for b in range(blocks):
        if b % 16 == 0:
            path = os.path.join(folder, f"{stem}.{b // 16:04d}.raw")
            paths.append(path)
            handle = open(path, "ab")
        header = guppi.format_header(
            {
                "BLOCSIZE": BLOCK_BYTES,
                "NANTS": 1,
                "OBSNCHAN": NCHAN,
                "NPOL": NPOL,
                "NBITS": 8,
                "DIRECTIO": 0,
                "PKTIDX": b * NTIME,
                "PIPERBLK": NTIME,
                "OBSFREQ": 1501.4648,
                "OBSBW": 187.5,
                "CHAN_BW": 187.5 / NCHAN,
                "TBIN": tbin,
                "STT_IMJD": 60000,
                "STT_SMJD": 0,
                "SYNCTIME": int((60000 - 40587) * 86400),
                "TELESCOP": "GBT",
                "SRC_NAME": "BENCH",
                "RA_STR": "12:00:00.0",
                "DEC_STR": "+30:00:00.0",
            }
        )
        handle.write(header)
        handle.write(data)
        if b % 16 == 15 or b == blocks - 1:
            handle.close()
    return os.path.join(folder, stem), paths


def timed(command, env=None):
    """Wall seconds of a command run to its end; raises with its output if it failed."""
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} ...: exit {result.returncode}: {result.stderr.strip()[-600:]}")
    return seconds


def startup_seconds(command):
    """(wall seconds to the end, seconds from the launch to the first output) of a
    blade-rawspec run: pipeline.py prints the second when BLADE_LAUNCHED_AT is set."""
    env = dict(os.environ)
    env["BLADE_LAUNCHED_AT"] = repr(time.time())
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    seconds = time.perf_counter() - start
    found = re.search(r"first output ([0-9.]+) s after the launch", result.stderr)
    if result.returncode != 0 or not found:
        raise RuntimeError(f"{' '.join(command[:3])} ...: exit {result.returncode}: {result.stderr.strip()[-600:]}")
    return seconds, float(found.group(1))


def cat_seconds(paths):
    subprocess.run(["cat", *paths], stdout=subprocess.DEVNULL, check=True)  # into the page cache
    return timed(["cat", *paths])


def blade_command(device):
    return [sys.executable, "-m", "gnuradio.blade.cli", "rawspec", "--no-progress", "-q", "--device", device]


def spread(values):
    return (max(values) - min(values)) / statistics.median(values) if len(values) > 1 else 0.0


def run(gib=13.0, repeat=3, device="auto", rawspec=None, out=sys.stdout):
    from gnuradio import blade

    device = blade.resolve_device(device)
    rawspec = rawspec or os.environ.get("RAWSPEC") or shutil.which("rawspec")
    blocks = max(2, int(round(gib * 2**30 / BLOCK_BYTES)))
    scratch = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    figures = []
    try:
        stem, paths = write_recording(scratch, blocks)
        total = sum(os.path.getsize(p) for p in paths)
        one_stem, _ = write_recording(scratch, 1, "startup")
        cat = [cat_seconds(paths) for _ in range(repeat)]
        cat_rate = total / statistics.median(cat)
        print(
            f"recording: {len(paths)} files, {blocks} blocks, {total / 2**30:.2f} GiB; cat {cat_rate / 1e9:.2f} GB/s "
            f"(median of {repeat}, spread {100 * spread(cat):.1f} %)",
            file=out,
        )
        for label, options in JOBS:
            outputs = os.path.join(scratch, "out")
            os.makedirs(outputs, exist_ok=True)
            ours = [timed(blade_command(device) + options + ["-d", outputs, stem]) for _ in range(repeat)]
            theirs = []
            if rawspec:
                theirs = [
                    timed(
                        [rawspec, *options, "-g", device.split(":")[-1] if ":" in device else "0", "-d", outputs, stem]
                    )
                    for _ in range(repeat)
                ]
            seconds = statistics.median(ours)
            figure = {
                "benchmark": f"rawspec/{label} [{total / 2**30:.1f} GiB, page cache, end to end]",
                "time_ms": seconds * 1e3,
                "bytes_per_s": total / seconds,
                "bound": "cat",
                "fraction_of_bound": (total / seconds) / cat_rate,
                "spread": spread(ours),
                "target_fraction": TARGETS[label],
                "upstream_ms": statistics.median(theirs) * 1e3 if theirs else None,
                "upstream": "rawspec" if theirs else None,
                "target_ms": None,
            }
            figures.append(figure)
            versus = ""
            if theirs:
                peer = statistics.median(theirs)
                versus = (
                    f"; rawspec {peer:.2f} s ({100 * total / peer / cat_rate:.1f} % of cat, spread "
                    f"{100 * spread(theirs):.1f} %): x{peer / seconds:.2f}"
                )
            print(
                f"{label}: {seconds:.2f} s, {100 * figure['fraction_of_bound']:.1f} % of cat (target "
                f"{100 * TARGETS[label]:.0f} %), spread {100 * spread(ours):.1f} %{versus}",
                file=out,
            )
            shutil.rmtree(outputs)
        os.makedirs(os.path.join(scratch, "out"), exist_ok=True)
        runs = [
            startup_seconds(
                blade_command(device) + ["-f", "1024", "-t", "16", "-d", os.path.join(scratch, "out"), one_stem]
            )
            for _ in range(repeat)
        ]
        start, first = [r[0] for r in runs], [r[1] for r in runs]
        first_output = {
            "benchmark": "rawspec/start-up: process start to the first output (one chunk through the device)",
            "time_ms": statistics.median(first) * 1e3,
            "bound": "start-up",
            "fraction_of_bound": None,
            "spread": spread(first),
            "target_ms": 400.0,
            "upstream_ms": None,
        }
        figures.append(first_output)
        startup = {
            "benchmark": "rawspec/start-up: one-block recording, process start to exit",
            "time_ms": statistics.median(start) * 1e3,
            "bound": "start-up",
            "fraction_of_bound": None,
            "spread": spread(start),
            "target_ms": 400.0,
            "upstream_ms": None,
        }
        if rawspec:
            rs = [
                timed([rawspec, "-f", "1024", "-t", "16", "-d", os.path.join(scratch, "out"), one_stem])
                for _ in range(repeat)
            ]
            startup["upstream_ms"] = statistics.median(rs) * 1e3
            startup["upstream"] = "rawspec"
        figures.append(startup)
        print(
            f"start-up: first output {first_output['time_ms']:.0f} ms after the launch (target 400 ms); "
            f"one block, end to end: {startup['time_ms']:.0f} ms"
            + (f"; rawspec {startup['upstream_ms']:.0f} ms" if rawspec else ""),
            file=out,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return figures, {"cat_bandwidth": cat_rate}


def compare_with_rawspec(rawspec, options, stem, device, folder, out=sys.stdout):
    """Run rawspec and blade-rawspec with `options` on `stem` into two folders and
    compare the file sets: the same names, the same header values (tstart, az_start
    and za_start apart: docs/user-guide.md#rawspecs-job-blade-rawspec), and data
    within float32 rounding of the sums (relative to each file's largest value).
    Returns the largest relative difference of the data."""
    from ..formats import filterbank

    theirs, ours = os.path.join(folder, "rawspec"), os.path.join(folder, "blade")
    for path in (theirs, ours):
        os.makedirs(path, exist_ok=True)
    gpu = device.split(":")[-1] if ":" in device else "0"
    timed([rawspec, *options, "-g", gpu, "-d", theirs, stem])
    timed(blade_command(device) + list(options) + ["-d", ours, stem])
    names = sorted(os.listdir(theirs))
    if names != sorted(os.listdir(ours)):
        raise RuntimeError(f"file sets differ: rawspec {names}, blade-rawspec {sorted(os.listdir(ours))}")
    worst = 0.0
    for name in names:
        a, b = filterbank.read(os.path.join(theirs, name)), filterbank.read(os.path.join(ours, name))
        for key in sorted(set(a[0]) | set(b[0])):
            if key in ("tstart", "az_start", "za_start", "header_bytes", "header_size"):
                continue
            x, y = a[0].get(key), b[0].get(key)
            same = (
                x == y
                if isinstance(x, str) or isinstance(y, str)
                else abs((x or 0) - (y or 0)) <= 1e-9 * max(1.0, abs(x or 0))
            )
            if not same:
                raise RuntimeError(f"{name}: header {key}: rawspec {x!r}, blade-rawspec {y!r}")
        if a[1].shape != b[1].shape:
            raise RuntimeError(f"{name}: data {a[1].shape} (rawspec) vs {b[1].shape}")
        scale = max(float(numpy.abs(a[1]).max()), 1e-30)
        difference = float(numpy.abs(a[1].astype(numpy.float64) - b[1]).max()) / scale
        worst = max(worst, difference)
        print(
            f"  {name}: headers equal, data {a[1].shape}, largest difference {difference:.2e} of the largest value",
            file=out,
        )
    return worst


def run_suite(device, quick):
    """blade-bench's plug-in point: (figures, limits)."""
    return run(gib=0.25 if quick else 13.0, repeat=1 if quick else 3, device=device)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m gnuradio.blade.bench.rawspec_suite", description=__doc__.split("\n")[1]
    )
    parser.add_argument("--gib", type=float, default=13.0, help="size of the recording (default 13 GiB)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--rawspec", help="a rawspec program to compare with (default: $RAWSPEC, or on PATH)")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument(
        "--compare",
        metavar="OPTIONS",
        help="instead of timing, compare the files of rawspec and blade-rawspec for these rawspec options "
        "(e.g. '-f 1024,8,64 -t 16,128,32 -p 1,4,-4') on a --gib recording",
    )
    args = parser.parse_args(argv)
    if args.compare:
        from gnuradio import blade

        rawspec = args.rawspec or os.environ.get("RAWSPEC") or shutil.which("rawspec")
        scratch = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        try:
            stem, _ = write_recording(scratch, max(1, int(round(args.gib * 2**30 / BLOCK_BYTES))))
            worst = compare_with_rawspec(
                rawspec, args.compare.split(), stem, blade.resolve_device(args.device), scratch
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        print(
            f"rawspec {args.compare}: the same files and headers; data within {worst:.2e} of each file's largest value"
        )
        return 0 if worst < 1e-5 else 1
    figures, limits = run(args.gib, args.repeat, args.device, args.rawspec)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"figures": figures, "limits": limits}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
