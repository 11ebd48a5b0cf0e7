/* SPDX-License-Identifier: MIT */
/*
 * Turning CUDA runtime errors into core status codes with a message that names the
 * failing call, for the kernels/ translation units. Not installed.
 */
#ifndef BLADE_KERNELS_CUDA_CHECK_H
#define BLADE_KERNELS_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <stdint.h>

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

/* BLADE_OK for a grid of `blocks` blocks CUDA can launch (at most 2^31 - 1 along x);
 * otherwise BLADE_ERROR_UNSUPPORTED with "<module>: N thread blocks exceed the CUDA grid
 * limit; <advice>" (no advice where it is empty). */
static inline blade_status
blade_check_grid(long long blocks, const char* module, const char* advice)
{
    if (blocks <= INT32_MAX)
        return BLADE_OK;
    return blade_fail(BLADE_ERROR_UNSUPPORTED,
                      "%s: %lld thread blocks exceed the CUDA grid limit%s%s",
                      module,
                      blocks,
                      advice[0] != '\0' ? "; " : "",
                      advice);
}

/* A grid of at most `limit` blocks of `threads` threads covering `items` items;
 * kernels loop grid-stride over the rest. */
static inline unsigned blade_grid_size(long long items, int threads, unsigned limit)
{
    long long blocks = (items + threads - 1) / threads;
    if (blocks < 1)
        blocks = 1;
    return blocks > (long long)limit ? limit : (unsigned)blocks;
}

#ifdef __cplusplus
/* The tensor-core kernels' bodies exist only in code compiled for sm_80 or newer; a
 * build whose newest code is older, run through PTX on a newer GPU, would launch an
 * empty kernel. Refuse that, naming `module`. */
template <class Kernel>
blade_status blade_check_tensor_code(Kernel kernel, const char* module)
{
    cudaFuncAttributes attributes{};
    BLADE_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    if (attributes.ptxVersion < 80)
        return blade_fail(
            BLADE_ERROR_UNSUPPORTED,
            "%s: this build has no tensor-core code for the GPU (compiled for compute "
            "capability %d.%d; add 80 or 90 to CMAKE_CUDA_ARCHITECTURES) - use path fp32",
            module,
            attributes.ptxVersion / 10,
            attributes.ptxVersion % 10);
    return BLADE_OK;
}
#endif

/* mma.m16n8k16 with fp16 operands and float32 accumulators: c += a b (sm_80 and newer;
 * the beamformer's and the correlator's fp16 tensor-core kernels). */
#if defined(__CUDACC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ void
blade_mma_f16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif

#endif
