/* SPDX-License-Identifier: MIT */
/*
 * Device and host allocation, counted copies. The CPU and the emulated device use
 * page-aligned host memory; CUDA uses cudaMalloc / cudaMallocHost.
 */
#include "cuda_backend.h"
#include "internal.h"

#include <blade/memory.h>

#include <ctype.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t copy_count[4];
static _Atomic uint64_t copy_bytes[4];

/* Bytes of emulated device memory allocated and not yet freed. */
static _Atomic uint64_t emulated_in_use;

/*
 * The emulated device's memory size, from BLADE_EMULATED_MEMORY_LIMIT (bytes, or
 * with a K, M or G suffix); 0 when unset or unreadable: unlimited. It lets tests
 * exhaust "device memory" on a machine without a GPU. Read at every emulated
 * allocation, which happens when plans and buffers are made, never per chunk.
 */
static uint64_t emulated_limit(void)
{
    const char* text = getenv("BLADE_EMULATED_MEMORY_LIMIT");
    if (text == NULL || !isdigit((unsigned char)text[0]))
        return 0;
    char* end;
    unsigned long long value = strtoull(text, &end, 10);
    const int shift = *end == 'K' || *end == 'k' ? 10
                      : *end == 'M' || *end == 'm' ? 20
                      : *end == 'G' || *end == 'g' ? 30
                                                   : 0;
    if (shift > 0 && value < (1ULL << (63 - shift)))
        value <<= shift;
    return value;
}

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

static blade_status emulated_alloc(size_t bytes, void** pointer)
{
    const uint64_t limit = emulated_limit();
    const uint64_t in_use = atomic_load(&emulated_in_use);
    if (limit > 0 && (bytes > limit || in_use > limit - bytes))
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                          "allocating %zu bytes (%.3f GiB) of emulated device memory "
                          "failed: out of memory (%llu of %llu bytes in use; "
                          "BLADE_EMULATED_MEMORY_LIMIT)",
                          bytes,
                          bytes / 1073741824.0,
                          (unsigned long long)in_use,
                          (unsigned long long)limit);
    BLADE_TRY(host_aligned_alloc(bytes, "emulated device memory", pointer));
    if (*pointer != NULL)
        atomic_fetch_add(&emulated_in_use, malloc_usable_size(*pointer));
    return BLADE_OK;
}

blade_status blade_device_alloc(blade_device device, size_t bytes, void** pointer)
{
    *pointer = NULL;
    if (device.kind == BLADE_DEVICE_CUDA)
        return blade_cuda_malloc(device.index, bytes, pointer);
    if (device.kind == BLADE_DEVICE_EMULATED)
        return emulated_alloc(bytes, pointer);
    return host_aligned_alloc(bytes, "host memory", pointer);
}

void blade_device_free(blade_device device, void* pointer)
{
    if (pointer == NULL)
        return;
    if (device.kind == BLADE_DEVICE_CUDA) {
        blade_cuda_free(device.index, pointer);
        return;
    }
    if (device.kind == BLADE_DEVICE_EMULATED)
        atomic_fetch_sub(&emulated_in_use, malloc_usable_size(pointer));
    free(pointer);
}

uint64_t blade_emulated_memory_in_use(void) { return atomic_load(&emulated_in_use); }

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
