/* SPDX-License-Identifier: MIT */
/*
 * Detector on the CPU, the reference: every output is a sum in double precision over
 * its own samples, in an order fixed by the code (not by the thread count or the
 * machine), converted to the mode's products and rounded to float once.
 *
 * The sums are written so that the compiler vectorises them: each product keeps its
 * own accumulator lane through the row (|X|² as Σ xr² + Σ xi², X·Y* from the four
 * lanes xr·yr, xi·yi, xr·yi, xi·yr), and the lanes are added at the row's end. The
 * products of two floats are exact in double, so the AVX-512, AVX2 and baseline
 * clones of the loop (cpu_simd.h) give the same bits. Rows are independent: each
 * OpenMP thread takes one contiguous run of them, with no effect on the result.
 *
 * Not VOLK: computing the products with volk_32fc_magnitude_squared_32f and
 * volk_32fc_x2_multiply_conjugate_32fc into a block, then summing them in double per
 * row, was measured slower on the CI machine (Stokes I, I = 8: 120-155 ms against
 * 92-132 ms for a fused loop, IQUV on par): the products are cheap next to the double
 * sums, which this loop does in the same pass at memory speed, while the VOLK route
 * writes and reads the block a second time.
 */
#include "cpu_simd.h"
#include "cpu_threads_internal.h"
#include "detector_backend.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many samples threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 16)

/* Four doubles: two SSE2 registers, one AVX register (GCC and Clang vector extension;
 * * and + act lane by lane). The helpers are macros: a function taking or returning
 * one would have a different calling convention in each clone. */
typedef double f64x4 __attribute__((vector_size(32)));

/* The four floats at v as doubles (exact). */
#define LOAD4(v) ((f64x4){ (v)[0], (v)[1], (v)[2], (v)[3] })
/* (xr·yr, xi·yi, xr·yi, xi·yr) of one sample d = (xr, xi, yr, yi). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define BLADE_HAVE_SHUFFLEVECTOR
#endif
#endif
#ifdef BLADE_HAVE_SHUFFLEVECTOR
#define CROSS_TERMS(d) \
    (__builtin_shufflevector((d), (d), 0, 1, 0, 1) * __builtin_shufflevector((d), (d), 2, 3, 3, 2))
#else /* GCC before 12: the same products, in the same lanes */
#define CROSS_TERMS(d) \
    ((f64x4){ (d)[0], (d)[1], (d)[0], (d)[1] } * (f64x4){ (d)[2], (d)[3], (d)[3], (d)[2] })
#endif

/* XX = Σ|X|², YY = Σ|Y|², Re and Im of Σ X·Y* over `count` samples (xr, xi, yr, yi) of
 * two polarizations; X·Y* = (xr·yr + xi·yi) + i (xi·yr − xr·yi). Each lane of
 * `square` (xr², xi², yr², yi²) and `cross` (CROSS_TERMS) is summed over the even
 * samples and, apart, over the odd ones (two independent chains); the two sums are
 * added, then the lanes. */
static inline void sum_products(const float* restrict v, int64_t count, double sums[4])
{
    f64x4 square_even = { 0 }, square_odd = { 0 }, cross_even = { 0 }, cross_odd = { 0 };
    int64_t t = 0;
    for (; t + 2 <= count; t += 2, v += 8) {
        const f64x4 even = LOAD4(v), odd = LOAD4(v + 4);
        square_even += even * even;
        square_odd += odd * odd;
        cross_even += CROSS_TERMS(even);
        cross_odd += CROSS_TERMS(odd);
    }
    if (t < count) {
        const f64x4 even = LOAD4(v);
        square_even += even * even;
        cross_even += CROSS_TERMS(even);
    }
    const f64x4 square = square_even + square_odd, cross = cross_even + cross_odd;
    sums[0] = square[0] + square[1];
    sums[1] = square[2] + square[3];
    sums[2] = cross[0] + cross[1];
    sums[3] = cross[3] - cross[2];
}

/* Σ v² over `values` floats (a multiple of 2): lane k of the two chains sums the
 * values at 8j + k and 8j + 4 + k, then the chains and the lanes are added. */
static inline double sum_squares(const float* restrict v, int64_t values)
{
    f64x4 even = { 0 }, odd = { 0 };
    int64_t i = 0;
    for (; i + 8 <= values; i += 8) {
        const f64x4 a = LOAD4(v + i), b = LOAD4(v + i + 4);
        even += a * a;
        odd += b * b;
    }
    if (i + 4 <= values) {
        const f64x4 a = LOAD4(v + i);
        even += a * a;
        i += 4;
    }
    if (i < values) { /* one complex value of a single polarization */
        const f64x4 a = { v[i], v[i + 1], 0, 0 };
        odd += a * a;
    }
    const f64x4 sum = even + odd;
    return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

/* Rows [first, end) of one mode with its Pout outputs: each row's values, plus
 * `previous`, to `accumulator` (double) or `output` (float). Inlined with constant
 * `mode` and `outputs`, so each mode has a loop of its own and the values stay in
 * registers on their way to memory. */
static inline __attribute__((always_inline)) void detect_rows_of(const blade_detector_mode mode,
                                                                 const int outputs,
                                                                 const float* restrict input,
                                                                 int64_t first,
                                                                 int64_t end,
                                                                 int64_t integration,
                                                                 int polarizations,
                                                                 bool mirror,
                                                                 const double* previous,
                                                                 double* accumulator,
                                                                 float* restrict output)
{
    const int64_t row_values = integration * 2 * polarizations;
    const double sign_of_im = mirror ? -1.0 : 1.0;
    for (int64_t r = first; r < end; r++) {
        const float* row = input + r * row_values;
        double value[4], s[4];
        if (mode == BLADE_DETECT_I) {
            value[0] = sum_squares(row, row_values);
        } else {
            sum_products(row, integration, s);
            value[0] = mode == BLADE_DETECT_IQUV ? s[0] + s[1] : s[0];
            value[1] = mode == BLADE_DETECT_IQUV ? s[0] - s[1] : s[1];
            value[2] = mode == BLADE_DETECT_IQUV ? 2 * s[2] : s[2];
            value[3] = mode == BLADE_DETECT_IQUV ? -2 * sign_of_im * s[3] : sign_of_im * s[3];
        }
        for (int c = 0; c < outputs; c++) {
            const int64_t at = r * outputs + c;
            const double total = previous ? previous[at] + value[c] : value[c];
            if (accumulator)
                accumulator[at] = total;
            else
                output[at] = (float)total;
        }
    }
}

BLADE_CPU_CLONES
static void detect_rows(const float* restrict input,
                        int64_t first,
                        int64_t end,
                        int64_t integration,
                        int polarizations,
                        blade_detector_mode mode,
                        bool mirror,
                        const double* previous,
                        double* accumulator,
                        float* restrict output)
{
#define DETECT_ROWS(mode, outputs) \
    detect_rows_of(mode,           \
                   outputs,        \
                   input,          \
                   first,          \
                   end,            \
                   integration,    \
                   polarizations,  \
                   mirror,         \
                   previous,       \
                   accumulator,    \
                   output)
    switch (mode) {
    case BLADE_DETECT_I:
        DETECT_ROWS(BLADE_DETECT_I, 1);
        break;
    case BLADE_DETECT_XXYY:
        DETECT_ROWS(BLADE_DETECT_XXYY, 2);
        break;
    case BLADE_DETECT_CROSS:
        DETECT_ROWS(BLADE_DETECT_CROSS, 4);
        break;
    case BLADE_DETECT_IQUV:
        DETECT_ROWS(BLADE_DETECT_IQUV, 4);
        break;
    }
#undef DETECT_ROWS
}

void blade_cpu_detect(const float* input,
                      int64_t rows,
                      int64_t integration,
                      int polarizations,
                      blade_detector_mode mode,
                      bool lower_sideband,
                      const double* previous,
                      double* accumulator,
                      float* output)
{
    /* Both cross and IQUV put Im(X·Y*) (or V) last. */
    const bool mirror = lower_sideband && (mode == BLADE_DETECT_CROSS || mode == BLADE_DETECT_IQUV);
#pragma omp parallel num_threads(blade_cpu_threads()) if (rows * integration >= PARALLEL_THRESHOLD)
    {
        int64_t first = 0, end = rows;
#ifdef _OPENMP
        /* One contiguous run of rows per thread. */
        const int64_t thread = omp_get_thread_num(), threads = omp_get_num_threads();
        first = rows * thread / threads;
        end = rows * (thread + 1) / threads;
#endif
        detect_rows(input,
                    first,
                    end,
                    integration,
                    polarizations,
                    mode,
                    mirror,
                    previous,
                    accumulator,
                    output);
    }
}
