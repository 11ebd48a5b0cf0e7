/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic of the dedoppler's drift grid and of its Taylor tree on a tile of
 * channels, shared word for word by the CPU backend (dedoppler_cpu.c) and the CUDA
 * kernels (kernels/dedoppler.cu): the CPU tests then exercise the very index maths the
 * GPU runs, and both backends add the same floats in the same order. Not installed.
 *
 * A tile is W consecutive start channels of one beam, for one direction (+1: drifts
 * towards higher channels; −1: lower) and one drift block b. Its buffer holds T' rows
 * of W + T' − 1 columns: row t, column j is spectrum t at channel x = origin + j + b·t
 * in the direction's coordinates (x itself for +1, F − 1 − x for −1, the mirror
 * image), zero outside the spectrogram and for the padding spectra t ≥ T. Shearing
 * the rows by b·t at load time leaves a tree of block 0 to compute, whose paths reach
 * at most T' − 1 columns to the right.
 */
#ifndef BLADE_CORE_DEDOPPLER_TREE_H
#define BLADE_CORE_DEDOPPLER_TREE_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define DEDOPPLER_SHARED __host__ __device__ static inline
#else
#define DEDOPPLER_SHARED static inline
#endif

/* The drifts one plan searches: every k with min_index ≤ |k| ≤ max_index (nonzero),
 * plus k = 0 when with_zero. */
typedef struct dedoppler_grid {
    int64_t beams, spectra, padded, channels;
    int64_t min_index; /* smallest nonzero |k| searched (≥ 1) */
    int64_t max_index; /* largest |k| searched; below min_index: no nonzero drift */
    bool with_zero;
    int64_t first_block, last_block; /* drift blocks holding searched drifts */
} dedoppler_grid;

/* Offset P(p, t) of tree path p at spectrum t, for a tree of `padded` spectra: the
 * halving definition of dedoppler.h, unrolled from the top level down. */
DEDOPPLER_SHARED int64_t dedoppler_taylor_offset(int64_t p, int64_t t, int64_t padded)
{
    int64_t offset = 0;
    for (int64_t length = padded; length > 1; length /= 2) {
        const int64_t half = length / 2, lower = p / 2;
        if (t >= half) {
            offset += p - lower; /* the later half starts ⌈p/2⌉ channels on */
            t -= half;
        }
        p = lower;
    }
    return offset;
}

/* Brute-force offset of drift k at spectrum t: round(k·t/(T'−1)), halves away from
 * zero, in integers (exact for every size). */
DEDOPPLER_SHARED int64_t dedoppler_nearest_offset(int64_t k, int64_t t, int64_t padded)
{
    if (padded <= 1)
        return 0;
    const int64_t magnitude = k < 0 ? -k : k, span = padded - 1;
    const int64_t rounded = (2 * magnitude * t + span) / (2 * span);
    return k < 0 ? -rounded : rounded;
}

/* Drift block of |k| ≥ 1: blocks cover |k| = b(T'−1) + 1 … (b+1)(T'−1), so that the
 * last row of a block (p = T'−1) serves rather than the first row of the next. */
DEDOPPLER_SHARED int64_t dedoppler_block_of(int64_t magnitude, int64_t padded)
{
    return magnitude == 0 ? 0 : (magnitude - 1) / (padded - 1);
}

/* Number of drifts searched, D (both signs, and k = 0 when searched). */
DEDOPPLER_SHARED int64_t dedoppler_drift_count(const dedoppler_grid* grid)
{
    const int64_t nonzero =
        grid->max_index >= grid->min_index ? grid->max_index - grid->min_index + 1 : 0;
    return 2 * nonzero + (grid->with_zero ? 1 : 0);
}

/* The d-th drift of the increasing list: −max … −min, [0], min … max. */
DEDOPPLER_SHARED int64_t dedoppler_drift_at(const dedoppler_grid* grid, int64_t d)
{
    const int64_t nonzero =
        grid->max_index >= grid->min_index ? grid->max_index - grid->min_index + 1 : 0;
    if (d < nonzero)
        return -(grid->max_index - d);
    d -= nonzero;
    if (grid->with_zero) {
        if (d == 0)
            return 0;
        d--;
    }
    return grid->min_index + d;
}

/* Index of drift k in the increasing list of searched drifts (the plane's d). */
DEDOPPLER_SHARED int64_t dedoppler_plane_index(const dedoppler_grid* grid, int64_t k)
{
    const int64_t nonzero =
        grid->max_index >= grid->min_index ? grid->max_index - grid->min_index + 1 : 0;
    if (k < 0)
        return k + grid->max_index;
    if (k == 0)
        return nonzero;
    return nonzero + (grid->with_zero ? 1 : 0) + k - grid->min_index;
}

/* Whether drift k (of the block and row given) is searched. */
DEDOPPLER_SHARED bool dedoppler_searched(const dedoppler_grid* grid, int64_t magnitude)
{
    return magnitude == 0 ? grid->with_zero
                          : (magnitude >= grid->min_index && magnitude <= grid->max_index);
}

/* Rows p of block b that hold searched drifts: [*first, *last] (empty when
 * *first > *last). Row p ≥ 1 of block b is |k| = b(T'−1) + p; row 0 serves only
 * k = 0 (block 0, positive direction). with_zero implies min_index = 1, so the rows
 * are contiguous. */
DEDOPPLER_SHARED void dedoppler_block_rows(
    const dedoppler_grid* grid, int64_t block, int direction, int64_t* first, int64_t* last)
{
    const int64_t span = grid->padded - 1, base = block * span;
    int64_t low = grid->min_index - base, high = grid->max_index - base;
    if (low < 1)
        low = 1;
    if (high > span)
        high = span;
    if (block == 0 && direction > 0 && grid->with_zero)
        low = 0;
    *first = low;
    *last = high;
}

/* Channel of row t, column j of a tile (see the file comment), or −1 outside. */
DEDOPPLER_SHARED int64_t dedoppler_tile_channel(
    int64_t channels, int direction, int64_t origin, int64_t block, int64_t t, int64_t j)
{
    const int64_t x = origin + j + block * t;
    if (x < 0 || x >= channels)
        return -1;
    return direction > 0 ? x : channels - 1 - x;
}

/* Origin of the tile that serves start channels first … first + width − 1 in
 * `direction`: the mirror image puts channel first + c at column width − 1 − c. */
DEDOPPLER_SHARED int64_t dedoppler_tile_origin(int64_t channels,
                                               int direction,
                                               int64_t first,
                                               int64_t width)
{
    return direction > 0 ? first : channels - first - width;
}

/* Column of start channel first + c in the tile of `direction`. */
DEDOPPLER_SHARED int dedoppler_tile_column(int direction, int c, int width)
{
    return direction > 0 ? c : width - 1 - c;
}

/* Where one row of one tree stage reads, on a tile buffer of `pitch` columns: paths
 * of `length` spectra from pairs of paths of length/2. Row r = τ·length + p of the
 * output (τ the time block, p the path) adds, column by column, rows τ·length + ⌊p/2⌋
 * (the earlier half) and τ·length + length/2 + ⌊p/2⌋ (the later half) of the input,
 * the later one read ⌈p/2⌉ columns on: out[r·pitch + j] = in[earlier + j] +
 * in[later + j]. Valid for columns j < pitch − (length − 1). */
DEDOPPLER_SHARED void
dedoppler_stage_sources(int pitch, int length, int row, int* earlier, int* later)
{
    const int p = row & (length - 1), base = row - p, lower = p >> 1;
    *earlier = (base + lower) * pitch;
    *later = (base + (length >> 1) + lower) * pitch + (p - lower);
}

/* Columns computed by the stage of path `length`: only those whose paths stay in
 * the tile. */
DEDOPPLER_SHARED int dedoppler_stage_columns(int pitch, int length) { return pitch - (length - 1); }

/* Keep the better of a running best and a candidate: larger sum, then smaller k
 * (NaN never wins). */
DEDOPPLER_SHARED void dedoppler_keep_best(float sum, int32_t k, float* best, int32_t* best_k)
{
    if (sum > *best || (sum == *best && k < *best_k)) {
        *best = sum;
        *best_k = k;
    }
}

#endif
