/* SPDX-License-Identifier: MIT */
/*
 * The CUDA backend of a build without CUDA: no GPU exists, every GPU request fails
 * with a message that says why. Module kernels are only referenced under
 * BLADE_HAVE_CUDA, so they need no stand-ins here.
 */
#include "cuda_backend.h"
#include "internal.h"

static blade_status no_cuda(void)
{
    return blade_fail(BLADE_ERROR_NO_DEVICE,
                      "this gr-blade was built without CUDA (configure with "
                      "-DENABLE_CUDA=ON and nvcc on PATH to use GPUs)");
}

int blade_cuda_device_count(void) { return 0; }
blade_status blade_cuda_device_info(int index, blade_gpu_info* info)
{
    (void)index;
    (void)info;
    return no_cuda();
}
blade_status blade_cuda_set_device(int index)
{
    (void)index;
    return no_cuda();
}
blade_status blade_cuda_stream_create(int index, void** stream)
{
    (void)index;
    *stream = NULL;
    return no_cuda();
}
void blade_cuda_stream_destroy(void* stream) { (void)stream; }
blade_status blade_cuda_stream_synchronize(void* stream)
{
    (void)stream;
    return no_cuda();
}
blade_status blade_cuda_malloc(int index, size_t bytes, void** pointer)
{
    (void)index;
    (void)bytes;
    *pointer = NULL;
    return no_cuda();
}
void blade_cuda_free(int index, void* pointer)
{
    (void)index;
    (void)pointer;
}
blade_status blade_cuda_malloc_host(size_t bytes, void** pointer)
{
    (void)bytes;
    *pointer = NULL;
    return no_cuda();
}
void blade_cuda_free_host(void* pointer) { (void)pointer; }
blade_status blade_cuda_pull_from_host(
    int index, void* destination, const void* pinned_source, size_t bytes, void* stream)
{
    (void)index;
    (void)destination;
    (void)pinned_source;
    (void)bytes;
    (void)stream;
    return no_cuda();
}
blade_status blade_cuda_memcpy(
    void* destination, const void* source, size_t bytes, blade_copy_kind kind, void* stream)
{
    (void)destination;
    (void)source;
    (void)bytes;
    (void)kind;
    (void)stream;
    return no_cuda();
}
blade_status blade_cuda_memcpy_2d(int index,
                                  void* destination,
                                  size_t destination_pitch,
                                  const void* source,
                                  size_t source_pitch,
                                  size_t row_bytes,
                                  size_t rows,
                                  blade_copy_kind kind,
                                  void* stream)
{
    (void)index;
    (void)destination;
    (void)destination_pitch;
    (void)source;
    (void)source_pitch;
    (void)row_bytes;
    (void)rows;
    (void)kind;
    (void)stream;
    return no_cuda();
}
blade_status blade_cuda_memset_zero(void* destination, size_t bytes, void* stream)
{
    (void)destination;
    (void)bytes;
    (void)stream;
    return no_cuda();
}
blade_status blade_cuda_event_create(int index, void** event)
{
    (void)index;
    *event = NULL;
    return no_cuda();
}
blade_status blade_cuda_event_record(void* event, void* stream)
{
    (void)event;
    (void)stream;
    return no_cuda();
}
blade_status blade_cuda_event_elapsed_ms(void* start, void* stop, double* milliseconds)
{
    (void)start;
    (void)stop;
    *milliseconds = 0;
    return no_cuda();
}
void blade_cuda_event_destroy(void* event) { (void)event; }
blade_status blade_cuda_host_register(void* pointer, size_t bytes)
{
    (void)pointer;
    (void)bytes;
    return no_cuda();
}
void blade_cuda_host_unregister(void* pointer) { (void)pointer; }
