/* SPDX-License-Identifier: MIT */
/*
 * Dedoppler on the CPU, the reference. The tree runs tile by tile (W start channels
 * of one beam): for each direction and drift block the sheared tile is loaded into
 * a buffer that stays in cache, the log2 T' stages ping-pong between two buffers, and
 * the rows of searched drifts update the tile's best paths. Tiles are independent,
 * so OpenMP threads share them out with no effect on the result. Every sum is the
 * float additions of dedoppler_tree.h in its order: the CUDA kernels make the same.
 */
#include "cpu_threads_internal.h"
#include "dedoppler_backend.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this many values threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 16)

int64_t blade_dedoppler_cpu_tile_width(int64_t padded)
{
    /* 64 Ki floats per buffer row set at T' = 16 (2 × 256 KiB for both buffers),
     * never narrower than twice the halo. */
    const int64_t width = (INT64_C(1) << 16) / padded;
    return width > 2 * padded ? width : 2 * padded;
}

void blade_cpu_dedoppler_moments(const float* input,
                                 int64_t beams,
                                 int64_t spectra,
                                 int64_t channels,
                                 float* zero_drift,
                                 double* s1,
                                 double* s2)
{
    const int64_t count = beams * channels;
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (count * spectra >= PARALLEL_THRESHOLD)
    for (int64_t i = 0; i < count; i++) {
        const float* column = input + (i / channels) * spectra * channels + i % channels;
        double sum = 0, squares = 0;
        for (int64_t t = 0; t < spectra; t++) {
            const double value = column[t * channels];
            sum += value;
            squares += value * value;
        }
        zero_drift[i] = (float)sum;
        if (s1) {
            s1[i] = sum;
            s2[i] = squares;
        }
    }
}

void blade_cpu_dedoppler_prepare(const float* input,
                                 float* work,
                                 int64_t beams,
                                 int64_t spectra,
                                 int64_t channels,
                                 int64_t nfpc,
                                 const uint8_t* flags,
                                 const float* centres,
                                 bool blank_dc)
{
    const int64_t coarse = channels / nfpc, rows = beams * spectra;
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (rows * channels >= PARALLEL_THRESHOLD)
    for (int64_t r = 0; r < rows; r++) {
        const int64_t beam = r / spectra;
        const float* in = input + r * channels;
        float* out = work + r * channels;
        memcpy(out, in, (size_t)channels * sizeof *out);
        if (flags) {
            const uint8_t* flag = flags + beam * channels;
            for (int64_t f = 0; f < channels; f++)
                if (flag[f])
                    out[f] = centres[beam * coarse + f / nfpc] / (float)spectra;
        }
        if (blank_dc) {
            for (int64_t c = 0; c < coarse; c++) {
                const int64_t middle = c * nfpc + nfpc / 2;
                out[middle] = (out[middle - 1] + out[middle + 1]) * 0.5f;
            }
        }
    }
}

/* Fill a tile buffer: T' rows of `pitch` columns (see dedoppler_tree.h), row by row
 * as the run of columns whose channels are inside the band. */
static void load_tile(const float* beam_input,
                      const dedoppler_grid* grid,
                      int direction,
                      int64_t origin,
                      int64_t block,
                      int pitch,
                      float* buffer)
{
    const int64_t channels = grid->channels;
    for (int64_t t = 0; t < grid->padded; t++) {
        float* row = buffer + t * pitch;
        /* column j holds x = origin + j + block·t, inside when 0 <= x < F */
        const int64_t x0 = origin + block * t;
        int64_t low = -x0 > 0 ? -x0 : 0, high = channels - x0 < pitch ? channels - x0 : pitch;
        if (t >= grid->spectra || high < low)
            low = high = 0;
        for (int64_t j = 0; j < low; j++)
            row[j] = 0.0f;
        const float* spectrum = beam_input + t * channels;
        if (direction > 0) {
            if (high > low)
                memcpy(row + low, spectrum + x0 + low, (size_t)(high - low) * sizeof *row);
        } else {
            const float* mirrored = spectrum + channels - 1 - x0; /* channel F − 1 − x */
            for (int64_t j = low; j < high; j++)
                row[j] = mirrored[-j];
        }
        for (int64_t j = high; j < pitch; j++)
            row[j] = 0.0f;
    }
}

/* Run the tree on a loaded tile; returns the buffer holding the final sums. */
static float* run_tree(float* buffers[2], int64_t padded, int pitch)
{
    int current = 0;
    for (int length = 2; length <= padded; length *= 2) {
        const int columns = dedoppler_stage_columns(pitch, length);
        const float* in = buffers[current];
        float* out = buffers[1 - current];
        for (int row = 0; row < padded; row++) {
            int earlier, later;
            dedoppler_stage_sources(pitch, length, row, &earlier, &later);
            const float* restrict a = in + earlier;
            const float* restrict b = in + later;
            float* restrict sum = out + row * pitch;
            for (int j = 0; j < columns; j++)
                sum[j] = a[j] + b[j];
        }
        current = 1 - current;
    }
    return buffers[current];
}

/* best[c], best_k[c] = sums[c·step], k where that sum is strictly larger (NaN never
 * is), for c in [from, to). Written with masks rather than branches, so that the
 * compiler vectorises it: a branch per channel cost as much as the tree itself. */
static void keep_larger(const float* sums,
                        int step,
                        float* restrict best,
                        int32_t* restrict best_k,
                        int64_t from,
                        int64_t to,
                        int32_t k)
{
    for (int64_t c = from; c < to; c++) {
        const float sum = sums[c * step], current = best[c];
        const int32_t mask = -(int32_t)(sum > current);
        int32_t sum_bits, current_bits;
        memcpy(&sum_bits, &sum, sizeof sum_bits);
        memcpy(&current_bits, &current, sizeof current_bits);
        const int32_t chosen = (sum_bits & mask) | (current_bits & ~mask);
        memcpy(&best[c], &chosen, sizeof chosen);
        best_k[c] = (k & mask) | (best_k[c] & ~mask);
    }
}

/* One tile: start channels first … first + width − 1 of one beam. */
static void taylor_tile(const float* beam_input,
                        const dedoppler_grid* grid,
                        int64_t first,
                        int width,
                        float* buffers[2],
                        float* best_sum,
                        int32_t* best_k,
                        float* plane)
{
    const int pitch = width + (int)grid->padded - 1;
    const int64_t channels = grid->channels, span = grid->padded - 1;
    const int valid_width = (int)(first + width <= channels ? width : channels - first);
    for (int c = 0; c < valid_width && best_sum; c++) {
        best_sum[first + c] = -INFINITY;
        best_k[first + c] = INT32_MAX;
    }
    /* Drifts are visited in increasing k (negative blocks from the last down, their
     * rows from the top down; then positive ones upwards), so that a later equal sum
     * always has the larger k: the tie rule (smallest k) becomes "strictly larger
     * wins", a comparison the compiler vectorises. */
    for (int direction = -1; direction <= 1; direction += 2) {
        const int64_t origin = dedoppler_tile_origin(channels, direction, first, width);
        const int64_t blocks = grid->last_block - grid->first_block + 1;
        for (int64_t b = 0; b < blocks; b++) {
            const int64_t block = direction > 0 ? grid->first_block + b : grid->last_block - b;
            int64_t low, high;
            dedoppler_block_rows(grid, block, direction, &low, &high);
            if (low > high)
                continue;
            load_tile(beam_input, grid, direction, origin, block, pitch, buffers[0]);
            const float* sums = run_tree(buffers, grid->padded, pitch);
            for (int64_t r = 0; r <= high - low; r++) {
                const int64_t p = direction > 0 ? low + r : high - r;
                const int64_t magnitude = block * span + p;
                const int32_t k = (int32_t)(direction * magnitude);
                const float* row = sums + p * pitch;
                /* valid starts: the end first + c ± |k| inside the band */
                int64_t from = 0, to = valid_width;
                if (direction > 0)
                    to = channels - magnitude - first < to ? channels - magnitude - first : to;
                else
                    from = magnitude - first > 0 ? magnitude - first : 0;
                if (plane) {
                    float* plane_row = plane + dedoppler_plane_index(grid, k) * channels + first;
                    for (int64_t c = 0; c < valid_width; c++)
                        plane_row[c] = c >= from && c < to
                                           ? row[dedoppler_tile_column(direction, (int)c, width)]
                                           : NAN;
                    continue;
                }
                if (direction > 0)
                    keep_larger(row, 1, best_sum + first, best_k + first, from, to, k);
                else
                    keep_larger(row + width - 1,
                                -1,
                                best_sum + first,
                                best_k + first,
                                from,
                                to,
                                k); /* column width − 1 − c */
            }
        }
    }
}

blade_status blade_cpu_dedoppler_taylor(
    const float* input, const dedoppler_grid* grid, float* best_sum, int32_t* best_k, float* plane)
{
    const int64_t width = blade_dedoppler_cpu_tile_width(grid->padded);
    const int64_t tiles = (grid->channels + width - 1) / width;
    const int64_t items = grid->beams * tiles;
    const size_t buffer_floats = (size_t)(grid->padded * (width + grid->padded - 1));
    bool failed = false;
#pragma omp parallel num_threads(         \
    blade_cpu_threads()) if (items > 1 && \
                             grid->spectra * grid->channels * grid->beams >= PARALLEL_THRESHOLD)
    {
        float* memory = malloc(2 * buffer_floats * sizeof *memory);
        if (memory == NULL) {
#pragma omp atomic write
            failed = true;
        }
        float* buffers[2] = { memory, memory + buffer_floats };
#pragma omp for schedule(dynamic, 1)
        for (int64_t item = 0; item < items; item++) {
            if (memory == NULL)
                continue;
            const int64_t beam = item / tiles, first = (item % tiles) * width;
            const int64_t offset = beam * grid->channels;
            taylor_tile(input + beam * grid->spectra * grid->channels,
                        grid,
                        first,
                        (int)width,
                        buffers,
                        best_sum ? best_sum + offset : NULL,
                        best_k ? best_k + offset : NULL,
                        plane ? plane + beam * dedoppler_drift_count(grid) * grid->channels : NULL);
        }
        free(memory);
    }
    if (failed)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                          "dedoppler: no memory for the tree's tile buffers");
    return BLADE_OK;
}

blade_status blade_cpu_dedoppler_brute_force(
    const float* input, const dedoppler_grid* grid, float* best_sum, int32_t* best_k, float* plane)
{
    const int64_t channels = grid->channels, spectra = grid->spectra;
    const int64_t count = grid->beams * channels;
    const int64_t drifts = dedoppler_drift_count(grid);
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (count * spectra * drifts >= PARALLEL_THRESHOLD)
    for (int64_t i = 0; i < count; i++) {
        const int64_t beam = i / channels, start = i % channels;
        const float* beam_input = input + beam * spectra * channels;
        float best = -INFINITY;
        int32_t best_drift = INT32_MAX;
        for (int64_t d = 0; d < drifts; d++) {
            const int64_t k = dedoppler_drift_at(grid, d);
            const bool valid = start + k >= 0 && start + k < channels;
            float sum = NAN;
            if (valid) {
                double total = 0;
                for (int64_t t = 0; t < spectra; t++)
                    total += beam_input[t * channels + start +
                                        dedoppler_nearest_offset(k, t, grid->padded)];
                sum = (float)total;
            }
            if (plane)
                plane[(beam * drifts + d) * channels + start] = sum;
            else if (valid)
                dedoppler_keep_best(sum, (int32_t)k, &best, &best_drift);
        }
        if (!plane) {
            best_sum[i] = best;
            best_k[i] = best_drift;
        }
    }
    return BLADE_OK;
}
