// SPDX-License-Identifier: MIT
//
// The CUDA runtime side of the core: GPU discovery, memory, streams and copies.
// Linked statically (cudart_static) so that libblade loads on hosts with no driver;
// there cudaGetDeviceCount fails and the core reports zero GPUs.

#include "cuda_backend.h"
#include "cuda_check.h"

#include <cstring>

// An attribute of the current device, read once per device into cached[]; `fallback`
// where the device or the attribute cannot be read (the error is cleared).
static int cached_attribute(int (&cached)[64], cudaDeviceAttr attribute, int fallback)
{
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) {
        (void)cudaGetLastError();
        return fallback;
    }
    if (cached[device] == 0) {
        int value = 0;
        if (cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess) {
            (void)cudaGetLastError();
            value = fallback;
        }
        cached[device] = value;
    }
    return cached[device];
}

unsigned blade_cuda_multiprocessors(void)
{
    static int cached[64];
    return static_cast<unsigned>(cached_attribute(cached, cudaDevAttrMultiProcessorCount, 132));
}

int blade_cuda_shared_memory_optin(void)
{
    static int cached[64];
    return cached_attribute(cached, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
}

int blade_cuda_compute_capability(void)
{
    static int major[64], minor[64];
    // A minor version of 0 reads as "not cached" and is read again: harmless.
    return 10 * cached_attribute(major, cudaDevAttrComputeCapabilityMajor, 0) +
           cached_attribute(minor, cudaDevAttrComputeCapabilityMinor, 0);
}

extern "C" int blade_cuda_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

extern "C" blade_status blade_cuda_device_info(int index, blade_gpu_info* info)
{
    cudaDeviceProp properties;
    BLADE_CUDA_TRY(cudaGetDeviceProperties(&properties, index));
    std::memset(info, 0, sizeof *info);
    std::strncpy(info->name, properties.name, sizeof info->name - 1);
    info->total_memory = properties.totalGlobalMem;
    info->compute_major = properties.major;
    info->compute_minor = properties.minor;
    info->multiprocessors = properties.multiProcessorCount;
    int memory_clock_khz = 0, bus_width_bits = 0;
    if (cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, index) ==
            cudaSuccess &&
        cudaDeviceGetAttribute(&bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, index) ==
            cudaSuccess)
        info->memory_bandwidth = 2.0 * memory_clock_khz * 1e3 * bus_width_bits / 8.0;
    int clock_khz = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, index) == cudaSuccess) {
        info->sm_clock_khz = clock_khz;
        // 128 FP32 lanes per SM on Volta and newer server parts (sm_70, sm_80, sm_90).
        info->fp32_peak = 2.0 * 128 * properties.multiProcessorCount * clock_khz * 1e3;
    }
    (void)cudaGetLastError();
    int previous = 0;
    BLADE_CUDA_TRY(cudaGetDevice(&previous));
    BLADE_CUDA_TRY(cudaSetDevice(index));
    size_t free_bytes = 0, total_bytes = 0;
    cudaError_t status = cudaMemGetInfo(&free_bytes, &total_bytes);
    (void)cudaSetDevice(previous);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        return blade_fail(BLADE_ERROR_DEVICE,
                          "cudaMemGetInfo on GPU %d failed: %s",
                          index,
                          cudaGetErrorString(status));
    }
    info->free_memory = free_bytes;
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_set_device(int index)
{
    BLADE_CUDA_TRY(cudaSetDevice(index));
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_stream_create(int index, void** stream)
{
    *stream = nullptr;
    BLADE_CUDA_TRY(cudaSetDevice(index));
    cudaStream_t created;
    BLADE_CUDA_TRY(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
    *stream = created;
    return BLADE_OK;
}

extern "C" void blade_cuda_stream_destroy(void* stream)
{
    if (stream != nullptr)
        (void)cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

extern "C" blade_status blade_cuda_stream_synchronize(void* stream)
{
    BLADE_CUDA_TRY(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_malloc(int index, size_t bytes, void** pointer)
{
    *pointer = nullptr;
    BLADE_CUDA_TRY(cudaSetDevice(index));
    cudaError_t status = cudaMalloc(pointer, bytes);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        size_t free_bytes = 0, total_bytes = 0;
        (void)cudaMemGetInfo(&free_bytes, &total_bytes);
        (void)cudaGetLastError();
        *pointer = nullptr;
        return blade_fail(status == cudaErrorMemoryAllocation ? BLADE_ERROR_OUT_OF_MEMORY
                                                              : BLADE_ERROR_DEVICE,
                          "cudaMalloc of %zu bytes (%.3f GiB) on GPU %d failed: %s "
                          "(%.3f GiB free of %.3f GiB)",
                          bytes,
                          bytes / 1073741824.0,
                          index,
                          cudaGetErrorString(status),
                          free_bytes / 1073741824.0,
                          total_bytes / 1073741824.0);
    }
    return BLADE_OK;
}

extern "C" void blade_cuda_free(int index, void* pointer)
{
    if (pointer == nullptr)
        return;
    (void)cudaSetDevice(index);
    (void)cudaFree(pointer);
}

extern "C" blade_status blade_cuda_malloc_host(size_t bytes, void** pointer)
{
    *pointer = nullptr;
    cudaError_t status = cudaMallocHost(pointer, bytes);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        *pointer = nullptr;
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                          "cudaMallocHost of %zu bytes (pinned host memory) failed: %s",
                          bytes,
                          cudaGetErrorString(status));
    }
    return BLADE_OK;
}

extern "C" void blade_cuda_free_host(void* pointer)
{
    if (pointer != nullptr)
        (void)cudaFreeHost(pointer);
}

extern "C" blade_status blade_cuda_memcpy(
    void* destination, const void* source, size_t bytes, blade_copy_kind kind, void* stream)
{
    static const cudaMemcpyKind kinds[4] = { cudaMemcpyHostToHost,
                                             cudaMemcpyHostToDevice,
                                             cudaMemcpyDeviceToHost,
                                             cudaMemcpyDeviceToDevice };
    BLADE_CUDA_TRY(cudaMemcpyAsync(
        destination, source, bytes, kinds[kind], static_cast<cudaStream_t>(stream)));
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_memcpy_2d(int index,
                                             void* destination,
                                             size_t destination_pitch,
                                             const void* source,
                                             size_t source_pitch,
                                             size_t row_bytes,
                                             size_t rows,
                                             blade_copy_kind kind,
                                             void* stream)
{
    static const cudaMemcpyKind kinds[4] = { cudaMemcpyHostToHost,
                                             cudaMemcpyHostToDevice,
                                             cudaMemcpyDeviceToHost,
                                             cudaMemcpyDeviceToDevice };
    auto* cuda_stream = static_cast<cudaStream_t>(stream);
    if (rows == 1 || (destination_pitch == row_bytes && source_pitch == row_bytes)) {
        BLADE_CUDA_TRY(
            cudaMemcpyAsync(destination, source, row_bytes * rows, kinds[kind], cuda_stream));
        return BLADE_OK;
    }
    // Runs of a megabyte or more (a sub-band of an ATA chunk: 28 runs of 3 MB) go
    // one copy each: each streams at the full link rate and issuing a few dozen
    // copies costs microseconds. Shorter runs go in one 2-D copy, unless a pitch is
    // beyond what cudaMemcpy2DAsync accepts (about 2 GiB).
    int max_pitch = 0;
    BLADE_CUDA_TRY(cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, index));
    if (row_bytes >= (size_t(1) << 20) || destination_pitch > static_cast<size_t>(max_pitch) ||
        source_pitch > static_cast<size_t>(max_pitch)) {
        for (size_t row = 0; row < rows; row++)
            BLADE_CUDA_TRY(
                cudaMemcpyAsync(static_cast<char*>(destination) + row * destination_pitch,
                                static_cast<const char*>(source) + row * source_pitch,
                                row_bytes,
                                kinds[kind],
                                cuda_stream));
        return BLADE_OK;
    }
    BLADE_CUDA_TRY(cudaMemcpy2DAsync(destination,
                                     destination_pitch,
                                     source,
                                     source_pitch,
                                     row_bytes,
                                     rows,
                                     kinds[kind],
                                     cuda_stream));
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_memset_zero(void* destination, size_t bytes, void* stream)
{
    BLADE_CUDA_TRY(cudaMemsetAsync(destination, 0, bytes, static_cast<cudaStream_t>(stream)));
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_event_create(int index, void** event)
{
    *event = nullptr;
    BLADE_CUDA_TRY(cudaSetDevice(index));
    cudaEvent_t created;
    BLADE_CUDA_TRY(cudaEventCreate(&created));
    *event = created;
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_event_record(void* event, void* stream)
{
    BLADE_CUDA_TRY(
        cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)));
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_event_elapsed_ms(void* start, void* stop, double* milliseconds)
{
    float elapsed = 0;
    BLADE_CUDA_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(stop)));
    BLADE_CUDA_TRY(cudaEventElapsedTime(
        &elapsed, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(stop)));
    *milliseconds = elapsed;
    return BLADE_OK;
}

extern "C" void blade_cuda_event_destroy(void* event)
{
    if (event != nullptr)
        (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
}
