/* SPDX-License-Identifier: MIT */
/*
 * Channelizer on the CPU: the reference backend, written to follow the formula of
 * include/blade/modules/channelizer.h literally.
 *
 * The work is cut into units of one (a, f) row and a run of `block` consecutive
 * output samples s. For each unit one thread
 *   1. gathers the unit's input into its scratch, planar [p][s][n], multiplying by
 *      (-1)^n (and, with a polyphase filter, summing the M taps of each branch),
 *   2. transforms all P*block blocks in place with one FFTW plan (in cache),
 *   3. scatters the spectra to y[a, f*N + k, s, p], whose runs over (s, p) are
 *      contiguous in memory.
 * So main memory sees one read of x and one write of y. The plan is made once, at
 * creation (fftw_planner.h): from the wisdom file when it holds a measured plan for
 * the problem, else estimated. Either way the algorithm is fixed before the first
 * run, so results do not depend on timing (measuring at each creation could pick
 * different algorithms run to run) nor on the thread count (units are fixed by the
 * shape). FFTW's own threads are not used: the units already keep every core busy
 * with transforms that stay in each core's cache. Units are shared among OpenMP
 * threads, each with its own scratch (all from fftwf_malloc, so they have the
 * alignment the plan was made for).
 *
 * cf16 input is widened to float (exactly) before the gather reads it, the blocks of
 * a unit at a time into a per-thread buffer, and cf16 output rounded to half
 * (nearest, ties to even) as the scatter writes it, a run at a time (cpu_half.h); the
 * history is float32 either way.
 *
 * With two polarizations and one spectrum per unit (N = 8192 and up: the ATA's
 * spectrometer shape) the gather and scatter have loops of their own, as the
 * general ones move one complex value at a time through strides: one pass splits
 * each sample pair into both planes, and one interleaves the two spectra into y,
 * with streaming stores where y is cf32, contiguous, 16-byte aligned and larger
 * than the caches (cpu_stream.h: y goes to memory without being read into the
 * cache first, a third less traffic). Both are copies, exact sign flips and the
 * same half rounding: the same bits as the general loops, in every clone
 * (cpu_simd.h).
 */
#include "channelizer_backend.h"
#include "cpu_half.h"
#include "cpu_pairs.h"
#include "cpu_simd.h"
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "fftw_planner.h"
#include "half.h"
#include "internal.h"

#include <fftw3.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Complex values per scratch (256 KiB: stays in a core's L2 during the FFTs). */
#define SCRATCH_TARGET (1 << 15)
/* Below this many samples per call threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 16)

struct blade_cpu_channelizer {
    blade_channelizer_geometry g;
    float* filter;  /* M*N taps, NULL for the plain FFT */
    float* history; /* [rows][P][H] complex (interleaved re, im), NULL if M = 1 */
    int64_t block;  /* output samples per unit; divides S */
    int64_t units_per_row;
    int nscratch;
    void** scratch;  /* per thread: P*block*N complex values (fftwf_complex) */
    void** widened;  /* per thread, cf16 input off the split path: the blocks a unit
                      * reads, (block + M - 1)*N*P complex values as floats */
    fftwf_plan plan; /* P*block in-place N-point forward transforms */
};

/* The largest divisor of s with p*divisor*n <= SCRATCH_TARGET (at least 1). */
static int64_t unit_block(int64_t s, int64_t p, int64_t n)
{
    int64_t best = 1;
    for (int64_t d = 1; d <= s && p * d * n <= SCRATCH_TARGET; d++)
        if (s % d == 0)
            best = d;
    return best;
}

/* `count` buffers of `bytes` each from fftwf_malloc (the alignment FFTW plans for),
 * in a calloc'd array; on failure the array is kept for destroy() to free what was
 * allocated. */
static blade_status per_thread_buffers(int count, size_t bytes, const char* what, void*** buffers)
{
    *buffers = calloc((size_t)count, sizeof **buffers);
    if (*buffers == NULL)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "channelizer: no memory for %s scratch", what);
    for (int i = 0; i < count; i++) {
        (*buffers)[i] = fftwf_malloc(bytes);
        if ((*buffers)[i] == NULL)
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                              "channelizer: no memory for %zu bytes of %s scratch",
                              bytes,
                              what);
    }
    return BLADE_OK;
}

/* Whether the gather is the split of long transforms: one spectrum of two
 * polarizations per unit and no filter (N = 8192 and up). */
static bool splits_pairs(const blade_cpu_channelizer* self)
{
    return self->filter == NULL && self->g.P == 2 && self->block == 1;
}

/* Whether cf16 input is widened a unit at a time before the gather (every path but
 * the split, which widens as it splits). */
static bool widens(const blade_cpu_channelizer* self)
{
    return self->g.input_half && !splits_pairs(self);
}

blade_status blade_cpu_channelizer_create(const blade_channelizer_geometry* geometry,
                                          const float* filter,
                                          blade_cpu_channelizer** backend)
{
    *backend = NULL;
    blade_cpu_channelizer* self;
    BLADE_TRY(blade_alloc_object(sizeof *self, "channelizer (CPU)", (void**)&self));
    self->g = *geometry;
    const blade_channelizer_geometry* g = &self->g;
    blade_status status = BLADE_OK;

    if (g->M > 1) {
        self->filter = malloc((size_t)(g->M * g->N) * sizeof(float));
        self->history = calloc((size_t)(g->rows * g->P * g->H) * 2, sizeof(float));
        if (self->filter == NULL || self->history == NULL)
            status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                                "channelizer: no memory for the filter history (%lld bytes)",
                                (long long)(g->rows * g->P * g->H * 8));
        else
            for (int64_t i = 0; i < g->M * g->N; i++) /* (-1)^n folded in: see gather() */
                self->filter[i] = (i % g->N) & 1 ? -filter[i] : filter[i];
    }
    if (status == BLADE_OK && g->N > 1) {
        self->block = unit_block(g->S, g->P, g->N);
        self->units_per_row = g->S / self->block;
        /* One scratch per thread; a count raised later is held to this one. */
        self->nscratch = blade_cpu_threads();
        const int64_t values = g->P * self->block * g->N;
        status = per_thread_buffers(
            self->nscratch, (size_t)values * sizeof(fftwf_complex), "FFT", &self->scratch);
        if (status == BLADE_OK && widens(self)) {
            const int64_t floats = 2 * (self->block + g->M - 1) * g->N * g->P;
            status = per_thread_buffers(
                self->nscratch, (size_t)floats * sizeof(float), "cf16", &self->widened);
        }
        if (status == BLADE_OK) {
            self->plan = blade_fftw_plan_forward_batch(
                (int)g->N, (int)(g->P * self->block), self->scratch[0]);
            if (self->plan == NULL)
                status = blade_fail(BLADE_ERROR_UNSUPPORTED,
                                    "channelizer: FFTW could not plan %lld transforms of "
                                    "length %d",
                                    (long long)(g->P * self->block),
                                    (int)g->N);
        }
    }
    if (status != BLADE_OK) {
        blade_cpu_channelizer_destroy(self);
        return status;
    }
    *backend = self;
    return BLADE_OK;
}

/* out[n] += h[n] * x[n * stride] over N complex values; `stride` is constant in each
 * call site below, so each loop is vectorised for its stride. */
static inline void multiply_add_taps(float* restrict out,
                                     const float* restrict h,
                                     const float* restrict x,
                                     int64_t stride,
                                     int64_t N)
{
    for (int64_t n = 0; n < N; n++) {
        out[2 * n] += h[n] * x[2 * n * stride];
        out[2 * n + 1] += h[n] * x[2 * n * stride + 1];
    }
}

/* out[n] = sign(n) * x[n * stride] over N complex values, sign(n) = (-1)^n. */
static inline void
copy_alternating(float* restrict out, const float* restrict x, int64_t stride, int64_t N)
{
    for (int64_t n = 0; n < N; n++) {
        const float sign = (n & 1) ? -1.0f : 1.0f;
        out[2 * n] = sign * x[2 * n * stride];
        out[2 * n + 1] = sign * x[2 * n * stride + 1];
    }
}

/* y[k][X, Y] = (X[k], Y[k]) over N spectral points, y's points `stride` sample pairs
 * apart (1: contiguous); with `stream`, contiguous y is written with streaming stores
 * (cpu_stream.h). */
BLADE_CPU_CLONES
static void interleave_pair(float* restrict y,
                            int64_t stride,
                            const float* restrict X,
                            const float* restrict Y,
                            int64_t N,
                            bool stream)
{
#ifdef __SSE2__
    if (stream && stride == 1 && blade_can_stream(y)) {
        /* the sfence orders the stores before the OpenMP barrier ending the loop */
        for (int64_t k = 0; k < N; k++) {
            __m128 both = _mm_setzero_ps();
            both = _mm_loadl_pi(both, (const __m64*)(X + 2 * k));
            both = _mm_loadh_pi(both, (const __m64*)(Y + 2 * k));
            _mm_stream_ps(y + 4 * k, both);
        }
        _mm_sfence();
        return;
    }
#endif
    if (stride == 1) {
        blade_join_pairs(y, X, Y, N);
        return;
    }
    for (int64_t k = 0; k < N; k++) {
        float* to = y + 4 * k * stride;
        to[0] = X[2 * k];
        to[1] = X[2 * k + 1];
        to[2] = Y[2 * k];
        to[3] = Y[2 * k + 1];
    }
}

/* The same to cf16 y, each value rounded to half (contiguous y: cpu_pairs.h). */
static void interleave_pair_half(uint16_t* restrict y,
                                 int64_t stride,
                                 const float* restrict X,
                                 const float* restrict Y,
                                 int64_t N)
{
    if (stride == 1) {
        blade_join_pairs_half(y, X, Y, N);
        return;
    }
    for (int64_t k = 0; k < N; k++) {
        uint16_t* to = y + 4 * k * stride;
        to[0] = blade_half_from_float(X[2 * k]);
        to[1] = blade_half_from_float(X[2 * k + 1]);
        to[2] = blade_half_from_float(Y[2 * k]);
        to[3] = blade_half_from_float(Y[2 * k + 1]);
    }
}

/* Step 1 of a unit: work[p][sl][n] = (-1)^n * (x or the filtered x) at t = (s0+sl)*N + n.
 * The filter taps carry the (-1)^n already (set at creation: a sign flip is exact, so
 * the sums are those of filtering first and flipping after). Tap m of spectrum s
 * weighs block s - (M-1-m), which lies wholly in this chunk or wholly in the history:
 * so each tap is one contiguous multiply-add over the block's N samples, taps in
 * increasing order, each output starting from 0 (the sums of the plain formula).
 * `blocks` holds the row's blocks of N samples from `first_block` on: the row itself
 * (first_block 0, cf32, or cf16 on the split path), or the unit's blocks widened
 * from cf16 to float. */
static void gather(const blade_cpu_channelizer* self,
                   const void* blocks,
                   bool half,
                   int64_t first_block,
                   const float* row_history,
                   int64_t s0,
                   float* work)
{
    const blade_channelizer_geometry* g = &self->g;
    const int64_t N = g->N, P = g->P, H = g->H, block = self->block;
    const float* row_in = blocks;
    for (int64_t p = 0; p < P; p++)
        for (int64_t sl = 0; sl < block; sl++) {
            float* out = work + 2 * (p * block + sl) * N;
            const int64_t s = s0 + sl;
            if (splits_pairs(self)) {
                /* long transforms: both polarizations in one pass, at p = 0 */
                const int64_t first = 2 * (s - first_block) * N * P;
                if (p == 1)
                    continue;
                if (half)
                    blade_split_pairs_half(
                        out, out + 2 * N, (const uint16_t*)blocks + first, N, true);
                else
                    blade_split_pairs(out, out + 2 * N, row_in + first, N, true);
                continue;
            }
            if (self->filter == NULL) {
                const int64_t first = 2 * ((s - first_block) * N * P + p); /* part of (s*N, p) */
                const float* x = row_in + first;
                if (P == 2)
                    copy_alternating(out, x, 2, N);
                else if (P == 1)
                    copy_alternating(out, x, 1, N);
                else
                    copy_alternating(out, x, P, N);
                continue;
            }
            memset(out, 0, (size_t)N * 2 * sizeof(float));
            for (int m = 0; m < g->M; m++) {
                const int64_t from = s - (int64_t)(g->M - 1 - m); /* the block tap m weighs */
                const float* h = self->filter + m * N;
                if (from >= 0) {
                    const float* x = row_in + 2 * ((from - first_block) * N * P + p);
                    if (P == 2)
                        multiply_add_taps(out, h, x, 2, N);
                    else if (P == 1)
                        multiply_add_taps(out, h, x, 1, N);
                    else
                        multiply_add_taps(out, h, x, P, N);
                } else {
                    /* history[p][j] holds t = j - H, before this chunk */
                    multiply_add_taps(out, h, row_history + 2 * (p * H + H + from * N), 1, N);
                }
            }
        }
}

/* Step 3 of a unit: y[row][k][s0+sl][p] = work[p][sl][k] (rounded to half for cf16). */
static void scatter(
    const blade_cpu_channelizer* self, const float* work, int64_t s0, void* row_output, bool stream)
{
    const blade_channelizer_geometry* g = &self->g;
    const int64_t N = g->N, P = g->P, S = g->S, block = self->block;
    if (P == 2 && block == 1) { /* one spectrum per polarization (N = 8192 and up) */
        if (g->output_half)
            interleave_pair_half((uint16_t*)row_output + 4 * s0, S, work, work + 2 * N, N);
        else
            interleave_pair((float*)row_output + 4 * s0, S, work, work + 2 * N, N, stream);
        return;
    }
    /* A transpose of [p][sl][k] into y's runs over (sl, p), KT points k at a time: each
     * spectrum's KT values are one cache line read, written into KT runs of y. Read a
     * point at a time, the spectra (N complex values apart, 8 KiB at N = 1024) fell in
     * the same few sets of L1. cf16: a tile's runs gathered in float a piece of C
     * values at a time, then rounded (cpu_half.h). */
    enum { KT = 8, C = 64 };
    if (g->output_half) {
        float tile[KT][2 * C];
        for (int64_t k0 = 0; k0 < N; k0 += KT) {
            const int64_t kn = N - k0 < KT ? N - k0 : KT;
            for (int64_t c0 = 0; c0 < block * P; c0 += C) { /* c = sl * P + p */
                const int64_t cn = block * P - c0 < C ? block * P - c0 : C;
                for (int64_t c = c0; c < c0 + cn; c++) {
                    const float* from = work + 2 * ((c % P * block + c / P) * N + k0);
                    for (int64_t j = 0; j < kn; j++) {
                        tile[j][2 * (c - c0)] = from[2 * j];
                        tile[j][2 * (c - c0) + 1] = from[2 * j + 1];
                    }
                }
                for (int64_t j = 0; j < kn; j++)
                    blade_floats_to_halves((uint16_t*)row_output +
                                               2 * (((k0 + j) * S + s0) * P + c0),
                                           tile[j],
                                           2 * cn);
            }
        }
        return;
    }
    float* y = row_output;
    for (int64_t k0 = 0; k0 < N; k0 += KT) {
        const int64_t kn = N - k0 < KT ? N - k0 : KT;
        for (int64_t sl = 0; sl < block; sl++)
            for (int64_t p = 0; p < P; p++) {
                const float* from = work + 2 * ((p * block + sl) * N + k0);
                float* to = y + 2 * ((k0 * S + s0 + sl) * P + p);
                for (int64_t j = 0; j < kn; j++) {
                    to[2 * j * S * P] = from[2 * j];
                    to[2 * j * S * P + 1] = from[2 * j + 1];
                }
            }
    }
}

/* Part (re or im) i of a cf32 or cf16 array, as float. */
static inline float part(const void* data, int half, int64_t i)
{
    return half ? blade_half_to_float(((const uint16_t*)data)[i]) : ((const float*)data)[i];
}

/* After a chunk, for series `rp` (row rp / P, polarization rp % P):
 * history[row][p][j] = xs[T - H + j], the last H samples of the stream. */
static void update_series_history(blade_cpu_channelizer* self, const void* input, int64_t rp)
{
    const blade_channelizer_geometry* g = &self->g;
    const int64_t T = g->T, P = g->P, H = g->H;
    const int64_t row = rp / P, p = rp % P;
    float* history = self->history + 2 * rp * H;
    const int64_t row_in = 2 * row * T * P; /* part index of the row's first sample */
    int64_t kept = 0; /* history samples that stay history (chunk shorter than H) */
    if (T < H) {
        kept = H - T;
        memmove(history, history + 2 * T, (size_t)kept * 2 * sizeof(float));
    }
    for (int64_t j = kept; j < H; j++) {
        const int64_t t = T - H + j;
        history[2 * j] = part(input, g->input_half, row_in + 2 * (t * P + p));
        history[2 * j + 1] = part(input, g->input_half, row_in + 2 * (t * P + p) + 1);
    }
}

static void update_history(blade_cpu_channelizer* self, const void* input)
{
    const int64_t series = self->g.rows * self->g.P;
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (series * self->g.H >= PARALLEL_THRESHOLD)
    for (int64_t rp = 0; rp < series; rp++)
        update_series_history(self, input, rp);
}

/* N = 1: y = x, converted when the types differ. */
static void pass_through(const blade_channelizer_geometry* g, const void* input, void* output)
{
    const int64_t parts = 2 * g->rows * g->T * g->P;
    if (g->input_half == g->output_half) {
        if (input != output)
            memcpy(output, input, (size_t)parts * (g->input_half ? 2 : 4));
    } else if (g->output_half) {
        blade_floats_to_halves(output, input, parts);
    } else {
        blade_halves_to_floats(output, input, parts);
    }
}

void blade_cpu_channelizer_process(blade_cpu_channelizer* self, const void* input, void* output)
{
    const blade_channelizer_geometry* g = &self->g;
    const int64_t row_values = g->T * g->P; /* complex values per row, in and out */
    if (g->N == 1) {
        pass_through(g, input, output);
        return;
    }
    const int64_t in_bytes = g->input_half ? 4 : 8, out_bytes = g->output_half ? 4 : 8;
    const int64_t units = g->rows * self->units_per_row;
    const int threads = blade_cpu_threads() < self->nscratch ? blade_cpu_threads() : self->nscratch;
    (void)threads; /* without OpenMP the pragma that reads it is ignored */
    /* Units of whole rows (one spectrum per row: S = 1) keep their rows' history as
     * they go, after reading the row and before writing its spectra: then the output
     * may be the input itself (channelizer.c), whose rows are overwritten by the time
     * a pass over the whole input after the loop would read them. */
    const bool history_by_unit = self->history != NULL && self->units_per_row == 1 && g->S == 1;
    /* y far larger than the caches: written around them. In place (S = 1) too: a
     * unit's split pass and history have read its whole row into the scratch before
     * the interleave pass writes the row back, from the scratch alone, and a
     * streaming store to a line still in the cache keeps it coherent. */
    const bool stream = blade_stream_pays(g->rows * row_values * out_bytes);
#pragma omp parallel for num_threads(threads) \
    schedule(static) if (g->rows * row_values >= PARALLEL_THRESHOLD)
    for (int64_t u = 0; u < units; u++) {
#ifdef _OPENMP
        fftwf_complex* work = self->scratch[omp_get_thread_num()];
#else
        fftwf_complex* work = self->scratch[0];
#endif
        const int64_t row = u / self->units_per_row;
        const int64_t s0 = (u % self->units_per_row) * self->block;
        const float* history = self->history ? self->history + 2 * row * g->P * g->H : NULL;
        const char* row_input = (const char*)input + row * row_values * in_bytes;
        if (self->widened != NULL) {
#ifdef _OPENMP
            float* wide = self->widened[omp_get_thread_num()];
#else
            float* wide = self->widened[0];
#endif
            const int64_t lo = s0 - (g->M - 1) > 0 ? s0 - (g->M - 1) : 0; /* taps reach back */
            const int64_t values = (s0 + self->block - lo) * g->N * g->P;
            blade_halves_to_floats(
                wide, (const uint16_t*)row_input + 2 * lo * g->N * g->P, 2 * values);
            gather(self, wide, false, lo, history, s0, (float*)work);
        } else {
            gather(self, row_input, g->input_half, 0, history, s0, (float*)work);
        }
        if (history_by_unit)
            for (int64_t p = 0; p < g->P; p++)
                update_series_history(self, input, row * g->P + p);
        fftwf_execute_dft(self->plan, work, work);
        scatter(self, (const float*)work, s0, (char*)output + row * row_values * out_bytes, stream);
    }
    if (self->history != NULL && !history_by_unit)
        update_history(self, input);
}

void blade_cpu_channelizer_reset(blade_cpu_channelizer* self)
{
    if (self != NULL && self->history != NULL)
        memset(
            self->history, 0, (size_t)(self->g.rows * self->g.P * self->g.H) * 2 * sizeof(float));
}

void blade_cpu_channelizer_destroy(blade_cpu_channelizer* self)
{
    if (self == NULL)
        return;
    if (self->plan != NULL) {
        blade_fftw_planner_lock();
        fftwf_destroy_plan(self->plan);
        blade_fftw_planner_unlock();
    }
    for (int i = 0; self->scratch != NULL && i < self->nscratch; i++)
        fftwf_free(self->scratch[i]);
    free(self->scratch);
    for (int i = 0; self->widened != NULL && i < self->nscratch; i++)
        fftwf_free(self->widened[i]);
    free(self->widened);
    free(self->filter);
    free(self->history);
    free(self);
}
