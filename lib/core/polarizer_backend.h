/* SPDX-License-Identifier: MIT */
/* The two backends of Polarizer: polarizer_cpu.c and kernels/polarizer.cu. Not installed. */
#ifndef BLADE_CORE_POLARIZER_BACKEND_H
#define BLADE_CORE_POLARIZER_BACKEND_H

#include <stdint.h>

#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Linear (X, Y) to circular (X + iY, X - iY) for `pairs` polarization pairs of cf32
 * (4 floats each: X.re, X.im, Y.re, Y.im). Input and output may be the same memory. */
void blade_cpu_polarize(const float* input, float* output, int64_t pairs);

/* The same for cf16 pairs (4 halves each): every sum is computed in float from the
 * halves and rounded to half once, as the CUDA kernel does, so both give the same bits. */
void blade_cpu_polarize_half(const uint16_t* input, uint16_t* output, int64_t pairs);

#ifdef BLADE_HAVE_CUDA
/* The same on the GPU, queued on `stream` (a cudaStream_t). */
blade_status blade_cuda_polarize(const float* input, float* output, int64_t pairs, void* stream);
blade_status
blade_cuda_polarize_half(const uint16_t* input, uint16_t* output, int64_t pairs, void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
