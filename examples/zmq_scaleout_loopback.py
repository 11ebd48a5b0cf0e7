#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
One recording, three processes: a reader splits each chunk by channel and pushes
the two sub-bands over ZeroMQ (TCP on loopback) to two workers, which beamform them
(Mode B) and write filterbank files. On real hosts run the same commands there,
with --bind and --connect (docs/scaleout.md).

    /usr/bin/python3 examples/zmq_scaleout_loopback.py [--recording STEM] [--device cpu]
"""
import argparse
import json
import os
import subprocess
import sys
import time

from gnuradio.blade import synth

parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
parser.add_argument("--recording", help="GUPPI RAW stem (default: a small synthetic one)")
parser.add_argument("--recipe", help="its BFR5 recipe (default: RECORDING.bfr5)")
parser.add_argument("--device", default="auto", help="each worker's device")
args = parser.parse_args()

recording = args.recording or synth.example_recording()
recipe = args.recipe or recording + ".bfr5"
folder = os.path.dirname(os.path.abspath(recording))
plan_file = os.path.join(folder, "scaleout_plan.json")
if os.path.exists(plan_file):
    os.remove(plan_file)
scaleout = [sys.executable, "-m", "gnuradio.blade.scaleout"]

# The reader binds two free ports and writes the plan; it keeps its sockets open
# until its stdin closes, so that no chunk queued for a worker is dropped.
reader = subprocess.Popen(
    scaleout + ["reader", recording, "--workers", "2", "--plan-file", plan_file],
    stdin=subprocess.PIPE,
    stdout=subprocess.DEVNULL,
)
while not os.path.exists(plan_file):
    if reader.poll() is not None:
        sys.exit("the reader ended before writing its plan")
    time.sleep(0.05)
with open(plan_file) as source:
    plan = json.loads(source.readline())

workers = [
    subprocess.Popen(
        scaleout
        + [
            "worker",
            "--plan-file",
            plan_file,
            "--subband",
            str(n),
            "--recipe",
            recipe,
            "--device",
            args.device,
            "--output",
            os.path.join(folder, f"scaleout{n}"),
            "--report",
            os.path.join(folder, f"scaleout{n}.json"),
        ]
    )
    for n in range(2)
]
codes = [worker.wait() for worker in workers]
reader.stdin.close()
reader.wait()

for n, code in enumerate(codes):
    with open(os.path.join(folder, f"scaleout{n}.json")) as source:
        report = json.load(source)
    part = plan["subbands"][n]
    print(
        f"worker {n}: channels {part['first_channel']}..{part['first_channel'] + part['shape'][1] - 1} "
        f"from {part['endpoint']}: {report['chunks']} of {plan['chunks']} chunks, {report['gaps']} gaps, "
        f"exit {code}"
    )
if any(codes) or reader.returncode:
    sys.exit(1)
print(
    f"scale-out OK: {plan['chunks']} chunks beamformed by 2 workers, files {folder}/scaleout0.*.fil, "
    f"{folder}/scaleout1.*.fil"
)
