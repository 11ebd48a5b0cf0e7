/* SPDX-License-Identifier: MIT */
/* The two backends of the Beamformer: beamformer_cpu.c and kernels/beamformer*.cu.
 * Not installed. */
#ifndef BLADE_CORE_BEAMFORMER_BACKEND_H
#define BLADE_CORE_BEAMFORMER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "half.h"

#include <blade/dtype.h>
#include <blade/modules/beamformer.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One chunk of work, validated by beamformer.c. Voltages x [A, F, T, P] and output
 * y [B (+1), F, T, P] are dense. The phasor of (b, a, f, p) is the complex float at
 * phasors[b*stride_beam + a*stride_antenna + f*stride_channel + p*stride_pol]
 * (complex elements): [B, A, F, 1, P] has strides (A*F*P, F*P, P, 1), the MeerKAT
 * layout [B, A] has (A, 1, 0, 0).
 */
typedef struct blade_beamformer_job {
    const void* input; /* x: cf32, cf16 or ci8 */
    blade_dtype input_type;
    const float* phasors; /* w: interleaved cf32 */
    void* output;         /* y: cf32 or cf16 */
    blade_dtype output_type;
    int64_t antennas, channels, times, pols, beams;
    int64_t stride_beam, stride_antenna, stride_channel, stride_pol;
    bool incoherent, incoherent_sqrt;
    blade_beamformer_path path;     /* resolved: never AUTO (CPU: FP32 or FP16) */
    blade_beamformer_kernel kernel; /* resolved: never DEFAULT on CUDA */
    void* workspace;                /* device memory for the tensor-core paths */
    size_t workspace_bytes;
} blade_beamformer_job;

/* The fp16 path on the CPU rounds the operands of the coherent sums to half (round to
 * nearest even, as the GPU's cvt.rn.f16 does) and computes in float32: products of
 * halves are exact in float32, so only the accumulation order can differ from the
 * GPU's tensor cores. In place, `count` floats. */
static inline void blade_beamformer_round_to_half(float* values, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        values[i] = blade_half_to_float(blade_half_from_float(values[i]));
}

/* Whether the job's voltages need rounding for the fp16 path (cf16 and ci8 values
 * are already halves). */
static inline bool blade_beamformer_rounds_voltages(const blade_beamformer_job* job)
{
    return job->path == BLADE_BEAMFORMER_FP16 && job->input_type == BLADE_CF32;
}

/* The float32 reference on the CPU: packed blocks multiplied in register tiles
 * (AVX-512, AVX2) or by BLAS cgemm where the CPU or the build has them, else the hand
 * loop (sums over antennas in increasing order); the fp16 path emulated (operands
 * rounded to half; the incoherent beam from the unrounded ones). Which one runs:
 * beamformer_cpu.c. */
void blade_cpu_beamformer(const blade_beamformer_job* job);

/* How the CPU beamformer forms its products. */
typedef enum blade_cpu_beamformer_product {
    BLADE_CPU_BEAMFORMER_LOOP,     /* the hand loop on the voltages as they lie */
    BLADE_CPU_BEAMFORMER_CGEMM,    /* packed blocks, OpenBLAS's cblas_cgemm */
    BLADE_CPU_BEAMFORMER_TILES256, /* packed blocks, AVX2 register tiles */
    BLADE_CPU_BEAMFORMER_TILES512, /* packed blocks, AVX-512 register tiles */
} blade_cpu_beamformer_product;

/* The job on packed blocks (beamformer_cpu_packed.c), the products by `product` (not
 * LOOP; one this build and CPU have); false, with nothing written, when working
 * memory is short. */
bool blade_cpu_beamformer_packed(const blade_beamformer_job* job,
                                 blade_cpu_beamformer_product product);

#ifdef BLADE_HAVE_CUDA
/* Bytes of device workspace the CUDA backend needs for `job`'s shapes and path
 * (0 for fp32). */
size_t blade_cuda_beamformer_workspace(const blade_beamformer_job* job);

/* Queue the job on `stream` (a cudaStream_t). */
blade_status blade_cuda_beamformer(const blade_beamformer_job* job, void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
