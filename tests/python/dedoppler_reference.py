# SPDX-License-Identifier: MIT
"""
The dedoppler search written with numpy from the definitions in
include/blade/modules/dedoppler.h (numpy only; shared by the core's check against
libblade and, later, by block tests). Slow and plain on purpose: every path is
gathered explicitly.

Arrays: spectrogram [B, T, F] float32 (a [T, F] one is taken as B = 1); planes
[B, D, F] with NaN for paths that leave the band; statistics [B, C].
"""

import math

import numpy

MAD_TO_SIGMA = 1.482602218505602
DRIFT_TOLERANCE = 1e-9


def padded_spectra(spectra):
    """T' = T rounded up to a power of two."""
    padded = 1
    while padded < spectra:
        padded *= 2
    return padded


def taylor_offset(p, t, padded):
    """P(p, t): over one spectrum 0; over 2m spectra P_m(p // 2, t) for t < m, else
    ceil(p / 2) + P_m(p // 2, t - m)."""
    if padded == 1:
        return 0
    half = padded // 2
    if t < half:
        return taylor_offset(p // 2, t, half)
    return (p - p // 2) + taylor_offset(p // 2, t - half, half)


def nearest_offset(k, t, padded):
    """round(k t / (T' - 1)), halves away from zero."""
    if padded == 1:
        return 0
    span = padded - 1
    magnitude = (2 * abs(k) * t + span) // (2 * span)
    return -magnitude if k < 0 else magnitude


def tree_offset(k, t, padded):
    """x(t) - f of the tree's path of drift k: sign(k) (b t + P(p, t)) with
    |k| = b (T' - 1) + p, 1 <= p <= T' - 1 (k = 0: b = p = 0)."""
    if k == 0:
        return 0
    span = padded - 1
    block = (abs(k) - 1) // span
    p = abs(k) - block * span
    offset = block * t + taylor_offset(p, t, padded)
    return -offset if k < 0 else offset


class Grid:
    """The drift grid of a plan: T', the step, the drifts searched, the window."""

    def __init__(self, spectra, foff, tsamp, min_drift, max_drift):
        self.spectra = spectra
        self.padded = padded_spectra(spectra)
        self.foff = foff
        if self.padded == 1:
            self.step = 0.0
            lowest = highest = self.window = 0
        else:
            step = abs(foff) / ((self.padded - 1) * tsamp)
            top, bottom = max_drift / step, min_drift / step
            highest = math.floor(top + DRIFT_TOLERANCE * max(1.0, top))
            lowest = math.ceil(bottom - DRIFT_TOLERANCE * max(1.0, bottom))
            self.window = 2 * math.ceil(top - DRIFT_TOLERANCE * max(1.0, top))
            self.step = step
            if lowest > highest:
                raise ValueError("the drift range holds no drift of the grid")
        nonzero = list(range(max(lowest, 1), highest + 1))
        self.drifts = [-k for k in reversed(nonzero)] + ([0] if lowest == 0 else []) + nonzero
        self.signed_step = foff / ((self.padded - 1) * tsamp) if self.padded > 1 else 0.0


def as_beams(spectrogram):
    spectrogram = numpy.asarray(spectrogram, dtype=numpy.float32)
    return spectrogram[None] if spectrogram.ndim == 2 else spectrogram


def pairwise_sum32(values):
    """Sum along the last axis (a power of two long) in the tree's order: halves
    added earlier + later, recursively, in float32."""
    values = values.astype(numpy.float32)
    while values.shape[-1] > 1:
        values = values[..., 0::2] + values[..., 1::2]
    return values[..., 0]


def path_sums(spectrogram, grid, method="taylor"):
    """The plane [B, D, F]. taylor: the tree's paths, summed in float32 in the tree's
    order (so equal to libblade's bit for bit); brute_force: nearest-channel paths
    summed in float64, rounded to float32."""
    data = as_beams(spectrogram)
    beams, spectra, channels = data.shape
    padded = grid.padded
    plane = numpy.full((beams, len(grid.drifts), channels), numpy.nan, dtype=numpy.float32)
    starts = numpy.arange(channels)
    for d, k in enumerate(grid.drifts):
        valid = (starts + k >= 0) & (starts + k < channels)
        f = starts[valid]
        if method == "taylor":
            gathered = numpy.zeros((beams, f.size, padded), dtype=numpy.float32)
            for t in range(spectra):
                gathered[:, :, t] = data[:, t, f + tree_offset(k, t, padded)]
            plane[:, d, valid] = pairwise_sum32(gathered)
        else:
            total = numpy.zeros((beams, f.size))
            for t in range(spectra):
                total += data[:, t, f + nearest_offset(k, t, padded)].astype(numpy.float64)
            plane[:, d, valid] = total.astype(numpy.float32)
    return plane


def zero_drift_sums(spectrogram):
    """z [B, F]: sums over the real spectra in float64, rounded to float32."""
    return as_beams(spectrogram).astype(numpy.float64).sum(axis=1).astype(numpy.float32)


def kurtosis_flags(spectrogram, shape, sigmas):
    """Spectral-kurtosis flags [B, F] (Nita & Gary's generalised estimator)."""
    data = as_beams(spectrogram).astype(numpy.float64)
    m, n = data.shape[1], float(shape)
    s1, s2 = data.sum(axis=1), (data * data).sum(axis=1)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        kurtosis = (m * n + 1) / (m - 1) * (m * s2 / (s1 * s1) - 1)
    sigma = math.sqrt(2 * n * (n + 1) * m * m / ((m - 1) * (m * n + 2) * (m * n + 3)))
    return ~((s1 > 0) & (numpy.abs(kurtosis - 1) <= sigmas * sigma))


def statistics(zero_drift, nfpc, normalization="MAD", flags=None):
    """Centres and spreads [B, C] of the zero-drift sums of unflagged channels."""
    beams, channels = zero_drift.shape
    coarse = channels // nfpc
    centres = numpy.zeros((beams, coarse), dtype=numpy.float32)
    spreads = numpy.zeros((beams, coarse), dtype=numpy.float32)
    for b in range(beams):
        for c in range(coarse):
            z = zero_drift[b, c * nfpc : (c + 1) * nfpc].astype(numpy.float64)
            if flags is not None:
                z = z[~flags[b, c * nfpc : (c + 1) * nfpc]]
            if z.size == 0:
                continue
            if normalization == "MAD":
                median = numpy.median(z)
                centres[b, c] = median
                spreads[b, c] = MAD_TO_SIGMA * numpy.median(numpy.abs(z - median))
            else:
                low, median, high = numpy.percentile(z, [5, 50, 95])
                kept = z[(z >= low) & (z <= high)]
                centres[b, c] = median
                spreads[b, c] = kept.std()
    return centres, spreads


def prepare(spectrogram, nfpc, flags=None, centres=None, blank_dc=False):
    """The working copy: flagged channels at centre/T, then the DC bin of each coarse
    channel at the mean of its neighbours."""
    work = as_beams(spectrogram).copy()
    beams, spectra, channels = work.shape
    if flags is not None:
        for b in range(beams):
            value = (centres[b] / numpy.float32(spectra)).astype(numpy.float32)
            per_channel = numpy.repeat(value, nfpc)
            work[b][:, flags[b]] = per_channel[flags[b]]
    if blank_dc:
        middles = numpy.arange(channels // nfpc) * nfpc + nfpc // 2
        work[:, :, middles] = (work[:, :, middles - 1] + work[:, :, middles + 1]) * numpy.float32(0.5)
    return work


def best_paths(plane, grid):
    """Best sum and drift index per start channel [B, F] (ties: the smallest k)."""
    filled = numpy.where(numpy.isnan(plane), -numpy.inf, plane)
    index = filled.argmax(axis=1)  # the first maximum: drifts are increasing
    best = numpy.take_along_axis(filled, index[:, None, :], axis=1)[:, 0, :]
    drifts = numpy.asarray(grid.drifts)[index]
    return best, drifts


def snrs(best, centres, spreads, nfpc):
    """SNR per start channel [B, F], NaN where the spread is 0 or no path exists."""
    centre = numpy.repeat(centres, nfpc, axis=1).astype(numpy.float64)
    spread = numpy.repeat(spreads, nfpc, axis=1).astype(numpy.float64)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        snr = ((best.astype(numpy.float64) - centre) / spread).astype(numpy.float32)
    snr[~(spread > 0) | ~numpy.isfinite(best)] = numpy.nan
    return snr


def select_hits(best, drifts, snr, grid, nfpc, threshold, capacity=None):
    """turbo_seti's top hits: above the threshold, not beaten in [f - N, f + N).
    Returns (hits as dicts in beam, channel order, dropped count)."""
    beams, channels = snr.shape
    window = grid.window
    hits = []
    for b in range(beams):
        for f in numpy.nonzero(snr[b] > threshold)[0]:
            low, high = max(0, f - window), min(channels, f + window)
            neighbours = snr[b, low:high]
            if numpy.any(neighbours[~numpy.isnan(neighbours)] > snr[b, f]):
                continue
            k = int(drifts[b, f])
            hits.append(
                {
                    "beam": b,
                    "channel": int(f),
                    "coarse_channel": int(f) // nfpc,
                    "channel_in_coarse": int(f) % nfpc,
                    "drift_index": k,
                    "drift_rate": k * grid.signed_step,
                    "snr": float(snr[b, f]),
                    "path_sum": float(best[b, f]),
                }
            )
    capacity = len(hits) if capacity is None else capacity
    return hits[:capacity], max(0, len(hits) - capacity)


def search(
    spectrogram,
    foff,
    tsamp,
    nfpc,
    min_drift=0.0,
    max_drift=4.0,
    snr_threshold=10.0,
    method="taylor",
    normalization="MAD",
    blank_dc=False,
    sk_shape=0.0,
    sk_sigmas=0.0,
    capacity=None,
):
    """The whole search as dedoppler.h defines it. Returns a dict with the grid,
    statistics, flags, the plane, best paths, SNRs and hits."""
    spectra = as_beams(spectrogram).shape[1]
    grid = Grid(spectra, foff, tsamp, min_drift, max_drift)
    zero = zero_drift_sums(spectrogram)
    flags = kurtosis_flags(spectrogram, sk_shape, sk_sigmas) if sk_shape > 0 else None
    centres, spreads = statistics(zero, nfpc, normalization, flags)
    work = (
        prepare(spectrogram, nfpc, flags, centres, blank_dc)
        if (flags is not None or blank_dc)
        else as_beams(spectrogram)
    )
    plane = path_sums(work, grid, method)
    best, drifts = best_paths(plane, grid)
    snr = snrs(best, centres, spreads, nfpc)
    hits, dropped = select_hits(best, drifts, snr, grid, nfpc, snr_threshold, capacity)
    return {
        "grid": grid,
        "zero_drift": zero,
        "flags": flags,
        "centres": centres,
        "spreads": spreads,
        "plane": plane,
        "best": best,
        "drifts": drifts,
        "snr": snr,
        "hits": hits,
        "dropped": dropped,
    }


def inject_tone(spectrogram, start, drift_channels_per_spectrum, amplitude, beam=None):
    """Add a tone drifting linearly: at spectrum t it sits at channel
    start + rate·t, its power split between the two nearest channels by distance
    (so a drift that is not whole channels per spectrum smears as a real one)."""
    data = spectrogram if beam is None else spectrogram[beam]
    spectra, channels = data.shape[-2], data.shape[-1]
    for t in range(spectra):
        position = start + drift_channels_per_spectrum * t
        low = math.floor(position)
        fraction = position - low
        for channel, weight in ((low, 1 - fraction), (low + 1, fraction)):
            if 0 <= channel < channels and weight > 0:
                data[..., t, channel] += amplitude * weight
    return spectrogram
