/* SPDX-License-Identifier: MIT */
/*
 * Cast on the CPU. The general path converts every element through double, which
 * is exact for every supported source type, then rounds once into the destination
 * type: the same single rounding the CUDA kernels perform, so the two backends give
 * identical bits (NaN is written as the canonical quiet NaN by both). The hot ingest
 * paths have direct kernels: ci8 -> cf32 and ci16 -> cf32 are VOLK's
 * volk_8i_s32f_convert_32f and volk_16i_s32f_convert_32f (a scale of 1: every
 * integer is a float exactly, so the bits are those of the general path); ci4 ->
 * cf32, for which VOLK has no kernel, is a loop the compiler vectorises; cf32 <->
 * cf16 go through cpu_half.h (F16C where the CPU has it: half.h's per-value
 * conversions do not vectorise). Large casts are split across OpenMP threads. An
 * output of 64 MiB or more ($BLADE_STREAM_MIN_BYTES sets another size) of ci8 or ci16
 * -> cf32 is converted in registers and written with streaming stores (cpu_stream.h:
 * no read of the output's lines, a third less memory traffic for ci8 -> cf32): 1.6x
 * VOLK's kernels with ordinary stores at 1 thread and 1.2x at 2 on the CI machine
 * (docs/performance.md). A scale other than 1 takes the general path: the
 * complex family multiplies in float (every source value is a float exactly), the
 * real family in double, as the CUDA kernels do, then rounds once; ci8, ci16 and cf32
 * into cf16 (the half-precision chain's input) do the same a block at a time. ci8 into
 * cf16 with a scale that is a half exactly (the chain's powers of two, and 1) runs in
 * half-precision arithmetic where the CPU has AVX512-FP16 (Sapphire Rapids and later
 * Xeons): the same bits (ci8_scale_is_half says why), 32 parts in three instructions,
 * streamed straight from the registers; 1.4-1.5x the float path on the CI machine.
 */
#include "cast_backend.h"
#include "cpu_features.h"
#include "cpu_half.h"
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "half.h"

#include <volk/volk.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Below this many elements threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 18)

static inline int32_t round_saturate(double value, int32_t low, int32_t high)
{
    if (value != value) /* NaN */
        return 0;
    if (value <= (double)low)
        return low;
    if (value >= (double)high)
        return high;
    return (int32_t)nearbyint(value); /* default mode: ties to even */
}

static inline int32_t nibble_to_int(uint8_t nibble)
{
    return (nibble & 0x8) ? (int32_t)nibble - 16 : (int32_t)nibble;
}

/* Read element i as (re, im); real types return im = 0. */
static inline void load(const void* data, blade_dtype type, int64_t i, double* re, double* im)
{
    switch (type) {
    case BLADE_CI4: {
        const uint8_t byte = ((const uint8_t*)data)[i];
        *re = nibble_to_int(byte >> 4);
        *im = nibble_to_int(byte & 0xf);
        break;
    }
    case BLADE_CI8:
        *re = ((const int8_t*)data)[2 * i];
        *im = ((const int8_t*)data)[2 * i + 1];
        break;
    case BLADE_CI16:
        *re = ((const int16_t*)data)[2 * i];
        *im = ((const int16_t*)data)[2 * i + 1];
        break;
    case BLADE_CF16:
        *re = blade_half_to_float(((const uint16_t*)data)[2 * i]);
        *im = blade_half_to_float(((const uint16_t*)data)[2 * i + 1]);
        break;
    case BLADE_CF32:
        *re = ((const float*)data)[2 * i];
        *im = ((const float*)data)[2 * i + 1];
        break;
    case BLADE_CF64:
        *re = ((const double*)data)[2 * i];
        *im = ((const double*)data)[2 * i + 1];
        break;
    case BLADE_F16:
        *re = blade_half_to_float(((const uint16_t*)data)[i]);
        *im = 0;
        break;
    case BLADE_F32:
        *re = ((const float*)data)[i];
        *im = 0;
        break;
    case BLADE_F64:
        *re = ((const double*)data)[i];
        *im = 0;
        break;
    default:
        *re = *im = 0;
        break;
    }
}

static inline void store(void* data, blade_dtype type, int64_t i, double re, double im)
{
    switch (type) {
    case BLADE_CI4: {
        const int32_t r = round_saturate(re, -8, 7), m = round_saturate(im, -8, 7);
        ((uint8_t*)data)[i] = (uint8_t)(((uint32_t)r & 0xf) << 4 | ((uint32_t)m & 0xf));
        break;
    }
    case BLADE_CI8:
        ((int8_t*)data)[2 * i] = (int8_t)round_saturate(re, INT8_MIN, INT8_MAX);
        ((int8_t*)data)[2 * i + 1] = (int8_t)round_saturate(im, INT8_MIN, INT8_MAX);
        break;
    case BLADE_CI16:
        ((int16_t*)data)[2 * i] = (int16_t)round_saturate(re, INT16_MIN, INT16_MAX);
        ((int16_t*)data)[2 * i + 1] = (int16_t)round_saturate(im, INT16_MIN, INT16_MAX);
        break;
    case BLADE_CF16:
        ((uint16_t*)data)[2 * i] = blade_half_from_double(re);
        ((uint16_t*)data)[2 * i + 1] = blade_half_from_double(im);
        break;
    case BLADE_CF32:
        ((float*)data)[2 * i] = blade_canonical_float(re);
        ((float*)data)[2 * i + 1] = blade_canonical_float(im);
        break;
    case BLADE_CF64:
        ((double*)data)[2 * i] = blade_canonical_double(re);
        ((double*)data)[2 * i + 1] = blade_canonical_double(im);
        break;
    case BLADE_F16:
        ((uint16_t*)data)[i] = blade_half_from_double(re);
        break;
    case BLADE_F32:
        ((float*)data)[i] = blade_canonical_float(re);
        break;
    case BLADE_F64:
        ((double*)data)[i] = blade_canonical_double(re);
        break;
    default:
        break;
    }
}

static bool is_real(blade_dtype type)
{
    return type == BLADE_F16 || type == BLADE_F32 || type == BLADE_F64;
}

static void scaled_range(const void* input,
                         blade_dtype input_type,
                         void* output,
                         blade_dtype output_type,
                         int64_t begin,
                         int64_t end,
                         float scale)
{
    const bool real = is_real(input_type);
    for (int64_t i = begin; i < end; i++) {
        double re, im;
        load(input, input_type, i, &re, &im);
        if (real) {
            re *= (double)scale;
        } else { /* in float, as the GPU: re, im are floats exactly */
            re = (double)((float)re * scale);
            im = (double)((float)im * scale);
        }
        store(output, output_type, i, re, im);
    }
}

/* Floats per block of the scaled cast into cf16: 16 KiB, in L1 beside the input's block. */
enum { STREAM_BLOCK = 4096 };

/* ci8 or ci16 -> cf32 of parts [first, last), converted in registers and written with
 * streaming stores (cpu_stream.h): integers are floats exactly, so the bits are the
 * VOLK kernels' of the direct path below. */
static void integers_to_floats_streamed(
    const void* input, blade_dtype input_type, float* output, int64_t first, int64_t last)
{
    const int bits = input_type == BLADE_CI8 ? 8 : 16;
    blade_stream_widen(output + first, (const char*)input + first * (bits / 8), bits, last - first);
}

#ifdef BLADE_HAVE_F16C_PATH
/* ci8 parts times `scale` into halves, 16 a step in AVX-512 registers: each an int32
 * then a float (exact), multiplied in float, rounded to half by the same instruction as
 * blade_floats_to_halves (the scale is finite and positive, so no NaN arises): the
 * bits of the block path below, without its three passes through L1. Returns the
 * parts done. */
__attribute__((target("avx512f"))) static int64_t ci8_scaled_to_halves_avx512(
    uint16_t* restrict output, const int8_t* restrict input, int64_t n, float scale)
{
    const __m512 factor = _mm512_set1_ps(scale);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v =
            _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)(input + i))));
        _mm256_storeu_si256((__m256i*)(output + i),
                            _mm512_cvtps_ph(_mm512_mul_ps(v, factor),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    return i;
}
#endif

#ifdef BLADE_HAVE_FP16_ARITHMETIC_PATH
/* Whether ci8 parts times `scale` may be formed in half-precision arithmetic with the
 * bits of the float path: where the scale is a finite half exactly. An int8 (8
 * significant bits) times such a scale (11) is exact in float, so the float path
 * rounds the exact product once, to nearest; so does a half multiplication of the
 * int8 (a half exactly) by the scale. */
static bool ci8_scale_is_half(blade_dtype input_type, float scale)
{
    return input_type == BLADE_CI8 && blade_cpu_features_get()->avx512fp16 && isfinite(scale) &&
           blade_half_to_float(blade_half_from_float(scale)) == scale;
}

/* ci8 parts times the half `scale` into halves, 32 a step in AVX512-FP16 registers:
 * int8 -> int16 -> half (exact), one half multiplication (see ci8_scale_is_half). Where
 * `stream`, the output must be 64-byte aligned and is written with streaming stores
 * (the caller fences). Returns the parts done (a multiple of 32). Against the float
 * path (int32, float, multiply, round: five instructions per 16 parts) it issues
 * three per 32. */
__attribute__((target("avx512f,avx512bw,avx512fp16"))) static int64_t ci8_scaled_to_halves_fp16(
    uint16_t* restrict output, const int8_t* restrict input, int64_t n, float scale, bool stream)
{
    const __m512h factor =
        _mm512_castsi512_ph(_mm512_set1_epi16((short)blade_half_from_float(scale)));
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512i words = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i*)(input + i)));
        const __m512i halves =
            _mm512_castph_si512(_mm512_mul_ph(_mm512_cvtepi16_ph(words), factor));
        if (stream)
            _mm512_stream_si512((__m512i*)(output + i), halves);
        else
            _mm512_storeu_si512(output + i, halves);
    }
    return i;
}
#endif

/* Parts [first, last) of ci8, ci16 or cf32 times `scale` into cf16 (the half-precision
 * chain's input cast): a block at a time, each part as a float (exact), multiplied by
 * the scale in float and rounded to half once, as scaled_range does value by value;
 * ci8 in AVX-512 registers where the CPU has them. */
static void scaled_to_halves(const void* input,
                             blade_dtype input_type,
                             uint16_t* output,
                             int64_t first,
                             int64_t last,
                             float scale)
{
#ifdef BLADE_HAVE_FP16_ARITHMETIC_PATH
    if (ci8_scale_is_half(input_type, scale))
        first += ci8_scaled_to_halves_fp16(
            output + first, (const int8_t*)input + first, last - first, scale, false);
#endif
#ifdef BLADE_HAVE_F16C_PATH
    if (input_type == BLADE_CI8 && blade_cpu_features_get()->avx512)
        first += ci8_scaled_to_halves_avx512(
            output + first, (const int8_t*)input + first, last - first, scale);
#endif
    float block[STREAM_BLOCK] __attribute__((aligned(64)));
    for (int64_t i = first; i < last; i += STREAM_BLOCK) {
        const int64_t n = last - i < STREAM_BLOCK ? last - i : STREAM_BLOCK;
        if (input_type == BLADE_CI8)
            volk_8i_s32f_convert_32f(block, (const int8_t*)input + i, 1.0f, (unsigned)n);
        else if (input_type == BLADE_CI16)
            volk_16i_s32f_convert_32f(block, (const int16_t*)input + i, 1.0f, (unsigned)n);
        else
            memcpy(block, (const float*)input + i, (size_t)n * sizeof(float));
        for (int64_t j = 0; j < n; j++)
            block[j] *= scale;
        blade_floats_to_halves(output + i, block, n);
    }
}

/* scaled_to_halves for outputs large enough to stream (cpu_stream.h): STREAM_BLOCK
 * parts at a time formed in L1 and written with streaming stores, one fence a range
 * (an ordinary store first reads each output line). */
static void scaled_to_halves_streamed(const void* input,
                                      blade_dtype input_type,
                                      uint16_t* output,
                                      int64_t first,
                                      int64_t last,
                                      float scale)
{
#ifdef BLADE_HAVE_FP16_ARITHMETIC_PATH
    if (ci8_scale_is_half(input_type, scale)) {
        /* Streamed straight from the registers: ordinary stores up to the output's
         * first 64-byte boundary, and after the last whole step. */
        const int64_t head = ((64 - (uintptr_t)(output + first) % 64) % 64) / 2;
        const int64_t start = first + (head < last - first ? head : last - first);
        scaled_to_halves(input, input_type, output, first, start, scale);
        const int64_t done = ci8_scaled_to_halves_fp16(
            output + start, (const int8_t*)input + start, last - start, scale, true);
        scaled_to_halves(input, input_type, output, start + done, last, scale);
        blade_stream_fence();
        return;
    }
#endif
    const int64_t part_bytes = blade_dtype_bits(input_type) / 16; /* a complex's half */
    uint16_t block[STREAM_BLOCK] __attribute__((aligned(64)));
    for (int64_t i = first; i < last; i += STREAM_BLOCK) {
        const int64_t n = last - i < STREAM_BLOCK ? last - i : STREAM_BLOCK;
        scaled_to_halves((const char*)input + i * part_bytes, input_type, block, 0, n, scale);
        blade_stream_copy_unfenced(output + i, block, (size_t)n * sizeof(uint16_t));
    }
    blade_stream_fence();
}

static void cast_range(const void* input,
                       blade_dtype input_type,
                       void* output,
                       blade_dtype output_type,
                       int64_t begin,
                       int64_t end,
                       float scale,
                       bool stream)
{
    /* ci8 into cf16 at any scale, 1 included (its register loops beat the value-by-value
     * loop below); ci16 and cf32 where there is a scale to apply. */
    const bool to_scaled_halves =
        output_type == BLADE_CF16 &&
        (input_type == BLADE_CI8 ||
         (scale != 1.0f && (input_type == BLADE_CI16 || input_type == BLADE_CF32)));
    if (to_scaled_halves) {
        (stream ? scaled_to_halves_streamed
                : scaled_to_halves)(input, input_type, output, 2 * begin, 2 * end, scale);
        return;
    }
    if (scale != 1.0f) {
        scaled_range(input, input_type, output, output_type, begin, end, scale);
        return;
    }
    if (stream && (input_type == BLADE_CI8 || input_type == BLADE_CI16) &&
        output_type == BLADE_CF32) {
        integers_to_floats_streamed(input, input_type, output, 2 * begin, 2 * end);
        return;
    }
    if (input_type == BLADE_CI8 && output_type == BLADE_CF32) {
        volk_8i_s32f_convert_32f(
            (float*)output + 2 * begin, (const int8_t*)input + 2 * begin, 1.0f, 2 * (end - begin));
        return;
    }
    if (input_type == BLADE_CI16 && output_type == BLADE_CF32) {
        volk_16i_s32f_convert_32f(
            (float*)output + 2 * begin, (const int16_t*)input + 2 * begin, 1.0f, 2 * (end - begin));
        return;
    }
    if (input_type == BLADE_CF32 && output_type == BLADE_CF16) {
        blade_floats_to_halves(
            (uint16_t*)output + 2 * begin, (const float*)input + 2 * begin, 2 * (end - begin));
        return;
    }
    if (input_type == BLADE_CF16 && output_type == BLADE_CF32) {
        blade_halves_to_floats(
            (float*)output + 2 * begin, (const uint16_t*)input + 2 * begin, 2 * (end - begin));
        return;
    }
    if (input_type == BLADE_CI4 && output_type == BLADE_CF32) {
        const uint8_t* in = input;
        float* out = output;
        for (int64_t i = begin; i < end; i++) {
            out[2 * i] = (float)((int8_t)(in[i] & 0xf0) >> 4);
            out[2 * i + 1] = (float)((int8_t)(in[i] << 4) >> 4);
        }
        return;
    }
    for (int64_t i = begin; i < end; i++) {
        double re, im;
        load(input, input_type, i, &re, &im);
        store(output, output_type, i, re, im);
    }
}

void blade_cpu_cast(const void* input,
                    blade_dtype input_type,
                    void* output,
                    blade_dtype output_type,
                    int64_t count,
                    float scale)
{
    if (input_type == output_type && scale == 1.0f) {
        if (input != output)
            memcpy(output, input, (size_t)count * blade_dtype_bits(input_type) / 8);
        return;
    }
    const bool stream = blade_stream_pays(count * (int64_t)blade_dtype_bits(output_type) / 8);
    if (count < PARALLEL_THRESHOLD) {
        cast_range(input, input_type, output, output_type, 0, count, scale, stream);
        return;
    }
    /* Static chunks keep the result independent of the thread count. */
    const int64_t chunk = 1 << 16;
    const int64_t chunks = (count + chunk - 1) / chunk;
#pragma omp parallel for num_threads(blade_cpu_threads()) schedule(static)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t begin = c * chunk;
        const int64_t end = begin + chunk < count ? begin + chunk : count;
        cast_range(input, input_type, output, output_type, begin, end, scale, stream);
    }
}
