/* SPDX-License-Identifier: MIT */
/*
 * Permutation on the CPU, executing the reduced problem of permutation_backend.h.
 *
 * TILED is a transpose in blocks of about 16 x 16 elements (TILE_SIDE below): one
 * block of the input stays in cache while the output is written in contiguous runs
 * along b, so each input cache line is loaded once. ROWS copies whole rows with
 * memcpy. Blocks and rows are split across OpenMP threads; every output byte is
 * written by exactly one thread, so the result does not depend on the thread count.
 * Outputs of 64 MiB and more (TILED: 16 MiB, below) are written with streaming stores
 * (cpu_stream.h: no read of each output line before it is written): whole rows by
 * blade_stream_copy, TILED's runs of 8- and 16-byte elements (cf32 and pairs of it,
 * the layouts the pipelines permute) 16 bytes at a time.
 */
#include "cpu_pairs.h"
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "cpu_transpose.h"
#include "permutation_backend.h"

#include <string.h>

/* Blocks of TILE_SIDE x TILE_SIDE elements; where b is shorter, as many elements
 * (TILE_AREA) longer along a; where a is shorter, 2 TILE_SIDE along b (a = P for
 * -> AFPT: rows of two elements). Measured on the CI machine (2 threads, cf32), 16 x 16
 * against the former 32 x 32: [16, 192, 8192, 2] -> ATPF 19.7-22 -> 16.7-17.5 ms,
 * [2, ...] -> ATFP 2.44-3.03 -> 2.30-2.66 ms; AFPT was slower with 16 along b (2.6
 * against 2.2 ms) and keeps 32. */
#define TILE_SIDE 16
#define TILE_AREA (TILE_SIDE * TILE_SIDE)

/* Below this many bytes threads cost more than they save. */
#define PARALLEL_BYTES ((size_t)1 << 20)

typedef struct batch_axes {
    int count;
    int64_t dims[BLADE_MAX_RANK + 1];
    int64_t in_strides[BLADE_MAX_RANK + 1];
    int64_t out_strides[BLADE_MAX_RANK + 1];
} batch_axes;

/* Input and output offsets of batch index `index` (the last batch axis fastest). */
static inline void batch_offsets(const batch_axes* batch, int64_t index, int64_t* in, int64_t* out)
{
    *in = 0;
    *out = 0;
    for (int k = batch->count - 1; k >= 0; k--) {
        const int64_t coordinate = index % batch->dims[k];
        index /= batch->dims[k];
        *in += coordinate * batch->in_strides[k];
        *out += coordinate * batch->out_strides[k];
    }
}

/* Gather `count` elements of `size` bytes, `stride` bytes apart, into a contiguous run.
 * memcpy of a constant size compiles to one (unaligned-safe) move. */
#define GATHER_RUN(SIZE)                \
    for (int64_t j = 0; j < count; j++) \
        memcpy(to + j * (SIZE), from + j * stride, (SIZE));

static inline void gather_run(char* to, const char* from, int64_t count, int64_t stride, int size)
{
    switch (size) {
    case 1:
        GATHER_RUN(1)
        break;
    case 2:
        GATHER_RUN(2)
        break;
    case 4:
        GATHER_RUN(4)
        break;
    case 8:
        GATHER_RUN(8)
        break;
    default:
        GATHER_RUN(16)
        break;
    }
}

/* gather_run with streaming stores for elements of 8 or 16 bytes (stream_runs):
 * ordinary stores up to the run's first 16-byte aligned element, two 8-byte
 * elements or one 16-byte element per streaming store after it. */
static inline void
gather_run_streamed(char* to, const char* from, int64_t count, int64_t stride, int size)
{
#ifdef __SSE2__
    int64_t j = 0;
    for (; j < count && ((uintptr_t)(to + j * size) & 15) != 0; j++)
        memcpy(to + j * size, from + j * stride, (size_t)size);
    if (size == 16) {
        for (; j < count; j++)
            _mm_stream_si128((__m128i*)(to + j * 16),
                             _mm_loadu_si128((const __m128i*)(from + j * stride)));
    } else {
        for (; j + 2 <= count; j += 2) {
            const __m128i pair =
                _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i*)(from + j * stride)),
                                   _mm_loadl_epi64((const __m128i*)(from + (j + 1) * stride)));
            _mm_stream_si128((__m128i*)(to + j * 8), pair);
        }
    }
    gather_run(to + j * size, from + j * stride, count - j, stride, size);
#else
    gather_run(to, from, count, stride, size);
#endif
}

/* TILED streams from a quarter of the other passes' size (cpu_stream.h): its output
 * lines are written a run at a time, one per row of the output, so the reads for
 * ownership that ordinary stores need are misses scattered over thousands of rows,
 * which no prefetcher follows. On the CI machine, 3 alternating rounds, [2, 192, 8192,
 * 2] cf32 (50 MB) streamed against not, GB/s: -> ATPF 10-14 -> 22-25 (1 thread), 15-18
 * -> 41-44 (2); -> ATFP 11-20 -> 29-30, 22-40 -> 50-56; -> AFPT 18-21 -> 18-25, 28-33 ->
 * 41-45. Below 16 MiB an output may still be in cache for the next stage to read. */
#define TILED_STREAM_MIN_BYTES ((int64_t)16 << 20)

/* Whether TILED writes its runs with gather_run_streamed. */
static bool stream_runs(const blade_permutation_layout* layout, const char* output)
{
    return (layout->element_bytes == 8 || layout->element_bytes == 16) &&
           ((uintptr_t)output & 7) == 0 &&
           (int64_t)layout->bytes >= blade_stream_min_bytes(TILED_STREAM_MIN_BYTES);
}

/* TILED: blocks of tile_a x tile_b elements; each output run along b is gathered
 * from tile_b input rows that stay in cache for the whole block. (Copying a block's
 * input rows into an L1 buffer first, against the cache-set conflicts of power-of-two
 * row strides, was measured slower on the CI machine: ATFP 1.1x, AFPT 1.5-2x the
 * time.) */
static void tiled(const blade_permutation_layout* layout,
                  const batch_axes* batch,
                  int64_t batches,
                  const char* input,
                  char* output)
{
    const bool stream = stream_runs(layout, output);
    const int64_t size = layout->element_bytes;
    const int a = layout->rank - 1, b = layout->axes[layout->rank - 1];
    const int64_t extent_a = layout->dims[a], extent_b = layout->dims[b];
    const int64_t in_stride_b = layout->in_strides[b];
    const int64_t out_stride_a = layout->out_strides[a];
    const int64_t tile_b = extent_a < TILE_SIDE   ? 2 * TILE_SIDE
                           : extent_b < TILE_SIDE ? extent_b
                                                  : TILE_SIDE;
    const int64_t tile_a = TILE_AREA / tile_b;
    const int64_t tiles_a = (extent_a + tile_a - 1) / tile_a;
    const int64_t tiles_b = (extent_b + tile_b - 1) / tile_b;
    const int64_t tiles = batches * tiles_b * tiles_a;
    /* Whole blocks of a tile go through registers (cpu_transpose.h) where the output
     * rows keep 64-byte alignment; the rest element by element. */
    const int block_side =
        stream && (out_stride_a * size) % 64 == 0 ? blade_transpose_block_side((int)size) : 0;
#pragma omp parallel num_threads(blade_cpu_threads()) if (layout->bytes >= PARALLEL_BYTES)
    {
#pragma omp for schedule(static) nowait
        for (int64_t tile = 0; tile < tiles; tile++) {
            const int64_t a0 = (tile % tiles_a) * tile_a;
            const int64_t b0 = (tile / tiles_a % tiles_b) * tile_b;
            int64_t in_base, out_base;
            batch_offsets(batch, tile / tiles_a / tiles_b, &in_base, &out_base);
            const int64_t a1 = a0 + tile_a < extent_a ? a0 + tile_a : extent_a;
            const int64_t b1 = b0 + tile_b < extent_b ? b0 + tile_b : extent_b;
            char* first_to = output + (out_base + a0 * out_stride_a + b0) * size;
            if (block_side > 0 && (a1 - a0) % block_side == 0 && (b1 - b0) % block_side == 0 &&
                ((uintptr_t)first_to & 63) == 0) {
                blade_transpose_streamed(first_to,
                                         out_stride_a * size,
                                         input + (in_base + a0 + b0 * in_stride_b) * size,
                                         in_stride_b * size,
                                         a1 - a0,
                                         b1 - b0,
                                         (int)size);
                continue;
            }
            for (int64_t i = a0; i < a1; i++) {
                char* to = output + (out_base + i * out_stride_a + b0) * size;
                const char* from = input + (in_base + i + b0 * in_stride_b) * size;
                if (stream)
                    gather_run_streamed(to, from, b1 - b0, in_stride_b * size, (int)size);
                else
                    gather_run(to, from, b1 - b0, in_stride_b * size, (int)size);
            }
        }
#ifdef __SSE2__
        if (stream)
            _mm_sfence(); /* this thread's stores ordered before the region's closing barrier */
#endif
    }
}

/* TILED with input rows of two 8-byte elements (a = 2: cf32 voltages' polarizations
 * going to planes, -> AFPT): each batch's run of pairs split into its two output rows
 * by cpu_pairs.h, eight samples a shuffle. Its two output rows are written in order,
 * so an ordinary store's read for ownership is one a prefetcher follows: it streams
 * (through an L1 block) only from the other passes' size, not TILED's 16 MiB.
 * Element by element (tiles of 2 x 32) this ran at 42-61 % of the copy bound on the
 * CI machine. */
#define SPLIT_BLOCK 512 /* pairs: 8 KiB of input, two 4 KiB planes */

static bool splits_pairs(const blade_permutation_layout* layout)
{
    const int a = layout->rank - 1, b = layout->axes[layout->rank - 1];
    return layout->element_bytes == 8 && layout->dims[a] == 2 && layout->in_strides[b] == 2;
}

static void split_rows_of_two(const blade_permutation_layout* layout,
                              const batch_axes* batch,
                              int64_t batches,
                              const char* input,
                              char* output)
{
    const int a = layout->rank - 1, b = layout->axes[layout->rank - 1];
    const int64_t n = layout->dims[b], second_row = layout->out_strides[a];
    const bool stream = blade_stream_pays((int64_t)layout->bytes);
#pragma omp parallel num_threads(blade_cpu_threads()) if (layout->bytes >= PARALLEL_BYTES)
    {
        float x_block[2 * SPLIT_BLOCK], y_block[2 * SPLIT_BLOCK];
#pragma omp for schedule(static) nowait
        for (int64_t k = 0; k < batches; k++) {
            int64_t in_base, out_base;
            batch_offsets(batch, k, &in_base, &out_base);
            const float* pairs = (const float*)(input + in_base * 8);
            float* x = (float*)(output + out_base * 8);
            float* y = (float*)(output + (out_base + second_row) * 8);
            if (!stream) {
                blade_split_pairs(x, y, pairs, n, false);
                continue;
            }
            for (int64_t t = 0; t < n; t += SPLIT_BLOCK) {
                const int64_t m = n - t < SPLIT_BLOCK ? n - t : SPLIT_BLOCK;
                blade_split_pairs(x_block, y_block, pairs + 4 * t, m, false);
                blade_stream_copy_unfenced(x + 2 * t, x_block, (size_t)m * 8);
                blade_stream_copy_unfenced(y + 2 * t, y_block, (size_t)m * 8);
            }
        }
        if (stream)
            blade_stream_fence(); /* this thread's stores before the closing barrier */
    }
}

/* ROWS: every row of dims[rank-1] elements keeps its bytes; rows move. */
static void rows(const blade_permutation_layout* layout,
                 const batch_axes* batch,
                 int64_t batches,
                 const char* input,
                 char* output)
{
    const size_t row_bytes = (size_t)layout->dims[layout->rank - 1] * (size_t)layout->element_bytes;
    const size_t element = (size_t)layout->element_bytes;
    const bool stream = blade_stream_pays((int64_t)layout->bytes);
#pragma omp parallel for num_threads(blade_cpu_threads()) \
    schedule(static) if (layout->bytes >= PARALLEL_BYTES)
    for (int64_t row = 0; row < batches; row++) {
        int64_t in_offset, out_offset;
        batch_offsets(batch, row, &in_offset, &out_offset);
        blade_copy_bytes(output + (size_t)out_offset * element,
                         input + (size_t)in_offset * element,
                         row_bytes,
                         stream);
    }
}

void blade_cpu_permutation(const blade_permutation_layout* layout, const void* input, void* output)
{
    if (layout->kind == BLADE_PERMUTATION_COPY) {
        if (input != output)
            memcpy(output, input, layout->bytes);
        return;
    }
    /* The batch: every axis except the ones the kernel walks itself (a and b for
     * TILED, the row for ROWS), in input order. */
    const int a = layout->rank - 1;
    const int b = layout->kind == BLADE_PERMUTATION_TILED ? layout->axes[layout->rank - 1] : a;
    batch_axes batch = { 0 };
    int64_t batches = 1;
    for (int k = 0; k < layout->rank; k++) {
        if (k == a || k == b)
            continue;
        batch.dims[batch.count] = layout->dims[k];
        batch.in_strides[batch.count] = layout->in_strides[k];
        batch.out_strides[batch.count] = layout->out_strides[k];
        batch.count++;
        batches *= layout->dims[k];
    }
    if (layout->kind == BLADE_PERMUTATION_ROWS) {
        rows(layout, &batch, batches, input, output);
        return;
    }
    if (splits_pairs(layout)) {
        split_rows_of_two(layout, &batch, batches, input, output);
        return;
    }
    tiled(layout, &batch, batches, input, output);
}
