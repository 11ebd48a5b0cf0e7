/* SPDX-License-Identifier: MIT */
/*
 * Correlator on the CPU in float32 through BLAS (path fp32, where gr-blade is built
 * with OpenBLAS). For one channel the visibilities of the inputs n = (antenna,
 * polarization) are the Hermitian matrix product V = X X^H over time, which is
 * exactly what cblas_cherk computes (the upper triangle, C[m][n] = sum_t x_m(t)
 * conj(x_n(t))), at most of the FP32 peak instead of the reference's ~1 G complex
 * MAC/s in double.
 *
 * A task (one output channel, one time window: correlator_cpu.c shares them among
 * OpenMP threads) packs TIME_BLOCK samples of every input as rows of X [A P][TIME_BLOCK]
 * (converting ci8 exactly), and calls a single-threaded cherk per block with beta = 1,
 * so C accumulates the whole window and its channels in float32, in the order
 * OpenBLAS's kernel takes. A baseline (i, j), product (p, q) is C[iP + p][jP + q],
 * or the conjugate of C[jP + q][iP + p] for the YX product of an autocorrelation (the
 * lower triangle). The result does not depend on the thread count: each output is
 * summed by one cherk sequence in one thread. Error: that of float32 sums of n terms,
 * |error| <= n 2^-24 sum |x_i||x_j| (the CUDA fp32 path's bound).
 */
#include "correlator_backend.h"

#ifdef BLADE_HAVE_OPENBLAS
#include <cblas.h>
#include <stdint.h>
#include <string.h>

/* Samples per cherk call: X of the ATA node (56 inputs) in 448 KiB, L2-resident. */
enum { TIME_BLOCK = 1024 };

size_t blade_cpu_correlator_blas_scratch(const blade_correlator_job* job)
{
    const size_t inputs = (size_t)(job->antennas * job->pols);
    return (inputs * inputs + inputs * TIME_BLOCK) * 2 * sizeof(float);
}

/* Samples [t0, t0 + count) of channel f of every input into x[(a P + p)][t]: one pass
 * over each antenna's interleaved samples, writing its P rows. */
#define PACK_ROWS(TYPE)                                       \
    do {                                                      \
        const TYPE* in = (const TYPE*)job->input + 2 * first; \
        float* row0 = x + 2 * (a * P) * TIME_BLOCK;           \
        if (P == 2) {                                         \
            float* row1 = row0 + 2 * TIME_BLOCK;              \
            for (int64_t t = 0; t < count; t++) {             \
                row0[2 * t] = in[4 * t];                      \
                row0[2 * t + 1] = in[4 * t + 1];              \
                row1[2 * t] = in[4 * t + 2];                  \
                row1[2 * t + 1] = in[4 * t + 3];              \
            }                                                 \
        } else {                                              \
            for (int64_t t = 0; t < 2 * count; t++)           \
                row0[t] = in[t];                              \
        }                                                     \
    } while (0)

static void
pack_block(const blade_correlator_job* job, int64_t f, int64_t t0, int64_t count, float* x)
{
    const int64_t A = job->antennas, F = job->channels, T = job->times, P = job->pols;
    for (int64_t a = 0; a < A; a++) {
        const int64_t first = ((a * F + f) * T + t0) * P; /* complex element */
        if (job->input_type == BLADE_CI8)
            PACK_ROWS(int8_t);
        else
            PACK_ROWS(float);
    }
}
#undef PACK_ROWS

void blade_cpu_correlator_blas_task(
    const blade_correlator_job* job, int64_t g, int64_t w, double* sums, void* scratch)
{
    const int64_t A = job->antennas, P = job->pols, inputs = A * P;
    float* c = scratch;                 /* [inputs][inputs] complex, upper triangle used */
    float* x = c + 2 * inputs * inputs; /* [inputs][TIME_BLOCK] complex */
    bool first = true;
    for (int64_t k = 0; k < job->channel_integration; k++) {
        const int64_t f = g * job->channel_integration + k;
        const int64_t end = (w + 1) * job->window;
        for (int64_t t0 = w * job->window; t0 < end; t0 += TIME_BLOCK) {
            const int64_t count = end - t0 < TIME_BLOCK ? end - t0 : TIME_BLOCK;
            pack_block(job, f, t0, count, x);
            cblas_cherk(CblasRowMajor,
                        CblasUpper,
                        CblasNoTrans,
                        (blasint)inputs,
                        (blasint)count,
                        1.0f,
                        x,
                        TIME_BLOCK,
                        first ? 0.0f : 1.0f,
                        c,
                        (blasint)inputs);
            first = false;
        }
    }
    /* sums[b][p P + q] (re, im) in the reference's layout. */
    double* to = sums;
    for (int64_t i = 0; i < A; i++)
        for (int64_t j = i; j < A; j++)
            for (int64_t p = 0; p < P; p++)
                for (int64_t q = 0; q < P; q++, to += 2) {
                    const int64_t m = i * P + p, n = j * P + q;
                    if (m <= n) {
                        to[0] = c[2 * (m * inputs + n)];
                        to[1] = c[2 * (m * inputs + n) + 1];
                    } else { /* YX of an autocorrelation: the conjugate of its XY */
                        to[0] = c[2 * (n * inputs + m)];
                        to[1] = -c[2 * (n * inputs + m) + 1];
                    }
                }
}
#endif
