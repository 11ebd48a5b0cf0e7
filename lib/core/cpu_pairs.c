/* SPDX-License-Identifier: MIT */
/*
 * The polarization planes of cpu_pairs.h, in vectors as wide as the CPU's registers:
 * 16 floats where blade_cpu_features_get() says avx512, 8 where it says avx2, 4 in
 * the baseline (SSE2). Each width is its own function, compiled for its instruction
 * set (target attributes) and written with vectors of its own size, and the entry
 * points pick one (so BLADE_CPU_ISA reaches them too). One source for every width,
 * as the compiler's clones of cpu_simd.h would give, does not work here: GCC 12 lowers
 * a shuffle of 16-float vectors in an AVX2 or SSE2 function one float at a time
 * through the stack. On an AVX2 Zen 3 that made the join 7.6x and the ci8 split 5x
 * slower than 8-float shuffles (256 samples in L1: 702 against 92 ns, 753 against
 * 146), and in SSE2 16-float shuffles ran 4x slower than 4-float ones.
 */
#include "cpu_pairs.h"

#include "cpu_features.h"
#include "cpu_half.h"
#include "cpu_simd.h"

#include <string.h>

#if defined(BLADE_HAVE_SHUFFLEVECTOR) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define BLADE_HAVE_WIDE_PAIRS /* the AVX-512 and AVX2 functions below */
#endif

#ifdef BLADE_HAVE_SHUFFLEVECTOR
typedef float f32x16 __attribute__((vector_size(64)));
typedef float f32x8 __attribute__((vector_size(32)));
typedef float f32x4 __attribute__((vector_size(16)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef uint32_t u32x4 __attribute__((vector_size(16)));

#define STEP static inline __attribute__((always_inline)) void

/* One step of a split: the `lanes` / 2 samples of x (two vectors of `lanes` floats,
 * (Xr, Xi, Yr, Yi) per sample) into X and Y, each sign bit of an odd sample flipped
 * by `flip` (0 or the sign bit): the steps start at even samples. */
STEP split_step16(float* X, float* Y, const float* x, uint32_t flip)
{
    const u32x16 odd = { 0, 0, flip, flip, 0, 0, flip, flip, 0, 0, flip, flip, 0, 0, flip, flip };
    f32x16 a, b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, x + 16, sizeof b);
    const f32x16 xs =
        __builtin_shufflevector(a, b, 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29);
    const f32x16 ys =
        __builtin_shufflevector(a, b, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
    u32x16 xbits, ybits;
    memcpy(&xbits, &xs, sizeof xbits);
    memcpy(&ybits, &ys, sizeof ybits);
    xbits ^= odd;
    ybits ^= odd;
    memcpy(X, &xbits, sizeof xbits);
    memcpy(Y, &ybits, sizeof ybits);
}

STEP split_step8(float* X, float* Y, const float* x, uint32_t flip)
{
    const u32x8 odd = { 0, 0, flip, flip, 0, 0, flip, flip };
    f32x8 a, b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, x + 8, sizeof b);
    const f32x8 xs = __builtin_shufflevector(a, b, 0, 1, 4, 5, 8, 9, 12, 13);
    const f32x8 ys = __builtin_shufflevector(a, b, 2, 3, 6, 7, 10, 11, 14, 15);
    u32x8 xbits, ybits;
    memcpy(&xbits, &xs, sizeof xbits);
    memcpy(&ybits, &ys, sizeof ybits);
    xbits ^= odd;
    ybits ^= odd;
    memcpy(X, &xbits, sizeof xbits);
    memcpy(Y, &ybits, sizeof ybits);
}

STEP split_step4(float* X, float* Y, const float* x, uint32_t flip)
{
    const u32x4 odd = { 0, 0, flip, flip };
    f32x4 a, b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, x + 4, sizeof b);
    const f32x4 xs = __builtin_shufflevector(a, b, 0, 1, 4, 5);
    const f32x4 ys = __builtin_shufflevector(a, b, 2, 3, 6, 7);
    u32x4 xbits, ybits;
    memcpy(&xbits, &xs, sizeof xbits);
    memcpy(&ybits, &ys, sizeof ybits);
    xbits ^= odd;
    ybits ^= odd;
    memcpy(X, &xbits, sizeof xbits);
    memcpy(Y, &ybits, sizeof ybits);
}

/* One step of a join: `lanes` / 2 samples of X and Y into y. */
STEP join_step16(float* y, const float* X, const float* Y)
{
    f32x16 xs, ys;
    memcpy(&xs, X, sizeof xs);
    memcpy(&ys, Y, sizeof ys);
    const f32x16 low =
        __builtin_shufflevector(xs, ys, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
    const f32x16 high = __builtin_shufflevector(
        xs, ys, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
    memcpy(y, &low, sizeof low);
    memcpy(y + 16, &high, sizeof high);
}

STEP join_step8(float* y, const float* X, const float* Y)
{
    f32x8 xs, ys;
    memcpy(&xs, X, sizeof xs);
    memcpy(&ys, Y, sizeof ys);
    const f32x8 low = __builtin_shufflevector(xs, ys, 0, 1, 8, 9, 2, 3, 10, 11);
    const f32x8 high = __builtin_shufflevector(xs, ys, 4, 5, 12, 13, 6, 7, 14, 15);
    memcpy(y, &low, sizeof low);
    memcpy(y + 8, &high, sizeof high);
}

STEP join_step4(float* y, const float* X, const float* Y)
{
    f32x4 xs, ys;
    memcpy(&xs, X, sizeof xs);
    memcpy(&ys, Y, sizeof ys);
    const f32x4 low = __builtin_shufflevector(xs, ys, 0, 1, 4, 5);
    const f32x4 high = __builtin_shufflevector(xs, ys, 2, 3, 6, 7);
    memcpy(y, &low, sizeof low);
    memcpy(y + 4, &high, sizeof high);
}
#endif

/* X[t] = s(t) x[t][X], Y[t] = s(t) x[t][Y] for t < n, where s(t) = (-1)^t if
 * `alternate` (the sign bit flipped, as unary minus does, NaN included), else 1; in
 * steps of `lanes` floats (a constant in each caller, so one branch remains). */
static inline __attribute__((always_inline)) void split_pairs(float* restrict X,
                                                              float* restrict Y,
                                                              const float* restrict x,
                                                              int64_t n,
                                                              bool alternate,
                                                              const int lanes)
{
    int64_t t = 0;
#ifdef BLADE_HAVE_SHUFFLEVECTOR
    const uint32_t flip = alternate ? 0x80000000u : 0u;
    const int64_t step = lanes / 2; /* samples; even, so t stays even */
    for (; t + step <= n; t += step) {
        if (lanes == 16)
            split_step16(X + 2 * t, Y + 2 * t, x + 4 * t, flip);
        else if (lanes == 8)
            split_step8(X + 2 * t, Y + 2 * t, x + 4 * t, flip);
        else
            split_step4(X + 2 * t, Y + 2 * t, x + 4 * t, flip);
    }
#endif
    for (; t < n; t++) {
        const bool flipped = alternate && (t & 1);
        const float* from = x + 4 * t;
        X[2 * t] = flipped ? -from[0] : from[0];
        X[2 * t + 1] = flipped ? -from[1] : from[1];
        Y[2 * t] = flipped ? -from[2] : from[2];
        Y[2 * t + 1] = flipped ? -from[3] : from[3];
    }
}

/* The same from ci8 samples (x[t] = (Xr, Xi, Yr, Yi) bytes), each converted exactly:
 * a block at a time to floats in L1 (a loop the compiler vectorises; GCC 12's vector
 * conversions of int8 lanes went one element at a time), then split. */
static inline __attribute__((always_inline)) void split_pairs_ci8(
    float* restrict X, float* restrict Y, const int8_t* restrict x, int64_t n, const int lanes)
{
    enum { BLOCK = 64 }; /* samples: 1 KiB of floats */
    float block[4 * BLOCK] __attribute__((aligned(64)));
    for (int64_t t = 0; t < n; t += BLOCK) {
        const int64_t count = n - t < BLOCK ? n - t : BLOCK;
        for (int64_t i = 0; i < 4 * count; i++)
            block[i] = (float)x[4 * t + i];
        split_pairs(X + 2 * t, Y + 2 * t, block, count, false, lanes);
    }
}

/* y[t] = (X[t], Y[t]) for t < n: the planes interleaved again. */
static inline __attribute__((always_inline)) void join_pairs(
    float* restrict y, const float* restrict X, const float* restrict Y, int64_t n, const int lanes)
{
    int64_t t = 0;
#ifdef BLADE_HAVE_SHUFFLEVECTOR
    const int64_t step = lanes / 2;
    for (; t + step <= n; t += step) {
        if (lanes == 16)
            join_step16(y + 4 * t, X + 2 * t, Y + 2 * t);
        else if (lanes == 8)
            join_step8(y + 4 * t, X + 2 * t, Y + 2 * t);
        else
            join_step4(y + 4 * t, X + 2 * t, Y + 2 * t);
    }
#endif
    for (; t < n; t++) {
        y[4 * t] = X[2 * t];
        y[4 * t + 1] = X[2 * t + 1];
        y[4 * t + 2] = Y[2 * t];
        y[4 * t + 3] = Y[2 * t + 1];
    }
}

/* The three operations for one instruction set and vector width. */
#define PAIRS_FOR(isa, attributes, lanes)                                                   \
    attributes static void split_##isa(                                                     \
        float* restrict X, float* restrict Y, const float* restrict x, int64_t n, bool alt) \
    {                                                                                       \
        split_pairs(X, Y, x, n, alt, lanes);                                                \
    }                                                                                       \
    attributes static void split_ci8_##isa(                                                 \
        float* restrict X, float* restrict Y, const int8_t* restrict x, int64_t n)          \
    {                                                                                       \
        split_pairs_ci8(X, Y, x, n, lanes);                                                 \
    }                                                                                       \
    attributes static void join_##isa(                                                      \
        float* restrict y, const float* restrict X, const float* restrict Y, int64_t n)     \
    {                                                                                       \
        join_pairs(y, X, Y, n, lanes);                                                      \
    }

#ifdef BLADE_HAVE_WIDE_PAIRS
PAIRS_FOR(avx512, __attribute__((target("arch=x86-64-v4"))), 16)
PAIRS_FOR(avx2, __attribute__((target("arch=x86-64-v3"))), 8)
#endif
PAIRS_FOR(baseline, , 4)

void blade_split_pairs(
    float* restrict X, float* restrict Y, const float* restrict x, int64_t n, bool alternate)
{
#ifdef BLADE_HAVE_WIDE_PAIRS
    const blade_cpu_features* cpu = blade_cpu_features_get();
    if (cpu->avx512)
        split_avx512(X, Y, x, n, alternate);
    else if (cpu->avx2)
        split_avx2(X, Y, x, n, alternate);
    else
#endif
        split_baseline(X, Y, x, n, alternate);
}

void blade_split_pairs_ci8(float* restrict X,
                           float* restrict Y,
                           const int8_t* restrict x,
                           int64_t n)
{
#ifdef BLADE_HAVE_WIDE_PAIRS
    const blade_cpu_features* cpu = blade_cpu_features_get();
    if (cpu->avx512)
        split_ci8_avx512(X, Y, x, n);
    else if (cpu->avx2)
        split_ci8_avx2(X, Y, x, n);
    else
#endif
        split_ci8_baseline(X, Y, x, n);
}

void blade_join_pairs(float* restrict y,
                      const float* restrict X,
                      const float* restrict Y,
                      int64_t n)
{
#ifdef BLADE_HAVE_WIDE_PAIRS
    const blade_cpu_features* cpu = blade_cpu_features_get();
    if (cpu->avx512)
        join_avx512(y, X, Y, n);
    else if (cpu->avx2)
        join_avx2(y, X, Y, n);
    else
#endif
        join_baseline(y, X, Y, n);
}

/* cf16 a block of samples at a time (an even count, so the signs' pattern runs on
 * from block to block): widened, then split; or joined, then rounded. */
enum { HALF_BLOCK = 256 };

void blade_split_pairs_half(
    float* restrict X, float* restrict Y, const uint16_t* restrict x, int64_t n, bool alternate)
{
    float wide[4 * HALF_BLOCK];
    for (int64_t t = 0; t < n; t += HALF_BLOCK) {
        const int64_t count = n - t < HALF_BLOCK ? n - t : HALF_BLOCK;
        blade_halves_to_floats(wide, x + 4 * t, 4 * count);
        blade_split_pairs(X + 2 * t, Y + 2 * t, wide, count, alternate);
    }
}

void blade_join_pairs_half(uint16_t* restrict y,
                           const float* restrict X,
                           const float* restrict Y,
                           int64_t n)
{
    float joined[4 * HALF_BLOCK];
    for (int64_t t = 0; t < n; t += HALF_BLOCK) {
        const int64_t count = n - t < HALF_BLOCK ? n - t : HALF_BLOCK;
        blade_join_pairs(joined, X + 2 * t, Y + 2 * t, count);
        blade_floats_to_halves(y + 4 * t, joined, 4 * count);
    }
}
