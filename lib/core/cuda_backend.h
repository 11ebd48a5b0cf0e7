/* SPDX-License-Identifier: MIT */
/*
 * The seam between the C core and the CUDA runtime in kernels/cuda_runtime.cu:
 * discovery, memory, streams, events. Without CUDA these come from cuda_absent.c,
 * which reports that no GPU exists. Each module declares its own kernels' entry
 * points in lib/core/<module>_backend.h next to its CPU implementation, and calls
 * them only under BLADE_HAVE_CUDA. Every function sets blade_last_error() on
 * failure. Not installed.
 */
#ifndef BLADE_CORE_CUDA_BACKEND_H
#define BLADE_CORE_CUDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/memory.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runtime: discovery, memory, streams (kernels/cuda_runtime.cu). */
int blade_cuda_device_count(void);
blade_status blade_cuda_device_info(int index, blade_gpu_info* info);
blade_status blade_cuda_set_device(int index);
blade_status blade_cuda_stream_create(int index, void** stream);
void blade_cuda_stream_destroy(void* stream);
blade_status blade_cuda_stream_synchronize(void* stream);
blade_status blade_cuda_malloc(int index, size_t bytes, void** pointer);
void blade_cuda_free(int index, void* pointer);
blade_status blade_cuda_malloc_host(size_t bytes, void** pointer);
void blade_cuda_free_host(void* pointer);
blade_status blade_cuda_memcpy(
    void* destination, const void* source, size_t bytes, blade_copy_kind kind, void* stream);
blade_status blade_cuda_memcpy_2d(int index,
                                  void* destination,
                                  size_t destination_pitch,
                                  const void* source,
                                  size_t source_pitch,
                                  size_t row_bytes,
                                  size_t rows,
                                  blade_copy_kind kind,
                                  void* stream);
blade_status blade_cuda_memset_zero(void* destination, size_t bytes, void* stream);
blade_status blade_cuda_event_create(int index, void** event);
blade_status blade_cuda_event_record(void* event, void* stream);
blade_status blade_cuda_event_elapsed_ms(void* start, void* stop, double* milliseconds);
void blade_cuda_event_destroy(void* event);

/* Upload by a kernel reading pinned host memory: not queued behind DMA copies
 * (kernels/host_pull.cu). For small tensors. */
blade_status blade_cuda_pull_from_host(
    int index, void* destination, const void* pinned_source, size_t bytes, void* stream);

/* Phasors [B][A][F][P] cf32 from the seeds phasor.c uploads (anchors, steps,
 * calibration; lib/core/phasor_synthesis.h), on `stream` (kernels/phasor.cu). */
blade_status blade_cuda_phasor_expand(const void* seeds,
                                      int64_t beams,
                                      int64_t antennas,
                                      int64_t coarse,
                                      int64_t rate,
                                      int64_t fine,
                                      int64_t pols,
                                      void* phasors,
                                      void* stream);

/* Page-locking of existing host memory (kernels/host_register.cu). */
blade_status blade_cuda_host_register(void* pointer, size_t bytes);
void blade_cuda_host_unregister(void* pointer);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_CORE_CUDA_BACKEND_H */
