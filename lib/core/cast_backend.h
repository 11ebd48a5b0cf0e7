/* SPDX-License-Identifier: MIT */
/* The two backends of Cast: cast_cpu.c and kernels/cast.cu. Not installed. */
#ifndef BLADE_CORE_CAST_BACKEND_H
#define BLADE_CORE_CAST_BACKEND_H

#include <stdint.h>

#include <blade/dtype.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Convert `count` elements; the pair must satisfy blade_cast_supported(). Input and
 * output may be the same memory only for identical types. */
void blade_cpu_cast(const void* input,
                    blade_dtype input_type,
                    void* output,
                    blade_dtype output_type,
                    int64_t count,
                    float scale);

#ifdef BLADE_HAVE_CUDA
/* The same on the GPU, queued on `stream` (a cudaStream_t). */
blade_status blade_cuda_cast(const void* input,
                             blade_dtype input_type,
                             void* output,
                             blade_dtype output_type,
                             int64_t count,
                             float scale,
                             void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
