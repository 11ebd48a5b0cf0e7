/* SPDX-License-Identifier: MIT */
/*
 * Beamformer on the CPU on packed blocks: for each channel f and polarization p the
 * beams are the complex matrix product Y = W X, W [B, A], X [A, T]. The voltages
 * interleave the polarizations (element stride P along t), and the products want unit
 * strides, so the work is cut into tasks of one channel and TIME_BLOCK samples; a task
 * packs its voltages as [p][a][t] (converting cf16 and ci8 exactly) and its phasors as
 * [p][b][a], forms the product once per polarization on those L2-resident blocks, and
 * interleaves it into y[b, f, t, p] (the fp16 path rounds the packed operands to half
 * first).
 *
 * The product: register tiles in AVX-512 or AVX2 (cpu_complex_product.c), where the CPU
 * has them, or OpenBLAS's cblas_cgemm (blade_cpu_beamformer_packed's `product`). The
 * tiles ran 1.3x cgemm's rate at (64, 64) and 2.2x at (8, 28) on one core of the CI
 * machine, and do not depend on which kernels OpenBLAS picks for the CPU (its
 * generic SSE3 ones where it does not know the model: docs/performance.md, round 4).
 * Sums over the antennas are float32: the tiles' two chains per output (Σ w.re x,
 * Σ w.im x, in antenna order), or the order OpenBLAS's kernel takes; the two agree to
 * float32 rounding.
 *
 * One level of threads: OpenMP threads share the tasks, each forming its own products
 * single-threaded, so the result does not depend on the thread count. The other way,
 * one cgemm per channel and polarization over all T samples with OpenBLAS's threads
 * and no OpenMP around it, ran (64, 64) 3-4x slower on the CI machine with 2 threads
 * and 0.92x with one (its pack and store run between the products, and its threads
 * wait for one another at each call), and longer blocks with OpenMP did not pay either
 * (512 and 1024 samples: 0.74-1.03x of 256; docs/performance.md). OpenBLAS's count is
 * process-wide, so it is set to 1 before each product, not once: another user of
 * OpenBLAS in the process (numpy) may have raised it, and its threads inside ours would
 * oversubscribe the cores. The incoherent beam is summed from the packed voltages with
 * VOLK kernels, antennas in increasing order.
 */
#include "beamformer_backend.h"
#include "cpu_complex_product.h"
#include "cpu_pairs.h"
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "half.h"

#include <volk/volk.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef BLADE_HAVE_OPENBLAS
#include "cpu_blas.h"

#include <cblas.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

/* Samples per task: X, Y and W of (64, 64) in 320 KiB, in L2; one thread's cgemm
 * of (64 x 64) x (64 x 256) ran at 89 GFLOP/s on the CI machine's earlier CPU, 83 at
 * 512, 41 at 8192. */
enum { TIME_BLOCK = 256 };

typedef struct task_scratch {
    float* x;               /* [P][A][TIME_BLOCK] complex */
    float* w;               /* [P][B][A] complex */
    float* w_half;          /* w rounded to half (fp16 path only) */
    float* y;               /* [P][B][TIME_BLOCK] complex */
    float* power;           /* [P][TIME_BLOCK] incoherent power, then one row of terms */
    int64_t packed_channel; /* the channel whose phasors `w` holds (-1: none) */
} task_scratch;

static void pack_phasors(const blade_beamformer_job* job, int64_t f, float* w)
{
    const int64_t A = job->antennas, B = job->beams;
    for (int64_t p = 0; p < job->pols; p++)
        for (int64_t b = 0; b < B; b++)
            for (int64_t a = 0; a < A; a++) {
                const float* value =
                    job->phasors + 2 * (b * job->stride_beam + a * job->stride_antenna +
                                        f * job->stride_channel + p * job->stride_pol);
                float* to = w + 2 * ((p * B + b) * A + a);
                to[0] = value[0];
                to[1] = value[1];
            }
}

static void
pack_voltages(const blade_beamformer_job* job, int64_t f, int64_t t0, int64_t nt, float* x)
{
    const int64_t A = job->antennas, F = job->channels, T = job->times, P = job->pols;
    for (int64_t a = 0; a < A; a++) {
        const int64_t offset = ((a * F + f) * T + t0) * P; /* complex elements */
        float* planes[2] = { x + 2 * a * TIME_BLOCK, x + 2 * (A + a) * TIME_BLOCK };
        if (P == 2 && job->input_type == BLADE_CF32) {
            blade_split_pairs(
                planes[0], planes[1], (const float*)job->input + 2 * offset, nt, false);
        } else if (P == 2 && job->input_type == BLADE_CI8) {
            blade_split_pairs_ci8(planes[0], planes[1], (const int8_t*)job->input + 2 * offset, nt);
        } else if (P == 2 && job->input_type == BLADE_CF16) {
            blade_split_pairs_half(
                planes[0], planes[1], (const uint16_t*)job->input + 2 * offset, nt, false);
        } else if (job->input_type == BLADE_CF32) {
            const float* in = (const float*)job->input + 2 * offset;
            for (int64_t p = 0; p < P; p++) {
                float* to = x + 2 * (p * A + a) * TIME_BLOCK;
                for (int64_t t = 0; t < nt; t++) {
                    to[2 * t] = in[2 * (t * P + p)];
                    to[2 * t + 1] = in[2 * (t * P + p) + 1];
                }
            }
        } else if (job->input_type == BLADE_CF16) {
            const uint16_t* in = (const uint16_t*)job->input + 2 * offset;
            for (int64_t p = 0; p < P; p++) {
                float* to = x + 2 * (p * A + a) * TIME_BLOCK;
                for (int64_t t = 0; t < nt; t++) {
                    to[2 * t] = blade_half_to_float(in[2 * (t * P + p)]);
                    to[2 * t + 1] = blade_half_to_float(in[2 * (t * P + p) + 1]);
                }
            }
        } else {
            const int8_t* in = (const int8_t*)job->input + 2 * offset;
            for (int64_t p = 0; p < P; p++) {
                float* to = x + 2 * (p * A + a) * TIME_BLOCK;
                for (int64_t t = 0; t < nt; t++) {
                    to[2 * t] = (float)in[2 * (t * P + p)];
                    to[2 * t + 1] = (float)in[2 * (t * P + p) + 1];
                }
            }
        }
    }
}

/* y[b, f, t0 + t, p] from the products [p][b][t]; with `stream`, cf32 pairs are joined
 * in L1 and written with streaming stores (the caller fences). */
static void store_beams(
    const blade_beamformer_job* job, int64_t f, int64_t t0, int64_t nt, const float* y, bool stream)
{
    const int64_t F = job->channels, T = job->times, P = job->pols, B = job->beams;
    float joined[4 * TIME_BLOCK] __attribute__((aligned(64)));
    for (int64_t b = 0; b < B; b++) {
        const int64_t offset = ((b * F + f) * T + t0) * P;
        if (P == 2 && job->output_type == BLADE_CF32) {
            float* out = (float*)job->output + 2 * offset;
            if (stream) {
                blade_join_pairs(joined, y + 2 * b * TIME_BLOCK, y + 2 * (B + b) * TIME_BLOCK, nt);
                blade_stream_copy_unfenced(out, joined, (size_t)(4 * nt) * sizeof(float));
            } else {
                blade_join_pairs(out, y + 2 * b * TIME_BLOCK, y + 2 * (B + b) * TIME_BLOCK, nt);
            }
            continue;
        }
        if (P == 2) {
            blade_join_pairs_half((uint16_t*)job->output + 2 * offset,
                                  y + 2 * b * TIME_BLOCK,
                                  y + 2 * (B + b) * TIME_BLOCK,
                                  nt);
            continue;
        }
        for (int64_t p = 0; p < P; p++) {
            const float* from = y + 2 * (p * B + b) * TIME_BLOCK;
            if (job->output_type == BLADE_CF16) {
                uint16_t* out = (uint16_t*)job->output + 2 * offset;
                for (int64_t t = 0; t < nt; t++) {
                    out[2 * (t * P + p)] = blade_half_from_float(from[2 * t]);
                    out[2 * (t * P + p) + 1] = blade_half_from_float(from[2 * t + 1]);
                }
            } else {
                float* out = (float*)job->output + 2 * offset;
                for (int64_t t = 0; t < nt; t++) {
                    out[2 * (t * P + p)] = from[2 * t];
                    out[2 * (t * P + p) + 1] = from[2 * t + 1];
                }
            }
        }
    }
}

/* The incoherent beam of the block: Σ_a |w[0, a, f, p]|² |x[a, t, p]|², antennas in
 * increasing order (float32, as the hand loop sums it), through VOLK: the power of
 * each packed voltage row (volk_32fc_magnitude_squared_32f), scaled by the gain
 * (volk_32f_s32f_multiply_32f) and added (volk_32f_x2_add_32f) into power[p][t];
 * written at beam index B. */
static void incoherent_beam(const blade_beamformer_job* job,
                            int64_t f,
                            int64_t t0,
                            int64_t nt,
                            const float* x,
                            const float* w,
                            float* power)
{
    const int64_t A = job->antennas, F = job->channels, T = job->times, P = job->pols;
    const int64_t B = job->beams;
    float* term = power + P * TIME_BLOCK;
    memset(power, 0, (size_t)(P * TIME_BLOCK) * sizeof(float));
    for (int64_t a = 0; a < A; a++)
        for (int64_t p = 0; p < P; p++) {
            const float* wp = w + 2 * (p * B * A + a); /* beam 0 */
            const float gain = wp[0] * wp[0] + wp[1] * wp[1];
            const lv_32fc_t* xs = (const lv_32fc_t*)(x + 2 * (p * A + a) * TIME_BLOCK);
            volk_32fc_magnitude_squared_32f(term, xs, (unsigned)nt);
            volk_32f_s32f_multiply_32f(term, term, gain, (unsigned)nt);
            volk_32f_x2_add_32f(power + p * TIME_BLOCK, power + p * TIME_BLOCK, term, (unsigned)nt);
        }
    const int64_t offset = ((B * F + f) * T + t0) * P;
    for (int64_t t = 0; t < nt; t++)
        for (int64_t p = 0; p < P; p++) {
            const float sum = power[p * TIME_BLOCK + t];
            const float value = job->incoherent_sqrt ? sqrtf(sum) : sum;
            const int64_t at = offset + t * P + p;
            if (job->output_type == BLADE_CF16) {
                uint16_t* out = (uint16_t*)job->output + 2 * at;
                out[0] = blade_half_from_float(value);
                out[1] = blade_half_from_float(0.0f);
            } else {
                float* out = (float*)job->output + 2 * at;
                out[0] = value;
                out[1] = 0.0f;
            }
        }
}

/* y [B][nt] = w [B][A] x [A][nt], rows TIME_BLOCK apart in x and y. */
static void multiply(blade_cpu_beamformer_product product,
                     int64_t B,
                     int64_t nt,
                     int64_t A,
                     const float* w,
                     const float* x,
                     float* y)
{
#ifdef BLADE_HAVE_OPENBLAS
    if (product == BLADE_CPU_BEAMFORMER_CGEMM) {
        const float one[2] = { 1.0f, 0.0f }, zero[2] = { 0.0f, 0.0f };
        cblas_cgemm(CblasRowMajor,
                    CblasNoTrans,
                    CblasNoTrans,
                    (blasint)B,
                    (blasint)nt,
                    (blasint)A,
                    one,
                    w,
                    (blasint)A,
                    x,
                    TIME_BLOCK,
                    zero,
                    y,
                    TIME_BLOCK);
        return;
    }
#endif
    blade_cpu_complex_product(product == BLADE_CPU_BEAMFORMER_TILES512 ? 512 : 256,
                              B,
                              nt,
                              A,
                              w,
                              A,
                              x,
                              TIME_BLOCK,
                              y,
                              TIME_BLOCK);
}

static void beamform_block(const blade_beamformer_job* job,
                           blade_cpu_beamformer_product product,
                           bool stream,
                           int64_t f,
                           int64_t t0,
                           int64_t nt,
                           task_scratch* s)
{
    const int64_t A = job->antennas, P = job->pols, B = job->beams;
    /* A thread's tasks are consecutive (static schedule), so most follow one of the
     * same channel: its phasors, one cache line each in [B, A, F, P], are packed once. */
    const bool half = job->path == BLADE_BEAMFORMER_FP16;
    if (s->packed_channel != f) {
        pack_phasors(job, f, s->w);
        if (half) {
            memcpy(s->w_half, s->w, (size_t)(2 * P * B * A) * sizeof(float));
            blade_beamformer_round_to_half(s->w_half, 2 * P * B * A);
        }
        s->packed_channel = f;
    }
    pack_voltages(job, f, t0, nt, s->x);
    /* The incoherent beam first: float32 on the unrounded voltages, on every path. */
    if (job->incoherent)
        incoherent_beam(job, f, t0, nt, s->x, s->w, s->power);
    if (blade_beamformer_rounds_voltages(job))
        for (int64_t row = 0; row < P * A; row++)
            blade_beamformer_round_to_half(s->x + 2 * row * TIME_BLOCK, 2 * nt);
    const float* w = half ? s->w_half : s->w;
    for (int64_t p = 0; p < P; p++)
        multiply(product,
                 B,
                 nt,
                 A,
                 w + 2 * p * B * A,
                 s->x + 2 * p * A * TIME_BLOCK,
                 s->y + 2 * p * B * TIME_BLOCK);
    store_beams(job, f, t0, nt, s->y, stream);
}

bool blade_cpu_beamformer_packed(const blade_beamformer_job* job,
                                 blade_cpu_beamformer_product product)
{
    const int64_t A = job->antennas, F = job->channels, T = job->times, P = job->pols;
    const int64_t B = job->beams;
#ifdef BLADE_HAVE_OPENBLAS
    if (product == BLADE_CPU_BEAMFORMER_CGEMM)
        blade_cpu_blas_single_threaded();
#endif
    const int64_t blocks = (T + TIME_BLOCK - 1) / TIME_BLOCK;
    const int64_t tasks = F * blocks;
    int threads = blade_cpu_threads();
    if (threads > tasks)
        threads = (int)tasks;
    const size_t x_floats = (size_t)(2 * P * A * TIME_BLOCK), w_floats = (size_t)(2 * P * B * A);
    const size_t y_floats = (size_t)(2 * P * B * TIME_BLOCK),
                 power_floats = (size_t)((P + 1) * TIME_BLOCK);
    const size_t w_half_floats = job->path == BLADE_BEAMFORMER_FP16 ? w_floats : 0;
    const size_t per_thread = x_floats + w_floats + w_half_floats + y_floats + power_floats;
    float* scratch = malloc((size_t)threads * per_thread * sizeof(float));
    if (scratch == NULL)
        return false; /* the hand loop needs no working memory */
    /* cf32 beams far larger than the caches go out with streaming stores: the same
     * bits, without the read for ownership of every output line. */
    const int64_t outputs = (B + (job->incoherent ? 1 : 0)) * F * T * P;
    const bool stream = job->output_type == BLADE_CF32 && blade_stream_pays(outputs * 8);
#pragma omp parallel num_threads(threads)
    {
        int thread = 0;
#ifdef _OPENMP
        thread = omp_get_thread_num();
#endif
        float* base = scratch + (size_t)thread * per_thread;
        float* w = base + x_floats;
        float* w_half = w + w_floats;
        float* y = w_half + w_half_floats;
        task_scratch s = { base, w, w_half, y, y + y_floats, -1 };
#pragma omp for schedule(static) nowait
        for (int64_t task = 0; task < tasks; task++) {
            const int64_t f = task / blocks, t0 = (task % blocks) * TIME_BLOCK;
            beamform_block(
                job, product, stream, f, t0, T - t0 < TIME_BLOCK ? T - t0 : TIME_BLOCK, &s);
        }
        if (stream)
            blade_stream_fence(); /* before the region's closing barrier */
    }
    free(scratch);
    return true;
}
