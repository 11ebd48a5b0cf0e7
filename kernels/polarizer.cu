// SPDX-License-Identifier: MIT
//
// Polarizer kernel. A polarization pair (X, Y) of cf32 is exactly one float4, so each
// thread turns one 16-byte load into one 16-byte store: a warp moves 512 contiguous
// bytes per access, and four independent pairs per thread per step keep enough
// loads in flight to run at copy speed. The data are touched once, so loads and
// stores bypass the caches' retention (__ldcs / __stcs).

#include "cuda_check.h"
#include "polarizer_backend.h"

#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;

__device__ inline float4 linear_to_circular(float4 v)
{
    // v = (X.re, X.im, Y.re, Y.im); X + iY = (xr - yi, xi + yr); X - iY = (xr + yi, xi - yr)
    return make_float4(v.x - v.w, v.y + v.z, v.x + v.w, v.y - v.z);
}

// Input and output may be the same memory (no __restrict__): each pair is read
// before the thread writes that same pair, and no other thread touches it.
__global__ void polarize_kernel(const float4* input, float4* output, int64_t pairs)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < pairs; i += kUnroll * stride) {
        float4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            v[u] = __ldcs(&input[i + u * stride]);
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            __stcs(&output[i + u * stride], linear_to_circular(v[u]));
    }
    for (; i < pairs; i += stride)
        __stcs(&output[i], linear_to_circular(__ldcs(&input[i])));
}

// Memory that is not 16-byte aligned (a view into the middle of a tensor): the
// same arithmetic with 4-byte accesses.
__global__ void polarize_unaligned_kernel(const float* input, float* output, int64_t pairs)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < pairs;
         i += stride) {
        const float4 v =
            make_float4(input[4 * i], input[4 * i + 1], input[4 * i + 2], input[4 * i + 3]);
        const float4 w = linear_to_circular(v);
        output[4 * i] = w.x;
        output[4 * i + 1] = w.y;
        output[4 * i + 2] = w.z;
        output[4 * i + 3] = w.w;
    }
}

} // namespace

extern "C" blade_status
blade_cuda_polarize(const float* input, float* output, int64_t pairs, void* stream_handle)
{
    if (pairs <= 0)
        return BLADE_OK;
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (reinterpret_cast<uintptr_t>(input) % 16 != 0 ||
        reinterpret_cast<uintptr_t>(output) % 16 != 0) {
        polarize_unaligned_kernel<<<blade_grid_size(
                                        pairs, kThreads, 8u * blade_cuda_multiprocessors()),
                                    kThreads,
                                    0,
                                    stream>>>(input, output, pairs);
        BLADE_CUDA_CHECK_LAUNCH("polarize_unaligned_kernel");
        return BLADE_OK;
    }
    // One unrolled pass per thread where the grid allows (no tail of second passes).
    const unsigned blocks = blade_grid_size(pairs / kUnroll, kThreads, 65535u * 8u);
    polarize_kernel<<<blocks, kThreads, 0, stream>>>(
        reinterpret_cast<const float4*>(input), reinterpret_cast<float4*>(output), pairs);
    BLADE_CUDA_CHECK_LAUNCH("polarize_kernel");
    return BLADE_OK;
}
