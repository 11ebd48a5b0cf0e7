/* SPDX-License-Identifier: MIT */
/*
 * Detector on the CPU, the reference: every output is a sequential sum in double
 * precision over its own samples, converted to the mode's products and rounded to
 * float once. Rows are independent, so OpenMP threads split them with no effect on
 * the result.
 *
 * Not VOLK: computing the products with volk_32fc_magnitude_squared_32f and
 * volk_32fc_x2_multiply_conjugate_32fc into a block, then summing them in double per
 * row, was measured slower on the CI machine (Stokes I, I = 8: 120-155 ms against
 * 92-132 ms for this loop, IQUV on par): the products are cheap next to the double
 * sums, which this loop does in the same pass at memory speed, while the VOLK route
 * writes and reads the block a second time.
 *
 * cf16 voltages are widened to float a block at a time and summed by the same code,
 * in the same order: the result is bit for bit that of their cast to cf32.
 */
#include "cpu_threads_internal.h"
#include "detector_backend.h"
#include "half.h"

/* Below this many samples threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 16)

/* Adds Σ|X|², Σ|Y|², Σ Re(X·Y*), Σ Im(X·Y*) over `count` samples of two
 * polarizations to `sums`, in increasing time. X·Y* = (xr·yr + xi·yi) + i (xi·yr − xr·yi). */
static void add_products(const float* v, int64_t count, double sums[4])
{
    double xx = sums[0], yy = sums[1], re = sums[2], im = sums[3];
    for (int64_t t = 0; t < count; t++, v += 4) {
        const double xr = v[0], xi = v[1], yr = v[2], yi = v[3];
        xx += xr * xr + xi * xi;
        yy += yr * yr + yi * yi;
        re += xr * yr + xi * yi;
        im += xi * yr - xr * yi;
    }
    sums[0] = xx;
    sums[1] = yy;
    sums[2] = re;
    sums[3] = im;
}

/* Adds the total power of `count` samples of `polarizations` to *total. */
static void add_total_power(const float* v, int64_t count, int polarizations, double* total)
{
    double sum = *total;
    const int64_t values = count * 2 * polarizations;
    for (int64_t i = 0; i < values; i += 2)
        sum += (double)v[i] * v[i] + (double)v[i + 1] * v[i + 1];
    *total = sum;
}

/* The raw sums of one row of cf32 samples: the total power (mode I) or the four products. */
static void sum_row(
    const float* row, int64_t integration, int polarizations, blade_detector_mode mode, double s[4])
{
    s[0] = s[1] = s[2] = s[3] = 0;
    if (mode == BLADE_DETECT_I)
        add_total_power(row, integration, polarizations, &s[0]);
    else
        add_products(row, integration, s);
}

/* Samples of a cf16 row widened per block: the same additions in the same order as
 * for the cf32 row the cast would give, so cf16 input detects exactly as its cast. */
#define HALF_BLOCK 256

static void sum_half_row(const uint16_t* row,
                         int64_t integration,
                         int polarizations,
                         blade_detector_mode mode,
                         double s[4])
{
    float block[HALF_BLOCK * 4];
    const int per_sample = 2 * polarizations;
    s[0] = s[1] = s[2] = s[3] = 0;
    for (int64_t begin = 0; begin < integration; begin += HALF_BLOCK) {
        const int64_t count = integration - begin < HALF_BLOCK ? integration - begin : HALF_BLOCK;
        const uint16_t* in = row + begin * per_sample;
        for (int64_t i = 0; i < count * per_sample; i++)
            block[i] = blade_half_to_float(in[i]);
        if (mode == BLADE_DETECT_I)
            add_total_power(block, count, polarizations, &s[0]);
        else
            add_products(block, count, s);
    }
}

/* The mode's outputs (Pout values) from a row's raw sums. */
static void finish_row(const double s[4], blade_detector_mode mode, double out[4])
{
    switch (mode) {
    case BLADE_DETECT_I:
        out[0] = s[0];
        break;
    case BLADE_DETECT_XXYY:
        out[0] = s[0];
        out[1] = s[1];
        break;
    case BLADE_DETECT_CROSS:
        for (int c = 0; c < 4; c++)
            out[c] = s[c];
        break;
    case BLADE_DETECT_IQUV:
        out[0] = s[0] + s[1];
        out[1] = s[0] - s[1];
        out[2] = 2 * s[2];
        out[3] = -2 * s[3];
        break;
    }
}

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
    const int outputs = blade_detector_mode_outputs(mode);
    const int64_t row_values = integration * 2 * polarizations;
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (rows * integration >= PARALLEL_THRESHOLD)
    for (int64_t r = 0; r < rows; r++) {
        double sums[4], value[4];
        if (half_input)
            sum_half_row(
                (const uint16_t*)input + r * row_values, integration, polarizations, mode, sums);
        else
            sum_row((const float*)input + r * row_values, integration, polarizations, mode, sums);
        finish_row(sums, mode, value);
        if (mirror)
            value[3] = -value[3];
        for (int c = 0; c < outputs; c++) {
            const int64_t at = r * outputs + c;
            const double total = previous ? previous[at] + value[c] : value[c];
            if (accumulator)
                accumulator[at] = total;
            else
                output[at] = (float)(total * scale);
        }
    }
}
