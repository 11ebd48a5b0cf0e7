# SPDX-License-Identifier: MIT
"""The correlator written from include/blade/modules/correlator.h with numpy (for the
module's checks here and the block tests to come):

    V[b(i, j), g, tau, p*P + q] = sum over the Fc channels c of group g and the I samples
                                  t of window tau of x[i, g*Fc + c, t, p] * conj(x[j, ..., t, q])

with baselines i <= j row by row over the upper triangle, conjugated for a lower
sideband."""

import numpy


def baselines(antennas):
    """(i, j) of every baseline in the correlator's order (i <= j, row by row)."""
    return numpy.triu_indices(antennas)


def correlate(chunks, integration, channel_integration=1, lower_sideband=False):
    """
    chunks: [n, A, F, T, P] complex (any integer or float type is taken as its value).
    Returns [n_out, B, F/Fc, T/I (or 1), P*P] complex128: with I <= T one output chunk
    per input chunk; with I = K*T, one per K consecutive chunks (a trailing partial
    group gives none).
    """
    x = numpy.asarray(chunks).astype(numpy.complex128)
    n, a, f, t, p = x.shape
    fc = channel_integration
    if integration <= t:
        windows, per = t // integration, integration
        x = x.reshape(n, a, f // fc, fc, windows, per, p)
    else:
        k = integration // t
        groups = n // k
        x = x[: groups * k].reshape(groups, k, a, f // fc, fc, t, p)
        # chunks of a group are consecutive times: [groups, A, F/Fc, Fc, 1, K*T, P]
        x = x.transpose(0, 2, 3, 4, 1, 5, 6).reshape(groups, a, f // fc, fc, 1, k * t, p)
        n, windows = groups, 1
    # all pairs, then the upper triangle: [n, A, A, G, W, P, P]
    full = numpy.einsum("nagcwsp,nbgcwsq->nabgwpq", x, numpy.conj(x), optimize=True)
    i, j = baselines(a)
    out = full[:, i, j].reshape(n, len(i), f // fc, windows, p * p)
    return numpy.conj(out) if lower_sideband else out


def scale(chunks, integration, channel_integration=1):
    """Per output: sum |x_i||x_j| over the same samples, the size of a sum's rounding."""
    return numpy.abs(correlate(numpy.abs(numpy.asarray(chunks)), integration, channel_integration))
