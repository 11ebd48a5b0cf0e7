# SPDX-License-Identifier: MIT
"""
The channelizer written in numpy from its definition (include/blade/modules/channelizer.h),
independently of gr-blade's code: the reference of the tests and of the response
figure in docs/images. Pure numpy, no GNU Radio.

    y[a, f*N + k, s, p] = sum_n (-1)^n exp(-2 pi i k n / N) sum_m h[m*N + n] xs[a, f, (s - M + 1 + m)*N + n, p]
"""

import numpy


def prototype(rate, taps, window):
    """The prototype filter h of M*N taps (N ones for taps = 1), sum h = N."""
    if taps == 1:
        return numpy.ones(rate)
    length = rate * taps
    j = numpy.arange(length)
    theta = 2 * numpy.pi * j / (length - 1)
    windows = {
        "rectangular": numpy.ones(length),
        "hamming": numpy.hamming(length),
        "hann": numpy.hanning(length),
        "blackman": numpy.blackman(length),
        "blackman-harris": 0.35875
        - 0.48829 * numpy.cos(theta)
        + 0.14128 * numpy.cos(2 * theta)
        - 0.01168 * numpy.cos(3 * theta),
    }
    centre = (length - 1) / 2
    cosine = numpy.cos(numpy.pi * (j - centre) / rate)

    def g(beta):  # numpy.sinc is sin(pi x)/(pi x)
        return windows[window] * numpy.sinc(beta * (j - centre) / rate)

    def edge(beta):  # response half a fine channel from the centre, relative
        taps_ = g(beta)
        return abs(numpy.sum(taps_ * cosine)) / abs(numpy.sum(taps_))

    low, high = 0.5, 2.0  # bisection for the bandwidth factor: edges at -3 dB
    for _ in range(50):
        middle = 0.5 * (low + high)
        if edge(middle) < numpy.sqrt(0.5):
            low = middle
        else:
            high = middle
    taps_ = g(0.5 * (low + high))
    return rate * taps_ / taps_.sum()


def channelize(chunks, rate, taps=1, window="rectangular"):
    """Chunks [C, A, F, T, P] of one stream -> outputs [C, A, F*N, T/N, P] (complex128)."""
    nchunks, a, f, t, p = chunks.shape
    n, m = rate, taps
    s = t // n
    if m == 1:  # branches = the blocks themselves: block s, sample n of each chunk
        branches = chunks.reshape(nchunks, a, f, s, n, p)
    else:
        stream = numpy.moveaxis(chunks.astype(numpy.complex128), 0, 2).reshape(a, f, nchunks * t, p)
        stream = numpy.concatenate([numpy.zeros((a, f, (m - 1) * n, p)), stream], axis=2)  # zeros before
        blocks = stream.reshape(a, f, nchunks * s + m - 1, n, p)
        h = prototype(n, m, window).reshape(m, n)
        # output block s takes padded blocks s .. s+M-1, i.e. stream blocks s-M+1 .. s
        branches = sum(h[i][:, None] * blocks[:, :, i : i + nchunks * s] for i in range(m))
        branches = numpy.moveaxis(branches.reshape(a, f, nchunks, s, n, p), 2, 0)
    modulated = branches * ((-1.0) ** numpy.arange(n))[:, None]
    if n <= 64:  # the DFT written out
        k = numpy.arange(n)
        dft = numpy.exp(-2j * numpy.pi * numpy.outer(k, k) / n)
        spectra = numpy.einsum("kn,cafsnp->cafksp", dft, modulated)
    else:
        spectra = numpy.moveaxis(numpy.fft.fft(modulated, axis=4), 4, 3)
    return spectra.reshape(nchunks, a, f * n, s, p)


def response_db(h, offsets, rate):
    """Power response (dB) of a fine channel to a tone `offsets` fine channels from its centre."""
    j = numpy.arange(len(h))
    values = numpy.exp(-2j * numpy.pi * numpy.outer(offsets, j) / rate) @ h
    return 20 * numpy.log10(numpy.maximum(numpy.abs(values) / h.sum(), 1e-12))
