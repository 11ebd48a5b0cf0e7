#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Mode B by hand: a GUPPI RAW recording beamformed with a BFR5 recipe into one
Stokes I filterbank file per beam, then each beam's brightest channel.

    /usr/bin/python3 examples/beamform_recording.py [RECORDING RECIPE] [--device cpu|cuda|auto]

Without a recording, a small synthetic one (8 antennas, a tone from the recipe's
first beam) is made in TMPDIR/gr-blade-examples.
"""
import argparse
import os

import numpy
from gnuradio import gr

from gnuradio import blade
from gnuradio.blade.recording import Recording

parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
parser.add_argument("recording", nargs="?", help="GUPPI RAW file or stem")
parser.add_argument("recipe", nargs="?", help="BFR5 recipe")
parser.add_argument("--device", default="auto")
parser.add_argument("--rate", type=int, default=64, help="fine channels per coarse channel")
parser.add_argument("--integration", type=int, default=8, help="fine spectra summed")
args = parser.parse_args()
if args.recording is None:
    args.recording = blade.synth.example_recording()
    args.recipe = args.recording + ".bfr5"

# The recording's axes place the channels in frequency for the phasors.
axes = Recording(args.recording)
recipe = blade.read_bfr5(args.recipe)
problems, warnings = axes.check_recipe(recipe)
if problems:
    raise SystemExit("; ".join(problems))

source = blade.guppi_source(args.recording, 0, "ci8")  # chunks of one block
shape = list(source.output_shape())  # [A, F, T, P]
options = blade.beamforming_options(
    channelizer_rate=args.rate, detector="I", integration=args.integration, device=args.device
)
beams = blade.mode_b(shape, axes.observation, recipe, options)
# Each beam's file gets its own source name and direction from the phasor block
# (the blade_beams tag): nothing to repeat here.
stem = os.path.join(os.path.dirname(os.path.abspath(args.recording)), "beamformed")
sink = blade.filterbank_sink(stem, list(beams.output_shape()), "fil", "beam")

tb = gr.top_block()
tb.connect((source, 0), (beams, 0))  # voltages
tb.connect((source, 1), (beams, 1))  # chunk times, for the phasors
tb.connect(beams, sink)
blade.clear_failures()
tb.run()
if blade.failures():
    raise SystemExit(blade.failures()[0])

for path in sink.files():
    header, data = blade.filterbank.read(path)
    spectrum = data[:, 0, :].mean(axis=0)
    peak = int(numpy.argmax(spectrum))
    print(
        f"{os.path.basename(path)} ({header['source_name']} at src_raj {header['src_raj']:.1f}, "
        f"src_dej {header['src_dej']:.1f}): {data.shape[0]} spectra, brightest channel {peak} at "
        f"{blade.filterbank.frequencies(header)[peak] / 1e6:.6f} MHz, "
        f"{spectrum[peak] / numpy.median(spectrum):.2f} x the median"
    )
print(f"Mode B on {beams.device()}: {len(sink.files())} files")
