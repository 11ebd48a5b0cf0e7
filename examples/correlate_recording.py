#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Mode X from Python: a recording correlated into one UVH5 file through
gnuradio.blade.pipeline (what `blade-cli mode-x` runs), then the file read back with
h5py: the phase of the strongest cross-correlation's brightest channel.

    /usr/bin/python3 examples/correlate_recording.py [RECORDING] [--output DIR]

Without a recording, a small synthetic one (with its BFR5 recipe, which gives the
antenna positions) is made in TMPDIR/gr-blade-examples.
"""
import argparse
import os

import h5py
import numpy

from gnuradio import blade
from gnuradio.blade import pipeline

parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
parser.add_argument("recording", nargs="?", help="GUPPI RAW file or stem (its STEM.bfr5 beside it)")
parser.add_argument("--output", help="folder for the file (default: next to the recording)")
parser.add_argument("--device", default="auto")
args = parser.parse_args()
recording = args.recording or blade.synth.example_recording()

options = pipeline.Options(
    input=recording,
    output=args.output or os.path.dirname(os.path.abspath(recording)),
    name="visibilities",
    channelizer_rate=64,
    integration=None,  # Mode X: one integration per chunk
    device=args.device,
)
job = pipeline.Job("x", options)  # opens the recording and its recipe, builds the flowgraph
print("\n".join(job.plan()))
summary = job.run()
path, label, integrations = summary.files[0]
with h5py.File(path, "r") as f:
    data = f["Data/visdata"][()]
    data = data["r"] + 1j * data["i"] if data.dtype.names else data  # h5py may give complex already
    ant1, ant2 = f["Header/ant_1_array"][()], f["Header/ant_2_array"][()]
cross = ant1 != ant2
power = numpy.abs(data[cross, :, 0]).mean(axis=0)
channel = int(numpy.argmax(power))
row = numpy.flatnonzero(cross)[0]
print(
    f"{path}: {integrations} integrations of {label}; brightest channel {channel}, baseline "
    f"({ant1[row]}, {ant2[row]}) XX phase {numpy.angle(data[row, channel, 0]):+.3f} rad"
)
