/* SPDX-License-Identifier: MIT */
/*
 * Blocks transposed in AVX-512 registers and written with streaming stores, for the
 * permutation's tiled transposes (permutation_cpu.c) of 8-byte (cf32) and 16-byte
 * (cf32 pairs) elements. Gathering an output run element by element costs a load and
 * a shuffle per 8 bytes (1.5 cycles per element on the CI machine, below the memory's
 * rate at one core); here 8 x 8 elements (4 x 4 for 16-byte ones) are loaded as one
 * 64-byte vector per input row, transposed with 24 (8) shuffles, and stored as one
 * 64-byte vector per output row. The bytes are moved, never computed on: the output
 * is that of any other copy. Not installed.
 */
#ifndef BLADE_CORE_CPU_TRANSPOSE_H
#define BLADE_CORE_CPU_TRANSPOSE_H

#include <stdbool.h>
#include <stdint.h>

/** The block side in elements of `size` bytes (8 or 16), or 0 where this CPU has no
 * AVX-512 path or the size has none. */
int blade_transpose_block_side(int size);

/**
 * out[i][j] = in[j][i] for i < rows, j < columns, elements of `size` bytes (8 or 16):
 * output row i at out + i * out_row_bytes, input row j at in + j * in_row_bytes.
 * `rows` and `columns` are multiples of blade_transpose_block_side(size) (not 0);
 * `out` and `out_row_bytes` are multiples of 64 (the streaming stores' alignment).
 * The stores are not fenced: the caller issues one fence when its pass is done.
 */
void blade_transpose_streamed(char* out,
                              int64_t out_row_bytes,
                              const char* in,
                              int64_t in_row_bytes,
                              int64_t rows,
                              int64_t columns,
                              int size);

#endif
