# SPDX-License-Identifier: MIT
"""The detector written from the spec's table with numpy (shared by the detector and
bundle tests)."""

import numpy

OUTPUTS = {"I": 1, "XXYY": 2, "cross": 4, "IQUV": 4}


def detect(chunks, mode, integration):
    """
    The spec: power summed over I consecutive samples t = tau*I ... tau*I + I - 1.
    chunks: [n, A, F, T, P] cf32. Returns ([n_out, A, F, T/I (or 1), Pout] float64,
    total power XX + YY of every output sample, the scale of the tolerance).
    When I > T, K = I / T consecutive chunks form one output (a trailing partial
    group gives none).
    """
    n, a, f, t, p = chunks.shape
    x = chunks[..., 0].astype(numpy.complex128)
    y = chunks[..., 1].astype(numpy.complex128) if p == 2 else numpy.zeros_like(x)

    def integrate(v):
        if integration <= t:
            return v.reshape(n, a, f, t // integration, integration).sum(axis=-1)
        k = integration // t
        groups = n // k
        v = v[: groups * k].reshape(groups, k, a, f, t)
        return v.sum(axis=(1, 4))[..., None]

    xx, yy = integrate(numpy.abs(x) ** 2), integrate(numpy.abs(y) ** 2)
    xy = integrate(x * numpy.conj(y))
    products = {
        "I": [xx + yy],
        "XXYY": [xx, yy],
        "cross": [xx, yy, xy.real, xy.imag],
        "IQUV": [xx + yy, xx - yy, 2 * xy.real, -2 * xy.imag],
    }[mode]
    return numpy.stack(products, axis=-1), xx + yy
