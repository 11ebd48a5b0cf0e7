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
 * cf16 voltages are widened to float a block of samples at a time (on the stack) and
 * fed to the same chains, which carry their lanes from block to block: the additions
 * and their order are those of the cf32 row the cast would give, so the result is bit
 * for bit that of the cast.
 *
 * The input is asked for PREFETCH_DISTANCE bytes ahead of the values being summed, a
 * line per 64 bytes as the chains advance (a software prefetch). The loop reads far
 * more than it writes, and one core's reads are bound by how many cache-line misses
 * it keeps in flight: on the CI machine's Xeon the hardware prefetchers alone left the
 * Stokes I and IQUV loops at 10-11 GB/s on one thread, 55-60 % of what a plain read
 * loop reaches; with the prefetch 14-16 GB/s (1.3-1.6x), and on two threads 1.4-2x.
 * 2, 4 and 8 KiB ahead measured alike, 512 bytes and 32 KiB worse. A prefetch of a
 * whole row at its start served short rows as well, but long ones (a whole chunk per
 * row: 64 KiB) 1.6x worse than the prefetch in the chains.
 *
 * Not VOLK: computing the products with volk_32fc_magnitude_squared_32f and
 * volk_32fc_x2_multiply_conjugate_32fc into a block, then summing them in double per
 * row, was measured slower on the CI machine (Stokes I, I = 8: 120-155 ms against
 * 92-132 ms for a fused loop, IQUV on par): the products are cheap next to the double
 * sums, which this loop does in the same pass at memory speed, while the VOLK route
 * writes and reads the block a second time.
 */
#include "cpu_features.h"
#include "cpu_half.h"
#include "cpu_simd.h"
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "detector_backend.h"

#include <stdint.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Where the library is built with the compiler's clones for x86-64 (cpu_simd.h), CPUs
 * without AVX-512 take the rows of detector_cpu_split.c (see row_sums below). */
#if defined(BLADE_CPU_CLONES_ENABLED) && defined(BLADE_HAVE_SHUFFLEVECTOR)
#define BLADE_DETECTOR_HAS_SPLIT_CHAINS
#endif

/* Below this many samples threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 16)

/* How far ahead of the values being summed the input is prefetched (see above). */
#define PREFETCH_DISTANCE 4096

/* Asks for the cache lines `bytes` from `at`, PREFETCH_DISTANCE further on. */
static inline void prefetch_ahead(const void* at, int64_t bytes)
{
    blade_prefetch((const char*)at + PREFETCH_DISTANCE, bytes);
}

/* Eight doubles: one AVX-512 register, two AVX or four SSE2 ones (GCC and Clang vector
 * extension; * and + act lane by lane). Lanes 0-3 hold a chain over the even samples
 * (or values 8j + k), lanes 4-7 an independent chain over the odd ones (8j + 4 + k):
 * two chains in one vector, so a pair of samples takes one conversion, one
 * multiply-add per product and two shuffles (as two four-lane vectors, twice that: the
 * loop ran at the rate of its instructions). The helpers are macros: a function
 * taking or returning one would have a different calling convention in each clone. */
typedef double f64x8 __attribute__((vector_size(64)));
typedef double f64x4 __attribute__((vector_size(32)));
typedef float f32x4 __attribute__((vector_size(16)));

/* The eight floats at v as doubles (exact). */
#define LOAD8(v) ((f64x8){ (v)[0], (v)[1], (v)[2], (v)[3], (v)[4], (v)[5], (v)[6], (v)[7] })
/* The four floats at v in the even chain's lanes, +0 in the odd chain's. */
#define LOAD4_EVEN(v) ((f64x8){ (v)[0], (v)[1], (v)[2], (v)[3], 0, 0, 0, 0 })
/* (xr·yr, xi·yi, xr·yi, xi·yr) of each of two samples d = (xr, xi, yr, yi, xr', ...). */
#ifdef BLADE_HAVE_SHUFFLEVECTOR
#define CROSS_TERMS(d)                                           \
    (__builtin_shufflevector((d), (d), 0, 1, 0, 1, 4, 5, 4, 5) * \
     __builtin_shufflevector((d), (d), 2, 3, 3, 2, 6, 7, 7, 6))
#define HALF_OF(d, k) \
    __builtin_shufflevector((d), (d), 4 * (k), 4 * (k) + 1, 4 * (k) + 2, 4 * (k) + 3)
#define FOUR_OF(a, b, i, j, k, l) __builtin_shufflevector((a), (b), i, j, k, l)
#else /* GCC before 12: the same products, in the same lanes */
#define CROSS_TERMS(d)                                                           \
    ((f64x8){ (d)[0], (d)[1], (d)[0], (d)[1], (d)[4], (d)[5], (d)[4], (d)[5] } * \
     (f64x8){ (d)[2], (d)[3], (d)[3], (d)[2], (d)[6], (d)[7], (d)[7], (d)[6] })
#define HALF_OF(d, k) \
    ((f64x4){ (d)[4 * (k)], (d)[4 * (k) + 1], (d)[4 * (k) + 2], (d)[4 * (k) + 3] })
/* lanes i, j, k, l of the eight (a, b) */
#define FOUR_OF(a, b, i, j, k, l)              \
    ((f64x4){ (i) < 4 ? (a)[(i)] : (b)[(i)-4], \
              (j) < 4 ? (a)[(j)] : (b)[(j)-4], \
              (k) < 4 ? (a)[(k)] : (b)[(k)-4], \
              (l) < 4 ? (a)[(l)] : (b)[(l)-4] })
#endif

/* `values` (a vector of `wide` doubles), plus `previous` where given, to `accumulator`
 * from index `at`, or scaled and rounded (a vector of `narrow` floats) to `output`: a
 * row's or a group's store_row, lane by lane. */
#define STORE_VALUES(values, at, wide, narrow)                                       \
    do {                                                                             \
        wide total_ = (values);                                                      \
        if (previous) {                                                              \
            wide earlier_;                                                           \
            memcpy(&earlier_, previous + (at), sizeof earlier_);                     \
            total_ = earlier_ + total_;                                              \
        }                                                                            \
        if (accumulator) {                                                           \
            memcpy(accumulator + (at), &total_, sizeof total_);                      \
        } else {                                                                     \
            const narrow rounded_ = __builtin_convertvector(total_ * scale, narrow); \
            memcpy(output + (at), &rounded_, sizeof rounded_);                       \
        }                                                                            \
    } while (0)

/* The running sums of one row: for the four products, each lane of `square` (xr², xi²,
 * yr², yi²) and `cross` (CROSS_TERMS), the even samples' chain in lanes 0-3 and the odd
 * ones' in lanes 4-7; for the total power, lane k of the chain over the values at
 * 8j + k. A chain starts at +0 and adds products, so it never holds -0: adding +0 to
 * one (the half a lone last sample leaves) changes no bit. */
#ifdef BLADE_DETECTOR_SPLIT_CHAINS
/* Where the CPU has no 512-bit registers, the chains as two vectors of four: GCC 12
 * keeps a loop-carried vector of eight doubles in memory on such a target, moving its
 * lanes through general registers every iteration (detector_cpu_split.c). The same
 * lanes, the same additions in the same order: the same bits. */
typedef struct chains {
    f64x4 half[2]; /* lanes 0-3 (the even chain), 4-7 (the odd one) */
} chains;
#define CHAINS_ADD(c, v) ((c).half[0] += HALF_OF((v), 0), (c).half[1] += HALF_OF((v), 1))
#define CHAIN(c, k) ((c).half[k])
#define CHAINS8(c) __builtin_shufflevector((c).half[0], (c).half[1], 0, 1, 2, 3, 4, 5, 6, 7)
#else
typedef f64x8 chains;
#define CHAINS_ADD(c, v) ((c) += (v))
#define CHAIN(c, k) HALF_OF((c), k)
#define CHAINS8(c) (c)
#endif

typedef struct row_sums {
    chains square, cross;
} row_sums;

/* Adds `count` samples (xr, xi, yr, yi) of two polarizations to the products' chains.
 * Blocks of an even count continue the chains exactly as one call over them all.
 * Always inlined, as are the other helpers that take vectors: with the grouped short
 * rows below, the compiler's own choice left the long rows' loops 1.2-1.3x slower. */
static inline __attribute__((always_inline)) void
add_products(row_sums* restrict s, const float* restrict v, int64_t count, bool prefetch)
{
    int64_t t = 0;
    for (; t + 2 <= count; t += 2, v += 8) {
        if (prefetch && t % 4 == 0) /* one line per 64 bytes */
            __builtin_prefetch((const char*)v + PREFETCH_DISTANCE);
        const f64x8 pair = LOAD8(v);
        CHAINS_ADD(s->square, pair * pair);
        CHAINS_ADD(s->cross, CROSS_TERMS(pair));
    }
    if (t < count) {
        const f64x8 even = LOAD4_EVEN(v);
        CHAINS_ADD(s->square, even * even);
        CHAINS_ADD(s->cross, CROSS_TERMS(even));
    }
}

/* XX = Σ|X|², YY = Σ|Y|², Re and Im of Σ X·Y* from the chains; X·Y* = (xr·yr + xi·yi)
 * + i (xi·yr − xr·yi): the two chains are added, then the lanes. */
static inline __attribute__((always_inline)) void finish_products(const row_sums* s, double sums[4])
{
    const f64x4 square = CHAIN(s->square, 0) + CHAIN(s->square, 1);
    const f64x4 cross = CHAIN(s->cross, 0) + CHAIN(s->cross, 1);
    sums[0] = square[0] + square[1];
    sums[1] = square[2] + square[3];
    sums[2] = cross[0] + cross[1];
    sums[3] = cross[3] - cross[2];
}

/* Adds `values` floats (a multiple of 2) to the total power's chains. Blocks of a
 * multiple of 8 values continue them exactly as one call over them all. */
static inline __attribute__((always_inline)) void
add_squares(row_sums* restrict s, const float* restrict v, int64_t values, bool prefetch)
{
    int64_t i = 0;
    for (; i + 8 <= values; i += 8) {
        if (prefetch && i % 16 == 0) /* one line per 64 bytes */
            __builtin_prefetch((const char*)(v + i) + PREFETCH_DISTANCE);
        const f64x8 a = LOAD8(v + i);
        CHAINS_ADD(s->square, a * a);
    }
    if (i + 4 <= values) {
        const f64x8 a = LOAD4_EVEN(v + i);
        CHAINS_ADD(s->square, a * a);
        i += 4;
    }
    if (i < values) { /* one complex value of a single polarization: the odd chain's */
        const f64x8 a = { 0, 0, 0, 0, v[i], v[i + 1], 0, 0 };
        CHAINS_ADD(s->square, a * a);
    }
}

static inline __attribute__((always_inline)) double finish_squares(const row_sums* s)
{
    const f64x4 sum = CHAIN(s->square, 0) + CHAIN(s->square, 1);
    return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

/* Samples of a cf16 row widened per block: 256 samples of 2 polarizations (an even
 * count, 1024 values: a multiple of 8), so the chains run as over the cast row. */
#define HALF_BLOCK_VALUES 1024

/* The row's sums (`sums[0]` alone for the total power) from cf32 or cf16 values. */
static inline __attribute__((always_inline)) void sum_row(const blade_detector_mode mode,
                                                          const void* row,
                                                          const bool half_input,
                                                          int64_t integration,
                                                          int polarizations,
                                                          const bool prefetch,
                                                          double sums[4])
{
    const int64_t row_values = integration * 2 * polarizations;
    row_sums s = { 0 };
    if (!half_input) {
        if (mode == BLADE_DETECT_I)
            add_squares(&s, (const float*)row, row_values, prefetch);
        else
            add_products(&s, (const float*)row, integration, prefetch);
    } else {
        float block[HALF_BLOCK_VALUES];
        const uint16_t* halves = (const uint16_t*)row;
        for (int64_t begin = 0; begin < row_values; begin += HALF_BLOCK_VALUES) {
            const int64_t count =
                row_values - begin < HALF_BLOCK_VALUES ? row_values - begin : HALF_BLOCK_VALUES;
            prefetch_ahead(halves + begin, count * (int64_t)sizeof(uint16_t));
            blade_halves_to_floats(block, halves + begin, count);
            if (mode == BLADE_DETECT_I)
                add_squares(&s, block, count, false);
            else
                add_products(&s, block, count / 4, false);
        }
    }
    if (mode == BLADE_DETECT_I)
        sums[0] = finish_squares(&s);
    else
        finish_products(&s, sums);
}

/* Each output of a row, plus `previous`, to `accumulator` (double) or `output`
 * (float). */
static inline __attribute__((always_inline)) void store_row(const int outputs,
                                                            int64_t r,
                                                            const double value[4],
                                                            const double* previous,
                                                            double* accumulator,
                                                            float* restrict output,
                                                            double scale)
{
    for (int c = 0; c < outputs; c++) {
        const int64_t at = r * outputs + c;
        const double total = previous ? previous[at] + value[c] : value[c];
        if (accumulator)
            accumulator[at] = total;
        else
            output[at] = (float)(total * scale);
    }
}

/* A mode's outputs from its sums (sum_row's, or single_sample's). */
static inline __attribute__((always_inline)) void products_to_values(const blade_detector_mode mode,
                                                                     const double s[4],
                                                                     double sign_of_im,
                                                                     double value[4])
{
    if (mode == BLADE_DETECT_I) {
        value[0] = s[0];
    } else {
        value[0] = mode == BLADE_DETECT_IQUV ? s[0] + s[1] : s[0];
        value[1] = mode == BLADE_DETECT_IQUV ? s[0] - s[1] : s[1];
        value[2] = mode == BLADE_DETECT_IQUV ? 2 * s[2] : s[2];
        value[3] = mode == BLADE_DETECT_IQUV ? -2 * sign_of_im * s[3] : sign_of_im * s[3];
    }
}

/* The sums of a row of one sample of two polarizations v = (xr, xi, yr, yi), as
 * sum_row forms them: every lane starts from +0 (so a product of -0 adds up to +0, as
 * in the chains), the lanes are then added in finish_products' (and finish_squares')
 * order. Straight-line code with no loop: the row loop around it vectorises across
 * rows, which the chains' loops, one trip long here, cannot. */
static inline __attribute__((always_inline)) void
single_sample(const blade_detector_mode mode, const float* restrict v, double s[4])
{
    const double xr = v[0], xi = v[1], yr = v[2], yi = v[3];
    const double xx = xr * xr + xi * xi, yy = yr * yr + yi * yi; /* squares: never -0 */
    if (mode == BLADE_DETECT_I) {
        s[0] = xx + yy;
        return;
    }
    s[0] = xx;
    s[1] = yy;
    s[2] = (0.0 + xr * yr) + (0.0 + xi * yi);
    s[3] = (0.0 + xi * yr) - (0.0 + xr * yi);
}

#ifdef BLADE_HAVE_SHUFFLEVECTOR
typedef float f32x8 __attribute__((vector_size(32)));
typedef float f32x16 __attribute__((vector_size(64)));

/* The samples (xr, xi, yr, yi) of eight rows of one sample at `v`, lane k of each
 * vector holding row k, as doubles (exact). */
static inline __attribute__((always_inline)) void
load_eight_samples(const float* restrict v, f64x8* xr, f64x8* xi, f64x8* yr, f64x8* yi)
{
    f32x16 low, high;
    memcpy(&low, v, sizeof low);
    memcpy(&high, v + 16, sizeof high);
    *xr = __builtin_convertvector(__builtin_shufflevector(low, high, 0, 4, 8, 12, 16, 20, 24, 28),
                                  f64x8);
    *xi = __builtin_convertvector(__builtin_shufflevector(low, high, 1, 5, 9, 13, 17, 21, 25, 29),
                                  f64x8);
    *yr = __builtin_convertvector(__builtin_shufflevector(low, high, 2, 6, 10, 14, 18, 22, 26, 30),
                                  f64x8);
    *yi = __builtin_convertvector(__builtin_shufflevector(low, high, 3, 7, 11, 15, 19, 23, 27, 31),
                                  f64x8);
}

/* Rows of one sample to float outputs of two or four products (not the total power:
 * power_of_single_samples_by_eight) with nothing to add, eight rows per step, lane k
 * of each vector holding row k: the operations of single_sample, products_to_values and
 * store_row lane by lane (the same bits), with the deinterleaving and interleaving as
 * shuffles (the compiler left the per-row loop scalar: one row per 3 ns). Returns the
 * rows done, a multiple of eight; the caller does the rest. */
static inline __attribute__((always_inline)) int64_t
single_samples_by_eight(const blade_detector_mode mode,
                        const int outputs,
                        const float* restrict rows,
                        const bool prefetch,
                        int64_t first,
                        int64_t count,
                        double sign_of_im,
                        float* restrict output,
                        double scale)
{
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        if (prefetch)
            prefetch_ahead(rows + 4 * i, 128);
        f64x8 xr, xi, yr, yi;
        load_eight_samples(rows + 4 * i, &xr, &xi, &yr, &yi);
        const f64x8 xx = xr * xr + xi * xi, yy = yr * yr + yi * yi;
        float* out = output + (first + i) * outputs;
        const f32x8 xx_out =
            __builtin_convertvector((mode == BLADE_DETECT_IQUV ? xx + yy : xx) * scale, f32x8);
        const f32x8 yy_out =
            __builtin_convertvector((mode == BLADE_DETECT_IQUV ? xx - yy : yy) * scale, f32x8);
        const f32x16 first_two = __builtin_shufflevector(
            xx_out, yy_out, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
        if (mode == BLADE_DETECT_XXYY) {
            memcpy(out, &first_two, sizeof first_two);
            continue;
        }
        const f64x8 zero = { 0 };
        const f64x8 re = (zero + xr * yr) + (zero + xi * yi);
        const f64x8 im = (zero + xi * yr) - (zero + xr * yi);
        const f32x8 re_out =
            __builtin_convertvector((mode == BLADE_DETECT_IQUV ? 2 * re : re) * scale, f32x8);
        const f32x8 im_out = __builtin_convertvector(
            (mode == BLADE_DETECT_IQUV ? -2 * sign_of_im * im : sign_of_im * im) * scale, f32x8);
        const f32x16 last_two = __builtin_shufflevector(
            re_out, im_out, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
        const f32x16 out_low = __builtin_shufflevector(
            first_two, last_two, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
        const f32x16 out_high = __builtin_shufflevector(
            first_two, last_two, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
        memcpy(out, &out_low, sizeof out_low);
        memcpy(out + 16, &out_high, sizeof out_high);
    }
    return i;
}
#endif

#ifdef BLADE_HAVE_SHUFFLEVECTOR
/* Rows of one sample to the total power, eight rows per step as
 * single_samples_by_eight, with or without something to add or keep (an integration
 * across chunks: `previous` and `accumulator` as for store_row; constant NULLs, as the
 * caller passes them, leave no test in the loop): single_sample's, products_to_values'
 * and store_row's operations lane by lane (the same bits). A spectrometer that
 * integrates spectra of one chunk each runs here on every chunk. Returns the rows done,
 * a multiple of eight. */
static inline __attribute__((always_inline)) int64_t
power_of_single_samples_by_eight(const float* restrict rows,
                                 const bool prefetch,
                                 int64_t first,
                                 int64_t count,
                                 const double* previous,
                                 double* accumulator,
                                 float* restrict output,
                                 double scale)
{
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        if (prefetch)
            prefetch_ahead(rows + 4 * i, 128);
        f64x8 xr, xi, yr, yi;
        load_eight_samples(rows + 4 * i, &xr, &xi, &yr, &yi);
        f64x8 total = (xr * xr + xi * xi) + (yr * yr + yi * yi);
        const int64_t at = first + i;
        STORE_VALUES(total, at, f64x8, f32x8);
    }
    return i;
}
#endif

/* `count` rows of one sample (integration 1, two polarizations) from `rows`, the
 * outputs of rows first ... first + count - 1: after a channelizer with one spectrum
 * per chunk, every row of a spectrometer is one. The same bits as the general loop
 * below, several rows per vector. `prefetch`: rows in memory (not a block just
 * widened into L1). */
static inline __attribute__((always_inline)) void
detect_single_samples_of(const blade_detector_mode mode,
                         const int outputs,
                         const float* restrict rows,
                         const bool prefetch,
                         int64_t first,
                         int64_t count,
                         double sign_of_im,
                         const double* previous,
                         double* accumulator,
                         float* restrict output,
                         double scale)
{
    int64_t done = 0; /* rows already detected by eights */
#define SINGLE_SAMPLE_ROWS(previous_, accumulator_, output_)                           \
    for (int64_t i = done; i < count; i++) {                                           \
        double s[4], value[4];                                                         \
        if (prefetch && i % 4 == 0)                                                    \
            prefetch_ahead(rows + 4 * i, 64);                                          \
        single_sample(mode, rows + 4 * i, s);                                          \
        products_to_values(mode, s, sign_of_im, value);                                \
        store_row(outputs, first + i, value, previous_, accumulator_, output_, scale); \
    }
#ifdef BLADE_HAVE_SHUFFLEVECTOR
    if (mode == BLADE_DETECT_I && previous == NULL && accumulator == NULL)
        done = power_of_single_samples_by_eight(
            rows, prefetch, first, count, NULL, NULL, output, scale);
    else if (mode == BLADE_DETECT_I)
        done = power_of_single_samples_by_eight(
            rows, prefetch, first, count, previous, accumulator, output, scale);
    else if (previous == NULL && accumulator == NULL)
        done = single_samples_by_eight(
            mode, outputs, rows, prefetch, first, count, sign_of_im, output, scale);
#endif
    /* One loop per combination, so that none tests a pointer per row. */
    if (previous == NULL && accumulator == NULL)
        SINGLE_SAMPLE_ROWS(NULL, NULL, output)
    else if (previous == NULL)
        SINGLE_SAMPLE_ROWS(NULL, accumulator, NULL)
    else if (accumulator == NULL)
        SINGLE_SAMPLE_ROWS(previous, NULL, output)
    else if (previous == accumulator) /* the middle of a group: one array, read then written */
        SINGLE_SAMPLE_ROWS(accumulator, accumulator, NULL)
    else
        SINGLE_SAMPLE_ROWS(previous, accumulator, NULL)
#undef SINGLE_SAMPLE_ROWS
}

/* A row of four outputs (cross or IQUV) from its chains to memory with four-lane
 * vectors: the operations of finish_products, products_to_values and store_row lane
 * by lane (x − y as x + (−1)·y, the same in IEEE arithmetic), so the same bits, in a
 * third of the scalar instructions that otherwise follow every short row. */
static inline __attribute__((always_inline)) void
store_four_products(const blade_detector_mode mode,
                    const row_sums* s,
                    int64_t r,
                    double sign_of_im,
                    const double* previous,
                    double* accumulator,
                    float* restrict output,
                    double scale)
{
    const f64x4 square = CHAIN(s->square, 0) + CHAIN(s->square, 1);
    const f64x4 cross = CHAIN(s->cross, 0) + CHAIN(s->cross, 1);
    /* (XX, YY, Re, Im) = (sq0 + sq1, sq2 + sq3, cr0 + cr1, cr3 − cr2) */
    const f64x4 sums = FOUR_OF(square, cross, 0, 2, 4, 7) +
                       FOUR_OF(square, cross, 1, 3, 5, 6) * (f64x4){ 1, 1, 1, -1 };
    f64x4 value;
    if (mode == BLADE_DETECT_IQUV) { /* (XX + YY, XX − YY, 2 Re, ∓2 Im) */
        const f64x4 first = FOUR_OF(sums, sums, 0, 0, 2, 3);
        const f64x4 stokes_iq = first + FOUR_OF(sums, sums, 1, 1, 2, 3) * (f64x4){ 1, -1, 1, 1 };
        const f64x4 stokes_uv = first * (f64x4){ 1, 1, 2, -2 * sign_of_im };
        value = FOUR_OF(stokes_iq, stokes_uv, 0, 1, 6, 7);
    } else {
        value = sums * (f64x4){ 1, 1, 1, sign_of_im };
    }
    const int64_t at = 4 * r;
    STORE_VALUES(value, at, f64x4, f32x4);
}

#ifdef BLADE_HAVE_SHUFFLEVECTOR
/* Two consecutive rows of four outputs (r and r + 1, the first's chains in `a`, the
 * second's in `b`) from their chains to memory: store_four_products' operations on
 * eight lanes, the first row's in lanes 0-3 and the second's in 4-7, so the same
 * additions and products in the same order, the same bits, with one instruction where
 * the rows took two (a short row spends as long on its finish as on its chains). */
static inline __attribute__((always_inline)) void
store_two_rows_of_products(const blade_detector_mode mode,
                           const row_sums* a,
                           const row_sums* b,
                           int64_t r,
                           double sign_of_im,
                           const double* previous,
                           double* accumulator,
                           float* restrict output,
                           double scale)
{
    /* the even and odd chains added: (square, cross) of the first row, then the second */
    const f64x8 a_square = CHAINS8(a->square), b_square = CHAINS8(b->square);
    const f64x8 a_cross = CHAINS8(a->cross), b_cross = CHAINS8(b->cross);
    const f64x8 square = __builtin_shufflevector(a_square, b_square, 0, 1, 2, 3, 8, 9, 10, 11) +
                         __builtin_shufflevector(a_square, b_square, 4, 5, 6, 7, 12, 13, 14, 15);
    const f64x8 cross = __builtin_shufflevector(a_cross, b_cross, 0, 1, 2, 3, 8, 9, 10, 11) +
                        __builtin_shufflevector(a_cross, b_cross, 4, 5, 6, 7, 12, 13, 14, 15);
    /* per row (XX, YY, Re, Im) = (sq0 + sq1, sq2 + sq3, cr0 + cr1, cr3 − cr2) */
    const f64x8 sums = __builtin_shufflevector(square, cross, 0, 2, 8, 11, 4, 6, 12, 15) +
                       __builtin_shufflevector(square, cross, 1, 3, 9, 10, 5, 7, 13, 14) *
                           (f64x8){ 1, 1, 1, -1, 1, 1, 1, -1 };
    f64x8 value;
    if (mode == BLADE_DETECT_IQUV) { /* (XX + YY, XX − YY, 2 Re, ∓2 Im) */
        const f64x8 first = __builtin_shufflevector(sums, sums, 0, 0, 2, 3, 4, 4, 6, 7);
        const f64x8 stokes_iq =
            first + __builtin_shufflevector(sums, sums, 1, 1, 2, 3, 5, 5, 6, 7) *
                        (f64x8){ 1, -1, 1, 1, 1, -1, 1, 1 };
        const f64x8 stokes_uv =
            first * (f64x8){ 1, 1, 2, -2 * sign_of_im, 1, 1, 2, -2 * sign_of_im };
        value = __builtin_shufflevector(stokes_iq, stokes_uv, 0, 1, 10, 11, 4, 5, 14, 15);
    } else {
        value = sums * (f64x8){ 1, 1, 1, sign_of_im, 1, 1, 1, sign_of_im };
    }
    const int64_t at = 4 * r;
    STORE_VALUES(value, at, f64x8, f32x8);
}

/* Four consecutive rows of the total power (r ... r + 3, their chains in s0 ... s3) to
 * memory: finish_squares, products_to_values and store_row on four lanes, one row a
 * lane, so the same additions in the same order, the same bits. */
static inline __attribute__((always_inline)) void store_four_rows_of_power(const f64x8 s0,
                                                                           const f64x8 s1,
                                                                           const f64x8 s2,
                                                                           const f64x8 s3,
                                                                           int64_t r,
                                                                           const double* previous,
                                                                           double* accumulator,
                                                                           float* restrict output,
                                                                           double scale)
{
    /* the even and odd chains added, two rows a vector */
    const f64x8 first_two = __builtin_shufflevector(s0, s1, 0, 1, 2, 3, 8, 9, 10, 11) +
                            __builtin_shufflevector(s0, s1, 4, 5, 6, 7, 12, 13, 14, 15);
    const f64x8 last_two = __builtin_shufflevector(s2, s3, 0, 1, 2, 3, 8, 9, 10, 11) +
                           __builtin_shufflevector(s2, s3, 4, 5, 6, 7, 12, 13, 14, 15);
    /* (sum0 + sum1) + (sum2 + sum3) for each row */
    const f64x8 pairs = __builtin_shufflevector(first_two, last_two, 0, 2, 4, 6, 8, 10, 12, 14) +
                        __builtin_shufflevector(first_two, last_two, 1, 3, 5, 7, 9, 11, 13, 15);
    f64x4 value = __builtin_shufflevector(pairs, pairs, 0, 2, 4, 6) +
                  __builtin_shufflevector(pairs, pairs, 1, 3, 5, 7);
    STORE_VALUES(value, r, f64x4, f32x4);
}
#endif

/* Rows of at most this many values (I <= 16 samples of two polarizations) are finished
 * in groups (store_two_rows_of_products, store_four_rows_of_power), and their chains
 * run side by side: one row at a time, a short row spent as long on its finish as on
 * its chains. On the CI machine's Xeon, one thread, data in cache: Stokes I at I = 8
 * 0.49 -> 0.28 ns a sample, IQUV 1.02 -> 0.88 (cf16 1.12 -> 1.01); longer rows
 * measured 4-18 % slower in groups (I = 32, 64), so they keep the row loop. */
#define GROUPED_ROW_VALUES 64
/* With split chains (no AVX-512) rows of four outputs are finished one at a time:
 * store_two_rows_of_products' eight-lane shuffles went through memory there too, and
 * IQUV I = 8 took 52-62 ms grouped against 27-29 one row at a time (a Zen 3, two
 * threads). */
#ifdef BLADE_DETECTOR_SPLIT_CHAINS
#define GROUP_ROWS_OF_PRODUCTS false
#else
#define GROUP_ROWS_OF_PRODUCTS true
#endif

/* `count` float rows from `rows`, the outputs of rows first ... first + count - 1;
 * `prefetch` as for detect_single_samples_of. */
static inline __attribute__((always_inline)) void
detect_float_rows_of(const blade_detector_mode mode,
                     const int outputs,
                     const float* rows,
                     const bool prefetch,
                     int64_t first,
                     int64_t count,
                     int64_t integration,
                     int polarizations,
                     double sign_of_im,
                     const double* previous,
                     double* accumulator,
                     float* restrict output,
                     double scale)
{
    if (integration == 1 && polarizations == 2) {
        detect_single_samples_of(mode,
                                 outputs,
                                 rows,
                                 prefetch,
                                 first,
                                 count,
                                 sign_of_im,
                                 previous,
                                 accumulator,
                                 output,
                                 scale);
        return;
    }
    const int64_t row_values = integration * 2 * polarizations;
    if (outputs == 4) {
        int64_t i = 0;
#ifdef BLADE_HAVE_SHUFFLEVECTOR
        for (; GROUP_ROWS_OF_PRODUCTS && row_values <= GROUPED_ROW_VALUES && i + 2 <= count;
             i += 2) {
            row_sums a = { 0 }, b = { 0 };
            add_products(&a, rows + i * row_values, integration, prefetch);
            add_products(&b, rows + (i + 1) * row_values, integration, prefetch);
            store_two_rows_of_products(
                mode, &a, &b, first + i, sign_of_im, previous, accumulator, output, scale);
        }
#endif
        for (; i < count; i++) {
            row_sums s = { 0 };
            add_products(&s, rows + i * row_values, integration, prefetch);
            store_four_products(
                mode, &s, first + i, sign_of_im, previous, accumulator, output, scale);
        }
        return;
    }
    int64_t i = 0;
#ifdef BLADE_HAVE_SHUFFLEVECTOR
    if (mode == BLADE_DETECT_I && row_values <= GROUPED_ROW_VALUES) {
        for (; i + 4 <= count; i += 4) {
            row_sums a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
            add_squares(&a, rows + i * row_values, row_values, prefetch);
            add_squares(&b, rows + (i + 1) * row_values, row_values, prefetch);
            add_squares(&c, rows + (i + 2) * row_values, row_values, prefetch);
            add_squares(&d, rows + (i + 3) * row_values, row_values, prefetch);
            store_four_rows_of_power(CHAINS8(a.square),
                                     CHAINS8(b.square),
                                     CHAINS8(c.square),
                                     CHAINS8(d.square),
                                     first + i,
                                     previous,
                                     accumulator,
                                     output,
                                     scale);
        }
    }
#endif
    for (; i < count; i++) {
        double value[4], s[4];
        sum_row(mode, rows + i * row_values, false, integration, polarizations, prefetch, s);
        products_to_values(mode, s, sign_of_im, value);
        store_row(outputs, first + i, value, previous, accumulator, output, scale);
    }
}

/* Rows [first, end) of one mode with its Pout outputs: each row's values, plus
 * `previous`, to `accumulator` (double) or `output` (float). Inlined with constant
 * `mode` and `outputs`, so each mode has a loop of its own and the values stay in
 * registers on their way to memory. */
static inline __attribute__((always_inline)) void detect_rows_of(const blade_detector_mode mode,
                                                                 const int outputs,
                                                                 const void* input,
                                                                 const bool half_input,
                                                                 int64_t first,
                                                                 int64_t end,
                                                                 int64_t integration,
                                                                 int polarizations,
                                                                 bool mirror,
                                                                 const double* previous,
                                                                 double* accumulator,
                                                                 float* restrict output,
                                                                 double scale)
{
    const int64_t row_values = integration * 2 * polarizations;
    const double sign_of_im = mirror ? -1.0 : 1.0;
#define FLOAT_ROWS(rows, in_memory, from, count) \
    detect_float_rows_of(mode,                   \
                         outputs,                \
                         rows,                   \
                         in_memory,              \
                         from,                   \
                         count,                  \
                         integration,            \
                         polarizations,          \
                         sign_of_im,             \
                         previous,               \
                         accumulator,            \
                         output,                 \
                         scale)
    if (!half_input) {
        FLOAT_ROWS((const float*)input + first * row_values, true, first, end - first);
    } else if (row_values <= HALF_BLOCK_VALUES) {
        /* short cf16 rows: several widened at once (cpu_half.h), then the float rows'
         * loops, whose sums over one row are those of the widening per row below */
        float block[HALF_BLOCK_VALUES];
        const int64_t per_block = HALF_BLOCK_VALUES / row_values;
        for (int64_t r = first; r < end; r += per_block) {
            const int64_t count = end - r < per_block ? end - r : per_block;
            const uint16_t* halves = (const uint16_t*)input + r * row_values;
            prefetch_ahead(halves, count * row_values * (int64_t)sizeof(uint16_t));
            blade_halves_to_floats(block, halves, count * row_values);
            FLOAT_ROWS(block, false, r, count);
        }
    } else {
        for (int64_t r = first; r < end; r++) {
            double value[4], s[4];
            sum_row(mode,
                    (const uint16_t*)input + r * row_values,
                    true,
                    integration,
                    polarizations,
                    true,
                    s);
            products_to_values(mode, s, sign_of_im, value);
            store_row(outputs, r, value, previous, accumulator, output, scale);
        }
    }
#undef FLOAT_ROWS
}

/* The split chains' rows are built for x86-64-v3 and the baseline (the CPUs without
 * AVX-512 that take them), the others for all three (cpu_simd.h). */
#ifdef BLADE_DETECTOR_SPLIT_CHAINS
__attribute__((target_clones("arch=x86-64-v3", "default")))
#else
BLADE_CPU_CLONES
#endif
static void
detect_rows(const void* input,
            bool half_input,
            int64_t first,
            int64_t end,
            int64_t integration,
            int polarizations,
            blade_detector_mode mode,
            bool mirror,
            const double* previous,
            double* accumulator,
            float* restrict output,
            double scale)
{
#define DETECT_ROWS(mode, outputs) \
    detect_rows_of(mode,           \
                   outputs,        \
                   input,          \
                   half_input,     \
                   first,          \
                   end,            \
                   integration,    \
                   polarizations,  \
                   mirror,         \
                   previous,       \
                   accumulator,    \
                   output,         \
                   scale)
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

#ifdef BLADE_DETECTOR_HAS_SPLIT_CHAINS
/* The rows with two four-double vectors per chain (detector_cpu_split.c). Called, never
 * taken by address: a pointer to a target_clones function is an IRELATIVE relocation
 * in the data, whose resolver the loader runs before the CPU model it reads is set up
 * (Clang's sanitizer build crashed at load that way). */
__attribute__((visibility("hidden"))) void blade_cpu_detect_rows_split(const void* input,
                                                                       bool half_input,
                                                                       int64_t first,
                                                                       int64_t end,
                                                                       int64_t integration,
                                                                       int polarizations,
                                                                       blade_detector_mode mode,
                                                                       bool mirror,
                                                                       const double* previous,
                                                                       double* accumulator,
                                                                       float* restrict output,
                                                                       double scale);
#endif

#ifdef BLADE_DETECTOR_SPLIT_CHAINS
void blade_cpu_detect_rows_split(const void* input,
                                 bool half_input,
                                 int64_t first,
                                 int64_t end,
                                 int64_t integration,
                                 int polarizations,
                                 blade_detector_mode mode,
                                 bool mirror,
                                 const double* previous,
                                 double* accumulator,
                                 float* restrict output,
                                 double scale)
{
    detect_rows(input,
                half_input,
                first,
                end,
                integration,
                polarizations,
                mode,
                mirror,
                previous,
                accumulator,
                output,
                scale);
}
#else

void blade_cpu_detect(const void* input,
                      bool half_input,
                      int64_t rows,
                      int64_t integration,
                      int polarizations,
                      blade_detector_mode mode,
                      bool lower_sideband,
                      const double* previous,
                      double* accumulator,
                      float* output,
                      float scale)
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
#ifdef BLADE_DETECTOR_HAS_SPLIT_CHAINS
        if (!blade_cpu_features_get()->avx512)
            blade_cpu_detect_rows_split(input,
                                        half_input,
                                        first,
                                        end,
                                        integration,
                                        polarizations,
                                        mode,
                                        mirror,
                                        previous,
                                        accumulator,
                                        output,
                                        scale);
        else
#endif
            detect_rows(input,
                        half_input,
                        first,
                        end,
                        integration,
                        polarizations,
                        mode,
                        mirror,
                        previous,
                        accumulator,
                        output,
                        scale);
    }
}
#endif
