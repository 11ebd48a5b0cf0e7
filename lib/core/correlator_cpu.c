/* SPDX-License-Identifier: MIT */
/*
 * Correlator on the CPU, the reference: every product x_i * conj(x_j) is formed in
 * double precision (exact: a float times a float fits a double's mantissa) and summed
 * sequentially in double, channel after channel and within a channel in time order,
 * then rounded to float once.
 *
 * A task is one output channel and one time window. It copies TIME_BLOCK samples of
 * every antenna into a small double buffer (time-major, so that a pair's samples are
 * adjacent and the conversion from cf32 or ci8 happens once per sample instead of
 * once per pair), then runs over the baselines, each keeping its P*P running sums in
 * registers for the block and storing them back: the order of every sum is exactly
 * sequential whatever the block size. Tasks are independent, so OpenMP threads split
 * them with no effect on the result.
 */
#include "correlator_backend.h"
#include "cpu_blas.h"
#include "cpu_threads_internal.h"
#include "internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { TIME_BLOCK = 32 };

/* Below this many complex multiply-accumulates, threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 20)

/* Samples [t0, t0 + count) of channel f of every antenna into block[a][t][p] (re, im)
 * doubles. */
static void
load_block(const blade_correlator_job* job, int64_t f, int64_t t0, int64_t count, double* block)
{
    const int64_t A = job->antennas, F = job->channels, T = job->times, P = job->pols;
    const int64_t values = 2 * count * P; /* doubles per antenna */
    for (int64_t a = 0; a < A; a++) {
        const int64_t first = ((a * F + f) * T + t0) * P; /* complex element */
        double* row = block + a * values;
        if (job->input_type == BLADE_CI8) {
            const int8_t* in = (const int8_t*)job->input + 2 * first;
            for (int64_t k = 0; k < values; k++)
                row[k] = in[k];
        } else {
            const float* in = (const float*)job->input + 2 * first;
            for (int64_t k = 0; k < values; k++)
                row[k] = in[k];
        }
    }
}

/* sums[i*4 .. ] (XX, XY, YX, YY as re, im pairs) of baseline (x, y) += the block's
 * products x_p * conj(y_q) over `count` samples of two polarizations. */
static void
correlate_dual(const double* restrict x, const double* restrict y, int64_t count, double* sums)
{
    double s[8];
    memcpy(s, sums, sizeof s);
    for (int64_t t = 0; t < count; t++, x += 4, y += 4) {
        const double xr = x[0], xi = x[1], zr = x[2], zi = x[3]; /* x_X, x_Y */
        const double yr = y[0], yi = y[1], wr = y[2], wi = y[3]; /* y_X, y_Y */
        s[0] += xr * yr + xi * yi;                               /* XX */
        s[1] += xi * yr - xr * yi;
        s[2] += xr * wr + xi * wi; /* XY */
        s[3] += xi * wr - xr * wi;
        s[4] += zr * yr + zi * yi; /* YX */
        s[5] += zi * yr - zr * yi;
        s[6] += zr * wr + zi * wi; /* YY */
        s[7] += zi * wr - zr * wi;
    }
    memcpy(sums, s, sizeof s);
}

static void
correlate_single(const double* restrict x, const double* restrict y, int64_t count, double* sums)
{
    double re = sums[0], im = sums[1];
    for (int64_t t = 0; t < count; t++, x += 2, y += 2) {
        re += x[0] * y[0] + x[1] * y[1];
        im += x[1] * y[0] - x[0] * y[1];
    }
    sums[0] = re;
    sums[1] = im;
}

/* Output channel g, window w: sums of every baseline into sums[b][P*P][2]. */
static void
correlate_task(const blade_correlator_job* job, int64_t g, int64_t w, double* sums, double* block)
{
    const int64_t A = job->antennas, P = job->pols, products = P * P;
    const int64_t values = 2 * products; /* doubles per baseline */
    memset(sums, 0, (size_t)(blade_correlator_baselines(A) * values) * sizeof *sums);
    for (int64_t c = 0; c < job->channel_integration; c++) {
        const int64_t f = g * job->channel_integration + c;
        for (int64_t t0 = w * job->window; t0 < (w + 1) * job->window; t0 += TIME_BLOCK) {
            const int64_t end = (w + 1) * job->window;
            const int64_t count = end - t0 < TIME_BLOCK ? end - t0 : TIME_BLOCK;
            load_block(job, f, t0, count, block);
            const int64_t row = 2 * count * P; /* doubles per antenna in the block */
            double* baseline = sums;
            for (int64_t i = 0; i < A; i++) {
                for (int64_t j = i; j < A; j++, baseline += values) {
                    if (P == 2)
                        correlate_dual(block + i * row, block + j * row, count, baseline);
                    else
                        correlate_single(block + i * row, block + j * row, count, baseline);
                }
            }
        }
    }
}

/* Store one task's sums: total = previous + sums (conjugated for a lower sideband)
 * into the double accumulator, or rounded into the float output. */
static void store_task(const blade_correlator_job* job,
                       int64_t g,
                       int64_t w,
                       const double* sums,
                       const double* previous,
                       double* accumulator,
                       float* output)
{
    const int64_t baselines = blade_correlator_baselines(job->antennas);
    const int64_t groups = job->channels / job->channel_integration;
    const int64_t products = job->pols * job->pols;
    for (int64_t b = 0; b < baselines; b++) {
        for (int64_t q = 0; q < products; q++) {
            const int64_t at = 2 * (((b * groups + g) * job->windows + w) * products + q);
            const double* value = sums + 2 * (b * products + q);
            double re = value[0], im = job->lower_sideband ? -value[1] : value[1];
            if (previous) {
                re += previous[at];
                im += previous[at + 1];
            }
            if (accumulator) {
                accumulator[at] = re;
                accumulator[at + 1] = im;
            } else {
                output[at] = (float)re;
                output[at + 1] = (float)im;
            }
        }
    }
}

blade_status blade_cpu_correlate(const blade_correlator_job* job,
                                 const double* previous,
                                 double* accumulator,
                                 float* output)
{
    const int64_t A = job->antennas, P = job->pols;
    const int64_t baselines = blade_correlator_baselines(A);
    const int64_t groups = job->channels / job->channel_integration;
    const int64_t tasks = groups * job->windows;
    const double macs =
        (double)baselines * (double)(P * P) * (double)job->channels * (double)job->times;
    const bool threaded = macs >= PARALLEL_THRESHOLD && tasks > 1;
    int threads = 1;
#ifdef _OPENMP
    if (threaded)
        threads = blade_cpu_threads();
#endif
    /* Each thread's sums and working memory (the reference's sample block, or the
     * BLAS task's), allocated before the threads start so that a failure is reported
     * rather than met inside a parallel region. */
    const size_t sums_values = (size_t)(baselines * 2 * P * P);
    size_t work_values = (size_t)(A * TIME_BLOCK * 2 * P);
#ifdef BLADE_HAVE_OPENBLAS
    const bool blas = job->path == BLADE_CORRELATOR_FP32;
    if (blas) {
        work_values =
            (blade_cpu_correlator_blas_scratch(job) + sizeof(double) - 1) / sizeof(double);
        blade_cpu_blas_single_threaded();
    }
#endif
    double* scratch = malloc((size_t)threads * (sums_values + work_values) * sizeof(double));
    if (scratch == NULL)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                          "correlator: %zu bytes of working memory for %d thread(s)",
                          (size_t)threads * (sums_values + work_values) * sizeof(double),
                          threads);
#pragma omp parallel num_threads(threads) if (threaded)
    {
        int thread = 0;
#ifdef _OPENMP
        thread = omp_get_thread_num();
#endif
        double* sums = scratch + (size_t)thread * (sums_values + work_values);
        double* work = sums + sums_values;
#pragma omp for schedule(static)
        for (int64_t task = 0; task < tasks; task++) {
            const int64_t g = task / job->windows, w = task % job->windows;
#ifdef BLADE_HAVE_OPENBLAS
            if (blas)
                blade_cpu_correlator_blas_task(job, g, w, sums, work);
            else
#endif
                correlate_task(job, g, w, sums, work);
            store_task(job, g, w, sums, previous, accumulator, output);
        }
    }
    free(scratch);
    return BLADE_OK;
}
