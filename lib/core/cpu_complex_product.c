/* SPDX-License-Identifier: MIT */
/*
 * Y = W X in vector registers: a register tile of BEAMS rows of Y by VECTORS vectors
 * of its columns is held in accumulators while k runs over the depth. Per k a tile
 * loads VECTORS vectors of x's row k (complex values as they lie: (re, im) pairs), and
 * for each of its rows broadcasts w.re and w.im and adds w.re x and w.im x to the two
 * accumulators of each vector: two fused multiply-adds per vector and row, no
 * shuffle. At the end one shuffle swaps each pair of the w.im x sums and one
 * fmaddsub forms (re - im.im, im + im.re). The loads and broadcasts (VECTORS + 2 BEAMS
 * per k) stay below the multiply-adds (2 BEAMS VECTORS) that the two FMA pipes of a
 * core retire, so the tile runs at the FMA rate from L1 and L2.
 *
 * Tiles: AVX-512 4 rows x 2 vectors (8 complex values each): 16 accumulators of the 32
 * registers; AVX2 3 x 2 (4 complex values a vector): 12 of 16. Measured on the CI
 * machine (an Emerald Rapids Xeon, one thread, (64 x 64) x (64 x 256) in cache): AVX-512
 * 234-244 GFLOP/s against 170-184 for OpenBLAS 0.3.21's cgemm (SkylakeX kernels); 4 x
 * 2 and 2 x 4 alike, 6 x 2, 8 x 1 and 3 x 3 0.55-0.7x; at (8 x 28) 215-239 against
 * 96-104. AVX2 2 x 2 120 GFLOP/s against 105 (Haswell kernels); 3 x 2 and 2 x 3 no
 * faster there, but on an AVX2-only Zen 3 (two FMA pipes of latency 4: eight chains
 * are just enough on paper) 3 x 2 ran 87 GFLOP/s against 75 for 2 x 2, of a peak near
 * 103. The last vectors of a row are masked (zeros in, nothing out).
 */
#include "cpu_complex_product.h"

#include "cpu_features.h"

#include <stdbool.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BLADE_HAVE_COMPLEX_PRODUCT
#include <immintrin.h>
#endif

#ifdef BLADE_HAVE_COMPLEX_PRODUCT

int blade_cpu_complex_product_width(void)
{
    const blade_cpu_features* cpu = blade_cpu_features_get();
    return cpu->avx512 ? 512 : cpu->fma ? 256 : 0;
}

/* The constant arguments of these always-inlined helpers (rows, vectors, masked)
 * unroll their loops into straight code for each tile shape. */
#define INLINE static inline __attribute__((always_inline))

/* ---- AVX-512: tiles of 4 rows x 2 vectors of 8 complex values ---- */

enum { ROWS512 = 4, VECTORS512 = 2, VALUES512 = 8 };
#define AVX512 __attribute__((target("avx512f")))

INLINE AVX512 void tile512(const int rows,
                           int64_t depth,
                           const float* w,
                           int64_t w_stride,
                           const float* x,
                           int64_t x_stride,
                           float* y,
                           int64_t y_stride,
                           const __mmask16 mask[VECTORS512])
{
    __m512 re[ROWS512][VECTORS512], im[ROWS512][VECTORS512];
#pragma GCC unroll 4
    for (int r = 0; r < rows; r++)
#pragma GCC unroll 2
        for (int v = 0; v < VECTORS512; v++)
            re[r][v] = im[r][v] = _mm512_setzero_ps();
    for (int64_t k = 0; k < depth; k++) {
        __m512 xv[VECTORS512];
#pragma GCC unroll 2
        for (int v = 0; v < VECTORS512; v++)
            xv[v] = _mm512_maskz_loadu_ps(mask[v], x + 2 * (k * x_stride + VALUES512 * v));
#pragma GCC unroll 4
        for (int r = 0; r < rows; r++) {
            const float* wk = w + 2 * (r * w_stride + k);
            const __m512 wr = _mm512_set1_ps(wk[0]), wi = _mm512_set1_ps(wk[1]);
#pragma GCC unroll 2
            for (int v = 0; v < VECTORS512; v++) {
                re[r][v] = _mm512_fmadd_ps(wr, xv[v], re[r][v]);
                im[r][v] = _mm512_fmadd_ps(wi, xv[v], im[r][v]);
            }
        }
    }
    const __m512 one = _mm512_set1_ps(1.0f);
#pragma GCC unroll 4
    for (int r = 0; r < rows; r++)
#pragma GCC unroll 2
        for (int v = 0; v < VECTORS512; v++) {
            const __m512 swapped = _mm512_permute_ps(im[r][v], 0xB1); /* (im.im, im.re) */
            _mm512_mask_storeu_ps(y + 2 * (r * y_stride + VALUES512 * v),
                                  mask[v],
                                  _mm512_fmaddsub_ps(one, re[r][v], swapped));
        }
}

/* Every row of Y for one column block (VECTORS512 vectors, `mask` for a partial one). */
INLINE AVX512 void column512(int64_t rows,
                             int64_t depth,
                             const float* w,
                             int64_t w_stride,
                             const float* x,
                             int64_t x_stride,
                             float* y,
                             int64_t y_stride,
                             const __mmask16 mask[VECTORS512])
{
    int64_t r = 0;
    for (; r + ROWS512 <= rows; r += ROWS512)
        tile512(ROWS512,
                depth,
                w + 2 * r * w_stride,
                w_stride,
                x,
                x_stride,
                y + 2 * r * y_stride,
                y_stride,
                mask);
    const float* wr = w + 2 * r * w_stride;
    float* yr = y + 2 * r * y_stride;
    switch (rows - r) {
    case 3:
        tile512(3, depth, wr, w_stride, x, x_stride, yr, y_stride, mask);
        break;
    case 2:
        tile512(2, depth, wr, w_stride, x, x_stride, yr, y_stride, mask);
        break;
    case 1:
        tile512(1, depth, wr, w_stride, x, x_stride, yr, y_stride, mask);
        break;
    default:
        break;
    }
}

static AVX512 void product512(int64_t rows,
                              int64_t columns,
                              int64_t depth,
                              const float* w,
                              int64_t w_stride,
                              const float* x,
                              int64_t x_stride,
                              float* y,
                              int64_t y_stride)
{
    const int64_t block = VALUES512 * VECTORS512;
    const __mmask16 whole[VECTORS512] = { 0xFFFF, 0xFFFF };
    int64_t c = 0;
    for (; c + block <= columns; c += block)
        column512(rows, depth, w, w_stride, x + 2 * c, x_stride, y + 2 * c, y_stride, whole);
    if (c == columns)
        return;
    __mmask16 mask[VECTORS512];
    for (int v = 0; v < VECTORS512; v++) {
        int64_t values = columns - c - VALUES512 * v;
        values = values < 0 ? 0 : values > VALUES512 ? VALUES512 : values;
        mask[v] = (__mmask16)((1u << (2 * values)) - 1u); /* two floats a value */
    }
    column512(rows, depth, w, w_stride, x + 2 * c, x_stride, y + 2 * c, y_stride, mask);
}

/* ---- AVX2: tiles of 3 rows x 2 vectors of 4 complex values ---- */

enum { ROWS256 = 3, VECTORS256 = 2, VALUES256 = 4 };
#define AVX2 __attribute__((target("avx2,fma")))

/* Partial vectors use AVX2's masked loads and stores (a lane's sign bit), which cost
 * more than plain ones: only the last block of a row takes them (`masked`). */
INLINE AVX2 __m256 load256(const float* at, __m256i mask, bool masked)
{
    return masked ? _mm256_maskload_ps(at, mask) : _mm256_loadu_ps(at);
}

INLINE AVX2 void store256(float* at, __m256i mask, bool masked, __m256 value)
{
    if (masked)
        _mm256_maskstore_ps(at, mask, value);
    else
        _mm256_storeu_ps(at, value);
}

INLINE AVX2 void tile256(const int rows,
                         int64_t depth,
                         const float* w,
                         int64_t w_stride,
                         const float* x,
                         int64_t x_stride,
                         float* y,
                         int64_t y_stride,
                         const __m256i mask[VECTORS256],
                         const bool masked)
{
    __m256 re[ROWS256][VECTORS256], im[ROWS256][VECTORS256];
#pragma GCC unroll 3
    for (int r = 0; r < rows; r++)
#pragma GCC unroll 2
        for (int v = 0; v < VECTORS256; v++)
            re[r][v] = im[r][v] = _mm256_setzero_ps();
    for (int64_t k = 0; k < depth; k++) {
        __m256 xv[VECTORS256];
#pragma GCC unroll 2
        for (int v = 0; v < VECTORS256; v++)
            xv[v] = load256(x + 2 * (k * x_stride + VALUES256 * v), mask[v], masked);
#pragma GCC unroll 3
        for (int r = 0; r < rows; r++) {
            const float* wk = w + 2 * (r * w_stride + k);
            const __m256 wr = _mm256_broadcast_ss(wk), wi = _mm256_broadcast_ss(wk + 1);
#pragma GCC unroll 2
            for (int v = 0; v < VECTORS256; v++) {
                re[r][v] = _mm256_fmadd_ps(wr, xv[v], re[r][v]);
                im[r][v] = _mm256_fmadd_ps(wi, xv[v], im[r][v]);
            }
        }
    }
    const __m256 one = _mm256_set1_ps(1.0f);
#pragma GCC unroll 3
    for (int r = 0; r < rows; r++)
#pragma GCC unroll 2
        for (int v = 0; v < VECTORS256; v++) {
            const __m256 swapped = _mm256_permute_ps(im[r][v], 0xB1);
            store256(y + 2 * (r * y_stride + VALUES256 * v),
                     mask[v],
                     masked,
                     _mm256_fmaddsub_ps(one, re[r][v], swapped));
        }
}

INLINE AVX2 void column256(int64_t rows,
                           int64_t depth,
                           const float* w,
                           int64_t w_stride,
                           const float* x,
                           int64_t x_stride,
                           float* y,
                           int64_t y_stride,
                           const __m256i mask[VECTORS256],
                           const bool masked)
{
    int64_t r = 0;
    for (; r + ROWS256 <= rows; r += ROWS256)
        tile256(ROWS256,
                depth,
                w + 2 * r * w_stride,
                w_stride,
                x,
                x_stride,
                y + 2 * r * y_stride,
                y_stride,
                mask,
                masked);
    /* the last one or two rows: each count a constant, so its tile unrolls */
    if (rows - r == 2)
        tile256(2,
                depth,
                w + 2 * r * w_stride,
                w_stride,
                x,
                x_stride,
                y + 2 * r * y_stride,
                y_stride,
                mask,
                masked);
    else if (rows - r == 1)
        tile256(1,
                depth,
                w + 2 * r * w_stride,
                w_stride,
                x,
                x_stride,
                y + 2 * r * y_stride,
                y_stride,
                mask,
                masked);
}

static AVX2 void product256(int64_t rows,
                            int64_t columns,
                            int64_t depth,
                            const float* w,
                            int64_t w_stride,
                            const float* x,
                            int64_t x_stride,
                            float* y,
                            int64_t y_stride)
{
    const int64_t block = VALUES256 * VECTORS256;
    const __m256i whole[VECTORS256] = { _mm256_set1_epi32(-1), _mm256_set1_epi32(-1) };
    int64_t c = 0;
    for (; c + block <= columns; c += block)
        column256(rows, depth, w, w_stride, x + 2 * c, x_stride, y + 2 * c, y_stride, whole, false);
    if (c == columns)
        return;
    const __m256i lane_value = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3); /* value of a float */
    __m256i mask[VECTORS256];
    for (int v = 0; v < VECTORS256; v++) {
        const int64_t values = columns - c - VALUES256 * v; /* may be <= 0: nothing */
        mask[v] = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(values < 0 ? 0 : values)), lane_value);
    }
    column256(rows, depth, w, w_stride, x + 2 * c, x_stride, y + 2 * c, y_stride, mask, true);
}

void blade_cpu_complex_product(int width,
                               int64_t rows,
                               int64_t columns,
                               int64_t depth,
                               const float* w,
                               int64_t w_stride,
                               const float* x,
                               int64_t x_stride,
                               float* y,
                               int64_t y_stride)
{
    const int widest = blade_cpu_complex_product_width();
    if (width >= 512 && widest >= 512)
        product512(rows, columns, depth, w, w_stride, x, x_stride, y, y_stride);
    else if (width >= 256 && widest >= 256)
        product256(rows, columns, depth, w, w_stride, x, x_stride, y, y_stride);
}

#else

int blade_cpu_complex_product_width(void) { return 0; }

void blade_cpu_complex_product(int width,
                               int64_t rows,
                               int64_t columns,
                               int64_t depth,
                               const float* w,
                               int64_t w_stride,
                               const float* x,
                               int64_t x_stride,
                               float* y,
                               int64_t y_stride)
{
    (void)width, (void)rows, (void)columns, (void)depth, (void)w, (void)w_stride;
    (void)x, (void)x_stride, (void)y, (void)y_stride;
}

#endif
