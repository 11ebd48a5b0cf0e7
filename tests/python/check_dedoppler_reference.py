# SPDX-License-Identifier: MIT
"""
libblade's dedoppler (CPU, through ctypes) against the numpy reference written from
dedoppler.h (dedoppler_reference.py). Registered with ctest as core_dedoppler_reference
and run with /usr/bin/python3 (numpy only, no GNU Radio):

  * the path-sum plane: the Taylor tree bit for bit (the reference adds the same
    float32 values in the tree's order), brute force bit for bit (float64 sums in
    spectrum order, rounded once);
  * centres and spreads (MAD and turbo_seti conventions) to 1e-6, SK flags exactly;
  * the hits: the same channels, beams and drift indices, SNRs to 1e-5.

Cases: random noise with injected tones, several beams, T not a power of two, odd
F, negative foff, a lower minimum drift, SK flagging and DC blanking, capacity.

  python3 check_dedoppler_reference.py [path/to/libblade.so]
"""

import os
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dedoppler_ctypes  # noqa: E402
import dedoppler_reference as reference  # noqa: E402

CASES = [
    # name, (B, T, F), nfpc, foff, tsamp, min, max, options
    ("one beam, T 16", (1, 16, 512), 128, 2.79, 18.25, 0.0, 0.6, {}),
    ("two beams, T 12 padded, odd F", (2, 12, 333), 111, 1.0, 1.0, 0.0, 1.4, {}),
    ("T 8, negative foff, min drift", (1, 8, 400), 200, -3.0, 2.0, 0.5, 2.0, {}),
    ("T 32, brute force", (1, 32, 256), 256, 1.0, 1.0, 0.0, 0.5, {"method": "brute_force"}),
    ("turbo_seti normalisation", (1, 16, 600), 300, 1.0, 1.0, 0.0, 1.0, {"normalization": "turbo_seti"}),
    (
        "SK and DC blanking",
        (2, 64, 512),
        256,
        1.0,
        1.0,
        0.0,
        0.4,
        {"sk_shape": 8.0, "sk_sigmas": 4.0, "blank_dc": True},
    ),
    ("capacity", (1, 4, 300), 300, 1.0, 1.0, 0.0, 0.5, {"capacity": 3, "snr_threshold": 3.0}),
    ("one spectrum", (1, 1, 97), 97, 1.0, 1.0, 0.0, 0.0, {"snr_threshold": 3.0}),
]


def make_data(shape, seed, sk):
    rng = numpy.random.default_rng(seed)
    beams, spectra, channels = shape
    if sk:
        data = rng.gamma(8.0, 1.0, shape).astype(numpy.float32)
        data[:, ::3, channels // 3] *= 20  # pulsed RFI in one channel
    else:
        data = rng.normal(100.0, 1.0, shape).astype(numpy.float32)
    for b in range(beams):  # tones at distinct places and drifts in every beam
        for i, rate in enumerate((0.0, 0.35, -0.2)):
            start = (i + 1) * channels // 4 + 7 * b + 3
            reference.inject_tone(data[b], start, rate * (1 if spectra > 1 else 0), 6.0)
    return data


def compare(name, shape, nfpc, foff, tsamp, min_drift, max_drift, options, lib, seed):
    failures = []
    options = dict(options)
    capacity = options.pop("capacity", 65536)
    threshold = options.pop("snr_threshold", 8.0)
    data = make_data(shape, seed, options.get("sk_shape", 0) > 0)
    plan = dedoppler_ctypes.Dedoppler(
        lib, shape, foff, tsamp, nfpc, min_drift, max_drift, threshold, capacity=capacity, **options
    )
    want = reference.search(data, foff, tsamp, nfpc, min_drift, max_drift, threshold, capacity=capacity, **options)
    grid = want["grid"]
    if list(plan.drifts()) != grid.drifts:
        failures.append(f"drifts {list(plan.drifts())[:5]}... != {grid.drifts[:5]}...")
    if plan.geometry.window != grid.window:
        failures.append(f"window {plan.geometry.window} != {grid.window}")
    plane = plan.integrate(data)
    if not numpy.array_equal(plane, want["plane"], equal_nan=True):
        differ = ~((plane == want["plane"]) | (numpy.isnan(plane) & numpy.isnan(want["plane"])))
        failures.append(f"plane: {differ.sum()} of {plane.size} path sums differ")
    hits, dropped = plan.process(data)
    centres, spreads, flags = plan.statistics()
    if not numpy.allclose(centres, want["centres"], rtol=1e-6, atol=0):
        failures.append(f"centres {centres} != {want['centres']}")
    if not numpy.allclose(spreads, want["spreads"], rtol=1e-6, atol=0):
        failures.append(f"spreads {spreads} != {want['spreads']}")
    if want["flags"] is not None and not numpy.array_equal(flags, want["flags"]):
        failures.append(f"flags: {numpy.sum(flags != want['flags'])} differ")
    if dropped != want["dropped"]:
        failures.append(f"dropped {dropped} != {want['dropped']}")
    keys = ("beam", "channel", "coarse_channel", "channel_in_coarse", "drift_index")
    got = [tuple(h[k] for k in keys) for h in hits]
    expected = [tuple(h[k] for k in keys) for h in want["hits"]]
    if got != expected:
        failures.append(f"hits {got} != {expected}")
    else:
        for h, w in zip(hits, want["hits"]):
            if abs(h["snr"] - w["snr"]) > 1e-5 * abs(w["snr"]) or abs(h["drift_rate"] - w["drift_rate"]) > 1e-12:
                failures.append(f"hit {h} != {w}")
    real = sum(1 for h in want["hits"] if h["snr"] > 0)
    flagged = int(flags.sum())
    print(
        f"{'FAIL' if failures else 'ok  '} {name}: {len(hits)} hits ({real} expected), {flagged} flagged, "
        f"{grid.padded} padded spectra, {len(grid.drifts)} drifts"
    )
    for failure in failures:
        print("     ", failure)
    return not failures


def main():
    lib = dedoppler_ctypes.load(sys.argv[1] if len(sys.argv) > 1 else None)
    results = [compare(*case, lib=lib, seed=seed) for seed, case in enumerate(CASES)]
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
