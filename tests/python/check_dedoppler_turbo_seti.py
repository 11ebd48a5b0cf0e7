# SPDX-License-Identifier: MIT
"""
Our dedoppler against turbo_seti on the same filterbank file.

A SIGPROC filterbank of 16 spectra x 4 coarse channels of 4096 fine channels (BL's
high-resolution channel width and spectrum time) is written with numpy: Gaussian
noise and injected drifting tones (positive and negative drifts, one beyond the first
drift block, one near the +-4 Hz/s edge, one at zero drift). turbo_seti 2.3.2's
FindDoppler searches it in its own virtual environment (tools/make-reader-venvs;
skipped, exit 77, when missing); libblade searches the same spectrogram through
ctypes with turbo_seti's conventions (normalisation 'turbo_seti', blank_dc,
min_drift 1e-5 so that zero drift is left out as turbo_seti always does). Every
turbo_seti hit must have one of ours in the same coarse channel with the index
within one channel, the drift within one drift step and the SNR within 10 %, and
the other way round; every tone must be found. The MAD convention's SNRs are
printed beside, for the docs.

One difference is expected and checked as such: turbo_seti searches drift blocks
b = -n ... n with n = floor(max_drift / (step * T)) (T, not T - 1), each covering
(T - 1) b ... (T - 1)(b + 1) steps, so it never searches drifts above
(T - 1)(n + 1) steps (3.83 Hz/s here, for a requested 4): a tone drifting faster is
ours alone.

  python3 check_dedoppler_turbo_seti.py LIBBLADE READER_VENVS_DIR [WORK_DIR]
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dedoppler_ctypes  # noqa: E402
import dedoppler_reference as reference  # noqa: E402

SKIP = 77
FOFF_HZ = 2.7939677238464355
TSAMP_S = 18.253611008
SPECTRA, NFPC, COARSE = 16, 4096, 4
MAX_DRIFT, SNR = 4.0, 10.0
# (coarse channel, index in it, drift rate Hz/s, amplitude per spectrum in noise sigmas)
TONES = [
    (0, 1000, 0.5, 4.0),
    (0, 3000, -0.05, 4.0),
    (1, 2000, -1.3, 5.0),
    (2, 3000, 3.9, 6.0),
    (3, 1500, 0.0, 4.0),
    (3, 2600, -2.2, 4.0),
]

TURBO_SETI = r"""
import json, logging, sys, time
from turbo_seti.find_doppler.find_doppler import FindDoppler
path, out, coarse, max_drift, snr = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
start = time.time()
search = FindDoppler(path, max_drift=max_drift, min_drift=1e-5, snr=snr, out_dir=out, n_coarse_chan=coarse,
                     log_level_int=logging.WARNING)
opened = time.time()
search.search()
print(json.dumps({"seconds": time.time() - opened, "with_opening": time.time() - start}))
"""


def sigproc_header(fields):
    """SIGPROC header bytes: each key as a length-prefixed string, then its value."""

    def name(text):
        return struct.pack("<i", len(text)) + text.encode()

    out = name("HEADER_START")
    for key, value in fields:
        out += name(key)
        if isinstance(value, str):
            out += name(value)
        elif isinstance(value, float):
            out += struct.pack("<d", value)
        else:
            out += struct.pack("<i", value)
    return out + name("HEADER_END")


def write_filterbank(path, data):
    """data [T, F] float32 -> a one-IF SIGPROC filterbank, channels ascending."""
    fields = [
        ("telescope_id", 6),
        ("machine_id", 20),
        ("data_type", 1),
        ("source_name", "INJECTED"),
        ("src_raj", 120000.0),
        ("src_dej", 300000.0),
        ("az_start", 0.0),
        ("za_start", 0.0),
        ("tstart", 60000.0),
        ("tsamp", TSAMP_S),
        ("nbits", 32),
        ("fch1", 1400.0),
        ("foff", FOFF_HZ * 1e-6),
        ("nchans", data.shape[1]),
        ("nifs", 1),
        ("nbeams", 1),
        ("ibeam", 1),
    ]
    with open(path, "wb") as f:
        f.write(sigproc_header(fields))
        f.write(numpy.ascontiguousarray(data, dtype="<f4").tobytes())


def make_spectrogram(seed=19):
    rng = numpy.random.default_rng(seed)
    data = rng.normal(100.0, 1.0, (SPECTRA, COARSE * NFPC)).astype(numpy.float32)
    channels_per_spectrum = TSAMP_S / FOFF_HZ  # channels moved per spectrum at 1 Hz/s
    for coarse, index, rate, amplitude in TONES:
        reference.inject_tone(data, coarse * NFPC + index, rate * channels_per_spectrum, amplitude)
    return data


def read_dat(path):
    hits = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            columns = line.split()
            hits.append(
                {
                    "drift_rate": float(columns[1]),
                    "snr": float(columns[2]),
                    "index": int(columns[5]),
                    "coarse_channel": int(columns[10]),
                }
            )
    return hits


def main():
    if len(sys.argv) == 3:  # a folder of our own, removed afterwards
        with tempfile.TemporaryDirectory(prefix="dedoppler_turbo_seti") as work:
            return compare(sys.argv[1], sys.argv[2], work)
    if len(sys.argv) == 4:
        return compare(sys.argv[1], sys.argv[2], sys.argv[3])
    print(__doc__)
    return 2


def compare(library, venvs, work):
    library, venvs, work = os.path.abspath(library), os.path.abspath(venvs), os.path.abspath(work)
    python = os.path.join(venvs, "turbo_seti", "bin", "python")
    if not os.access(python, os.X_OK):
        print(f"skipped: turbo_seti venv missing ({python}); run tools/make-reader-venvs BUILD turbo_seti")
        return SKIP
    os.makedirs(work, exist_ok=True)
    data = make_spectrogram()
    path = os.path.join(work, "injected.fil")
    write_filterbank(path, data)

    result = subprocess.run(
        [python, "-c", TURBO_SETI, path, work, str(COARSE), str(MAX_DRIFT), str(SNR)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=work,
        env=dict(os.environ, PYTHONPATH="", MPLBACKEND="Agg", NUMBA_CACHE_DIR=work),
    )
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:])
        print("turbo_seti failed")
        return 1
    turbo_seconds = json.loads(result.stdout.strip().splitlines()[-1])["seconds"]
    theirs = read_dat(os.path.join(work, "injected.dat"))

    lib = dedoppler_ctypes.load(library)
    ours_by = {}
    for normalization in ("turbo_seti", "MAD"):
        plan = dedoppler_ctypes.Dedoppler(
            lib, data.shape, FOFF_HZ, TSAMP_S, NFPC, 1e-5, MAX_DRIFT, SNR, normalization=normalization, blank_dc=True
        )
        start = time.time()
        ours_by[normalization], _ = plan.process(data)
        ours_by[normalization + " seconds"] = time.time() - start
        step = abs(plan.geometry.drift_step_hz_per_s)
    ours = ours_by["turbo_seti"]
    # turbo_seti's largest drift searched, in steps (see the module's description)
    turbo_max_steps = (SPECTRA - 1) * (int(MAX_DRIFT / (step * SPECTRA)) + 1)

    def mad_snr(hit):
        for h in ours_by["MAD"]:
            if (
                h["coarse_channel"] == hit["coarse_channel"]
                and abs(h["channel_in_coarse"] - hit["channel_in_coarse"]) <= 1
            ):
                return h["snr"]
        return float("nan")

    failures = []

    def match(hit, candidates, index_key):
        for c in candidates:
            if (
                c["coarse_channel"] == hit["coarse_channel"]
                and abs(c[index_key] - hit["index"]) <= 1
                and abs(c["drift_rate"] - hit["drift_rate"]) <= step * 1.0001
            ):
                return c
        return None

    print(
        f"drift step {step:.6f} Hz/s; turbo_seti searches up to {turbo_max_steps} steps "
        f"({turbo_max_steps * step:.3f} Hz/s), gr-blade up to {int(MAX_DRIFT / step)}"
    )
    print(
        f"turbo_seti {len(theirs)} hits in {turbo_seconds:.2f} s (search() alone), "
        f"gr-blade {len(ours)} hits in {ours_by['turbo_seti seconds']:.3f} s (CPU)"
    )
    print(
        f"{'coarse':>6} {'index':>6} {'turbo_seti drift':>17} {'ours':>10} {'turbo_seti SNR':>15} {'ours':>9} "
        f"{'ours, MAD':>10}"
    )
    for hit in theirs:
        mine = match(hit, ours, "channel_in_coarse")
        if mine is None:
            failures.append(f"turbo_seti hit without ours: {hit}")
            print(
                f"{hit['coarse_channel']:>6} {hit['index']:>6} {hit['drift_rate']:>17.6f} {'-':>10} "
                f"{hit['snr']:>15.3f} {'-':>9}"
            )
            continue
        if abs(mine["snr"] - hit["snr"]) > 0.1 * hit["snr"]:
            failures.append(f"SNR {mine['snr']} vs turbo_seti {hit['snr']} at {hit}")
        print(
            f"{hit['coarse_channel']:>6} {hit['index']:>6} {hit['drift_rate']:>17.6f} {mine['drift_rate']:>10.6f} "
            f"{hit['snr']:>15.3f} {mine['snr']:>9.3f} {mad_snr(mine):>10.3f}"
        )
    for mine in ours:
        if abs(mine["drift_index"]) > turbo_max_steps:
            print(
                f"{mine['coarse_channel']:>6} {mine['channel_in_coarse']:>6} {'(not searched)':>17} "
                f"{mine['drift_rate']:>10.6f} {'-':>15} {mine['snr']:>9.3f} {mad_snr(mine):>10.3f}"
            )
            continue
        probe = {
            "coarse_channel": mine["coarse_channel"],
            "index": mine["channel_in_coarse"],
            "drift_rate": mine["drift_rate"],
        }
        if match(probe, [dict(h, channel_in_coarse=h["index"]) for h in theirs], "channel_in_coarse") is None:
            failures.append(f"our hit without turbo_seti's: {mine}")
    for coarse, index, rate, _ in TONES:
        for name, hits, key in (("turbo_seti", theirs, "index"), ("ours", ours, "channel_in_coarse")):
            if name == "turbo_seti" and abs(rate) / step > turbo_max_steps:
                continue  # beyond what turbo_seti searches
            expected_rate = rate if rate != 0 else None
            found = [
                h
                for h in hits
                if h["coarse_channel"] == coarse
                and abs(h[key] - index) <= 1
                and (expected_rate is None or abs(h["drift_rate"] - expected_rate) <= step)
            ]
            if not found:
                failures.append(f"{name} missed the tone at coarse {coarse} index {index} drift {rate}")
    for failure in failures:
        print("FAIL", failure)
    print(f"{len(theirs) - sum('turbo_seti hit' in f for f in failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
