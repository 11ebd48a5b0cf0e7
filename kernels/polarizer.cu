// SPDX-License-Identifier: MIT
//
// Polarizer kernel. A polarization pair (X, Y) of cf32 is exactly one float4, so each
// thread turns one 16-byte load into one 16-byte store: a warp moves 512 contiguous
// bytes per access, and four independent pairs per thread per step keep enough
// loads in flight to run at copy speed. The data are touched once, so loads and
// stores bypass the caches' retention (__ldcs / __stcs).
//
// A cf16 pair is 8 bytes (one uint2, two __half2): widened to float, combined, and
// rounded to half once per value (round to nearest even), as the CPU backend does.

#include "cuda_check.h"
#include "polarizer_backend.h"

#include <cuda_fp16.h>
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

// One cf16 pair (X.re, X.im, Y.re, Y.im) as two __half2 in a uint2.
__device__ inline uint2 linear_to_circular_half(uint2 bits)
{
    __half2 x, y;
    memcpy(&x, &bits.x, sizeof x);
    memcpy(&y, &bits.y, sizeof y);
    const float4 w = linear_to_circular(
        make_float4(__low2float(x), __high2float(x), __low2float(y), __high2float(y)));
    const __half2 l = __floats2half2_rn(w.x, w.y), r = __floats2half2_rn(w.z, w.w);
    uint2 out;
    memcpy(&out.x, &l, sizeof l);
    memcpy(&out.y, &r, sizeof r);
    return out;
}

__global__ void polarize_half_kernel(const uint2* input, uint2* output, int64_t pairs)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < pairs; i += kUnroll * stride) {
        uint2 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            v[u] = __ldcs(&input[i + u * stride]);
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            __stcs(&output[i + u * stride], linear_to_circular_half(v[u]));
    }
    for (; i < pairs; i += stride)
        __stcs(&output[i], linear_to_circular_half(__ldcs(&input[i])));
}

// cf16 memory that is not 8-byte aligned: one 4-byte (__half2) access per value pair.
__global__ void
polarize_half_unaligned_kernel(const uint32_t* input, uint32_t* output, int64_t pairs)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < pairs;
         i += stride) {
        const uint2 w = linear_to_circular_half(make_uint2(input[2 * i], input[2 * i + 1]));
        output[2 * i] = w.x;
        output[2 * i + 1] = w.y;
    }
}

} // namespace

extern "C" blade_status blade_cuda_polarize_half(const uint16_t* input,
                                                 uint16_t* output,
                                                 int64_t pairs,
                                                 void* stream_handle)
{
    if (pairs <= 0)
        return BLADE_OK;
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (reinterpret_cast<uintptr_t>(input) % 4 != 0 || reinterpret_cast<uintptr_t>(output) % 4 != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "polarizer: cf16 memory must be 4-byte aligned (one complex value)");
    if (reinterpret_cast<uintptr_t>(input) % 8 != 0 ||
        reinterpret_cast<uintptr_t>(output) % 8 != 0) {
        polarize_half_unaligned_kernel<<<blade_grid_size(
                                             pairs, kThreads, 8u * blade_cuda_multiprocessors()),
                                         kThreads,
                                         0,
                                         stream>>>(
            reinterpret_cast<const uint32_t*>(input), reinterpret_cast<uint32_t*>(output), pairs);
        BLADE_CUDA_CHECK_LAUNCH("polarize_half_unaligned_kernel");
        return BLADE_OK;
    }
    const unsigned blocks = blade_grid_size(pairs / kUnroll, kThreads, 65535u * 8u);
    polarize_half_kernel<<<blocks, kThreads, 0, stream>>>(
        reinterpret_cast<const uint2*>(input), reinterpret_cast<uint2*>(output), pairs);
    BLADE_CUDA_CHECK_LAUNCH("polarize_half_kernel");
    return BLADE_OK;
}

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
