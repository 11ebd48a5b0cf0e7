// SPDX-License-Identifier: MIT
//
// The long-N channelizer's two kernels (channelizer_four_step.h): pass A, columns of
// N2 points into the workspace, and pass B, rows of N1 points into y; one direct tile
// per block (1024 threads, up to 16384 values, one block per SM). In a file of its
// own so that its kernels (N = 2^15 ... 2^22) compile beside channelizer.cu's.

#include "channelizer_four_step.h"

namespace {

namespace bt = blade_tile;

// The steps of a four-step pass on the threads of a block.
template <typename Origin>
struct four_step_exec {
    const bt::four_step_params& q;
    const Origin& o;
    float2* smem;
    int rows;
    const float2* twiddles;

    template <typename Pass>
    __device__ __forceinline__ void first()
    {
        float2 v[bt::kPerThread];
        Pass::read(q, o, threadIdx.x, v);
        Pass::write(smem, q, threadIdx.x, v); // fresh shared memory: no barrier before
        __syncthreads();
    }

    template <typename Pass>
    __device__ __forceinline__ void pass()
    {
        float2 v[bt::kPerThread];
        Pass::read(smem, rows, twiddles, threadIdx.x, v);
        __syncthreads();
        Pass::write(smem, rows, threadIdx.x, v);
        __syncthreads();
    }

    template <typename Pass>
    __device__ __forceinline__ void last()
    {
        float2 v[bt::kPerThread];
        Pass::read(smem, q, threadIdx.x, v);
        Pass::store(q, o, threadIdx.x, v);
    }
};

template <int LOG2N, bool FILTER>
__global__ void __launch_bounds__(bt::kDirectThreads, 1) four_step_columns(bt::four_step_params q)
{
    extern __shared__ float2 smem[];
    const bt::origin_a a = bt::tile_origin_a(q, blockIdx.x);
    four_step_exec<bt::origin_a> exec{ q, a, smem, 1 << (q.f.log2pa + q.f.log2ga), q.twiddles_a };
    bt::columns_passes<LOG2N, FILTER>::run(exec);
}

template <int LOG2N>
__global__ void __launch_bounds__(bt::kDirectThreads, 1) four_step_rows(bt::four_step_params q)
{
    extern __shared__ float2 smem[];
    const bt::origin_b o = bt::tile_origin_b(q, blockIdx.x);
    four_step_exec<bt::origin_b> exec{
        q, o, smem, 1 << (q.f.log2pb + q.f.log2gs + q.f.log2g2), q.twiddles_b
    };
    bt::rows_passes<LOG2N>::run(exec);
}

using kernel = void (*)(bt::four_step_params);

struct kernels {
    kernel columns, rows;
};

template <int LOG2N>
kernels kernels_for(bool filter)
{
    return kernels{ filter ? four_step_columns<LOG2N, true> : four_step_columns<LOG2N, false>,
                    four_step_rows<LOG2N> };
}

kernels select(int log2n, bool filter)
{
    switch (log2n) {
    case 15:
        return kernels_for<15>(filter);
    case 16:
        return kernels_for<16>(filter);
    case 17:
        return kernels_for<17>(filter);
    case 18:
        return kernels_for<18>(filter);
    case 19:
        return kernels_for<19>(filter);
    case 20:
        return kernels_for<20>(filter);
    case 21:
        return kernels_for<21>(filter);
    case 22:
        return kernels_for<22>(filter);
    default:
        return kernels{ nullptr, nullptr };
    }
}
static_assert(bt::kFourStepMinLog2N == 15 && bt::kFourStepMaxLog2N == 22,
              "select lists every size");

} // namespace

namespace blade_tile {

cudaError_t four_step_prepare(int log2n, bool filter)
{
    const kernels k = select(log2n, filter);
    if (k.columns == nullptr)
        return cudaErrorInvalidValue;
    const int full = static_cast<int>(kFourStepSharedBytes);
    cudaError_t error = cudaFuncSetAttribute(reinterpret_cast<const void*>(k.columns),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             full);
    if (error == cudaSuccess)
        error = cudaFuncSetAttribute(reinterpret_cast<const void*>(k.rows),
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     full);
    return error;
}

cudaError_t four_step_launch(const four_step_params& q, bool filter, cudaStream_t stream)
{
    const kernels k = select(q.f.log2n, filter);
    if (k.columns == nullptr)
        return cudaErrorInvalidValue;
    k.columns<<<static_cast<unsigned>(q.f.a_tiles),
                kDirectThreads,
                four_step_shared_bytes(q.f, true),
                stream>>>(q);
    k.rows<<<static_cast<unsigned>(q.f.b_tiles),
             kDirectThreads,
             four_step_shared_bytes(q.f, false),
             stream>>>(q);
    return cudaGetLastError();
}

} // namespace blade_tile
