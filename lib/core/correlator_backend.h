/* SPDX-License-Identifier: MIT */
/* The two backends of the Correlator: correlator_cpu.c and kernels/correlator*.cu.
 * Not installed. */
#ifndef BLADE_CORE_CORRELATOR_BACKEND_H
#define BLADE_CORE_CORRELATOR_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <blade/dtype.h>
#include <blade/modules/correlator.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One chunk of work, validated by correlator.c. Voltages x [A, F, T, P] (cf32 or
 * ci8) are dense. An output chunk has `windows` time bins of `window` samples each
 * (windows * window = T) and F / channel_integration channels; its values are
 * cf32 [B, F / channel_integration, windows, P*P] with B = A(A+1)/2, as in the
 * public header. `previous`, `destination` and `output` use that layout too.
 */
typedef struct blade_correlator_job {
    const void* input;
    blade_dtype input_type;
    int64_t antennas, channels, times, pols;
    int64_t window;              /* samples summed per output within the chunk: min(I, T) */
    int64_t windows;             /* T / window */
    int64_t channel_integration; /* Fc */
    bool lower_sideband;         /* conjugate every output */
    blade_correlator_path path;  /* resolved: FP32 or FP16 on CUDA; FP64 or FP32 on the CPU */
    float operand_scale;         /* FP16: voltages x scale before rounding (never 0 here) */
    void* workspace;             /* CUDA: partial sums of time slices */
    size_t workspace_bytes;
} blade_correlator_job;

/* The CPU correlator. Path FP64, the reference: for every output, total = (previous ? previous : 0) + the sum over
 * its samples, in double precision (each product x_i * conj(x_j) in double, summed
 * sequentially over channels, then time). The total goes to accumulator[] (a step
 * that does not end its group; doubles, interleaved re, im) when it is given, else
 * rounded to float into output[]. `previous` and `accumulator` may be the same
 * memory. With lower_sideband the sums are conjugated. Path FP32 (built with OpenBLAS):
 * the same, with the sums of each chunk in float32 by cherk. Fails only when its
 * working memory (per thread: the sums of one task and a block of samples) cannot be
 * had. */
blade_status blade_cpu_correlate(const blade_correlator_job* job,
                                 const double* previous,
                                 double* accumulator,
                                 float* output);

#ifdef BLADE_HAVE_OPENBLAS
/* Path fp32 on the CPU (correlator_cpu_blas.c): blade_cpu_correlate() runs this task
 * instead of the reference's. Bytes of working memory per thread, and the sums of
 * output channel g, window w into sums[b][P*P][2] (float32 sums widened to double);
 * `scratch` holds the bytes asked for. */
size_t blade_cpu_correlator_blas_scratch(const blade_correlator_job* job);
void blade_cpu_correlator_blas_task(
    const blade_correlator_job* job, int64_t g, int64_t w, double* sums, void* scratch);
#endif

#ifdef BLADE_HAVE_CUDA
/* Bytes of device workspace the CUDA backend needs for `job`'s shapes and path
 * (0 when every output is summed by one thread block). */
size_t blade_cuda_correlator_workspace(const blade_correlator_job* job);

/* The same on the GPU, queued on `stream` (a cudaStream_t): destination = (previous ?
 * previous : 0) + sums, conjugated for a lower sideband; destination is the plan's
 * accumulator or the output and may be the same memory as `previous`. */
blade_status blade_cuda_correlate(const blade_correlator_job* job,
                                  const float* previous,
                                  float* destination,
                                  void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
