/* SPDX-License-Identifier: MIT */
/* Duplicate's backends: duplicate_cpu.c and kernels/duplicate.cu. Not installed. */
#ifndef BLADE_CORE_DUPLICATE_BACKEND_H
#define BLADE_CORE_DUPLICATE_BACKEND_H

#include <stddef.h>

#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copy `bytes` from `input` to each of the `count` `outputs` (none overlapping). */
void blade_cpu_duplicate(const void* input, void* const* outputs, int count, size_t bytes);

#ifdef BLADE_HAVE_CUDA
/* The same on the GPU, queued on `stream` (a cudaStream_t). */
blade_status blade_cuda_duplicate(
    const void* input, void* const* outputs, int count, size_t bytes, void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
