/* SPDX-License-Identifier: MIT */
/* The polarization planes of cpu_pairs.h: each function compiled for x86-64-v4, v3
 * and the baseline (cpu_simd.h), the loader picking one. */
#include "cpu_pairs.h"

#include "cpu_half.h"
#include "cpu_simd.h"

#include <string.h>

#ifdef BLADE_HAVE_SHUFFLEVECTOR
typedef float f32x16 __attribute__((vector_size(64)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));

/* Lanes of (a, b) that are X parts, and those that are Y parts, of 8 samples. */
#define PICK_X(a, b) \
    __builtin_shufflevector(a, b, 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29)
#define PICK_Y(a, b) \
    __builtin_shufflevector(a, b, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31)
#endif

/* X[t] = s(t) x[t][X], Y[t] = s(t) x[t][Y] for t < n, where s(t) = (-1)^t if
 * `alternate` (the sign bit flipped, as unary minus does, NaN included), else 1.
 * Inlined into each clone below. */
static inline __attribute__((always_inline)) void split_pairs(
    float* restrict X, float* restrict Y, const float* restrict x, int64_t n, bool alternate)
{
    int64_t t = 0;
#ifdef BLADE_HAVE_SHUFFLEVECTOR
    const uint32_t flip = alternate ? 0x80000000u : 0u;
    const u32x16 odd_signs = { 0, 0, flip, flip, 0, 0, flip, flip,
                               0, 0, flip, flip, 0, 0, flip, flip };
    for (; t + 8 <= n; t += 8) { /* t stays even: the pattern of signs holds */
        f32x16 a, b;
        memcpy(&a, x + 4 * t, sizeof a);
        memcpy(&b, x + 4 * t + 16, sizeof b);
        const f32x16 xs = PICK_X(a, b), ys = PICK_Y(a, b);
        u32x16 xbits, ybits;
        memcpy(&xbits, &xs, sizeof xbits);
        memcpy(&ybits, &ys, sizeof ybits);
        xbits ^= odd_signs;
        ybits ^= odd_signs;
        memcpy(X + 2 * t, &xbits, sizeof xbits);
        memcpy(Y + 2 * t, &ybits, sizeof ybits);
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

/* split_pairs, compiled for the machine's vector width. */
BLADE_CPU_CLONES static void split_pairs_cloned(
    float* restrict X, float* restrict Y, const float* restrict x, int64_t n, bool alternate)
{
    split_pairs(X, Y, x, n, alternate);
}

/* The same from ci8 samples (x[t] = (Xr, Xi, Yr, Yi) bytes), each converted exactly:
 * a block at a time to floats in L1 (a loop the compiler vectorises; GCC 12's vector
 * conversions of int8 lanes went one element at a time), then split. */
BLADE_CPU_CLONES static void
split_pairs_ci8_cloned(float* restrict X, float* restrict Y, const int8_t* restrict x, int64_t n)
{
    enum { BLOCK = 64 }; /* samples: 1 KiB of floats */
    float block[4 * BLOCK] __attribute__((aligned(64)));
    for (int64_t t = 0; t < n; t += BLOCK) {
        const int64_t count = n - t < BLOCK ? n - t : BLOCK;
        for (int64_t i = 0; i < 4 * count; i++)
            block[i] = (float)x[4 * t + i];
        split_pairs(X + 2 * t, Y + 2 * t, block, count, false);
    }
}

/* y[t] = (X[t], Y[t]) for t < n: the planes interleaved again. */
BLADE_CPU_CLONES static void
join_pairs_cloned(float* restrict y, const float* restrict X, const float* restrict Y, int64_t n)
{
    int64_t t = 0;
#ifdef BLADE_HAVE_SHUFFLEVECTOR
    for (; t + 8 <= n; t += 8) {
        f32x16 xs, ys;
        memcpy(&xs, X + 2 * t, sizeof xs);
        memcpy(&ys, Y + 2 * t, sizeof ys);
        const f32x16 low =
            __builtin_shufflevector(xs, ys, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
        const f32x16 high = __builtin_shufflevector(
            xs, ys, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
        memcpy(y + 4 * t, &low, sizeof low);
        memcpy(y + 4 * t + 16, &high, sizeof high);
    }
#endif
    for (; t < n; t++) {
        y[4 * t] = X[2 * t];
        y[4 * t + 1] = X[2 * t + 1];
        y[4 * t + 2] = Y[2 * t];
        y[4 * t + 3] = Y[2 * t + 1];
    }
}

/* The entry points: the clones are static (Clang multiversions only functions whose
 * every declaration carries the attribute, and the header's do not). */
void blade_split_pairs(
    float* restrict X, float* restrict Y, const float* restrict x, int64_t n, bool alternate)
{
    split_pairs_cloned(X, Y, x, n, alternate);
}

void blade_split_pairs_ci8(float* restrict X,
                           float* restrict Y,
                           const int8_t* restrict x,
                           int64_t n)
{
    split_pairs_ci8_cloned(X, Y, x, n);
}

void blade_join_pairs(float* restrict y,
                      const float* restrict X,
                      const float* restrict Y,
                      int64_t n)
{
    join_pairs_cloned(y, X, Y, n);
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
        split_pairs_cloned(X + 2 * t, Y + 2 * t, wide, count, alternate);
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
        join_pairs_cloned(joined, X + 2 * t, Y + 2 * t, count);
        blade_floats_to_halves(y + 4 * t, joined, 4 * count);
    }
}
