# SPDX-License-Identifier: MIT
"""
The C core's CPU correlator (through ctypes on libblade, see libblade_correlator.py)
against the numpy reference written from the header (correlator_reference.py), at
random shapes: A from 1 to 40, P = 1 and 2, cf32 and ci8, time windows within a
chunk and across chunks (distinct data per chunk), channel integration, lower
sideband. The C path sums in double and rounds once, so every component must be
within float32 rounding (2^-24 relative) of the reference, plus 1e-12 of the sum of
magnitudes for the order of the double sums.

Why ctypes rather than committed numbers: the library is built in the same tree, the
check then covers every shape drawn rather than a frozen few, and it needs no GNU
Radio bindings (being redesigned). Exits 77 (ctest: skipped) when libblade is not built.
"""

import sys

import numpy

import correlator_reference
import libblade_correlator


def random_case(rng):
    a = int(rng.choice([1, 2, 3, 5, 8, 13, 28, 40]))
    p = int(rng.choice([1, 2]))
    fc = int(rng.choice([1, 2, 3]))
    f = fc * int(rng.integers(1, 4))
    t = int(rng.choice([1, 6, 16, 30]))
    divisors = [d for d in range(1, t + 1) if t % d == 0]
    if rng.random() < 0.3:
        integration, n = t * int(rng.integers(2, 4)), 0
    else:
        integration, n = int(rng.choice(divisors)), int(rng.integers(1, 3))
    k = integration // t if integration > t else 1
    n = max(n, 1) * k
    return dict(
        a=a,
        f=f,
        t=t,
        p=p,
        fc=fc,
        integration=integration,
        n=n,
        ci8=bool(rng.random() < 0.4),
        lower_sideband=bool(rng.random() < 0.3),
    )


def voltages(rng, case):
    shape = (case["n"], case["a"], case["f"], case["t"], case["p"])
    if case["ci8"]:
        raw = rng.integers(-128, 128, shape + (2,), dtype=numpy.int8)
        return raw, raw[..., 0] + 1j * raw[..., 1].astype(numpy.float64)
    values = (rng.uniform(-100, 100, shape) + 1j * rng.uniform(-100, 100, shape)).astype(numpy.complex64)
    return values, values


def main():
    lib = libblade_correlator.load()
    if lib is None:
        print(f"libblade not built ({libblade_correlator.library_path()}): skipped")
        return 77
    rng = numpy.random.default_rng(20)
    passed = failed = 0
    for number in range(60):
        case = random_case(rng)
        given, values = voltages(rng, case)
        got = libblade_correlator.correlate(lib, given, case["integration"], case["fc"], case["lower_sideband"])
        want = correlator_reference.correlate(values, case["integration"], case["fc"], case["lower_sideband"])
        size = correlator_reference.scale(values, case["integration"], case["fc"])
        tolerance_re = 2.0**-24 * numpy.abs(want.real) + 1e-12 * size
        tolerance_im = 2.0**-24 * numpy.abs(want.imag) + 1e-12 * size
        good = (
            got.shape == want.shape
            and numpy.all(numpy.abs(got.real - want.real) <= tolerance_re)
            and numpy.all(numpy.abs(got.imag - want.imag) <= tolerance_im)
        )
        if good:
            passed += 1
        else:
            failed += 1
            worst = numpy.max(numpy.abs(got - want) / size) if got.shape == want.shape else "shape"
            print(f"case {number} {case}: C {got.shape} vs numpy {want.shape}, worst error {worst} of the scale")
    print(f"C CPU correlator against the numpy reference: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
