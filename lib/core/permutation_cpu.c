/* SPDX-License-Identifier: MIT */
/*
 * Permutation on the CPU, executing the reduced problem of permutation_backend.h.
 *
 * TILED is a transpose in square blocks of 32 x 32 elements: one block of the input
 * (32 rows along axis b, 32 elements along the contiguous axis a) fits in L1, so
 * each input cache line is loaded once while its 32 elements are scattered to 32
 * output rows, and the output is written in contiguous runs along b. ROWS copies
 * whole rows with memcpy. Blocks and rows are split across OpenMP threads; every
 * output byte is written by exactly one thread, so the result does not depend on
 * the thread count.
 */
#include "permutation_backend.h"

#include <string.h>

#define TILE 32

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

/* One TILED pass for elements of SIZE bytes. memcpy of a constant size compiles to
 * one (unaligned-safe) move. */
#define DEFINE_TILED(SIZE)                                                                \
    static void tiled_##SIZE(const blade_permutation_layout* layout,                      \
                             const batch_axes* batch,                                     \
                             int64_t batches,                                             \
                             const char* input,                                           \
                             char* output)                                                \
    {                                                                                     \
        const int a = layout->rank - 1, b = layout->axes[layout->rank - 1];               \
        const int64_t extent_a = layout->dims[a], extent_b = layout->dims[b];             \
        const int64_t in_stride_b = layout->in_strides[b];                                \
        const int64_t out_stride_a = layout->out_strides[a];                              \
        const int64_t tiles_a = (extent_a + TILE - 1) / TILE;                             \
        const int64_t tiles_b = (extent_b + TILE - 1) / TILE;                             \
        const int64_t tiles = batches * tiles_b * tiles_a;                                \
        _Pragma("omp parallel for schedule(static) if (layout->bytes >= PARALLEL_BYTES)") \
        for (int64_t tile = 0; tile < tiles; tile++) {                                    \
            const int64_t a0 = (tile % tiles_a) * TILE;                                   \
            const int64_t b0 = (tile / tiles_a % tiles_b) * TILE;                         \
            int64_t in_base, out_base;                                                    \
            batch_offsets(batch, tile / tiles_a / tiles_b, &in_base, &out_base);          \
            const int64_t a1 = a0 + TILE < extent_a ? a0 + TILE : extent_a;               \
            const int64_t b1 = b0 + TILE < extent_b ? b0 + TILE : extent_b;               \
            for (int64_t i = a0; i < a1; i++) {                                           \
                const char* from = input + (in_base + i) * SIZE;                          \
                char* to = output + (out_base + i * out_stride_a) * SIZE;                 \
                for (int64_t j = b0; j < b1; j++)                                         \
                    memcpy(to + j * SIZE, from + j * in_stride_b * SIZE, SIZE);           \
            }                                                                             \
        }                                                                                 \
    }

DEFINE_TILED(1)
DEFINE_TILED(2)
DEFINE_TILED(4)
DEFINE_TILED(8)
DEFINE_TILED(16)

/* ROWS: every row of dims[rank-1] elements keeps its bytes; rows move. */
static void rows(const blade_permutation_layout* layout,
                 const batch_axes* batch,
                 int64_t batches,
                 const char* input,
                 char* output)
{
    const size_t row_bytes =
        (size_t)layout->dims[layout->rank - 1] * (size_t)layout->element_bytes;
    const size_t element = (size_t)layout->element_bytes;
#pragma omp parallel for schedule(static) if (layout->bytes >= PARALLEL_BYTES)
    for (int64_t row = 0; row < batches; row++) {
        int64_t in_offset, out_offset;
        batch_offsets(batch, row, &in_offset, &out_offset);
        memcpy(output + (size_t)out_offset * element,
               input + (size_t)in_offset * element,
               row_bytes);
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
    switch (layout->element_bytes) {
    case 1:
        tiled_1(layout, &batch, batches, input, output);
        break;
    case 2:
        tiled_2(layout, &batch, batches, input, output);
        break;
    case 4:
        tiled_4(layout, &batch, batches, input, output);
        break;
    case 8:
        tiled_8(layout, &batch, batches, input, output);
        break;
    default:
        tiled_16(layout, &batch, batches, input, output);
        break;
    }
}
