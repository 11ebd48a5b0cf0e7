/* SPDX-License-Identifier: MIT */
/*
 * Beamformer on the CPU: the float32 reference. Where the CPU has AVX-512 or AVX2 (and
 * FMA) it is computed on packed blocks by register tiles, else from BLAS_MIN_BEAMS
 * beams on by cgemm (both beamformer_cpu_packed.c); below, and without either, by the
 * hand loop of this file. BLADE_CPU_BEAMFORMER=loop, cgemm, tiles256 or tiles512 asks
 * for one of them (for measurements and tests; one this CPU or build lacks leaves the
 * automatic choice).
 *
 * The hand loop: for each channel f and polarization p the beams are a complex matrix
 * product Y = W X with W [B, A] and X [A, T] (X has element stride P along t, which is
 * why this is a loop and not a BLAS call). The work is cut into tasks of one channel
 * and TIME_BLOCK time samples; a task keeps the accumulators of BEAM_TILE beams for
 * its samples in a small stack array (16 KiB, L1-resident), streams over the antennas,
 * and adds each antenna's row times each beam's phasor. Rows are read once per beam
 * tile and in memory order; the inner loop over interleaved (time, pol) floats is
 * what the compiler vectorises. Sums run over the antennas in increasing order in
 * float32; tasks are independent, so results do not depend on the number of OpenMP
 * threads. cf16 and ci8 rows are converted (exactly) into a stack buffer first, so
 * they give the same bits as a cast to cf32 followed by this beamformer. The fp16 path
 * rounds each row and phasor to half before its products (the incoherent beam uses
 * the unrounded values, as the GPU's float32 kernel does).
 */
#include "beamformer_backend.h"
#include "cpu_complex_product.h"
#include "cpu_threads_internal.h"
#include "half.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    TIME_BLOCK = 128,            /* time samples per task */
    BEAM_TILE = 8,               /* beams accumulated together */
    MAX_ROW = TIME_BLOCK * 2 * 2 /* floats of one task row: samples x pols x (re, im) */
};

/* Below this many complex multiply-accumulates, threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 20)
/* From this many beams on the BLAS path is faster. Interleaved runs on the 2-core CI
 * machine (A = 20, F = 24, T = 8192, P = 2; BLAS time / loop time): B = 1 1.6, B = 2
 * 1.1, B = 4 0.85, B = 8 0.58; (64, 64) 0.26. */
#define BLAS_MIN_BEAMS 4

/* w[p] of (beam, antenna, channel) as (re, im) pairs, for p < P. */
static inline void load_phasors(
    const blade_beamformer_job* job, int64_t beam, int64_t antenna, int64_t channel, float w[4])
{
    for (int64_t p = 0; p < job->pols; p++) {
        const float* value =
            job->phasors + 2 * (beam * job->stride_beam + antenna * job->stride_antenna +
                                channel * job->stride_channel + p * job->stride_pol);
        w[2 * p] = value[0];
        w[2 * p + 1] = value[1];
    }
}

/* acc[t, p] += w[p] * x[t, p] over `ntimes` samples of two polarizations. */
static void
multiply_add_dual(float* restrict acc, const float* restrict x, const float w[4], int64_t ntimes)
{
    const float w0r = w[0], w0i = w[1], w1r = w[2], w1i = w[3];
    for (int64_t t = 0; t < ntimes; t++) {
        const float* xs = x + 4 * t;
        float* as = acc + 4 * t;
        as[0] += w0r * xs[0] - w0i * xs[1];
        as[1] += w0r * xs[1] + w0i * xs[0];
        as[2] += w1r * xs[2] - w1i * xs[3];
        as[3] += w1r * xs[3] + w1i * xs[2];
    }
}

/* acc[t] += w * x[t] over `ntimes` samples of one polarization. */
static void
multiply_add_single(float* restrict acc, const float* restrict x, const float w[2], int64_t ntimes)
{
    const float wr = w[0], wi = w[1];
    for (int64_t t = 0; t < ntimes; t++) {
        const float* xs = x + 2 * t;
        float* as = acc + 2 * t;
        as[0] += wr * xs[0] - wi * xs[1];
        as[1] += wr * xs[1] + wi * xs[0];
    }
}

/* power[j] += |w[p(j)]|^2 |x[j]|^2 over `count` interleaved (time, pol) elements. */
static void add_incoherent(
    float* restrict power, const float* restrict x, const float w[4], int64_t pols, int64_t count)
{
    const float gain[2] = { w[0] * w[0] + w[1] * w[1],
                            pols == 2 ? w[2] * w[2] + w[3] * w[3] : 0.0f };
    for (int64_t j = 0; j < count; j++)
        power[j] += gain[j % pols] * (x[2 * j] * x[2 * j] + x[2 * j + 1] * x[2 * j + 1]);
}

static void
store_row(const blade_beamformer_job* job, int64_t offset, const float* values, int64_t count)
{
    if (job->output_type == BLADE_CF16) {
        uint16_t* out = (uint16_t*)job->output + 2 * offset;
        for (int64_t i = 0; i < 2 * count; i++)
            out[i] = blade_half_from_float(values[i]);
    } else {
        memcpy((float*)job->output + 2 * offset, values, (size_t)count * 2 * sizeof(float));
    }
}

static void
store_incoherent(const blade_beamformer_job* job, int64_t offset, const float* power, int64_t count)
{
    float values[MAX_ROW];
    for (int64_t j = 0; j < count; j++) {
        values[2 * j] = job->incoherent_sqrt ? sqrtf(power[j]) : power[j];
        values[2 * j + 1] = 0.0f;
    }
    store_row(job, offset, values, count);
}

/* Row of antenna `a` for the task as interleaved floats: in place for cf32, converted
 * (exactly) into `scratch` for cf16 and ci8. */
static const float*
voltage_row(const blade_beamformer_job* job, int64_t offset, int64_t count, float* scratch)
{
    if (job->input_type == BLADE_CF32)
        return (const float*)job->input + 2 * offset;
    if (job->input_type == BLADE_CF16) {
        const uint16_t* in = (const uint16_t*)job->input + 2 * offset;
        for (int64_t i = 0; i < 2 * count; i++)
            scratch[i] = blade_half_to_float(in[i]);
        return scratch;
    }
    const int8_t* in = (const int8_t*)job->input + 2 * offset;
    for (int64_t i = 0; i < 2 * count; i++)
        scratch[i] = (float)in[i];
    return scratch;
}

/* Channel `f`, times [t0, t0 + ntimes): every beam, and the incoherent beam. */
static void beamform_task(const blade_beamformer_job* job, int64_t f, int64_t t0, int64_t ntimes)
{
    const int64_t A = job->antennas, F = job->channels, T = job->times, P = job->pols;
    const int64_t B = job->beams;
    const int64_t count = ntimes * P; /* complex elements of one row */
    float acc[BEAM_TILE][MAX_ROW];
    float power[TIME_BLOCK * 2];
    float scratch[MAX_ROW], rounded[MAX_ROW];
    float w[4] = { 0, 0, 0, 0 };
    const bool half_phasors = job->path == BLADE_BEAMFORMER_FP16;
    const bool half_voltages = blade_beamformer_rounds_voltages(job);

    for (int64_t b0 = 0; b0 < B; b0 += BEAM_TILE) {
        const int64_t nb = B - b0 < BEAM_TILE ? B - b0 : BEAM_TILE;
        const bool incoherent = job->incoherent && b0 == 0;
        for (int64_t b = 0; b < nb; b++)
            memset(acc[b], 0, (size_t)count * 2 * sizeof(float));
        if (incoherent)
            memset(power, 0, (size_t)count * sizeof(float));
        for (int64_t a = 0; a < A; a++) {
            const float* x = voltage_row(job, (a * F + f) * T * P + t0 * P, count, scratch);
            /* the coherent operand: x, or x rounded to half on the fp16 path */
            const float* xc = x;
            if (half_voltages) {
                memcpy(rounded, x, (size_t)count * 2 * sizeof(float));
                blade_beamformer_round_to_half(rounded, 2 * count);
                xc = rounded;
            }
            for (int64_t b = 0; b < nb; b++) {
                load_phasors(job, b0 + b, a, f, w);
                if (incoherent && b == 0) /* float32, unrounded operands, on every path */
                    add_incoherent(power, x, w, P, count);
                if (half_phasors)
                    blade_beamformer_round_to_half(w, 2 * P);
                if (P == 2)
                    multiply_add_dual(acc[b], xc, w, ntimes);
                else
                    multiply_add_single(acc[b], xc, w, ntimes);
            }
        }
        for (int64_t b = 0; b < nb; b++)
            store_row(job, ((b0 + b) * F + f) * T * P + t0 * P, acc[b], count);
        if (incoherent)
            store_incoherent(job, (B * F + f) * T * P + t0 * P, power, count);
    }
}

/* The product for this job: by shape and CPU alone, so that equivalent inputs (ci8 or
 * cf32, [B, A] or full phasors) take the same path and give the same bits. */
static blade_cpu_beamformer_product chosen_product(const blade_beamformer_job* job)
{
#ifdef BLADE_HAVE_OPENBLAS
    const bool blas = true;
#else
    const bool blas = false;
#endif
    const int width = blade_cpu_complex_product_width();
    const char* asked = getenv("BLADE_CPU_BEAMFORMER");
    if (asked != NULL) {
        if (strcmp(asked, "loop") == 0)
            return BLADE_CPU_BEAMFORMER_LOOP;
        if (strcmp(asked, "cgemm") == 0 && blas)
            return BLADE_CPU_BEAMFORMER_CGEMM;
        if (strcmp(asked, "tiles256") == 0 && width >= 256)
            return BLADE_CPU_BEAMFORMER_TILES256;
        if (strcmp(asked, "tiles512") == 0 && width >= 512)
            return BLADE_CPU_BEAMFORMER_TILES512;
    }
    if (width >= 512)
        return BLADE_CPU_BEAMFORMER_TILES512;
    if (width >= 256)
        return BLADE_CPU_BEAMFORMER_TILES256;
    return blas && job->beams >= BLAS_MIN_BEAMS ? BLADE_CPU_BEAMFORMER_CGEMM
                                                : BLADE_CPU_BEAMFORMER_LOOP;
}

void blade_cpu_beamformer(const blade_beamformer_job* job)
{
    const blade_cpu_beamformer_product product = chosen_product(job);
    if (product != BLADE_CPU_BEAMFORMER_LOOP && blade_cpu_beamformer_packed(job, product))
        return;
    const int64_t F = job->channels, T = job->times;
    const int64_t blocks = (T + TIME_BLOCK - 1) / TIME_BLOCK;
    const int64_t tasks = F * blocks;
    const double macs =
        (double)job->antennas * (double)job->beams * (double)F * (double)T * (double)job->pols;
    (void)macs; /* read only by the OpenMP pragma */
    /* Static scheduling of independent tasks: the result is the same for any number
     * of threads. */
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (macs >= PARALLEL_THRESHOLD)
    for (int64_t task = 0; task < tasks; task++) {
        const int64_t f = task / blocks;
        const int64_t t0 = (task % blocks) * TIME_BLOCK;
        const int64_t ntimes = T - t0 < TIME_BLOCK ? T - t0 : TIME_BLOCK;
        beamform_task(job, f, t0, ntimes);
    }
}
