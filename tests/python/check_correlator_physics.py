# SPDX-License-Identifier: MIT
"""
Physics of the correlator: a synthesized point source (correlator_synthetic.py) gives
visibilities whose phases are the geometric ones, 2 pi nu (tau_i - tau_j), on every
baseline and polarization product of the tone's channel, and whose closure phases
arg(V_ij V_jk conj(V_ik)) over every antenna triple are zero, within the noise. The
tone is 3 against noise of 8 per component, so each 65536-sample integration has a
signal-to-noise ratio near 18 per baseline: phase noise about 0.04 rad. The geometric
phases span many radians (baselines up to 400 m, 0.012 rad off the boresight), so a
conjugated or misordered baseline fails by far. Exits 77 without libblade.
"""

import itertools
import sys

import numpy

import correlator_synthetic as cs

PHASE_TOLERANCE = 0.25  # rad, any one visibility (about 6 sigma)
RMS_TOLERANCE = 0.08  # rad, over all of them


def main():
    result = cs.observe()
    if result is None:
        print("libblade not built: skipped")
        return 77
    obs, visibilities, times = result
    channel = obs.tone_channel
    failures = []
    spreads, residuals, closures = [], [], []
    for block, jd in enumerate(times):
        want = cs.expected_phases(obs, jd)
        spreads.append(numpy.ptp(cs.wrap(want)))
        for product, name in enumerate(["XX", "XY", "YX", "YY"]):
            v = visibilities[block, :, channel, product]
            i, j = cs.uvh5_writer.baselines(obs.antennas)
            cross = i != j
            residual = cs.wrap(numpy.angle(v[cross]) - want[cross])
            residuals.append(residual)
            worst = numpy.max(numpy.abs(residual))
            if worst > PHASE_TOLERANCE:
                failures.append(f"block {block} {name}: phase off the geometric delay by {worst:.3f} rad")
            index = {(a, b): k for k, (a, b) in enumerate(zip(i, j))}
            for a, b, c in itertools.combinations(range(obs.antennas), 3):
                closure = numpy.angle(v[index[a, b]] * v[index[b, c]] * numpy.conj(v[index[a, c]]))
                closures.append(closure)
    residuals = numpy.concatenate(residuals)
    closures = numpy.asarray(closures)
    rms, closure_rms = numpy.sqrt(numpy.mean(residuals**2)), numpy.sqrt(numpy.mean(closures**2))
    if rms > RMS_TOLERANCE:
        failures.append(f"RMS phase residual {rms:.3f} rad > {RMS_TOLERANCE}")
    if numpy.max(numpy.abs(closures)) > 2 * PHASE_TOLERANCE or closure_rms > 2 * RMS_TOLERANCE:
        failures.append(f"closure phases up to {numpy.max(numpy.abs(closures)):.3f} rad, RMS {closure_rms:.3f}")
    if min(spreads) < 3.0:
        failures.append(f"the geometric phases span only {min(spreads):.2f} rad: the check would not see a sign")
    print(
        f"{len(residuals)} visibilities: phase - 2 pi nu (tau_i - tau_j) RMS {rms:.4f} rad, worst "
        f"{numpy.max(numpy.abs(residuals)):.4f}; {len(closures)} closure phases RMS {closure_rms:.4f} rad, worst "
        f"{numpy.max(numpy.abs(closures)):.4f}; geometric phases span {min(spreads):.2f} rad"
    )
    for failure in failures:
        print("FAILED:", failure)
    print(f"correlator physics: {0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
