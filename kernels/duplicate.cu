// SPDX-License-Identifier: MIT
//
// Duplicate on the GPU. One copy is a device-to-device cudaMemcpyAsync: the copy
// engine path is the bandwidth limit itself (performance.md measures the limit with
// it). Several copies use a fan-out kernel that reads each 16-byte vector of the
// input once and stores it to every output, so N copies move (1 + N) tensor sizes
// instead of 2N. Pointers that are not 16-byte aligned fall back to one
// cudaMemcpyAsync per copy.

#include "cuda_check.h"
#include "duplicate_backend.h"

#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int kFanout = 8; // outputs per kernel launch (pointers passed by value)
constexpr int kUnroll = 4; // independent 16-byte loads in flight per thread

struct fanout_targets {
    uint4* vectors[kFanout];
    unsigned char* bytes[kFanout]; // the same outputs, for the tail
    int count;
};

__global__ void duplicate_fanout_kernel(const uint4* __restrict__ input,
                                        fanout_targets targets,
                                        int64_t vectors,
                                        const unsigned char* __restrict__ tail_input,
                                        int64_t tail_offset,
                                        int tail_bytes)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < vectors; i += kUnroll * stride) {
        uint4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            v[u] = __ldcs(&input[i + u * stride]);
            // (constant indices into the parameter arrays keep them out of local memory)
#pragma unroll
        for (int c = 0; c < kFanout; c++)
            if (c < targets.count)
#pragma unroll
                for (int u = 0; u < kUnroll; u++)
                    __stcs(&targets.vectors[c][i + u * stride], v[u]);
    }
    for (; i < vectors; i += stride) {
        const uint4 v = __ldcs(&input[i]);
#pragma unroll
        for (int c = 0; c < kFanout; c++)
            if (c < targets.count)
                __stcs(&targets.vectors[c][i], v);
    }
    // The last (bytes mod 16) bytes, by one thread.
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (int c = 0; c < targets.count; c++)
            for (int b = 0; b < tail_bytes; b++)
                targets.bytes[c][tail_offset + b] = tail_input[b];
}

bool aligned16(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; }

} // namespace

extern "C" blade_status blade_cuda_duplicate(
    const void* input, void* const* outputs, int count, size_t bytes, void* stream_handle)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (bytes == 0 || count <= 0)
        return BLADE_OK;
    bool all_aligned = aligned16(input);
    for (int c = 0; c < count; c++)
        all_aligned = all_aligned && aligned16(outputs[c]);
    if (count == 1 || !all_aligned) {
        for (int c = 0; c < count; c++)
            BLADE_CUDA_TRY(
                cudaMemcpyAsync(outputs[c], input, bytes, cudaMemcpyDeviceToDevice, stream));
        return BLADE_OK;
    }
    const int64_t vectors = static_cast<int64_t>(bytes / 16);
    const int64_t tail_offset = vectors * 16;
    const int tail_bytes = static_cast<int>(bytes - static_cast<size_t>(tail_offset));
    const unsigned blocks =
        blade_grid_size(vectors / kUnroll, kThreads, 8u * blade_cuda_multiprocessors());
    for (int first = 0; first < count; first += kFanout) {
        fanout_targets targets = {};
        targets.count = count - first < kFanout ? count - first : kFanout;
        for (int c = 0; c < targets.count; c++) {
            targets.vectors[c] = static_cast<uint4*>(outputs[first + c]);
            targets.bytes[c] = static_cast<unsigned char*>(outputs[first + c]);
        }
        duplicate_fanout_kernel<<<blocks, kThreads, 0, stream>>>(
            static_cast<const uint4*>(input),
            targets,
            vectors,
            static_cast<const unsigned char*>(input) + tail_offset,
            tail_offset,
            tail_bytes);
        BLADE_CUDA_CHECK_LAUNCH("duplicate_fanout_kernel");
    }
    return BLADE_OK;
}
