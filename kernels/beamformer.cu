// SPDX-License-Identifier: MIT
//
// The beamformer's CUDA entry points: the path and kernel chosen at plan creation pick
// a CUDA-core kernel (beamformer_direct.cu, beamformer_staged.cu) or the tensor-core
// matrix products (beamformer_tensor.cu: TF32; beamformer_fp16.cu: half operands). The
// incoherent beam is a by-product of the
// CUDA-core kernels' pass over the voltages; on the tensor-core path it costs one
// extra read of the voltages (the direct kernel with no coherent beams).

#include "beamformer_kernels.h"
#include "cuda_check.h"

using namespace beamformer_cuda;

namespace {

bool uses_tensor_cores(blade_beamformer_path path)
{
    return path == BLADE_BEAMFORMER_TF32 || path == BLADE_BEAMFORMER_TF32X3;
}

} // namespace

extern "C" size_t blade_cuda_beamformer_workspace(const blade_beamformer_job* job)
{
    if (job->path == BLADE_BEAMFORMER_FP16)
        return fp16_workspace_bytes(*job);
    return uses_tensor_cores(job->path) ? tensor_workspace_bytes(*job) : 0;
}

extern "C" blade_status blade_cuda_beamformer(const blade_beamformer_job* job, void* stream_handle)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    // fp16: always the tensor cores (any alignment), so that the GPU computes what the
    // CPU emulates; the incoherent beam stays float32 on CUDA cores.
    if (job->path == BLADE_BEAMFORMER_FP16) {
        BLADE_TRY(launch_fp16(*job, stream));
        if (job->incoherent)
            BLADE_TRY(launch_direct(*job, 0, 0, true, stream));
        return BLADE_OK;
    }
    // An output not aligned for the tensor kernel's vector stores (possible only with
    // hand-made tensors) takes the exact CUDA-core path rather than failing.
    if (uses_tensor_cores(job->path) && tensor_output_aligned(*job)) {
        BLADE_TRY(launch_tensor(*job, job->path == BLADE_BEAMFORMER_TF32X3, stream));
        if (job->incoherent)
            BLADE_TRY(launch_direct(*job, 0, 0, true, stream));
        return BLADE_OK;
    }
    // The staged kernels leave the chunks they do not cover to the direct kernel.
    if (job->kernel == BLADE_BEAMFORMER_KERNEL_STAGED1 ||
        job->kernel == BLADE_BEAMFORMER_KERNEL_STAGED2) {
        bool launched = false;
        BLADE_TRY(launch_staged(
            *job, job->kernel == BLADE_BEAMFORMER_KERNEL_STAGED1 ? 1 : 2, stream, &launched));
        if (launched)
            return BLADE_OK;
    }
    return launch_direct(*job, 0, job->beams, job->incoherent, stream);
}
