# SPDX-License-Identifier: MIT
"""
blade-cli search's speed on a Breakthrough Listen high-resolution file: writes
COARSE coarse channels of 2^20 fine channels x 16 spectra (2.79 Hz, 18.25 s; 4 tones)
as a .fil in WORK_DIR, searches it with blade-cli search on DEVICE (+-4 Hz/s, SNR 10)
and, where turbo_seti's venv exists (READER_VENVS), with turbo_seti on the CPU; prints
the times, real-time factors and whether the hits agree. For the docs' speed lines
and the GPU machine (where COARSE 64 is a whole GBT node: 4 GiB).

  python3 check_search_speed.py WORK_DIR [DEVICE] [COARSE] [READER_VENVS]

Needs gnuradio.blade importable (PYTHONPATH=build/test_modules).
"""

import os
import subprocess
import sys
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from qa_search import inject, write_fil  # noqa: E402

NFPC = 1 << 20


def main():
    work = sys.argv[1]
    device = sys.argv[2] if len(sys.argv) > 2 else "cpu"
    coarse = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    venvs = sys.argv[4] if len(sys.argv) > 4 else None
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, f"bl_hires_{coarse}.fil")
    if not os.path.exists(path):
        rng = numpy.random.default_rng(5)
        data = numpy.empty((16, coarse * NFPC), numpy.float32)
        for t in range(16):
            data[t] = rng.normal(100.0, 1.0, coarse * NFPC)
        for c in range(coarse):
            inject(data, c * NFPC + 300000 + 1000 * c, [0.7, -2.1, 3.5, -0.3][c % 4], 4.0)
        write_fil(path, data)
        del data
    start = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gnuradio.blade.cli",
            "search",
            path,
            "--nfpc",
            str(NFPC),
            "--device",
            device,
            "--output",
            os.path.join(work, "ours"),
            "--min-drift",
            "1e-5",
            "--memory",
            "8",
        ],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    print(out.stdout.strip() or out.stderr.strip())
    print(f"blade-cli search on {device}: {wall:.2f} s wall with start-up and reading")
    python = os.path.join(os.path.abspath(venvs or "."), "turbo_seti", "bin", "python")
    if venvs and os.access(python, os.X_OK):
        script = (
            "import logging, sys, time\n"
            "from turbo_seti.find_doppler.find_doppler import FindDoppler\n"
            "f = FindDoppler(sys.argv[1], max_drift=4.0, min_drift=1e-5, snr=10.0, out_dir=sys.argv[2],"
            " n_coarse_chan=int(sys.argv[3]), log_level_int=logging.WARNING)\n"
            "t = time.time(); f.search(); print(f'turbo_seti search() {time.time() - t:.1f} s')\n"
        )
        theirs = os.path.join(work, "theirs")
        os.makedirs(theirs, exist_ok=True)
        result = subprocess.run(
            [python, "-c", script, path, theirs, str(coarse)],
            capture_output=True,
            text=True,
            cwd=theirs,
            env=dict(os.environ, PYTHONPATH="", NUMBA_CACHE_DIR=theirs),
        )
        print(result.stdout.strip().splitlines()[-1] if result.returncode == 0 else result.stderr[-2000:])
        stem = os.path.basename(path)[:-4]
        ours = [line.split()[1:6] for line in open(os.path.join(work, "ours", stem + ".dat")) if line[0] != "#"]
        them = [line.split()[1:6] for line in open(os.path.join(theirs, stem + ".dat")) if line[0] != "#"]
        same = [(a[0], a[3], a[4]) for a in ours] == [(b[0], b[3], b[4]) for b in them]
        print(f"hits: ours {len(ours)}, turbo_seti {len(them)}; drift, frequency and index equal: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
