/* SPDX-License-Identifier: MIT */
/*
 * Turning CUDA runtime errors into core status codes with a message that names the
 * failing call, for the kernels/ translation units. Not installed.
 */
#ifndef BLADE_KERNELS_CUDA_CHECK_H
#define BLADE_KERNELS_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "internal.h"

/* Evaluate a CUDA runtime call; on failure return BLADE_ERROR_DEVICE (or
 * BLADE_ERROR_OUT_OF_MEMORY) with "<call> failed: <CUDA message>". */
#define BLADE_CUDA_TRY(call)                                                  \
    do {                                                                      \
        cudaError_t blade_cuda_error_ = (call);                               \
        if (blade_cuda_error_ != cudaSuccess) {                               \
            (void)cudaGetLastError(); /* clear the sticky-free error state */ \
            return blade_fail(blade_cuda_error_ == cudaErrorMemoryAllocation  \
                                  ? BLADE_ERROR_OUT_OF_MEMORY                 \
                                  : BLADE_ERROR_DEVICE,                       \
                              "%s failed: %s (%s)",                           \
                              #call,                                          \
                              cudaGetErrorString(blade_cuda_error_),          \
                              cudaGetErrorName(blade_cuda_error_));           \
        }                                                                     \
    } while (0)

/* After a kernel launch: report a launch failure naming the kernel. */
#define BLADE_CUDA_CHECK_LAUNCH(kernel_name)                         \
    do {                                                             \
        cudaError_t blade_cuda_error_ = cudaGetLastError();          \
        if (blade_cuda_error_ != cudaSuccess)                        \
            return blade_fail(BLADE_ERROR_DEVICE,                    \
                              "launching %s failed: %s (%s)",        \
                              kernel_name,                           \
                              cudaGetErrorString(blade_cuda_error_), \
                              cudaGetErrorName(blade_cuda_error_));  \
    } while (0)

/* Multiprocessors of the current device (cached per device). */
unsigned blade_cuda_multiprocessors(void);

/* Shared memory a block of the current device may opt in to, in bytes (cached per
 * device; 0 where it cannot be read). */
int blade_cuda_shared_memory_optin(void);

/* Compute capability of the current device as 10 major + minor, 90 for Hopper
 * (cached per device; 0 where it cannot be read). */
int blade_cuda_compute_capability(void);

/* A grid of at most `limit` blocks of `threads` threads covering `items` items;
 * kernels loop grid-stride over the rest. */
static inline unsigned blade_grid_size(long long items, int threads, unsigned limit)
{
    long long blocks = (items + threads - 1) / threads;
    if (blocks < 1)
        blocks = 1;
    return blocks > (long long)limit ? limit : (unsigned)blocks;
}

#endif
