/* SPDX-License-Identifier: MIT */
/*
 * Complex matrix products Y = W X in vector registers (AVX-512, or AVX2 with FMA), for
 * the CPU beamformer's packed blocks (beamformer_cpu_packed.c). Not installed.
 */
#ifndef BLADE_CORE_CPU_COMPLEX_PRODUCT_H
#define BLADE_CORE_CPU_COMPLEX_PRODUCT_H

#include <stdint.h>

/* The widest registers blade_cpu_complex_product may use on this CPU, in bits: 512
 * (AVX-512F), 256 (AVX2 and FMA) or 0 (neither, or not an x86-64 build: no product). */
int blade_cpu_complex_product_width(void);

/*
 * y[r, c] = Σ_k w[r, k] x[k, c] for r < rows, c < columns, k < depth: complex floats as
 * (re, im) pairs, row-major, each matrix's rows `*_stride` complex values apart. In
 * registers of `width` bits (512 or 256, at most blade_cpu_complex_product_width()).
 *
 * Each output is two chains of fused multiply-adds over k in increasing order, one of
 * w.re x and one of w.im x (both parts of x at once), combined at the end by one
 * rounding per part: re = Σ w.re x.re - Σ w.im x.im, im = Σ w.re x.im + Σ w.im x.re.
 * The operations on each value do not depend on the width, so 512 and 256 give the
 * same bits.
 */
void blade_cpu_complex_product(int width,
                               int64_t rows,
                               int64_t columns,
                               int64_t depth,
                               const float* w,
                               int64_t w_stride,
                               const float* x,
                               int64_t x_stride,
                               float* y,
                               int64_t y_stride);

#endif
