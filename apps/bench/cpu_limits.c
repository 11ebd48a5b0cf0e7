/* SPDX-License-Identifier: MIT */
/*
 * CPU limits for blade-module-bench (cpu_limits.h).
 *
 * Memory: the two STREAM kernels that bound what the modules do. Copy is what cast,
 * gather, duplicate and permutation approach (one read, one write per element),
 * timed as a loop, as memcpy and as a loop of streaming stores (the best counts: a
 * module that streams its output, as the cast does with many threads, skips the
 * write-allocate read, and the bound it is measured against must too);
 * triad adds a second read stream, like the detector or a calibration product.
 * A module that reads far more than it writes (the detector) or writes more than it
 * reads (the cast, the duplicate) moves memory at another rate than a copy: on the
 * CI machine's Xeon one core read alone at 18-22 GB/s against a copy's 26-31 GB/s of
 * reads and writes (streaming stores need no read slots), and a pass reading one
 * byte per four written moved 31 GB/s. So three more passes, each the better of two
 * ways: read (a sum over the array as wide as the CPU's vectors, with and without a
 * software prefetch 4 KiB ahead), write (memset, and streaming stores as wide as the
 * CPU has) and widen (bytes to floats with streaming stores: one byte read per four
 * written). The bench interpolates between them by a case's share of bytes written.
 * Bytes are counted as STREAM counts them (the write-allocate read of the
 * destination is not counted), the same convention as the modules' figures (bytes
 * read + bytes written). The arrays are first touched by the threads that use
 * them, with the same static schedule, so pages are local to their thread. The
 * best of several passes is the limit, as in STREAM.
 *
 * FP32 peak: each thread runs 16 (AVX-512) or 12 (AVX2) independent chains of
 * fused multiply-adds on vector registers: enough chains to cover the FMA latency
 * on every x86 core with two FMA pipes, so the loop runs at the issue rate. The
 * widest instruction set the CPU reports is used (the compiler is told per
 * function, so the build needs no -march flag).
 */
#include "cpu_limits.h"

#include "cpu_simd.h" /* the library's BLADE_CPU_CLONES: loops as wide as the modules' */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

#define PASSES 12

static double best_of(double a, double b) { return a > b ? a : b; }

/* Eight floats: one AVX register, two SSE ones in the baseline clone. Four of them
 * per step (two 64-byte lines). Vectors of sixteen floats, one AVX-512 register, were
 * kept in memory by GCC 12 in the AVX2 clone, their lanes moved through general
 * registers every step: on an AVX2-only Zen 3 that read pass was slower than the
 * detector it bounds (fractions of 111-129 %). */
typedef float f32x8 __attribute__((vector_size(32)));

/* The sum of this thread's part of `a` in four vectors of eight lanes (written as
 * vectors: the compiler left a loop over an array of lanes scalar); `prefetch` asks
 * for each line 4 KiB ahead. The sum is returned so the reads are not removed. */
BLADE_CPU_CLONES
static float read_pass(const float* a, long long begin, long long end, bool prefetch)
{
    f32x8 sum0 = { 0 }, sum1 = { 0 }, sum2 = { 0 }, sum3 = { 0 };
    long long i = begin;
    for (; i + 32 <= end; i += 32) {
        if (prefetch) {
            __builtin_prefetch(a + i + 1024);
            __builtin_prefetch(a + i + 1040);
        }
        f32x8 v0, v1, v2, v3;
        memcpy(&v0, a + i, sizeof v0);
        memcpy(&v1, a + i + 8, sizeof v1);
        memcpy(&v2, a + i + 16, sizeof v2);
        memcpy(&v3, a + i + 24, sizeof v3);
        sum0 += v0;
        sum1 += v1;
        sum2 += v2;
        sum3 += v3;
    }
    float sum = 0;
    for (; i < end; i++)
        sum += a[i];
    for (int k = 0; k < 8; k++)
        sum += (sum0[k] + sum1[k]) + (sum2[k] + sum3[k]);
    return sum;
}

/* The passes that write with streaming stores (no read of b's lines): a copy of
 * floats, a fill, and bytes widened to floats (one byte read per four written). */
typedef enum streamed_source { COPY_FLOATS, FILL, WIDEN_BYTES } streamed_source;

#define FILL_VALUE 0.5f

/* b[i] of a streamed pass from `a` (floats) or `d` (bytes). */
static inline float source_value(streamed_source kind, const float* a, const int8_t* d, long long i)
{
    return kind == COPY_FLOATS ? a[i] : (kind == WIDEN_BYTES ? (float)d[i] : FILL_VALUE);
}

/* This thread's part [begin, end) of a streamed pass, 64 bytes a store where the CPU
 * has AVX-512, as the library's streamed copies (lib/core/cpu_stream.c; on the CI
 * machine's Xeon one core copied 24 GB/s against 17.5 with 16-byte stores), else 16.
 * With AVX-512 the part is taken as `runs` interleaved runs, TURN floats (256 bytes of
 * output) of each in turn, as the library's copies of large blocks are: a core then
 * keeps as many lines in flight as a transpose does (the permutation's transposes,
 * reading 4 to 16 rows at once, moved up to 1.12 times a single run's bytes per second
 * on one core here, and a single-run widening was as slow as the cast itself). */
#define INTERLEAVED_RUNS 8
#define TURN 64
#ifdef HAVE_X86
__attribute__((target("avx512f"))) static void streamed_pass_avx512(streamed_source kind,
                                                                    float* b,
                                                                    const float* a,
                                                                    const int8_t* d,
                                                                    long long begin,
                                                                    long long end,
                                                                    int runs)
{
    long long first = begin;
    for (; first < end && ((uintptr_t)(b + first) & 63) != 0; first++)
        b[first] = source_value(kind, a, d, first);
    /* Each run's length in floats, whole turns. */
    const long long run = (end - first) / runs / TURN * TURN;
    for (long long i = 0; i < run; i += TURN)
        for (int r = 0; r < runs; r++)
            for (int k = 0; k < TURN; k += 16) {
                const long long at = first + r * run + i + k;
                const __m512 v = kind == COPY_FLOATS ? _mm512_loadu_ps(a + at)
                                 : kind == WIDEN_BYTES
                                     ? _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
                                           _mm_loadu_si128((const __m128i*)(d + at))))
                                     : _mm512_set1_ps(FILL_VALUE);
                _mm512_stream_ps(b + at, v);
            }
    _mm_sfence();
    for (long long i = first + runs * run; i < end; i++)
        b[i] = source_value(kind, a, d, i);
}
#endif

/* `runs` applies where the CPU has AVX-512 (elsewhere one run). */
static void streamed_pass(streamed_source kind,
                          float* b,
                          const float* a,
                          const int8_t* d,
                          long long begin,
                          long long end,
                          int runs)
{
    long long i = begin;
    (void)runs;
#ifdef HAVE_X86
    if (__builtin_cpu_supports("avx512f")) {
        streamed_pass_avx512(kind, b, a, d, begin, end, runs);
        return;
    }
    for (; i < end && ((uintptr_t)(b + i) & 15) != 0; i++)
        b[i] = source_value(kind, a, d, i);
    for (; i + 4 <= end; i += 4) {
        const __m128 v = kind == COPY_FLOATS ? _mm_loadu_ps(a + i)
                         : kind == WIDEN_BYTES
                             ? _mm_cvtepi32_ps(_mm_set_epi32(d[i + 3], d[i + 2], d[i + 1], d[i]))
                             : _mm_set1_ps(FILL_VALUE);
        _mm_stream_ps(b + i, v);
    }
    _mm_sfence();
#endif
    for (; i < end; i++)
        b[i] = source_value(kind, a, d, i);
}

/* Seconds on a monotonic clock (without OpenMP the loops run on one thread). */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds of one streamed pass over all n values, each thread its static part. */
static double timed_streamed_pass(streamed_source kind,
                                  int threads,
                                  float* b,
                                  const float* a,
                                  const int8_t* d,
                                  long long n,
                                  int runs)
{
    const double start = now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int part = 0; part < threads; part++)
        streamed_pass(kind, b, a, d, n * part / threads, n * (part + 1) / threads, runs);
    return now() - start;
}

/* The faster of a single-run and (with AVX-512) an interleaved streamed pass, in
 * seconds. */
static double timed_streamed_passes(
    streamed_source kind, int threads, float* b, const float* a, const int8_t* d, long long n)
{
    const double single = timed_streamed_pass(kind, threads, b, a, d, n, 1);
#ifdef HAVE_X86
    if (__builtin_cpu_supports("avx512f")) {
        const double interleaved = timed_streamed_pass(kind, threads, b, a, d, n, INTERLEAVED_RUNS);
        return interleaved < single ? interleaved : single;
    }
#endif
    return single;
}

static int measure_memory(int threads, long long array_bytes, cpu_limits* limits)
{
    const long long n = array_bytes / (long long)sizeof(float);
    float* a = malloc((size_t)n * sizeof(float));
    float* b = malloc((size_t)n * sizeof(float));
    float* c = malloc((size_t)n * sizeof(float));
    int8_t* d = malloc((size_t)n);
    if (a == NULL || b == NULL || c == NULL || d == NULL) {
        free(a);
        free(b);
        free(c);
        free(d);
        return -1;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long long i = 0; i < n; i++) {
        a[i] = 1.0f;
        b[i] = 2.0f;
        c[i] = 0.5f;
        d[i] = (int8_t)(i & 0x3f);
    }
    const float scalar = 3.0f;
    double copy = 0, triad = 0, read = 0, write = 0, widened = 0;
    float read_sink = 0;
    for (int pass = 0; pass < PASSES; pass++) {
        double start = now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long long i = 0; i < n; i++)
            b[i] = a[i];
        double seconds = now() - start;
        copy = best_of(copy, 2.0 * (double)n * sizeof(float) / seconds);
        /* The C library's memcpy, which streams past the cache on large copies (no
         * write-allocate read): the gather and duplicate modules use it. */
        start = now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int part = 0; part < threads; part++) {
            const long long begin = n * part / threads, end = n * (part + 1) / threads;
            memcpy(b + begin, a + begin, (size_t)(end - begin) * sizeof(float));
        }
        seconds = now() - start;
        copy = best_of(copy, 2.0 * (double)n * sizeof(float) / seconds);
        seconds = timed_streamed_passes(COPY_FLOATS, threads, b, a, d, n);
        copy = best_of(copy, 2.0 * (double)n * sizeof(float) / seconds);
        start = now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long long i = 0; i < n; i++)
            a[i] = b[i] + scalar * c[i];
        seconds = now() - start;
        triad = best_of(triad, 3.0 * (double)n * sizeof(float) / seconds);
        for (int prefetch = 0; prefetch < 2; prefetch++) {
            float total = 0;
            start = now();
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : total)
            for (int part = 0; part < threads; part++)
                total += read_pass(a, n * part / threads, n * (part + 1) / threads, prefetch);
            seconds = now() - start;
            read_sink += total;
            read = best_of(read, (double)n * sizeof(float) / seconds);
        }
        start = now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int part = 0; part < threads; part++) {
            const long long begin = n * part / threads, end = n * (part + 1) / threads;
            memset(c + begin, 0, (size_t)(end - begin) * sizeof(float));
        }
        seconds = now() - start;
        write = best_of(write, (double)n * sizeof(float) / seconds);
        seconds = timed_streamed_passes(FILL, threads, c, a, d, n);
        write = best_of(write, (double)n * sizeof(float) / seconds);
        seconds = timed_streamed_passes(WIDEN_BYTES, threads, b, a, d, n);
        widened = best_of(widened, (double)n * (1 + sizeof(float)) / seconds);
    }
    /* Keep the results alive so the loops are not removed. */
    volatile float sink = a[n / 2] + b[n / 3] + c[n / 4] + read_sink;
    (void)sink;
    free(a);
    free(b);
    free(c);
    free(d);
    limits->copy = copy;
    limits->triad = triad;
    limits->read = read;
    limits->write = write;
    limits->widen = widened;
    return 0;
}

/* Each function returns a value made from every chain, so none is removed; FLOPs
 * per iteration are chains x lanes x 2. */
#ifdef HAVE_X86
__attribute__((target("avx512f"))) static float fma_avx512(long long iterations)
{
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    __m512 x[16];
    for (int k = 0; k < 16; k++)
        x[k] = _mm512_set1_ps(1.0f + (float)k * 1e-3f);
    for (long long i = 0; i < iterations; i++)
        for (int k = 0; k < 16; k++)
            x[k] = _mm512_fmadd_ps(x[k], m, c);
    __m512 sum = x[0];
    for (int k = 1; k < 16; k++)
        sum = _mm512_add_ps(sum, x[k]);
    return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) static float fma_avx2(long long iterations)
{
    const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    __m256 x[12];
    for (int k = 0; k < 12; k++)
        x[k] = _mm256_set1_ps(1.0f + (float)k * 1e-3f);
    for (long long i = 0; i < iterations; i++)
        for (int k = 0; k < 12; k++)
            x[k] = _mm256_fmadd_ps(x[k], m, c);
    __m256 sum = x[0];
    for (int k = 1; k < 12; k++)
        sum = _mm256_add_ps(sum, x[k]);
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}
#endif

/* Any CPU: 8 chains of 8 scalars, which the compiler may vectorise (a multiply and an
 * add each, counted as 2 FLOP). */
static float fma_generic(long long iterations)
{
    float x[64];
    for (int k = 0; k < 64; k++)
        x[k] = 1.0f + (float)k * 1e-3f;
    for (long long i = 0; i < iterations; i++)
        for (int k = 0; k < 64; k++)
            x[k] = x[k] * 0.999999f + 1e-7f;
    float sum = 0;
    for (int k = 0; k < 64; k++)
        sum += x[k];
    return sum;
}

typedef float (*fma_loop)(long long iterations);

static void measure_fp32(int threads, cpu_limits* limits)
{
    fma_loop loop = fma_generic;
    double flops_per_iteration = 64 * 2;
    limits->fma_kind = "generic";
#ifdef HAVE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        loop = fma_avx512;
        flops_per_iteration = 16 * 16 * 2;
        limits->fma_kind = "avx512f";
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        loop = fma_avx2;
        flops_per_iteration = 12 * 8 * 2;
        limits->fma_kind = "avx2+fma";
    }
#endif
    /* About 5 ms per pass at 100 GFLOP/s per thread, and many passes: on a machine
     * shared with other work the best pass is the one that had the cores to itself
     * (what a limit is), and short passes are likelier to find such a moment. */
    const long long iterations = (long long)(5e8 / flops_per_iteration);
    double best = 0;
    volatile float sink = 0;
    for (int pass = 0; pass < 100; pass++) {
        const double start = now();
        float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
        total += loop(iterations);
        const double seconds = now() - start;
        sink += total;
        best = best_of(best, (double)threads * (double)iterations * flops_per_iteration / seconds);
    }
    (void)sink;
    limits->fp32 = best;
}

int cpu_limits_measure(int threads, long long array_bytes, cpu_limits* limits)
{
    memset(limits, 0, sizeof *limits);
#ifndef _OPENMP
    threads = 1;
#endif
    limits->threads = threads;
    if (measure_memory(threads, array_bytes, limits) != 0)
        return -1;
    measure_fp32(threads, limits);
    return 0;
}

int cpu_limits_measure_memory(int threads, long long array_bytes, cpu_limits* limits)
{
#ifndef _OPENMP
    threads = 1;
#endif
    cpu_limits measured = *limits;
    if (measure_memory(threads, array_bytes, &measured) != 0)
        return -1;
    *limits = measured;
    return 0;
}
