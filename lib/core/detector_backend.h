/* SPDX-License-Identifier: MIT */
/* The two backends of Detector: detector_cpu.c and kernels/detector.cu. Not installed. */
#ifndef BLADE_CORE_DETECTOR_BACKEND_H
#define BLADE_CORE_DETECTOR_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include <blade/modules/detector.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One detection pass over a chunk seen as `rows` runs of `integration` consecutive
 * time samples (row r starts at sample r * integration; a sample is `polarizations`
 * cf32 values, or cf16 with `half_input`, widened to float). For each row and each of the mode's Pout outputs:
 *
 *     total = (previous ? previous[r * Pout + c] : 0) + Σ over the row
 *
 * is written to accumulator[r * Pout + c] when `accumulator` is given (a step that
 * does not end its group), else rounded to float into output[r * Pout + c]. The
 * CPU sums in double precision in an order fixed by the code (detector_cpu.c); the
 * output (not the accumulator) is multiplied by `scale` before the rounding to float.
 * `previous` and `accumulator` may be
 * the same memory. With `lower_sideband` the outputs made of Im(X·Y*) change sign. */
void blade_cpu_detect(const void* input,
                      bool half_input,
                      int64_t rows,
                      int64_t integration,
                      int polarizations,
                      blade_detector_mode mode,
                      bool lower_sideband,
                      const double* previous,
                      double* accumulator,
                      float* output,
                      float scale);

#ifdef BLADE_HAVE_CUDA
/* The same on the GPU in single precision, queued on `stream` (a cudaStream_t):
 * destination[r * Pout + c] = (previous ? previous[...] : 0) + Σ over the row, where
 * destination is the plan's accumulator or the output, times `scale` (1 for the
 * accumulator). `previous` and
 * `destination` may be the same memory. */
blade_status blade_cuda_detect(const void* input,
                               bool half_input,
                               int64_t rows,
                               int64_t integration,
                               int polarizations,
                               blade_detector_mode mode,
                               bool lower_sideband,
                               const float* previous,
                               float* destination,
                               float scale,
                               void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
