/* SPDX-License-Identifier: MIT */
/* The two backends of the Channelizer: channelizer_cpu.c and kernels/channelizer.cu.
 * channelizer.c validates and hands them a checked geometry. Not installed. */
#ifndef BLADE_CORE_CHANNELIZER_BACKEND_H
#define BLADE_CORE_CHANNELIZER_BACKEND_H

#include <stdint.h>

#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The validated problem: rows = A*F independent (a, f) time series of T samples
 * with P interleaved polarizations, N-point transforms, S = T/N output samples,
 * M taps per branch (1: no filter) and H = (M-1)*N samples of history per (row, p).
 * input_half / output_half: the input / output is cf16 (else cf32); the maths and
 * the history are float32 either way. kernel: the CUDA implementation asked for
 * (blade_channelizer_kernel). */
typedef struct blade_channelizer_geometry {
    int64_t rows;
    int64_t T;
    int64_t P;
    int64_t N;
    int64_t S;
    int M;
    int64_t H;
    int input_half;
    int output_half;
    int kernel;
} blade_channelizer_geometry;

/* CPU backend (FFTW + OpenMP). `filter` (M*N floats, copied) is NULL when M = 1. */
typedef struct blade_cpu_channelizer blade_cpu_channelizer;
blade_status blade_cpu_channelizer_create(const blade_channelizer_geometry* geometry,
                                          const float* filter,
                                          blade_cpu_channelizer** backend);
/* input and output: cf32 or cf16 (interleaved re, im) [rows, T, P] and [rows, N, S, P]. */
void blade_cpu_channelizer_process(blade_cpu_channelizer* backend, const void* input, void* output);
void blade_cpu_channelizer_reset(blade_cpu_channelizer* backend);
void blade_cpu_channelizer_destroy(blade_cpu_channelizer* backend);

#ifdef BLADE_HAVE_CUDA
/* CUDA backend on GPU `device_index`; the same contract, queued on `stream`. */
typedef struct blade_cuda_channelizer blade_cuda_channelizer;
blade_status blade_cuda_channelizer_create(const blade_channelizer_geometry* geometry,
                                           const float* filter,
                                           int device_index,
                                           blade_cuda_channelizer** backend);
blade_status blade_cuda_channelizer_process(blade_cuda_channelizer* backend,
                                            const void* input,
                                            void* output,
                                            void* stream);
blade_status blade_cuda_channelizer_reset(blade_cuda_channelizer* backend, void* stream);
void blade_cuda_channelizer_destroy(blade_cuda_channelizer* backend);
#endif

#ifdef __cplusplus
}
#endif

#endif
