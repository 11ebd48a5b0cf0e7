// SPDX-License-Identifier: MIT
//
// Permutation on the GPU, executing the reduced problem of permutation_backend.h.
//
// TILED: each thread block moves tiles of TA x TB elements (TA along input axis a,
// contiguous in the input; TB along input axis b, contiguous in the output) through
// shared memory. Loads walk the tile along a, stores along b, so a warp reads and
// writes contiguous runs of 32 elements. The tile adapts to the extents: 32 x 32
// normally; when one extent is small (P = 2) the other side grows to keep 1024
// elements per tile, e.g. 2 x 512, whose load is one contiguous 1024-element run.
// Rows of the shared tile are padded by one element against bank conflicts. Each
// thread issues its four loads before its first shared-memory store, so four loads
// per thread are in flight.
//
// ROWS, and TILED problems whose tile would be tiny (both extents < 16), use a
// gather kernel: one thread per output element, writes contiguous, reads from
// rows that stay contiguous (or from small, cached neighbourhoods).
//
// COPY is cudaMemcpyAsync.

#include "cuda_check.h"
#include "permutation_backend.h"

#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int kTileElements = 1024;
constexpr int kSlots = kTileElements / kThreads; // elements per thread per tile
constexpr int kMaxBatch = BLADE_MAX_RANK + 1;

// Element types by width. 16-byte elements are uint4 (cf32 pairs, cf64).
template <int Bytes>
struct element_of;
template <>
struct element_of<1> {
    using type = uint8_t;
};
template <>
struct element_of<2> {
    using type = uint16_t;
};
template <>
struct element_of<4> {
    using type = uint32_t;
};
template <>
struct element_of<8> {
    using type = uint2;
};
template <>
struct element_of<16> {
    using type = uint4;
};

struct tiled_params {
    int64_t extent_a, extent_b;
    int64_t in_stride_b;  // input elements between neighbours along b (a's is 1)
    int64_t out_stride_a; // output elements between neighbours along a (b's is 1)
    int log2_tile_a, log2_tile_b;
    int64_t tiles_a, tiles_b, tiles;
    int batch_count;
    int64_t batch_dims[kMaxBatch];
    int64_t batch_in_strides[kMaxBatch];
    int64_t batch_out_strides[kMaxBatch];
};

__device__ inline void
batch_offsets(const tiled_params& p, int64_t index, int64_t& in, int64_t& out)
{
    in = 0;
    out = 0;
    // (unrolled: constant indices keep the parameter arrays out of local memory)
#pragma unroll
    for (int k = kMaxBatch - 1; k >= 0; k--) {
        if (k >= p.batch_count)
            continue;
        const int64_t coordinate = index % p.batch_dims[k];
        index /= p.batch_dims[k];
        in += coordinate * p.batch_in_strides[k];
        out += coordinate * p.batch_out_strides[k];
    }
}

// At most 64 registers a thread, so that 4 blocks of 256 threads fit on an SM.
template <typename E>
__global__ void __launch_bounds__(kThreads, 4)
    permute_tiled_kernel(const E* __restrict__ input, E* __restrict__ output, tiled_params p)
{
    extern __shared__ unsigned char shared_bytes[];
    E* tile = reinterpret_cast<E*>(shared_bytes);
    const int tile_a = 1 << p.log2_tile_a, tile_b = 1 << p.log2_tile_b;
    const int pitch = tile_a + 1; // padded row (one row per b)
    const int elements = tile_a * tile_b;

    for (int64_t t = blockIdx.x; t < p.tiles; t += gridDim.x) {
        const int64_t a0 = (t % p.tiles_a) << p.log2_tile_a;
        const int64_t rest = t / p.tiles_a;
        const int64_t b0 = (rest % p.tiles_b) << p.log2_tile_b;
        int64_t in_base, out_base;
        batch_offsets(p, rest / p.tiles_b, in_base, out_base);

        // Load: consecutive threads take consecutive a (contiguous in the input).
        E values[kSlots];
#pragma unroll
        for (int s = 0; s < kSlots; s++) {
            const int slot = threadIdx.x + s * kThreads;
            const int col = slot & (tile_a - 1), row = slot >> p.log2_tile_a;
            const int64_t a = a0 + col, b = b0 + row;
            if (slot < elements && a < p.extent_a && b < p.extent_b)
                values[s] = input[in_base + b * p.in_stride_b + a];
            else
                values[s] = E(); // outside the tensor: stored to the tile, never read
        }
#pragma unroll
        for (int s = 0; s < kSlots; s++) {
            const int slot = threadIdx.x + s * kThreads;
            if (slot < elements)
                tile[(slot >> p.log2_tile_a) * pitch + (slot & (tile_a - 1))] = values[s];
        }
        __syncthreads();

        // Store: consecutive threads take consecutive b (contiguous in the output).
#pragma unroll
        for (int s = 0; s < kSlots; s++) {
            const int slot = threadIdx.x + s * kThreads;
            const int col = slot & (tile_b - 1), row = slot >> p.log2_tile_b;
            const int64_t b = b0 + col, a = a0 + row;
            if (slot < elements && a < p.extent_a && b < p.extent_b)
                output[out_base + a * p.out_stride_a + b] = tile[col * pitch + row];
        }
        __syncthreads(); // the tile is reused by the next iteration
    }
}

struct gather_params {
    int rank;
    int64_t out_dims[kMaxBatch];          // output extents, outermost first
    int64_t in_strides_by_out[kMaxBatch]; // input stride of output axis i
    int64_t count;                        // output elements
};

template <typename E, typename Index>
__global__ void
permute_gather_kernel(const E* __restrict__ input, E* __restrict__ output, gather_params p)
{
    const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
    for (Index o = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x;
         o < static_cast<Index>(p.count);
         o += stride) {
        Index rest = o;
        int64_t in = 0;
#pragma unroll
        for (int k = kMaxBatch - 1; k >= 0; k--) {
            if (k >= p.rank)
                continue;
            const Index extent = static_cast<Index>(p.out_dims[k]);
            in += static_cast<int64_t>(rest % extent) * p.in_strides_by_out[k];
            rest /= extent;
        }
        output[o] = input[in];
    }
}

int log2_ceil(int64_t value)
{
    int log = 0;
    while ((int64_t(1) << log) < value)
        log++;
    return log;
}

template <int Bytes>
blade_status launch_tiled(const blade_permutation_layout& layout,
                          const void* input,
                          void* output,
                          int log2_a,
                          int log2_b,
                          cudaStream_t stream)
{
    using E = typename element_of<Bytes>::type;
    const int a = layout.rank - 1, b = layout.axes[layout.rank - 1];
    tiled_params p = {};
    p.extent_a = layout.dims[a];
    p.extent_b = layout.dims[b];
    p.in_stride_b = layout.in_strides[b];
    p.out_stride_a = layout.out_strides[a];
    p.log2_tile_a = log2_a;
    p.log2_tile_b = log2_b;
    p.tiles_a = (p.extent_a + (int64_t(1) << log2_a) - 1) >> log2_a;
    p.tiles_b = (p.extent_b + (int64_t(1) << log2_b) - 1) >> log2_b;
    int64_t batches = 1;
    for (int k = 0; k < layout.rank; k++) {
        if (k == a || k == b)
            continue;
        p.batch_dims[p.batch_count] = layout.dims[k];
        p.batch_in_strides[p.batch_count] = layout.in_strides[k];
        p.batch_out_strides[p.batch_count] = layout.out_strides[k];
        p.batch_count++;
        batches *= layout.dims[k];
    }
    p.tiles = p.tiles_a * p.tiles_b * batches;
    const size_t shared = static_cast<size_t>((1 << log2_b) * ((1 << log2_a) + 1)) * sizeof(E);
    if (shared > 48 * 1024)
        BLADE_CUDA_TRY(cudaFuncSetAttribute(permute_tiled_kernel<E>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared)));
    const unsigned blocks = blade_grid_size(p.tiles, 1, 8u * blade_cuda_multiprocessors());
    permute_tiled_kernel<E><<<blocks, kThreads, shared, stream>>>(
        static_cast<const E*>(input), static_cast<E*>(output), p);
    BLADE_CUDA_CHECK_LAUNCH("permute_tiled_kernel");
    return BLADE_OK;
}

template <int Bytes>
blade_status launch_gather(const blade_permutation_layout& layout,
                           const void* input,
                           void* output,
                           cudaStream_t stream)
{
    using E = typename element_of<Bytes>::type;
    gather_params p = {};
    p.rank = layout.rank;
    p.count = 1;
    for (int i = 0; i < layout.rank; i++) {
        p.out_dims[i] = layout.dims[layout.axes[i]];
        p.in_strides_by_out[i] = layout.in_strides[layout.axes[i]];
        p.count *= p.out_dims[i];
    }
    const unsigned blocks = blade_grid_size(p.count, kThreads, 32u * blade_cuda_multiprocessors());
    if (p.count <= INT32_MAX) // 32-bit index arithmetic is several times cheaper
        permute_gather_kernel<E, uint32_t><<<blocks, kThreads, 0, stream>>>(
            static_cast<const E*>(input), static_cast<E*>(output), p);
    else
        permute_gather_kernel<E, int64_t><<<blocks, kThreads, 0, stream>>>(
            static_cast<const E*>(input), static_cast<E*>(output), p);
    BLADE_CUDA_CHECK_LAUNCH("permute_gather_kernel");
    return BLADE_OK;
}

template <int Bytes>
blade_status dispatch(const blade_permutation_layout& layout,
                      const void* input,
                      void* output,
                      cudaStream_t stream)
{
    if (layout.kind == BLADE_PERMUTATION_ROWS)
        return launch_gather<Bytes>(layout, input, output, stream);
    // Tile shape: start from 32 x 32 (or the extents, when smaller) and grow the
    // side whose extent allows it until the tile holds 1024 elements.
    const int a = layout.rank - 1, b = layout.axes[layout.rank - 1];
    const int need_a = log2_ceil(layout.dims[a]), need_b = log2_ceil(layout.dims[b]);
    int log2_a = need_a < 5 ? need_a : 5, log2_b = need_b < 5 ? need_b : 5;
    while (log2_a + log2_b < 10 && log2_a < need_a)
        log2_a++;
    while (log2_a + log2_b < 10 && log2_b < need_b)
        log2_b++;
    if (log2_a + log2_b < 8) // under 256 elements a tile would leave threads idle
        return launch_gather<Bytes>(layout, input, output, stream);
    return launch_tiled<Bytes>(layout, input, output, log2_a, log2_b, stream);
}

} // namespace

extern "C" blade_status blade_cuda_permutation(const blade_permutation_layout* layout,
                                               const void* input,
                                               void* output,
                                               void* stream_handle)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (layout->bytes == 0)
        return BLADE_OK;
    if (layout->kind == BLADE_PERMUTATION_COPY) {
        if (input != output)
            BLADE_CUDA_TRY(
                cudaMemcpyAsync(output, input, layout->bytes, cudaMemcpyDeviceToDevice, stream));
        return BLADE_OK;
    }
    switch (layout->element_bytes) {
    case 1:
        return dispatch<1>(*layout, input, output, stream);
    case 2:
        return dispatch<2>(*layout, input, output, stream);
    case 4:
        return dispatch<4>(*layout, input, output, stream);
    case 8:
        return dispatch<8>(*layout, input, output, stream);
    case 16:
        return dispatch<16>(*layout, input, output, stream);
    default:
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "permutation: no kernel for %d-byte elements",
                          layout->element_bytes);
    }
}
