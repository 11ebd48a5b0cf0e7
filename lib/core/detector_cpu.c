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
 */
#include "cpu_threads_internal.h"
#include "detector_backend.h"

/* Below this many samples threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 16)

/* Σ|X|², Σ|Y|², Σ Re(X·Y*), Σ Im(X·Y*) over `count` samples of two polarizations.
 * X·Y* = (xr·yr + xi·yi) + i (xi·yr − xr·yi). */
static void sum_products(const float* v, int64_t count, double sums[4])
{
    double xx = 0, yy = 0, re = 0, im = 0;
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

static double sum_total_power(const float* v, int64_t count, int polarizations)
{
    double total = 0;
    const int64_t values = count * 2 * polarizations;
    for (int64_t i = 0; i < values; i += 2)
        total += (double)v[i] * v[i] + (double)v[i + 1] * v[i + 1];
    return total;
}

/* The mode's outputs of one row into `out` (Pout values). */
static void detect_row(const float* row,
                       int64_t integration,
                       int polarizations,
                       blade_detector_mode mode,
                       double out[4])
{
    double s[4];
    switch (mode) {
    case BLADE_DETECT_I:
        out[0] = sum_total_power(row, integration, polarizations);
        break;
    case BLADE_DETECT_XXYY:
        sum_products(row, integration, s);
        out[0] = s[0];
        out[1] = s[1];
        break;
    case BLADE_DETECT_CROSS:
        sum_products(row, integration, out);
        break;
    case BLADE_DETECT_IQUV:
        sum_products(row, integration, s);
        out[0] = s[0] + s[1];
        out[1] = s[0] - s[1];
        out[2] = 2 * s[2];
        out[3] = -2 * s[3];
        break;
    }
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
    const int outputs = blade_detector_mode_outputs(mode);
    const int64_t row_values = integration * 2 * polarizations;
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (rows * integration >= PARALLEL_THRESHOLD)
    for (int64_t r = 0; r < rows; r++) {
        double value[4];
        detect_row(input + r * row_values, integration, polarizations, mode, value);
        if (mirror)
            value[3] = -value[3];
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
