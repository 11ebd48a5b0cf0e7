#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
Frequency response of one fine channel of blade.channelizer: the plain FFT
(taps = 1) against polyphase filterbanks, computed with numpy from the prototype
filter defined in include/blade/modules/channelizer.h. Writes
channelizer_response.png beside this script and prints the figures quoted in
docs/blocks/channelizer.md.

    /usr/bin/python3 docs/images/channelizer_response.py
"""

import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy  # noqa: E402

# the numpy reference of the definition, shared with the tests
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "python"))
from channelizer_reference import prototype, response_db  # noqa: E402

N = 64  # fine channels; responses in units of a fine channel barely depend on N

designs = [
    ("FFT (taps = 1)", 1, "rectangular", "tab:red"),
    ("PFB, 4 taps, Hamming", 4, "hamming", "tab:blue"),
    ("PFB, 8 taps, Blackman-Harris", 8, "blackman-harris", "tab:green"),
]

wide = numpy.linspace(-5, 5, 8001)
near = numpy.linspace(-1.5, 1.5, 3001)
figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6))
print(f"{'design':32} {'edge dB':>8} {'flat to':>8} {'@1 ch':>8} {'>=1.5 ch':>9}")
for label, taps, window, colour in designs:
    h = prototype(N, taps, window)
    left.plot(wide, response_db(h, wide, N), color=colour, label=label, linewidth=1)
    right.plot(near, response_db(h, near, N), color=colour, label=label, linewidth=1.2)
    right.plot(near, response_db(h, near - 1, N), color=colour, linewidth=0.8, linestyle="--")
    edge = response_db(h, numpy.array([0.5]), N)[0]
    flat = response_db(h, numpy.linspace(0, 0.3, 301), N).min()
    one = response_db(h, numpy.array([1.0]), N)[0]
    far = response_db(h, numpy.linspace(1.5, 5, 3501), N).max()
    print(f"{label:32} {edge:8.2f} {flat:8.2f} {one:8.1f} {far:9.1f}")

left.set(
    xlabel="tone offset from the channel centre (fine channels)",
    ylabel="power response (dB)",
    ylim=(-130, 5),
    xlim=(-5, 5),
    title="Leakage: response of one fine channel",
)
left.grid(alpha=0.3)
right.axvline(0.5, color="grey", linewidth=0.6)
right.set(
    xlabel="tone offset from the centre of channel 0 (fine channels)",
    ylabel="power response (dB)",
    ylim=(-10, 1),
    xlim=(-1.5, 1.5),
    title="Scalloping: channels 0 (solid) and 1 (dashed)",
)
right.grid(alpha=0.3)
figure.suptitle(f"blade.channelizer fine-channel response (N = {N})")
figure.legend(*left.get_legend_handles_labels(), loc="lower center", ncol=3, fontsize=9)
figure.tight_layout(rect=(0, 0.07, 1, 1))
output = pathlib.Path(__file__).with_name("channelizer_response.png")
figure.savefig(output, dpi=110)
print(f"wrote {output}")
