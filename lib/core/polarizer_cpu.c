/* SPDX-License-Identifier: MIT */
/*
 * Polarizer on the CPU: one pass over the pairs, which the compiler vectorises (the
 * loop body is additions only, so the result is exact and identical to the GPU's).
 * Large tensors are split across OpenMP threads in fixed chunks. cf16 pairs are
 * widened to float, combined, and rounded to half once per output value, a block at a
 * time (cpu_half.h).
 *
 * cf32 outputs of 64 MiB and more are formed 8 KiB at a time in L1 and written out
 * with streaming stores (cpu_stream.h), one fence per thread's chunk, the input
 * prefetched a block ahead: an ordinary store first reads each output line. On the CI
 * machine's Xeon, [16, 192, 8192, 2]: 56 -> 40 ms on one thread, 28.4 -> 20.4 ms on
 * two (fenced per block it was 46-54 ms; 16 KiB blocks or no prefetch measured
 * slower). The values are the same; only where they are stored from differs. cf16
 * pairs are combined in registers where the CPU has F16C (in half-precision
 * arithmetic, with the same bits, where it has AVX512-FP16), and streamed likewise.
 */
#include "cpu_features.h"
#include "cpu_half.h"
#include "cpu_simd.h"
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "polarizer_backend.h"

#include <stdint.h>

/* Below this many pairs threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 17)

/* A range of pairs [begin, end); the tensors are float or half by the function. */
typedef void (*polarize_range_fn)(const void* input, void* output, int64_t begin, int64_t end);

BLADE_CPU_CLONES
static void polarize_range(const void* input_data, void* output_data, int64_t begin, int64_t end)
{
    const float* input = input_data;
    float* output = output_data;
    for (int64_t i = begin; i < end; i++) {
        const float xr = input[4 * i], xi = input[4 * i + 1];
        const float yr = input[4 * i + 2], yi = input[4 * i + 3];
        /* X + iY = (xr - yi) + i(xi + yr);  X - iY = (xr + yi) + i(xi - yr) */
        output[4 * i] = xr - yi;
        output[4 * i + 1] = xi + yr;
        output[4 * i + 2] = xr + yi;
        output[4 * i + 3] = xi - yr;
    }
}

/* cf16 pairs, a block at a time: widened to float (exactly), combined by
 * polarize_range, rounded to half once per value (cpu_half.h). The fallback where the
 * CPU has no F16C, and the last odd pair of a range where it has. */
static void
polarize_half_blocks(const uint16_t* input, uint16_t* output, int64_t begin, int64_t end)
{
    enum { BLOCK = 512 }; /* pairs: 8 KiB of floats in, 8 out */
    float in[4 * BLOCK], out[4 * BLOCK];
    for (int64_t i = begin; i < end; i += BLOCK) {
        const int64_t pairs = end - i < BLOCK ? end - i : BLOCK;
        blade_halves_to_floats(in, input + 4 * i, 4 * pairs);
        polarize_range(in, out, 0, pairs);
        blade_floats_to_halves(output + 4 * i, out, 4 * pairs);
    }
}

#ifdef BLADE_HAVE_F16C_PATH
/* Two cf16 pairs a step, in registers: widened (exactly), combined, rounded to half
 * once per value, the same bits as polarize_half_blocks. Within each pair's four
 * floats v = (xr, xi, yr, yi) the outputs are (v0, v1, v0, v1) + (-v3, v2, v3, -v2): two
 * shuffles and one addition, the minus signs flipped exactly by a mask. The three
 * passes through L1 of polarize_half_blocks took 46 ms for [16, 192, 8192, 2] on one
 * core of the CI machine, 22 % of the memory bound. Returns the pairs done. */
__attribute__((target("avx2,f16c"))) static int64_t
polarize_halves_f16c(uint16_t* restrict output, const uint16_t* restrict input, int64_t pairs)
{
    const __m256 signs = _mm256_castsi256_ps(
        _mm256_setr_epi32(INT32_MIN, 0, 0, INT32_MIN, INT32_MIN, 0, 0, INT32_MIN));
    int64_t i = 0;
    for (; i + 2 <= pairs; i += 2) {
        const __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(input + 4 * i)));
        const __m256 firsts = _mm256_permute_ps(v, _MM_SHUFFLE(1, 0, 1, 0));
        const __m256 seconds = _mm256_xor_ps(_mm256_permute_ps(v, _MM_SHUFFLE(2, 3, 2, 3)), signs);
        _mm_storeu_si128((__m128i*)(output + 4 * i),
                         blade_floats8_to_halves(_mm256_add_ps(firsts, seconds)));
    }
    return i;
}

/* The same four pairs a step in AVX-512 registers (the F16C loop was limited by its
 * shuffles and NaN blends, one port's work: 37-41 ms for [16, 192, 8192, 2] on one core
 * here). NaN lanes become the float NaN that rounds to the canonical half 0x7e00. */
__attribute__((target("avx512f"))) static int64_t
polarize_halves_avx512(uint16_t* restrict output, const uint16_t* restrict input, int64_t pairs)
{
    const __m512i signs = _mm512_setr_epi32(INT32_MIN,
                                            0,
                                            0,
                                            INT32_MIN,
                                            INT32_MIN,
                                            0,
                                            0,
                                            INT32_MIN,
                                            INT32_MIN,
                                            0,
                                            0,
                                            INT32_MIN,
                                            INT32_MIN,
                                            0,
                                            0,
                                            INT32_MIN);
    const __m512 canonical = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
    int64_t i = 0;
    for (; i + 4 <= pairs; i += 4) {
        const __m512 v = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(input + 4 * i)));
        const __m512 firsts = _mm512_permute_ps(v, _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 seconds = _mm512_castsi512_ps(_mm512_xor_si512(
            _mm512_castps_si512(_mm512_permute_ps(v, _MM_SHUFFLE(2, 3, 2, 3))), signs));
        __m512 value = _mm512_add_ps(firsts, seconds);
        value =
            _mm512_mask_mov_ps(value, _mm512_cmp_ps_mask(value, value, _CMP_UNORD_Q), canonical);
        _mm256_storeu_si256((__m256i*)(output + 4 * i),
                            _mm512_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    return i;
}
#endif

#ifdef BLADE_HAVE_FP16_ARITHMETIC_PATH
/* Eight pairs a step in half-precision arithmetic (AVX512-FP16): the same shuffles and
 * sign flips on 16-bit lanes, one half addition per output value. The same bits as the
 * float paths: a float sum of two halves rounded to half is the half sum rounded once
 * (float's 24 bits are at least twice half's 11 plus 2, so the double rounding is
 * innocuous; test_polarizer checks all 2^32 pairs of halves where the CPU can), NaN
 * lanes set to the canonical 0x7e00 as there. Large outputs go through
 * polarize_streamed's L1 blocks like the other paths (streaming straight from these
 * registers measured within the machine's noise of it). Returns the pairs done. */
__attribute__((target("avx512f,avx512bw,avx512fp16"))) static int64_t
polarize_halves_fp16(uint16_t* restrict output, const uint16_t* restrict input, int64_t pairs)
{
    /* Bytes of each pair's four halves (xr, xi, yr, yi) as (xr, xi, xr, xi) and (yi, yr,
     * yi, yr); then -yi and -yr: X + iY = (xr - yi, xi + yr), X - iY = (xr + yi, xi - yr). */
    const __m512i firsts =
        _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 3, 0, 1, 2, 3, 8, 9, 10, 11, 8, 9, 10, 11));
    const __m512i seconds = _mm512_broadcast_i32x4(
        _mm_setr_epi8(6, 7, 4, 5, 6, 7, 4, 5, 14, 15, 12, 13, 14, 15, 12, 13));
    const __m512i signs = _mm512_set1_epi64((long long)0x8000000000008000ull);
    const __m512i canonical = _mm512_set1_epi16(0x7e00);
    int64_t i = 0;
    for (; i + 8 <= pairs; i += 8) {
        const __m512i v = _mm512_loadu_si512(input + 4 * i);
        const __m512h sum = _mm512_add_ph(
            _mm512_castsi512_ph(_mm512_shuffle_epi8(v, firsts)),
            _mm512_castsi512_ph(_mm512_xor_si512(_mm512_shuffle_epi8(v, seconds), signs)));
        const __mmask32 nan = _mm512_cmp_ph_mask(sum, sum, _CMP_UNORD_Q);
        _mm512_storeu_si512(output + 4 * i,
                            _mm512_mask_mov_epi16(_mm512_castph_si512(sum), nan, canonical));
    }
    return i;
}
#endif

/* Pairs [begin, end) of cf16, from input to output (both indexed from pair 0). */
static void polarize_half_pairs(const uint16_t* input, uint16_t* output, int64_t begin, int64_t end)
{
#ifdef BLADE_HAVE_FP16_ARITHMETIC_PATH
    if (blade_cpu_features_get()->avx512fp16)
        begin += polarize_halves_fp16(output + 4 * begin, input + 4 * begin, end - begin);
#endif
#ifdef BLADE_HAVE_F16C_PATH
    if (blade_cpu_features_get()->avx512)
        begin += polarize_halves_avx512(output + 4 * begin, input + 4 * begin, end - begin);
    if (blade_cpu_features_get()->f16c)
        begin += polarize_halves_f16c(output + 4 * begin, input + 4 * begin, end - begin);
#endif
    polarize_half_blocks(input, output, begin, end);
}

static void
polarize_half_range(const void* input_data, void* output_data, int64_t begin, int64_t end)
{
    polarize_half_pairs(input_data, output_data, begin, end);
}

/* Output formed in L1 a block at a time, then written out with streaming stores. */
#define STREAM_BLOCK_BYTES 8192

/* Pairs [begin, end) of `pair_bytes` each (in and out alike) by `range`, 8 KiB of output
 * at a time into an L1 block, then out with streaming stores (cpu_stream.h), the input
 * prefetched a block ahead; one fence at the end. */
static void polarize_streamed(polarize_range_fn range,
                              int64_t pair_bytes,
                              const void* input,
                              void* output,
                              int64_t begin,
                              int64_t end)
{
    const int64_t block_pairs = STREAM_BLOCK_BYTES / pair_bytes;
    _Alignas(64) unsigned char block[STREAM_BLOCK_BYTES];
    for (int64_t i = begin; i < end; i += block_pairs) {
        const int64_t pairs = end - i < block_pairs ? end - i : block_pairs;
        const char* from = (const char*)input + i * pair_bytes;
        blade_prefetch(from + block_pairs * pair_bytes, pairs * pair_bytes);
        range(from, block, 0, pairs);
        blade_stream_copy_unfenced(
            (char*)output + i * pair_bytes, block, (size_t)(pairs * pair_bytes));
    }
    blade_stream_fence();
}

static void polarize_streamed_range(const void* input, void* output, int64_t begin, int64_t end)
{
    polarize_streamed(polarize_range, 4 * sizeof(float), input, output, begin, end);
}

static void
polarize_half_streamed_range(const void* input, void* output, int64_t begin, int64_t end)
{
    polarize_streamed(polarize_half_range, 4 * sizeof(uint16_t), input, output, begin, end);
}

/* Runs range over all pairs: inline when small, else in fixed chunks across threads. */
static void
polarize_dispatch(polarize_range_fn range, const void* input, void* output, int64_t pairs)
{
    if (pairs < PARALLEL_THRESHOLD) {
        range(input, output, 0, pairs);
        return;
    }
    const int64_t chunk = 1 << 15;
    const int64_t chunks = (pairs + chunk - 1) / chunk;
#pragma omp parallel for num_threads(blade_cpu_threads()) schedule(static)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t begin = c * chunk;
        range(input, output, begin, begin + chunk < pairs ? begin + chunk : pairs);
    }
}

void blade_cpu_polarize(const float* input, float* output, int64_t pairs)
{
    const bool stream = blade_stream_pays(pairs * 4 * (int64_t)sizeof(float));
    polarize_dispatch(stream ? polarize_streamed_range : polarize_range, input, output, pairs);
}

void blade_cpu_polarize_half(const uint16_t* input, uint16_t* output, int64_t pairs)
{
    const bool stream = blade_stream_pays(pairs * 4 * (int64_t)sizeof(uint16_t));
    polarize_dispatch(
        stream ? polarize_half_streamed_range : polarize_half_range, input, output, pairs);
}
