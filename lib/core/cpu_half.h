/* SPDX-License-Identifier: MIT */
/*
 * Runs of IEEE binary16 values to and from float, for the CPU backend's half-precision
 * paths: the bits of half.h's blade_half_to_float and blade_half_from_float value by
 * value (round to nearest, ties to even; overflow to infinity; NaN as the canonical
 * quiet NaN), at the speed of the x86 F16C instructions where the CPU has them (every
 * x86-64-v3 machine), with half.h's loops elsewhere. The per-value conversions of
 * half.h, written out in integer arithmetic, do not vectorise: the cf16 paths ran 7 to
 * 14 times slower than the cf32 ones (docs/performance.md). Not installed.
 */
#ifndef BLADE_CORE_CPU_HALF_H
#define BLADE_CORE_CPU_HALF_H

#include <stdbool.h>
#include <stdint.h>

/** out[i] = blade_half_to_float(in[i]) for i < n. */
void blade_halves_to_floats(float* restrict out, const uint16_t* restrict in, int64_t n);

/** out[i] = blade_half_from_float(in[i]) for i < n. */
void blade_floats_to_halves(uint16_t* restrict out, const float* restrict in, int64_t n);

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define BLADE_HAVE_F16C_PATH
#include <immintrin.h>

/* The functions below, and loops built on them, run only where
 * blade_cpu_features_get() (cpu_features.h) says f16c; 16 halves a step in 512-bit
 * registers where it says avx512. */

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
/* Arithmetic on 32 halves at a time (target("avx512fp16,avx512bw") functions, where
 * blade_cpu_features_get() says avx512fp16): GCC 12 or later, the first to know these
 * instructions. */
#define BLADE_HAVE_FP16_ARITHMETIC_PATH
#endif

/** Eight floats as halves, as blade_half_from_float rounds them (to nearest, ties to
 *  even; NaN as the canonical quiet NaN 0x7e00), for loops that keep their values in
 *  registers between conversions. */
__attribute__((target("avx2,f16c"))) static inline __m128i blade_floats8_to_halves(__m256 value)
{
    const __m128i half = _mm256_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    /* the NaN lanes' all-ones masks, narrowed from 32 to 16 bits (saturating) */
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(value, value, _CMP_UNORD_Q));
    const __m128i nan16 =
        _mm_packs_epi32(_mm256_castsi256_si128(nan), _mm256_extracti128_si256(nan, 1));
    return _mm_blendv_epi8(half, _mm_set1_epi16(0x7e00), nan16);
}
#endif

#endif
