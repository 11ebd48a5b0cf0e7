/* SPDX-License-Identifier: MIT */
/*
 * cpu_transpose.h: 8 x 8 blocks of 8-byte elements and 4 x 4 blocks of 16-byte
 * elements, transposed in 512-bit registers (64-bit unpacks, then 128-bit lane
 * shuffles) and streamed out 64 bytes per output row.
 */
#include "cpu_transpose.h"

#include "cpu_features.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define BLADE_HAVE_TRANSPOSE_AVX512
#include <immintrin.h>
#endif

#ifdef BLADE_HAVE_TRANSPOSE_AVX512
/* Rows r[0 .. 7] of 8 elements in, columns out: out row k = (r[0][k], ..., r[7][k]). */
__attribute__((target("avx512f"))) static void
block_8x8(char* out, int64_t out_row_bytes, const char* in, int64_t in_row_bytes)
{
    __m512i r[8], t[8], u[8];
    for (int k = 0; k < 8; k++)
        r[k] = _mm512_loadu_si512((const void*)(in + k * in_row_bytes));
    /* Pairs of rows, element by element: t[2m] = (r[2m][0], r[2m+1][0], r[2m][2], ...),
     * t[2m+1] the odd elements. */
    for (int m = 0; m < 4; m++) {
        t[2 * m] = _mm512_unpacklo_epi64(r[2 * m], r[2 * m + 1]);
        t[2 * m + 1] = _mm512_unpackhi_epi64(r[2 * m], r[2 * m + 1]);
    }
    /* Quads of rows: u[q] holds rows 0-3 (q < 4) or 4-7 of elements e and e + 4, with
     * e = 0, 1, 2, 3 for q % 4 = 0, 1, 2, 3. */
    const __m512i low = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i high = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (int half = 0; half < 2; half++) {
        const __m512i* p = t + 4 * half;
        u[4 * half + 0] = _mm512_permutex2var_epi64(p[0], low, p[2]);
        u[4 * half + 1] = _mm512_permutex2var_epi64(p[1], low, p[3]);
        u[4 * half + 2] = _mm512_permutex2var_epi64(p[0], high, p[2]);
        u[4 * half + 3] = _mm512_permutex2var_epi64(p[1], high, p[3]);
    }
    /* Element e from both quads, then element e + 4. */
    for (int e = 0; e < 4; e++) {
        _mm512_stream_si512((void*)(out + e * out_row_bytes),
                            _mm512_shuffle_i64x2(u[e], u[4 + e], 0x44));
        _mm512_stream_si512((void*)(out + (e + 4) * out_row_bytes),
                            _mm512_shuffle_i64x2(u[e], u[4 + e], 0xEE));
    }
}

/* Rows r[0 .. 3] of 4 16-byte elements in, out row k = (r[0][k], ..., r[3][k]). */
__attribute__((target("avx512f"))) static void
block_4x4(char* out, int64_t out_row_bytes, const char* in, int64_t in_row_bytes)
{
    __m512i r[4];
    for (int k = 0; k < 4; k++)
        r[k] = _mm512_loadu_si512((const void*)(in + k * in_row_bytes));
    const __m512i t0 = _mm512_shuffle_i64x2(r[0], r[1], 0x44); /* r0[0] r0[1] r1[0] r1[1] */
    const __m512i t1 = _mm512_shuffle_i64x2(r[0], r[1], 0xEE); /* r0[2] r0[3] r1[2] r1[3] */
    const __m512i t2 = _mm512_shuffle_i64x2(r[2], r[3], 0x44);
    const __m512i t3 = _mm512_shuffle_i64x2(r[2], r[3], 0xEE);
    _mm512_stream_si512((void*)out, _mm512_shuffle_i64x2(t0, t2, 0x88));
    _mm512_stream_si512((void*)(out + out_row_bytes), _mm512_shuffle_i64x2(t0, t2, 0xDD));
    _mm512_stream_si512((void*)(out + 2 * out_row_bytes), _mm512_shuffle_i64x2(t1, t3, 0x88));
    _mm512_stream_si512((void*)(out + 3 * out_row_bytes), _mm512_shuffle_i64x2(t1, t3, 0xDD));
}
#endif

int blade_transpose_block_side(int size)
{
#ifdef BLADE_HAVE_TRANSPOSE_AVX512
    if (blade_cpu_features_get()->avx512 && (size == 8 || size == 16))
        return 64 / size;
#else
    (void)size;
#endif
    return 0;
}

void blade_transpose_streamed(char* out,
                              int64_t out_row_bytes,
                              const char* in,
                              int64_t in_row_bytes,
                              int64_t rows,
                              int64_t columns,
                              int size)
{
#ifdef BLADE_HAVE_TRANSPOSE_AVX512
    const int64_t side = 64 / size;
    for (int64_t i = 0; i < rows; i += side)
        for (int64_t j = 0; j < columns; j += side) {
            char* to = out + i * out_row_bytes + j * size;
            const char* from = in + j * in_row_bytes + i * size;
            if (size == 8)
                block_8x8(to, out_row_bytes, from, in_row_bytes);
            else
                block_4x4(to, out_row_bytes, from, in_row_bytes);
        }
#else
    (void)out, (void)out_row_bytes, (void)in, (void)in_row_bytes, (void)rows, (void)columns,
        (void)size;
#endif
}
