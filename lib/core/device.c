/* SPDX-License-Identifier: MIT */
/*
 * Device naming, discovery and streams. CUDA work is delegated to cuda_backend.h.
 */
#include "cuda_backend.h"
#include "internal.h"

#include <blade/device.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

blade_device blade_device_cpu(void)
{
    blade_device device = { BLADE_DEVICE_CPU, 0 };
    return device;
}

bool blade_has_cuda_backend(void)
{
#ifdef BLADE_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

int blade_gpu_count(void) { return blade_cuda_device_count(); }

blade_status blade_gpu_info_get(int index, blade_gpu_info* info)
{
    memset(info, 0, sizeof *info);
    int count = blade_gpu_count();
    if (index < 0 || index >= count)
        return blade_fail(BLADE_ERROR_NO_DEVICE,
                          "GPU %d does not exist (%d GPU%s found)",
                          index,
                          count,
                          count == 1 ? "" : "s");
    return blade_cuda_device_info(index, info);
}

static blade_status cuda_device(int index, blade_device* device)
{
    int count = blade_gpu_count();
    if (index < 0 || index >= count) {
        if (!blade_has_cuda_backend())
            return blade_fail(BLADE_ERROR_NO_DEVICE,
                              "device 'cuda:%d' requested, but this gr-blade was built "
                              "without CUDA; use device='cpu' or 'auto'",
                              index);
        return blade_fail(BLADE_ERROR_NO_DEVICE,
                          "device 'cuda:%d' requested, but %d CUDA GPU%s found; use "
                          "device='cpu' or 'auto'",
                          index,
                          count,
                          count == 1 ? " was" : "s were");
    }
    device->kind = BLADE_DEVICE_CUDA;
    device->index = index;
    return BLADE_OK;
}

blade_status blade_device_parse(const char* text, blade_device* device)
{
    *device = blade_device_cpu();
    if (text == NULL || *text == '\0' || strcasecmp(text, "auto") == 0) {
        if (blade_gpu_count() > 0)
            return cuda_device(0, device);
        return BLADE_OK;
    }
    if (strcasecmp(text, "cpu") == 0)
        return BLADE_OK;
    if (strcasecmp(text, "emulated") == 0) {
        device->kind = BLADE_DEVICE_EMULATED;
        return BLADE_OK;
    }
    /* "emulated:N": several distinct stand-in GPUs, so tests without a GPU can
     * check that multi-device chains never share memory across devices. */
    if (strncasecmp(text, "emulated:", 9) == 0 && text[9] != '\0') {
        char* end = NULL;
        long index = strtol(text + 9, &end, 10);
        if (*end == '\0' && index >= 0 && index < 1024) {
            device->kind = BLADE_DEVICE_EMULATED;
            device->index = (int)index;
            return BLADE_OK;
        }
    }
    if (strcasecmp(text, "cuda") == 0)
        return cuda_device(0, device);
    /* "gpu" reads as "every GPU" as much as "GPU 0": ask which. */
    if (strcasecmp(text, "gpu") == 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "device 'gpu' is ambiguous: say 'cuda' (GPU 0), 'cuda:N' (GPU "
                          "N), or 'auto' (GPU 0 if there is one, else the CPU); several "
                          "GPUs are blade-cli's --devices");
    if (strncasecmp(text, "cuda:", 5) == 0 && text[5] != '\0') {
        char* end = NULL;
        long index = strtol(text + 5, &end, 10);
        if (*end == '\0' && index >= 0 && index < 1024)
            return cuda_device((int)index, device);
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "unknown device '%s' (expected 'auto', 'cpu', 'cuda', 'cuda:N', "
                      "'emulated' or 'emulated:N')",
                      text);
}

const char* blade_device_format(blade_device device, char* text, size_t size)
{
    switch (device.kind) {
    case BLADE_DEVICE_CUDA:
        snprintf(text, size, "cuda:%d", device.index);
        break;
    case BLADE_DEVICE_EMULATED:
        if (device.index == 0)
            snprintf(text, size, "emulated");
        else
            snprintf(text, size, "emulated:%d", device.index);
        break;
    default:
        snprintf(text, size, "cpu");
        break;
    }
    return text;
}

bool blade_device_is_gpu_like(blade_device device)
{
    return device.kind == BLADE_DEVICE_CUDA || device.kind == BLADE_DEVICE_EMULATED;
}

bool blade_device_equal(blade_device a, blade_device b)
{
    return a.kind == b.kind && (a.kind == BLADE_DEVICE_CPU || a.index == b.index);
}

blade_status blade_device_activate(blade_device device)
{
    if (device.kind != BLADE_DEVICE_CUDA)
        return BLADE_OK;
    return blade_cuda_set_device(device.index);
}

blade_status blade_stream_create(blade_device device, blade_stream* stream)
{
    *stream = NULL;
    if (device.kind != BLADE_DEVICE_CUDA)
        return BLADE_OK;
    return blade_cuda_stream_create(device.index, stream);
}

void blade_stream_destroy(blade_device device, blade_stream stream)
{
    if (device.kind == BLADE_DEVICE_CUDA && stream != NULL)
        blade_cuda_stream_destroy(stream);
}

blade_status blade_stream_synchronize(blade_device device, blade_stream stream)
{
    if (device.kind != BLADE_DEVICE_CUDA)
        return BLADE_OK;
    return blade_cuda_stream_synchronize(stream);
}

struct blade_event {
    blade_device device;
    void* cuda_event;      /* CUDA: a cudaEvent_t */
    struct timespec clock; /* CPU and emulated: the host clock at record time */
};

blade_status blade_event_create(blade_device device, blade_event** event)
{
    BLADE_TRY(blade_alloc_object(sizeof **event, "event", (void**)event));
    (*event)->device = device;
    if (device.kind == BLADE_DEVICE_CUDA) {
        blade_status status = blade_cuda_event_create(device.index, &(*event)->cuda_event);
        if (status != BLADE_OK) {
            free(*event);
            *event = NULL;
            return status;
        }
    }
    return BLADE_OK;
}

blade_status blade_event_record(blade_event* event, blade_stream stream)
{
    if (event->device.kind == BLADE_DEVICE_CUDA)
        return blade_cuda_event_record(event->cuda_event, stream);
    clock_gettime(CLOCK_MONOTONIC, &event->clock);
    return BLADE_OK;
}

blade_status blade_event_elapsed_ms(blade_event* start, blade_event* stop, double* milliseconds)
{
    if (start->device.kind == BLADE_DEVICE_CUDA)
        return blade_cuda_event_elapsed_ms(start->cuda_event, stop->cuda_event, milliseconds);
    *milliseconds = (double)(stop->clock.tv_sec - start->clock.tv_sec) * 1e3 +
                    (double)(stop->clock.tv_nsec - start->clock.tv_nsec) * 1e-6;
    return BLADE_OK;
}

void blade_event_destroy(blade_event* event)
{
    if (event == NULL)
        return;
    if (event->device.kind == BLADE_DEVICE_CUDA)
        blade_cuda_event_destroy(event->cuda_event);
    free(event);
}
