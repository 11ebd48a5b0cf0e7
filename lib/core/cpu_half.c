/* SPDX-License-Identifier: MIT */
/*
 * cpu_half.h: F16C where the CPU has it (with AVX2: eight values per instruction),
 * half.h's loops otherwise. The hardware conversions round as half.h does (to nearest,
 * ties to even, in both directions exact where the value fits; subnormal halves kept);
 * only NaNs differ (F16C keeps their payloads), so NaN lanes are set to the canonical
 * NaN afterwards. test_cast checks every half, and floats around every rounding
 * boundary, against an independent reference.
 */
#include "cpu_half.h"

#include "cpu_features.h"
#include "half.h"

#include <stdbool.h>

#ifdef BLADE_HAVE_F16C_PATH
__attribute__((target("avx2,f16c"))) static int64_t
halves_to_floats_f16c(float* restrict out, const uint16_t* restrict in, int64_t n)
{
    const __m256 canonical = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 value = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(in + i)));
        const __m256 nan = _mm256_cmp_ps(value, value, _CMP_UNORD_Q);
        _mm256_storeu_ps(out + i, _mm256_blendv_ps(value, canonical, nan));
    }
    return i;
}

__attribute__((target("avx2,f16c"))) static int64_t
floats_to_halves_f16c(uint16_t* restrict out, const float* restrict in, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i*)(out + i), blade_floats8_to_halves(_mm256_loadu_ps(in + i)));
    return i;
}

/* The 16 values with their NaN lanes replaced, through a mask, by the canonical float
 * NaN 0x7fc00000 (which also rounds to the canonical half 0x7e00): the AVX2 loops'
 * compare-and-blend is one port's work per 8 values. */
__attribute__((target("avx512f"))) static inline __m512 canonical_nans16(__m512 value)
{
    const __m512 canonical = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
    return _mm512_mask_mov_ps(value, _mm512_cmp_ps_mask(value, value, _CMP_UNORD_Q), canonical);
}

/* The same 16 values a step in AVX-512 registers. */
__attribute__((target("avx512f"))) static int64_t
halves_to_floats_avx512(float* restrict out, const uint16_t* restrict in, int64_t n)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(
            out + i,
            canonical_nans16(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(in + i)))));
    return i;
}

__attribute__((target("avx512f"))) static int64_t
floats_to_halves_avx512(uint16_t* restrict out, const float* restrict in, int64_t n)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i*)(out + i),
                            _mm512_cvtps_ph(canonical_nans16(_mm512_loadu_ps(in + i)),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return i;
}

#endif

void blade_halves_to_floats(float* restrict out, const uint16_t* restrict in, int64_t n)
{
    int64_t i = 0;
#ifdef BLADE_HAVE_F16C_PATH
    const blade_cpu_features* cpu = blade_cpu_features_get();
    if (cpu->avx512)
        i = halves_to_floats_avx512(out, in, n);
    if (cpu->f16c)
        i += halves_to_floats_f16c(out + i, in + i, n - i);
#endif
    for (; i < n; i++)
        out[i] = blade_half_to_float(in[i]);
}

void blade_floats_to_halves(uint16_t* restrict out, const float* restrict in, int64_t n)
{
    int64_t i = 0;
#ifdef BLADE_HAVE_F16C_PATH
    const blade_cpu_features* cpu = blade_cpu_features_get();
    if (cpu->avx512)
        i = floats_to_halves_avx512(out, in, n);
    if (cpu->f16c)
        i += floats_to_halves_f16c(out + i, in + i, n - i);
#endif
    for (; i < n; i++)
        out[i] = blade_half_from_float(in[i]);
}
