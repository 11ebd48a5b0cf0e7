/* SPDX-License-Identifier: MIT */
/*
 * Device and host allocation, counted copies. The CPU and the emulated device use
 * page-aligned host memory; CUDA uses cudaMalloc / cudaMallocHost.
 */
#include "cuda_backend.h"
#include "internal.h"

#include <blade/memory.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t copy_count[4];
static _Atomic uint64_t copy_bytes[4];

static blade_status host_aligned_alloc(size_t bytes, const char* what, void** pointer)
{
    size_t rounded = (bytes + BLADE_ITEM_ALIGNMENT - 1) / BLADE_ITEM_ALIGNMENT *
                     BLADE_ITEM_ALIGNMENT;
    *pointer = rounded ? aligned_alloc(BLADE_ITEM_ALIGNMENT, rounded) : NULL;
    if (*pointer == NULL && bytes > 0)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                          "could not allocate %zu bytes of %s",
                          bytes,
                          what);
    return BLADE_OK;
}

blade_status blade_device_alloc(blade_device device, size_t bytes, void** pointer)
{
    *pointer = NULL;
    if (device.kind == BLADE_DEVICE_CUDA)
        return blade_cuda_malloc(device.index, bytes, pointer);
    return host_aligned_alloc(bytes,
                              device.kind == BLADE_DEVICE_EMULATED
                                  ? "emulated device memory"
                                  : "host memory",
                              pointer);
}

void blade_device_free(blade_device device, void* pointer)
{
    if (pointer == NULL)
        return;
    if (device.kind == BLADE_DEVICE_CUDA)
        blade_cuda_free(device.index, pointer);
    else
        free(pointer);
}

blade_status blade_host_alloc(blade_device device, size_t bytes, void** pointer)
{
    *pointer = NULL;
    if (device.kind == BLADE_DEVICE_CUDA)
        return blade_cuda_malloc_host(bytes, pointer);
    return host_aligned_alloc(bytes, "host memory", pointer);
}

void blade_host_free(blade_device device, void* pointer)
{
    if (pointer == NULL)
        return;
    if (device.kind == BLADE_DEVICE_CUDA)
        blade_cuda_free_host(pointer);
    else
        free(pointer);
}

blade_status blade_memcpy(blade_device device,
                          void* destination,
                          const void* source,
                          size_t bytes,
                          blade_copy_kind kind,
                          blade_stream stream)
{
    if ((int)kind < 0 || (int)kind > 3)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "unknown copy kind %d", (int)kind);
    if (bytes == 0 || destination == source)
        return BLADE_OK;
    if (device.kind == BLADE_DEVICE_CUDA) {
        BLADE_TRY(blade_cuda_memcpy(destination, source, bytes, kind, stream));
    } else {
        memmove(destination, source, bytes);
    }
    atomic_fetch_add(&copy_count[kind], 1);
    atomic_fetch_add(&copy_bytes[kind], bytes);
    return BLADE_OK;
}

blade_status blade_memset_zero(blade_device device,
                               void* destination,
                               size_t bytes,
                               blade_stream stream)
{
    if (bytes == 0)
        return BLADE_OK;
    if (device.kind == BLADE_DEVICE_CUDA)
        return blade_cuda_memset_zero(destination, bytes, stream);
    memset(destination, 0, bytes);
    return BLADE_OK;
}

void blade_copy_stats_get(blade_copy_stats* stats)
{
    for (int i = 0; i < 4; i++) {
        stats->count[i] = atomic_load(&copy_count[i]);
        stats->bytes[i] = atomic_load(&copy_bytes[i]);
    }
}

void blade_copy_stats_reset(void)
{
    for (int i = 0; i < 4; i++) {
        atomic_store(&copy_count[i], 0);
        atomic_store(&copy_bytes[i], 0);
    }
}

blade_status blade_host_register(blade_device device, void* pointer, size_t bytes)
{
    if (device.kind != BLADE_DEVICE_CUDA || pointer == NULL || bytes == 0)
        return BLADE_OK;
    return blade_cuda_host_register(pointer, bytes);
}

void blade_host_unregister(blade_device device, void* pointer)
{
    if (device.kind == BLADE_DEVICE_CUDA && pointer != NULL)
        blade_cuda_host_unregister(pointer);
}
