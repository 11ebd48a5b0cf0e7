# SPDX-License-Identifier: MIT
"""
Recall and false hits of the dedoppler search as blade-cli search runs it (Taylor
tree, turbo_seti's normalisation, DC blanking, SNR > 10, +-4 Hz/s), on injected
tones: for each amplitude, files of 16 spectra x 8 coarse channels x 4096 fine
channels (BL's high-resolution channel width and spectrum time), Gaussian noise of
sigma 1, one tone every 2048 channels (beyond the top-hit window of the next) at a
random start, fractional start position and drift in [-3.8, 3.8] Hz/s. A tone is
recalled when a hit lies within one channel of its start and two drift steps of its
drift (the column "within 1 step" counts those within one); every other hit is
false. (A tone between grid drifts is split between two channels in most spectra, so
the best path can be the grid's next drift but one: 1.05 steps away.) Prints the docs' table (docs/dedoppler.md).

  python3 check_search_recall.py LIBBLADE [FILES_PER_LEVEL]
"""

import math
import os
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dedoppler_ctypes  # noqa: E402

FOFF_HZ, TSAMP_S = 2.7939677238464355, 18.253611008
SPECTRA, NFPC, COARSE = 16, 4096, 8
STEP = FOFF_HZ / ((SPECTRA - 1) * TSAMP_S)


def inject(data, channel, rate, amplitude):
    """A tone from `channel` (fractional) drifting `rate` Hz/s, its power split between
    the two nearest channels in each spectrum."""
    for t in range(data.shape[0]):
        position = channel + rate * TSAMP_S / FOFF_HZ * t
        low = math.floor(position)
        for c, weight in ((low, 1 - (position - low)), (low + 1, position - low)):
            if 0 <= c < data.shape[1]:
                data[t, c] += amplitude * weight


def main():
    lib = dedoppler_ctypes.load(sys.argv[1])
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    rng = numpy.random.default_rng(2026)
    plan = dedoppler_ctypes.Dedoppler(
        lib, (SPECTRA, COARSE * NFPC), FOFF_HZ, TSAMP_S, NFPC, 0.0, 4.0, 10.0, normalization="turbo_seti", blank_dc=True
    )
    print(
        "| amplitude (sigma per spectrum) | ideal SNR (sigma of the sum) | tones | recalled | recall "
        "| within 1 step | false hits |"
    )
    print("|---|---|---|---|---|---|---|")
    for amplitude in (0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0):
        tones_total = recalled = close = false = 0
        for _ in range(files):
            data = rng.normal(100.0, 1.0, (SPECTRA, COARSE * NFPC)).astype(numpy.float32)
            tones = []
            if amplitude > 0:
                for start in range(300, COARSE * NFPC - 300, 2048):
                    channel = start + rng.uniform(0, 200)
                    if abs(channel % NFPC - NFPC / 2) < 2:  # the blanked DC bin
                        channel += 4
                    rate = rng.uniform(-3.8, 3.8)
                    inject(data, channel, rate, amplitude)
                    tones.append((channel, rate))
            hits, _ = plan.process(data)
            used = set()
            for channel, rate in tones:
                for i, h in enumerate(hits):
                    if abs(h["channel"] - channel) <= 1.0 and abs(h["drift_rate"] - rate) <= 2 * STEP:
                        used.add(i)
                        recalled += 1
                        close += abs(h["drift_rate"] - rate) <= STEP
                        break
            tones_total += len(tones)
            false += len(hits) - len(used)
        ideal = amplitude * SPECTRA / SPECTRA**0.5
        recall = f"{100 * recalled / tones_total:.0f} %" if tones_total else "-"
        within = f"{100 * close / tones_total:.0f} %" if tones_total else "-"
        counts = f"{tones_total} | {recalled} | {recall} | {within} | {false} in {files} files"
        print(f"| {amplitude:g} | {ideal:g} | {counts} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
