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

/* --- both directions at once -------------------------------------------------- */

typedef struct duplex {
    blade_device device;
    size_t up_bytes, down_bytes;
    void *up_host, *down_host;     /* pinned on CUDA */
    void *up_device, *down_device; /* device memory (host memory on other devices) */
    void *up_stream, *down_stream;
} duplex;

static void duplex_release(duplex* d)
{
    const bool cuda = d->device.kind == BLADE_DEVICE_CUDA;
    if (cuda) {
        blade_cuda_stream_destroy(d->up_stream);
        blade_cuda_stream_destroy(d->down_stream);
        blade_cuda_free(d->device.index, d->up_device);
        blade_cuda_free(d->device.index, d->down_device);
        blade_cuda_free_host(d->up_host);
        blade_cuda_free_host(d->down_host);
    } else {
        free(d->up_device);
        free(d->down_device);
        free(d->up_host);
        free(d->down_host);
    }
}

/* One allocation of `bytes` (at least 1) on the host (pinned for CUDA) or the device. */
static blade_status duplex_alloc(const duplex* d, bool on_device, size_t bytes, void** pointer)
{
    bytes = bytes > 0 ? bytes : 1;
    if (d->device.kind == BLADE_DEVICE_CUDA)
        return on_device ? blade_cuda_malloc(d->device.index, bytes, pointer)
                         : blade_cuda_malloc_host(bytes, pointer);
    *pointer = malloc(bytes);
    if (*pointer == NULL)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%zu bytes of host memory", bytes);
    memset(*pointer, 0x3c, bytes);
    return BLADE_OK;
}

static blade_status duplex_setup(duplex* d)
{
    BLADE_TRY(duplex_alloc(d, false, d->up_bytes, &d->up_host));
    BLADE_TRY(duplex_alloc(d, false, d->down_bytes, &d->down_host));
    BLADE_TRY(duplex_alloc(d, true, d->up_bytes, &d->up_device));
    BLADE_TRY(duplex_alloc(d, true, d->down_bytes, &d->down_device));
    if (d->device.kind == BLADE_DEVICE_CUDA) {
        memset(d->up_host, 0x5a, d->up_bytes > 0 ? d->up_bytes : 1); /* first touch */
        memset(d->down_host, 0, d->down_bytes > 0 ? d->down_bytes : 1);
        BLADE_TRY(blade_cuda_stream_create(d->device.index, &d->up_stream));
        BLADE_TRY(blade_cuda_stream_create(d->device.index, &d->down_stream));
    }
    return BLADE_OK;
}

static blade_status duplex_round(duplex* d)
{
    if (d->device.kind != BLADE_DEVICE_CUDA) {
        memcpy(d->up_device, d->up_host, d->up_bytes);
        memcpy(d->down_host, d->down_device, d->down_bytes);
        return BLADE_OK;
    }
    if (d->up_bytes > 0)
        BLADE_TRY(blade_cuda_memcpy(
            d->up_device, d->up_host, d->up_bytes, BLADE_COPY_HOST_TO_DEVICE, d->up_stream));
    if (d->down_bytes > 0)
        BLADE_TRY(blade_cuda_memcpy(d->down_host,
                                    d->down_device,
                                    d->down_bytes,
                                    BLADE_COPY_DEVICE_TO_HOST,
                                    d->down_stream));
    BLADE_TRY(blade_cuda_stream_synchronize(d->up_stream));
    return blade_cuda_stream_synchronize(d->down_stream);
}

blade_status blade_measure_duplex_transfer(blade_device device,
                                           size_t upload_bytes,
                                           size_t download_bytes,
                                           int repeats,
                                           double* seconds_per_round)
{
    *seconds_per_round = 0;
    if (upload_bytes + download_bytes == 0 || repeats < 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "duplex transfer probe: %zu bytes up, %zu down, %d repeats (some bytes "
                          "and at least one repeat)",
                          upload_bytes,
                          download_bytes,
                          repeats);
    if (device.kind == BLADE_DEVICE_CUDA && device.index >= blade_cuda_device_count())
        return blade_fail(BLADE_ERROR_NO_DEVICE,
                          "duplex transfer probe: GPU %d does not exist (%d found)",
                          device.index,
                          blade_cuda_device_count());
    duplex d;
    memset(&d, 0, sizeof d);
    d.device = device;
    d.up_bytes = upload_bytes;
    d.down_bytes = download_bytes;
    blade_status status = duplex_setup(&d);
    if (status == BLADE_OK)
        status = duplex_round(&d); /* warm-up: first-touch and DMA mappings */
    double elapsed = 0;
    if (status == BLADE_OK) {
        const double start = now_seconds();
        for (int r = 0; r < repeats && status == BLADE_OK; r++)
            status = duplex_round(&d);
        elapsed = now_seconds() - start;
    }
    duplex_release(&d);
    if (status != BLADE_OK)
        return blade_fail_context(status, "duplex transfer probe");
    *seconds_per_round = elapsed / repeats;
    return BLADE_OK;
}
