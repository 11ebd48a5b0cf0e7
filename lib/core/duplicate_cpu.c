/* SPDX-License-Identifier: MIT */
/*
 * Duplicate on the CPU. The input is walked once in cache-sized pieces and each
 * piece is written to every output while it is still in cache, so memory reads the
 * input once however many copies are made. Large tensors are split across OpenMP
 * threads (copy bandwidth of one core is a fraction of the socket's). Copies of
 * 64 MiB and more in all are written with streaming stores (cpu_stream.h): they
 * would leave the caches before anyone read them, and ordinary stores would read
 * every output line from memory first.
 */
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "duplicate_backend.h"

#include <stdint.h>
#include <string.h>

/* 256 KiB: stays in a core's L2 while it is written out `count` times. */
#define PIECE_BYTES ((size_t)1 << 18)

void blade_cpu_duplicate(const void* input, void* const* outputs, int count, size_t bytes)
{
    const char* in = input;
    const int64_t pieces = (int64_t)((bytes + PIECE_BYTES - 1) / PIECE_BYTES);
    const bool stream = blade_stream_pays((int64_t)bytes * count);
#pragma omp parallel for num_threads(blade_cpu_threads()) schedule(static) if (pieces > 4)
    for (int64_t piece = 0; piece < pieces; piece++) {
        const size_t begin = (size_t)piece * PIECE_BYTES;
        const size_t length = bytes - begin < PIECE_BYTES ? bytes - begin : PIECE_BYTES;
        for (int c = 0; c < count; c++)
            blade_copy_bytes((char*)outputs[c] + begin, in + begin, length, stream);
    }
}
