/* SPDX-License-Identifier: MIT */
/**
 * @file memory.h
 * @brief Device and pinned-host memory, asynchronous copies, and copy accounting.
 *
 * Every copy the core makes between host and device memory goes through
 * blade_memcpy(), which counts it. The counters let tests prove that a chain of GPU
 * blocks uploads once and downloads once per chunk and copies nothing in between.
 */
#ifndef BLADE_MEMORY_H
#define BLADE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include <blade/device.h>
#include <blade/export.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Direction of a copy. */
typedef enum blade_copy_kind {
    BLADE_COPY_HOST_TO_HOST = 0,
    BLADE_COPY_HOST_TO_DEVICE = 1,
    BLADE_COPY_DEVICE_TO_HOST = 2,
    BLADE_COPY_DEVICE_TO_DEVICE = 3
} blade_copy_kind;

/** Process-wide copy counters (since start or the last reset). */
typedef struct blade_copy_stats {
    uint64_t count[4]; /**< copies per ::blade_copy_kind */
    uint64_t bytes[4]; /**< bytes per ::blade_copy_kind */
} blade_copy_stats;

/**
 * Allocate `bytes` of device memory (CUDA device memory, or aligned host memory for
 * the CPU and emulated devices). Out of memory gives ::BLADE_ERROR_OUT_OF_MEMORY
 * with a message naming the size asked for and the free memory.
 */
BLADE_CORE_API blade_status blade_device_alloc(blade_device device, size_t bytes, void** pointer);

/** Free memory from blade_device_alloc() (NULL is ignored). */
BLADE_CORE_API void blade_device_free(blade_device device, void* pointer);

/**
 * Bytes of emulated device memory allocated and not yet freed. The environment
 * variable BLADE_EMULATED_MEMORY_LIMIT (bytes, or with a K, M or G suffix) gives the
 * emulated device a memory size: an allocation beyond it fails like a full GPU
 * (::BLADE_ERROR_OUT_OF_MEMORY naming the size asked for), so that running out of
 * device memory can be tested without one.
 */
BLADE_CORE_API uint64_t blade_emulated_memory_in_use(void);

/**
 * Allocate host memory suited to fast transfers to `device`: page-locked (pinned)
 * for CUDA, 4096-byte-aligned ordinary memory otherwise.
 */
BLADE_CORE_API blade_status blade_host_alloc(blade_device device, size_t bytes, void** pointer);

/** Free memory from blade_host_alloc() (NULL is ignored). */
BLADE_CORE_API void blade_host_free(blade_device device, void* pointer);

/**
 * Copy `bytes` in the given direction, asynchronously on `stream` for CUDA
 * (synchronously otherwise), and count it. Overlapping ranges are allowed for
 * ::BLADE_COPY_DEVICE_TO_DEVICE and ::BLADE_COPY_HOST_TO_HOST (memmove semantics
 * on the CPU; CUDA requires distinct ranges).
 */
BLADE_CORE_API blade_status blade_memcpy(blade_device device,
                                         void* destination,
                                         const void* source,
                                         size_t bytes,
                                         blade_copy_kind kind,
                                         blade_stream stream);

/**
 * Copy a 2-D region: `rows` runs of `row_bytes` each, consecutive runs
 * `source_pitch` bytes apart in the source and `destination_pitch` bytes apart in
 * the destination (both at least `row_bytes`). Direction, stream and accounting as
 * blade_memcpy(); it counts as one copy of rows x row_bytes bytes. On CUDA the runs
 * are queued at once (one cudaMemcpy2DAsync, or one copy per run of a megabyte or
 * more), so a strided slice of pinned host memory goes to the GPU by DMA with no
 * host copy. Regions must not overlap.
 */
BLADE_CORE_API blade_status blade_memcpy_2d(blade_device device,
                                            void* destination,
                                            size_t destination_pitch,
                                            const void* source,
                                            size_t source_pitch,
                                            size_t row_bytes,
                                            size_t rows,
                                            blade_copy_kind kind,
                                            blade_stream stream);

/** Fill `bytes` of device memory with zero bytes, asynchronously on `stream`. */
BLADE_CORE_API blade_status blade_memset_zero(blade_device device,
                                              void* destination,
                                              size_t bytes,
                                              blade_stream stream);

/** Device memory held through blade_device_alloc() on GPU-like devices (CUDA and
 *  emulated), now and at its highest since start or the last reset. */
typedef struct blade_device_memory_stats {
    uint64_t bytes_in_use;
    uint64_t peak_bytes;
} blade_device_memory_stats;

/** Read the device memory counters. */
BLADE_CORE_API void blade_device_memory_stats_get(blade_device_memory_stats* stats);

/** Make the peak equal to what is in use now. */
BLADE_CORE_API void blade_device_memory_stats_reset_peak(void);

/**
 * Measure the transfer bandwidth between pinned host memory and `count` devices
 * used at once: every device moves its own `bytes` (::BLADE_COPY_HOST_TO_DEVICE or
 * ::BLADE_COPY_DEVICE_TO_HOST), all devices concurrently, `repeats` times after one
 * warm-up round. `bytes_per_second` is the total over all devices: the ceiling a
 * chain split across these GPUs works against (two GPUs behind one PCIe switch
 * share its uplink; two on separate root ports add up). CPU and emulated devices
 * measure host memory copies. The copies are not counted in blade_copy_stats.
 */
BLADE_CORE_API blade_status blade_measure_transfer(const blade_device* devices,
                                                   int count,
                                                   size_t bytes,
                                                   int repeats,
                                                   blade_copy_kind kind,
                                                   double* bytes_per_second);

/**
 * Measure uploads and downloads running at once on one device: each round queues
 * `upload_bytes` host to device and `download_bytes` device to host on two streams
 * (pinned host memory), then waits for both; `repeats` rounds after one warm-up.
 * `seconds_per_round` is the mean time of a round: the floor for a chain that, per
 * chunk, uploads its input and downloads its products (Mode B from host memory).
 * PCIe is full duplex, but both directions' DMA share the host's memory and the
 * GPU's copy engines, so a round can take longer than the larger of the two
 * one-way transfers. CPU and emulated devices time the two host copies one after
 * the other. Either byte count may be 0 (then it measures the other direction).
 */
BLADE_CORE_API blade_status blade_measure_duplex_transfer(blade_device device,
                                                          size_t upload_bytes,
                                                          size_t download_bytes,
                                                          int repeats,
                                                          double* seconds_per_round);

/** Read the process-wide copy counters. */
BLADE_CORE_API void blade_copy_stats_get(blade_copy_stats* stats);

/** Reset the process-wide copy counters to zero. */
BLADE_CORE_API void blade_copy_stats_reset(void);

/**
 * Page-lock `bytes` of existing host memory at `pointer` (e.g. a GNU Radio buffer)
 * so that copies between it and `device` run at pinned speed (55 GB/s rather than
 * 8 GB/s on PCIe Gen5). CUDA only; a no-op returning ::BLADE_OK otherwise. A failure
 * (::BLADE_ERROR_DEVICE) leaves the memory usable, just slower to copy.
 */
BLADE_CORE_API blade_status blade_host_register(blade_device device, void* pointer, size_t bytes);

/** Undo blade_host_register() (NULL is ignored). */
BLADE_CORE_API void blade_host_unregister(blade_device device, void* pointer);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_MEMORY_H */
