/* SPDX-License-Identifier: MIT */
/*
 * The dedoppler's noise statistics, on the host for both backends: centre and
 * spread of the zero-drift sums of each beam's coarse channels (median and scaled
 * MAD, or turbo_seti's median and central-90 % standard deviation), and the
 * spectral-kurtosis flags. Order statistics come from quickselect (linear time, no
 * full sort): at 2^20 channels per coarse channel a sort would cost more than the
 * GPU's whole tree.
 */
#include "cpu_threads_internal.h"
#include "dedoppler_backend.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>

/* 1 / Φ⁻¹(3/4): scales a Gaussian's median absolute deviation to its σ. */
#define MAD_TO_SIGMA 1.482602218505602

static void swap(double* a, double* b)
{
    const double t = *a;
    *a = *b;
    *b = t;
}

/* Reorder a[0 … n−1] so that a[k] is the k-th smallest, none before it larger and
 * none after it smaller (Hoare's selection with a median-of-three pivot). */
static double select_kth(double* a, int64_t n, int64_t k)
{
    int64_t low = 0, high = n - 1;
    while (high > low) {
        const int64_t middle = low + (high - low) / 2;
        if (a[middle] < a[low])
            swap(&a[middle], &a[low]);
        if (a[high] < a[low])
            swap(&a[high], &a[low]);
        if (a[high] < a[middle])
            swap(&a[high], &a[middle]);
        const double pivot = a[middle];
        int64_t i = low, j = high;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                swap(&a[i], &a[j]);
                i++;
                j--;
            }
        }
        if (k <= j)
            high = j;
        else if (k >= i)
            low = i;
        else
            break; /* a[j+1 … i−1] all equal the pivot */
    }
    return a[k];
}

/* After select_kth(a, n, k): the (k+1)-th smallest, the least of what follows. */
static double next_after(const double* a, int64_t n, int64_t k)
{
    double least = a[k + 1];
    for (int64_t i = k + 2; i < n; i++)
        if (a[i] < least)
            least = a[i];
    return least;
}

/* numpy's median: the middle value, or the mean of the two middle values. */
static double median_of(double* a, int64_t n)
{
    const double upper = select_kth(a, n, n / 2);
    if (n % 2 == 1)
        return upper;
    double lower = a[0];
    for (int64_t i = 1; i < n / 2; i++)
        if (a[i] > lower)
            lower = a[i];
    return (lower + upper) / 2;
}

/* numpy's percentile, method 'linear': between the order statistics around
 * q/100·(n−1), interpolated the way numpy's _lerp does it. */
static double percentile_of(double* a, int64_t n, double q)
{
    const double position = q / 100.0 * (double)(n - 1);
    const int64_t below = (int64_t)floor(position);
    const double fraction = position - (double)below;
    const double low = select_kth(a, n, below);
    const double high = below + 1 < n ? next_after(a, n, below) : low;
    const double difference = high - low;
    return fraction >= 0.5 ? high - difference * (1 - fraction) : low + difference * fraction;
}

/* Centre and spread of n values (a is reordered; `scratch` holds n doubles). */
static void centre_and_spread(double* a,
                              double* scratch,
                              int64_t n,
                              blade_dedoppler_normalization normalization,
                              float* centre,
                              float* spread)
{
    if (n == 0) {
        *centre = 0;
        *spread = 0;
        return;
    }
    if (normalization == BLADE_DEDOPPLER_NORM_MAD) {
        const double median = median_of(a, n);
        for (int64_t i = 0; i < n; i++)
            scratch[i] = fabs(a[i] - median);
        *centre = (float)median;
        *spread = (float)(MAD_TO_SIGMA * median_of(scratch, n));
        return;
    }
    /* turbo_seti: percentiles first (they only reorder a), then the moments of the
     * values inside [p5, p95], both ends included. */
    const double p5 = percentile_of(a, n, 5), p50 = percentile_of(a, n, 50),
                 p95 = percentile_of(a, n, 95);
    double sum = 0;
    int64_t kept = 0;
    for (int64_t i = 0; i < n; i++)
        if (a[i] >= p5 && a[i] <= p95) {
            sum += a[i];
            kept++;
        }
    const double mean = kept ? sum / (double)kept : 0;
    double squares = 0;
    for (int64_t i = 0; i < n; i++)
        if (a[i] >= p5 && a[i] <= p95)
            squares += (a[i] - mean) * (a[i] - mean);
    *centre = (float)p50;
    *spread = kept ? (float)sqrt(squares / (double)kept) : 0.0f;
}

blade_status blade_dedoppler_statistics(const float* zero_drift,
                                        const uint8_t* flags,
                                        int64_t beams,
                                        int64_t channels,
                                        int64_t nfpc,
                                        blade_dedoppler_normalization normalization,
                                        float* centres,
                                        float* spreads)
{
    const int64_t coarse = channels / nfpc, segments = beams * coarse;
    bool failed = false;
#pragma omp parallel num_threads(blade_cpu_threads()) if (segments > 1 && \
                                                          beams * channels >= (1 << 16))
    {
        double* values = malloc((size_t)(2 * nfpc) * sizeof *values);
        if (values == NULL) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t s = 0; s < segments; s++) {
            if (values == NULL)
                continue;
            const int64_t beam = s / coarse, first = beam * channels + (s % coarse) * nfpc;
            int64_t n = 0;
            for (int64_t f = first; f < first + nfpc; f++)
                if (flags == NULL || !flags[f])
                    values[n++] = zero_drift[f];
            centre_and_spread(values, values + nfpc, n, normalization, &centres[s], &spreads[s]);
        }
        free(values);
    }
    if (failed)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                          "dedoppler: no memory for the statistics of %lld channels",
                          (long long)nfpc);
    return BLADE_OK;
}

void blade_dedoppler_kurtosis_flags(const double* s1,
                                    const double* s2,
                                    int64_t count,
                                    int64_t spectra,
                                    double shape,
                                    double sigmas,
                                    uint8_t* flags)
{
    const double m = (double)spectra, n = shape;
    const double variance = 2 * n * (n + 1) * m * m / ((m - 1) * (m * n + 2) * (m * n + 3));
    const double limit = sigmas * sqrt(variance);
    const double scale = (m * n + 1) / (m - 1);
#pragma omp parallel for num_threads(blade_cpu_threads()) schedule(static) if (count >= (1 << 16))
    for (int64_t i = 0; i < count; i++) {
        const double sum = s1[i];
        const double kurtosis = scale * (m * s2[i] / (sum * sum) - 1);
        /* written so that NaN (and S1 ≤ 0) flags */
        flags[i] = !(sum > 0 && fabs(kurtosis - 1) <= limit);
    }
}
