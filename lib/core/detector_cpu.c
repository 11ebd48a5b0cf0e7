/* SPDX-License-Identifier: MIT */
/*
 * Detector on the CPU, the reference. The per-sample products come from VOLK over
 * blocks of up to BLOCK complex values (many short rows, or part of a long one):
 * volk_32fc_magnitude_squared_32f gives |X|² and |Y|² (alternating, as the
 * polarizations are interleaved), and volk_32fc_x2_multiply_conjugate_32fc of the
 * block against itself shifted by one value gives X·Y* at the even positions. Each
 * product is rounded to float once; every output is then a sequential sum of its own
 * row's products in double precision, converted to the mode's outputs and rounded
 * to float once. Rows are cut into fixed tasks that OpenMP threads share, and a
 * row's sum runs in the same order however it is cut, so the result does not depend
 * on the thread count.
 */
#include "cpu_threads_internal.h"
#include "detector_backend.h"

#include <volk/volk.h>

/* Complex values per VOLK call: the products of a block (48 KiB) stay in L2. */
#define BLOCK 4096
/* Below this many samples threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 16)

typedef struct detect_job {
    const float* input;
    int64_t row_values; /* complex values per row: integration x polarizations */
    int polarizations;
    blade_detector_mode mode;
    bool mirror; /* lower sideband: Im(X·Y*) (or V) changes sign */
    const double* previous;
    double* accumulator;
    float* output;
} detect_job;

/* sums: Σ|X|², Σ|Y|², Σ Re(X·Y*), Σ Im(X·Y*); with one polarization Σ|X|² only. */
static void emit_row(const detect_job* job, int64_t row, const double sums[4])
{
    double value[4];
    switch (job->mode) {
    case BLADE_DETECT_I:
        value[0] = sums[0] + sums[1];
        break;
    case BLADE_DETECT_XXYY:
        value[0] = sums[0];
        value[1] = sums[1];
        break;
    case BLADE_DETECT_CROSS:
        for (int c = 0; c < 4; c++)
            value[c] = sums[c];
        break;
    case BLADE_DETECT_IQUV:
        value[0] = sums[0] + sums[1];
        value[1] = sums[0] - sums[1];
        value[2] = 2 * sums[2];
        value[3] = -2 * sums[3];
        break;
    }
    if (job->mirror)
        value[3] = -value[3];
    const int outputs = blade_detector_mode_outputs(job->mode);
    for (int c = 0; c < outputs; c++) {
        const int64_t at = row * outputs + c;
        const double total = job->previous ? job->previous[at] + value[c] : value[c];
        if (job->accumulator)
            job->accumulator[at] = total;
        else
            job->output[at] = (float)total;
    }
}

/* Rows [first, last): products block by block, sums row by row. */
static void detect_rows(const detect_job* job, int64_t first, int64_t last)
{
    float power[BLOCK];
    lv_32fc_t cross[BLOCK];
    const lv_32fc_t* values = (const lv_32fc_t*)job->input;
    const int64_t n = job->row_values, end = last * n;
    const bool dual = job->polarizations == 2;
    const bool need_cross = job->mode == BLADE_DETECT_CROSS || job->mode == BLADE_DETECT_IQUV;
    double sums[4] = { 0, 0, 0, 0 };
    int64_t row = first;
    for (int64_t start = first * n; start < end; start += BLOCK) {
        /* BLOCK and n are even with two polarizations: a block starts on an X. */
        const int64_t len = end - start < BLOCK ? end - start : BLOCK;
        volk_32fc_magnitude_squared_32f(power, values + start, (unsigned)len);
        if (need_cross)
            volk_32fc_x2_multiply_conjugate_32fc(
                cross, values + start, values + start + 1, (unsigned)len - 1);
        int64_t i = 0;
        while (i < len) {
            const int64_t row_end = (row + 1) * n - start; /* in this block's indices */
            const int64_t stop = row_end < len ? row_end : len;
            if (!dual) {
                for (; i < stop; i++)
                    sums[0] += power[i];
            } else if (!need_cross) {
                for (; i < stop; i += 2) {
                    sums[0] += power[i];
                    sums[1] += power[i + 1];
                }
            } else {
                for (; i < stop; i += 2) {
                    sums[0] += power[i];
                    sums[1] += power[i + 1];
                    sums[2] += lv_creal(cross[i]);
                    sums[3] += lv_cimag(cross[i]);
                }
            }
            if (stop == row_end) {
                emit_row(job, row++, sums);
                sums[0] = sums[1] = sums[2] = sums[3] = 0;
            }
        }
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
    const detect_job job = {
        .input = input,
        .row_values = integration * polarizations,
        .polarizations = polarizations,
        .mode = mode,
        /* Both cross and IQUV put Im(X·Y*) (or V) last. */
        .mirror = lower_sideband && (mode == BLADE_DETECT_CROSS || mode == BLADE_DETECT_IQUV),
        .previous = previous,
        .accumulator = accumulator,
        .output = output,
    };
    /* Tasks of whole rows, about one block each (fixed by the shape alone). */
    const int64_t rows_per_task = job.row_values < BLOCK ? BLOCK / job.row_values : 1;
    const int64_t tasks = (rows + rows_per_task - 1) / rows_per_task;
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (rows * integration >= PARALLEL_THRESHOLD)
    for (int64_t task = 0; task < tasks; task++) {
        const int64_t first = task * rows_per_task;
        detect_rows(&job, first, first + rows_per_task < rows ? first + rows_per_task : rows);
    }
}
