#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
The flowgraph blade-cli runs, from Python: Mode H (a spectrometer per antenna) on a
recording through gnuradio.blade.pipeline, with its plan, progress and summary.

    /usr/bin/python3 examples/spectrometer_job.py [RECORDING] [--output DIR]

Without a recording, a small synthetic one is made in TMPDIR/gr-blade-examples.
"""
import argparse
import os

from gnuradio import blade
from gnuradio.blade import pipeline

parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
parser.add_argument("recording", nargs="?", help="GUPPI RAW file or stem")
parser.add_argument("--output", help="folder for the files (default: next to the recording)")
parser.add_argument("--device", default="auto")
args = parser.parse_args()
recording = args.recording or blade.synth.example_recording()

options = pipeline.Options(
    input=recording,
    output=args.output or os.path.dirname(os.path.abspath(recording)),
    name="spectra",
    channelizer_rate=1024,
    integration=8,
    pfb_taps=4,
    stokes="XXYY",
    device=args.device,
)
job = pipeline.Job("h", options)  # opens the recording, builds the flowgraph
print("\n".join(job.plan()))
summary = job.run()  # a progress bar on a terminal; Ctrl-C stops cleanly
print(
    f"{summary.chunks} chunks, {summary.data_seconds:.3f} s of data, {summary.realtime_factor:.2f}x real time "
    f"on {summary.device}; {len(summary.files)} files, {summary.files[0][2]} spectra each"
)
