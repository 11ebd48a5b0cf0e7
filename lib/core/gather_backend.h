/* SPDX-License-Identifier: MIT */
/* The two backends of Gather: gather_cpu.c and kernels/gather.cu. Not installed. */
#ifndef BLADE_CORE_GATHER_BACKEND_H
#define BLADE_CORE_GATHER_BACKEND_H

#include <stdint.h>

#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A strided copy: `rows` rows of `row_bytes` bytes, contiguous in `input`, to
 * `output` where consecutive rows start `output_pitch` bytes apart. This is how one
 * chunk lands in its step of a concatenation: rows are the product of the axes
 * before the gathered one, a row is the gathered axis and those after it. */
void blade_cpu_place_rows(
    const void* input, void* output, int64_t rows, int64_t row_bytes, int64_t output_pitch);

#ifdef BLADE_HAVE_CUDA
/* The same on the GPU, queued on `stream` (a cudaStream_t). */
blade_status blade_cuda_place_rows(const void* input,
                                   void* output,
                                   int64_t rows,
                                   int64_t row_bytes,
                                   int64_t output_pitch,
                                   void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
