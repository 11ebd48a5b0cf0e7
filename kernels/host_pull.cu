// SPDX-License-Identifier: MIT
//
// Uploading a small tensor by a kernel that reads pinned host memory over PCIe,
// instead of a DMA copy. Every DMA upload of a device goes through its host-to-device
// copy engines in the order queued, whatever the stream: a phasor upload of 0.8 MB
// queued behind a 176 MB chunk of voltages waits the 3 ms that chunk takes, and the
// beamformer waits with it. A kernel's loads are not in that queue: they share the
// link's bandwidth with the DMA, but start at once. Worth it only for small tensors
// (the loads are 16-byte reads over PCIe, slower than the DMA for large ones).

#include "cuda_backend.h"
#include "cuda_check.h"

#include <algorithm>
#include <cstdint>

namespace {

constexpr int kThreads = 256;

__global__ void
pull_words(uint4* __restrict__ destination, const uint4* __restrict__ source, size_t words)
{
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
         i += stride)
        destination[i] = source[i];
}

__global__ void pull_bytes(unsigned char* __restrict__ destination,
                           const unsigned char* __restrict__ source,
                           size_t bytes)
{
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes;
         i += stride)
        destination[i] = source[i];
}

} // namespace

extern "C" blade_status blade_cuda_pull_from_host(
    int index, void* destination, const void* pinned_source, size_t bytes, void* stream)
{
    if (bytes == 0)
        return BLADE_OK;
    BLADE_CUDA_TRY(cudaSetDevice(index));
    // The device's address of the pinned memory (the same pointer under unified
    // addressing; asked for rather than assumed).
    void* mapped = nullptr;
    BLADE_CUDA_TRY(cudaHostGetDevicePointer(&mapped, const_cast<void*>(pinned_source), 0));
    const auto s = static_cast<cudaStream_t>(stream);
    const bool aligned = (reinterpret_cast<uintptr_t>(destination) % 16 == 0) &&
                         (reinterpret_cast<uintptr_t>(mapped) % 16 == 0) && bytes % 16 == 0;
    // A few blocks suffice: the link, not the SMs, is the limit, and the copy should
    // leave the SMs to the kernels it runs beside.
    const size_t units = aligned ? bytes / 16 : bytes;
    const unsigned blocks =
        static_cast<unsigned>(std::min<size_t>(64, (units + kThreads - 1) / kThreads));
    if (aligned)
        pull_words<<<blocks, kThreads, 0, s>>>(
            static_cast<uint4*>(destination), static_cast<const uint4*>(mapped), units);
    else
        pull_bytes<<<blocks, kThreads, 0, s>>>(static_cast<unsigned char*>(destination),
                                               static_cast<const unsigned char*>(mapped),
                                               units);
    BLADE_CUDA_TRY(cudaGetLastError());
    return BLADE_OK;
}
