#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
The worked example of docs/array-api.md, cell by cell (`# %%` starts a cell, as in
Jupyter's percent format): a channelizer and a beamformer on numpy arrays. Prints
what the page quotes and writes array_api_example.png beside this script.

    PYTHONPATH=build/test_modules /usr/bin/python3 docs/images/array_api_example.py
"""

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# %% [1] voltages: 8 antennas in a line, 2 coarse channels, 8192 samples, 2 polarizations
import numpy as np  # noqa: E402
from gnuradio.blade import array as ba  # noqa: E402

A, F, T, P = 8, 2, 8192, 2
coarse_bw = 1e6  # Hz per coarse channel
freqs = 1.42e9 + coarse_bw * np.arange(F)  # centre of each coarse channel
spacing, c = 1.5, 299792458.0  # m between antennas, speed of light
source_angle = np.deg2rad(2.0)  # the source, off the array's normal
tone = 0.25 + 0.5 / 64  # tone offset in coarse channels: halfway between two fine channels of N = 64

rng = np.random.default_rng(7)
n = np.arange(T)
delays = spacing * np.arange(A) * np.sin(source_angle) / c  # arrival time at each antenna
x = 0.05 * (rng.standard_normal((A, F, T, P)) + 1j * rng.standard_normal((A, F, T, P)))
arrival = np.exp(2j * np.pi * freqs[None, :] * delays[:, None])  # [A, F] phase of the wavefront
x += arrival[:, :, None, None] * np.exp(2j * np.pi * tone * n)[None, None, :, None]
x = x.astype(np.complex64)
print(x.shape, x.dtype)

# %% [2] channelize: 64 fine channels per coarse channel, plain FFT and a 4-tap PFB
fft = ba.channelize(x, 64)
pfb = ba.Channelizer(rate=64, taps=4, window="hamming")
y = pfb(x)
print(fft.shape, y.shape)
power_fft = ba.detect(fft, "I", fft.shape[2]).mean(axis=0)[:64, 0, 0]  # coarse channel 0, antennas averaged
power_pfb = ba.detect(y, "I", y.shape[2]).mean(axis=0)[:64, 0, 0]
k = 64 * 0.25 + 32  # the fine channel a tone at +0.25 lands in
for name, p in (("fft", power_fft), ("pfb", power_pfb)):
    top = np.argsort(p)[::-1][:2]
    away = [f"{10 * np.log10(p[int(k) + 1 + d] / p[top].max()):.1f}" for d in (2, 4, 8)]
    print(f"{name}: strongest channels {sorted(top.tolist())}; 2.5, 4.5, 8.5 channels off the tone: {away} dB")

# %% [3] phasors for 101 beams from -5 to +5 degrees, and the beamformer
angles = np.deg2rad(np.linspace(-5, 5, 101))
beam_delays = spacing * np.arange(A)[None, :] * np.sin(angles)[:, None] / c  # [B, A] seconds
phasors = ba.Phasors(
    freq_first=freqs[0],
    chan_bw=coarse_bw,
    nchan=F,
    polarizations=P,
    delay_table=(np.array([0.0, 1.0]), np.stack([beam_delays, beam_delays])),
)
w = phasors(0.0)  # [B, A, F, 1, P] complex64: exp(-2 pi i delay nu_f)
beams = ba.beamform(x, w)  # [B, F, T, P]
power = ba.detect(beams, "I", T)[:, :, 0, 0]  # [B, F]: power per beam and channel
best = np.argmax(power, axis=0)
print(w.shape, beams.shape, power.shape)
print("brightest beam per channel:", np.rad2deg(angles[best]).round(2), "degrees")

# %% [4] the same as objects: plan once, call many (here: 4 chunks of 2048 samples)
bf = ba.Beamformer()
detector = ba.Detector("I", integration=4 * 2048)  # integrate across the 4 chunks
for chunk in np.split(x, 4, axis=2):
    total = detector(bf(np.ascontiguousarray(chunk), w))  # the core takes dense arrays
print(total.shape, np.allclose(total[:, :, 0, 0], power, rtol=1e-4))

# %% [5] figure
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
offsets = np.arange(64) - 32
left.plot(offsets, 10 * np.log10(power_fft / power_fft.max()), "o-", ms=3, label="FFT (taps = 1)")
left.plot(offsets, 10 * np.log10(power_pfb / power_pfb.max()), "s-", ms=3, label="PFB, 4 taps, Hamming")
left.set_xlabel("fine channel - N/2")
left.set_ylabel("power (dB)")
left.set_title("a tone between fine channels 48 and 49")
left.legend()
right.plot(np.rad2deg(angles), 10 * np.log10(power[:, 0] / power[:, 0].max()), label=f"{freqs[0] / 1e9:.3f} GHz")
right.plot(np.rad2deg(angles), 10 * np.log10(power[:, 1] / power[:, 1].max()), label=f"{freqs[1] / 1e9:.3f} GHz")
right.axvline(2.0, color="grey", ls=":")
right.set_xlabel("beam direction (degrees)")
right.set_ylabel("beam power (dB)")
right.set_title("8 antennas, source at 2 degrees")
right.legend()
fig.tight_layout()
fig.savefig(pathlib.Path(__file__).with_suffix(".png"), dpi=100)
