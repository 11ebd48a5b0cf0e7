/* SPDX-License-Identifier: MIT */
/*
 * Measuring the host link of one or several devices at once (blade_measure_transfer).
 * A chain split across GPUs is bound by how much pinned host memory all of them
 * can read together, which depends on the PCIe topology rather than on any one
 * GPU; benchmarks report their figures against this number measured in the same run.
 */
#include "cuda_backend.h"
#include "internal.h"

#include <blade/memory.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBE_MAX_DEVICES 64

typedef struct probe {
    int count;
    size_t bytes;
    blade_device devices[PROBE_MAX_DEVICES];
    void* device_memory[PROBE_MAX_DEVICES];
    void* streams[PROBE_MAX_DEVICES];
    void* host;
    bool pinned;
} probe;

static double now_seconds(void)
{
    struct timespec clock;
    clock_gettime(CLOCK_MONOTONIC, &clock);
    return (double)clock.tv_sec + 1e-9 * (double)clock.tv_nsec;
}

static void probe_release(probe* p)
{
    for (int i = 0; i < p->count; i++) {
        if (p->devices[i].kind == BLADE_DEVICE_CUDA) {
            blade_cuda_stream_destroy(p->streams[i]);
            blade_cuda_free(p->devices[i].index, p->device_memory[i]);
        } else {
            free(p->device_memory[i]);
        }
    }
    if (p->pinned)
        blade_cuda_free_host(p->host);
    else
        free(p->host);
}

static blade_status probe_setup(probe* p)
{
    bool any_cuda = false;
    for (int i = 0; i < p->count; i++)
        any_cuda = any_cuda || p->devices[i].kind == BLADE_DEVICE_CUDA;
    const size_t total = p->bytes * (size_t)p->count;
    if (any_cuda) {
        BLADE_TRY(blade_cuda_malloc_host(total, &p->host));
        p->pinned = true;
    } else {
        p->host = malloc(total);
        if (p->host == NULL)
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%zu bytes of host memory", total);
    }
    memset(p->host, 0x5a, total);
    for (int i = 0; i < p->count; i++) {
        if (p->devices[i].kind == BLADE_DEVICE_CUDA) {
            BLADE_TRY(blade_cuda_malloc(p->devices[i].index, p->bytes, &p->device_memory[i]));
            BLADE_TRY(blade_cuda_stream_create(p->devices[i].index, &p->streams[i]));
        } else {
            p->device_memory[i] = malloc(p->bytes);
            if (p->device_memory[i] == NULL)
                return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%zu bytes of host memory", p->bytes);
            memset(p->device_memory[i], 0, p->bytes);
        }
    }
    return BLADE_OK;
}

/* One round: every device moves its bytes, all at once; wait for all. */
static blade_status probe_round(probe* p, blade_copy_kind kind)
{
    for (int i = 0; i < p->count; i++) {
        char* host = (char*)p->host + (size_t)i * p->bytes;
        void* destination = kind == BLADE_COPY_HOST_TO_DEVICE ? p->device_memory[i] : (void*)host;
        const void* source =
            kind == BLADE_COPY_HOST_TO_DEVICE ? (const void*)host : p->device_memory[i];
        if (p->devices[i].kind == BLADE_DEVICE_CUDA)
            BLADE_TRY(blade_cuda_memcpy(destination, source, p->bytes, kind, p->streams[i]));
        else
            memcpy(destination, source, p->bytes);
    }
    for (int i = 0; i < p->count; i++)
        if (p->devices[i].kind == BLADE_DEVICE_CUDA)
            BLADE_TRY(blade_cuda_stream_synchronize(p->streams[i]));
    return BLADE_OK;
}

blade_status blade_measure_transfer(const blade_device* devices,
                                    int count,
                                    size_t bytes,
                                    int repeats,
                                    blade_copy_kind kind,
                                    double* bytes_per_second)
{
    *bytes_per_second = 0;
    if (count < 1 || count > PROBE_MAX_DEVICES)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "transfer probe: %d devices (1 to %d)",
                          count,
                          PROBE_MAX_DEVICES);
    if (bytes == 0 || repeats < 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "transfer probe: %zu bytes, %d repeats (both at least 1)",
                          bytes,
                          repeats);
    if (kind != BLADE_COPY_HOST_TO_DEVICE && kind != BLADE_COPY_DEVICE_TO_HOST)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "transfer probe: direction %d (host to device or device to host)",
                          (int)kind);
    probe p;
    memset(&p, 0, sizeof p);
    p.count = count;
    p.bytes = bytes;
    for (int i = 0; i < count; i++) {
        if (devices[i].kind == BLADE_DEVICE_CUDA && devices[i].index >= blade_cuda_device_count())
            return blade_fail(BLADE_ERROR_NO_DEVICE,
                              "transfer probe: GPU %d does not exist (%d found)",
                              devices[i].index,
                              blade_cuda_device_count());
        p.devices[i] = devices[i];
    }
    blade_status status = probe_setup(&p);
    if (status == BLADE_OK)
        status = probe_round(&p, kind); /* warm-up: first-touch and DMA mappings */
    double elapsed = 0;
    if (status == BLADE_OK) {
        const double start = now_seconds();
        for (int r = 0; r < repeats && status == BLADE_OK; r++)
            status = probe_round(&p, kind);
        elapsed = now_seconds() - start;
    }
    probe_release(&p);
    if (status != BLADE_OK)
        return blade_fail_context(status, "transfer probe");
    *bytes_per_second = elapsed > 0 ? (double)bytes * count * repeats / elapsed : 0;
    return BLADE_OK;
}
