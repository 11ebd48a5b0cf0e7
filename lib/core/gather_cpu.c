/* SPDX-License-Identifier: MIT */
/*
 * Gather on the CPU: memcpy per row. Large copies are cut into pieces of at most
 * PIECE bytes that OpenMP threads share, so one huge row (gathering along axis 0)
 * and many small rows both use every core. Where the rows land in an output far
 * larger than the caches (the group of steps spans 64 MiB or more), they are written
 * with streaming stores (cpu_stream.h): the group is read only after its last step,
 * long after these lines would have left the caches.
 */
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "gather_backend.h"

#include <string.h>

#define PIECE ((int64_t)1 << 20)

void blade_cpu_place_rows(
    const void* input, void* output, int64_t rows, int64_t row_bytes, int64_t output_pitch)
{
    const char* in = input;
    char* out = output;
    if (rows * row_bytes < 4 * PIECE) {
        for (int64_t r = 0; r < rows; r++)
            memcpy(out + r * output_pitch, in + r * row_bytes, (size_t)row_bytes);
        return;
    }
    const bool stream = blade_stream_pays(rows * output_pitch);
    const int64_t pieces_per_row = (row_bytes + PIECE - 1) / PIECE;
    const int64_t piece = (row_bytes + pieces_per_row - 1) / pieces_per_row;
#pragma omp parallel for num_threads(blade_cpu_threads()) schedule(static)
    for (int64_t p = 0; p < rows * pieces_per_row; p++) {
        const int64_t r = p / pieces_per_row;
        const int64_t begin = (p % pieces_per_row) * piece;
        const int64_t end = begin + piece < row_bytes ? begin + piece : row_bytes;
        if (begin < end)
            blade_copy_bytes(out + r * output_pitch + begin,
                             in + r * row_bytes + begin,
                             (size_t)(end - begin),
                             stream);
    }
}
