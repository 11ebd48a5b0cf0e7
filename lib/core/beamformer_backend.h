/* SPDX-License-Identifier: MIT */
/* The two backends of the Beamformer: beamformer_cpu.c and kernels/beamformer*.cu.
 * Not installed. */
#ifndef BLADE_CORE_BEAMFORMER_BACKEND_H
#define BLADE_CORE_BEAMFORMER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    blade_beamformer_path path;     /* resolved: never AUTO */
    blade_beamformer_kernel kernel; /* resolved: never DEFAULT on CUDA */
    void* workspace;                /* device memory for the tensor-core paths */
    size_t workspace_bytes;
} blade_beamformer_job;

/* The float32 reference on the CPU: BLAS cgemm where it is faster than the hand
 * loop, else the hand loop (sums over antennas in increasing order). */
void blade_cpu_beamformer(const blade_beamformer_job* job);

/* The job through cblas_cgemm (beamformer_cpu_blas.c); false, with nothing written,
 * when the library was built without OpenBLAS or working memory is short. */
bool blade_cpu_beamformer_blas(const blade_beamformer_job* job);

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
