/* SPDX-License-Identifier: MIT */
/*
 * Device and host allocation, counted copies. The CPU and the emulated device use
 * page-aligned host memory; CUDA uses cudaMalloc / cudaMallocHost.
 */
#include "cuda_backend.h"
#include "internal.h"

#include <blade/memory.h>

#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t copy_count[4];
static _Atomic uint64_t copy_bytes[4];
static _Atomic uint64_t device_bytes_in_use;
static _Atomic uint64_t device_peak_bytes;
/* The emulated device's share of device_bytes_in_use, against its memory limit. */
static _Atomic uint64_t emulated_in_use;

/* Sizes of live GPU-like allocations, so frees can be counted: a small open table
 * keyed by pointer (allocations are few: buffers and plans, not per chunk). */
#define ALLOCATION_SLOTS 4096
static struct {
    void* pointer;
    size_t bytes;
    bool emulated;
} allocations[ALLOCATION_SLOTS];
static _Atomic int allocations_lock;

static void lock_allocations(void)
{
    int expected = 0;
    while (!atomic_compare_exchange_weak(&allocations_lock, &expected, 1))
        expected = 0;
}

static void unlock_allocations(void) { atomic_store(&allocations_lock, 0); }

static void count_allocation(void* pointer, size_t bytes, bool emulated)
{
    lock_allocations();
    for (int i = 0; i < ALLOCATION_SLOTS; i++)
        if (allocations[i].pointer == NULL) {
            allocations[i].pointer = pointer;
            allocations[i].bytes = bytes;
            allocations[i].emulated = emulated;
            break;
        }
    unlock_allocations();
    if (emulated)
        atomic_fetch_add(&emulated_in_use, bytes);
    const uint64_t now = atomic_fetch_add(&device_bytes_in_use, bytes) + bytes;
    uint64_t peak = atomic_load(&device_peak_bytes);
    while (now > peak && !atomic_compare_exchange_weak(&device_peak_bytes, &peak, now))
        ;
}

static void count_free(void* pointer)
{
    size_t bytes = 0;
    bool emulated = false;
    lock_allocations();
    for (int i = 0; i < ALLOCATION_SLOTS; i++)
        if (allocations[i].pointer == pointer) {
            bytes = allocations[i].bytes;
            emulated = allocations[i].emulated;
            allocations[i].pointer = NULL;
            break;
        }
    unlock_allocations();
    atomic_fetch_sub(&device_bytes_in_use, bytes);
    if (emulated)
        atomic_fetch_sub(&emulated_in_use, bytes);
}

/*
 * The emulated device's memory size, from BLADE_EMULATED_MEMORY_LIMIT (bytes, or
 * with a K, M or G suffix); 0 when unset: unlimited. It lets tests exhaust "device
 * memory" on a machine without a GPU. A value that is not a size is an error, not
 * "unlimited" (a test that set it would otherwise pass for the wrong reason). Read
 * at every emulated allocation, which happens when plans and buffers are made,
 * never per chunk.
 */
static blade_status emulated_limit(uint64_t* limit)
{
    *limit = 0;
    const char* text = getenv("BLADE_EMULATED_MEMORY_LIMIT");
    if (text == NULL || text[0] == '\0')
        return BLADE_OK;
    char* end = NULL;
    errno = 0;
    unsigned long long value = isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
    const int shift = end == NULL                  ? -1
                      : *end == 'K' || *end == 'k' ? 10
                      : *end == 'M' || *end == 'm' ? 20
                      : *end == 'G' || *end == 'g' ? 30
                      : *end == '\0'               ? 0
                                                   : -1;
    if (shift < 0 || (shift > 0 && end[1] != '\0') || errno == ERANGE ||
        value >= (1ULL << (63 - shift)))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "BLADE_EMULATED_MEMORY_LIMIT='%s' is not a memory size (bytes, "
                          "or a number with K, M or G, below 2^63 bytes)",
                          text);
    *limit = value << shift;
    return BLADE_OK;
}

static blade_status host_aligned_alloc(size_t bytes, const char* what, void** pointer)
{
    size_t rounded =
        (bytes + BLADE_ITEM_ALIGNMENT - 1) / BLADE_ITEM_ALIGNMENT * BLADE_ITEM_ALIGNMENT;
    *pointer = rounded ? aligned_alloc(BLADE_ITEM_ALIGNMENT, rounded) : NULL;
    if (*pointer == NULL && bytes > 0)
        return blade_fail(
            BLADE_ERROR_OUT_OF_MEMORY, "could not allocate %zu bytes of %s", bytes, what);
    return BLADE_OK;
}

static blade_status emulated_alloc(size_t bytes, void** pointer)
{
    uint64_t limit;
    BLADE_TRY(emulated_limit(&limit));
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
    return host_aligned_alloc(bytes, "emulated device memory", pointer); /* counted by the caller */
}

blade_status blade_device_alloc(blade_device device, size_t bytes, void** pointer)
{
    *pointer = NULL;
    blade_status status;
    if (device.kind == BLADE_DEVICE_CUDA)
        status = blade_cuda_malloc(device.index, bytes, pointer);
    else if (device.kind == BLADE_DEVICE_EMULATED)
        status = emulated_alloc(bytes, pointer);
    else
        status = host_aligned_alloc(bytes, "host memory", pointer);
    if (status == BLADE_OK && *pointer != NULL && blade_device_is_gpu_like(device))
        count_allocation(*pointer, bytes, device.kind == BLADE_DEVICE_EMULATED);
    return status;
}

void blade_device_free(blade_device device, void* pointer)
{
    if (pointer == NULL)
        return;
    if (blade_device_is_gpu_like(device))
        count_free(pointer);
    if (device.kind == BLADE_DEVICE_CUDA)
        blade_cuda_free(device.index, pointer);
    else
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

blade_status blade_upload_small(blade_device device,
                                void* destination,
                                const void* pinned_source,
                                size_t bytes,
                                blade_stream stream)
{
    if (bytes == 0)
        return BLADE_OK;
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(
            blade_cuda_pull_from_host(device.index, destination, pinned_source, bytes, stream));
    else
        memmove(destination, pinned_source, bytes);
    atomic_fetch_add(&copy_count[BLADE_COPY_HOST_TO_DEVICE], 1);
    atomic_fetch_add(&copy_bytes[BLADE_COPY_HOST_TO_DEVICE], bytes);
    return BLADE_OK;
}

blade_status blade_memcpy_2d(blade_device device,
                             void* destination,
                             size_t destination_pitch,
                             const void* source,
                             size_t source_pitch,
                             size_t row_bytes,
                             size_t rows,
                             blade_copy_kind kind,
                             blade_stream stream)
{
    if ((int)kind < 0 || (int)kind > 3)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "unknown copy kind %d", (int)kind);
    if (destination_pitch < row_bytes || source_pitch < row_bytes)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "2-D copy: pitches (destination %zu, source %zu bytes) must be at "
                          "least the run length (%zu bytes)",
                          destination_pitch,
                          source_pitch,
                          row_bytes);
    if (row_bytes == 0 || rows == 0)
        return BLADE_OK;
    if (destination == NULL || source == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "2-D copy: null pointer");
    if (device.kind == BLADE_DEVICE_CUDA) {
        BLADE_TRY(blade_cuda_memcpy_2d(device.index,
                                       destination,
                                       destination_pitch,
                                       source,
                                       source_pitch,
                                       row_bytes,
                                       rows,
                                       kind,
                                       stream));
    } else {
        char* to = (char*)destination;
        const char* from = (const char*)source;
        for (size_t row = 0; row < rows; row++)
            memmove(to + row * destination_pitch, from + row * source_pitch, row_bytes);
    }
    atomic_fetch_add(&copy_count[kind], 1);
    atomic_fetch_add(&copy_bytes[kind], (uint64_t)(row_bytes * rows));
    return BLADE_OK;
}

blade_status
blade_memset_zero(blade_device device, void* destination, size_t bytes, blade_stream stream)
{
    if (bytes == 0)
        return BLADE_OK;
    if (device.kind == BLADE_DEVICE_CUDA)
        return blade_cuda_memset_zero(destination, bytes, stream);
    memset(destination, 0, bytes);
    return BLADE_OK;
}

void blade_device_memory_stats_get(blade_device_memory_stats* stats)
{
    stats->bytes_in_use = atomic_load(&device_bytes_in_use);
    stats->peak_bytes = atomic_load(&device_peak_bytes);
}

void blade_device_memory_stats_reset_peak(void)
{
    atomic_store(&device_peak_bytes, atomic_load(&device_bytes_in_use));
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
