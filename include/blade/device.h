/* SPDX-License-Identifier: MIT */
/**
 * @file device.h
 * @brief Devices (CPU, CUDA GPUs, the host-emulated GPU), discovery and streams.
 *
 * The core computes on the CPU (the reference backend, always present) or on a CUDA
 * GPU when the library was built with CUDA and a GPU is present. A third kind, the
 * *emulated* device, behaves like a GPU for memory management (separate device
 * buffers, explicit uploads and downloads, counted copies) but lives in host memory
 * and computes with the CPU backend: it lets machines without a GPU test everything
 * that moves data between host and device.
 */
#ifndef BLADE_DEVICE_H
#define BLADE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include <blade/export.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Kind of processor a tensor lives on and a module runs on. */
typedef enum blade_device_kind {
    BLADE_DEVICE_CPU = 0,     /**< host memory, CPU backend */
    BLADE_DEVICE_CUDA = 1,    /**< CUDA device memory, CUDA backend */
    BLADE_DEVICE_EMULATED = 2 /**< host memory posing as device memory, CPU backend */
} blade_device_kind;

/** A device: kind plus index (the CUDA ordinal; 0 otherwise). */
typedef struct blade_device {
    blade_device_kind kind; /**< CPU, CUDA or emulated */
    int index;              /**< GPU ordinal for CUDA, emulated device number, else 0 */
} blade_device;

/** An asynchronous work queue: a `cudaStream_t` for CUDA, NULL (synchronous) otherwise. */
typedef void* blade_stream;

/** What the core knows of one GPU. */
typedef struct blade_gpu_info {
    char name[256];          /**< e.g. "NVIDIA H200" */
    size_t total_memory;     /**< bytes */
    size_t free_memory;      /**< bytes, at the time of the query */
    int compute_major;       /**< compute capability, major */
    int compute_minor;       /**< compute capability, minor */
    int multiprocessors;     /**< streaming multiprocessor count */
    double memory_bandwidth; /**< theoretical bytes/s from clock and bus width (0 if unknown) */
    int sm_clock_khz;        /**< peak multiprocessor clock (kHz) */
    double fp32_peak;        /**< FP32 FLOP/s: SMs x 128 lanes x 2 (FMA) x clock */
} blade_gpu_info;

/** The CPU device. */
BLADE_CORE_API blade_device blade_device_cpu(void);

/** True if this library was compiled with the CUDA backend. */
BLADE_CORE_API bool blade_has_cuda_backend(void);

/**
 * Number of usable CUDA GPUs: 0 without the CUDA backend, without a driver or
 * without a GPU (never an error).
 */
BLADE_CORE_API int blade_gpu_count(void);

/** Describe GPU `index`. ::BLADE_ERROR_NO_DEVICE if there is no such GPU. */
BLADE_CORE_API blade_status blade_gpu_info_get(int index, blade_gpu_info* info);

/**
 * Parse a device name: "auto" (GPU 0 when present, else CPU), "cpu", "cuda"
 * (= "cuda:0"), "cuda:N", "emulated" (= "emulated:0"), "emulated:N" (distinct
 * emulated devices, for testing multi-device chains). A CUDA device that is not
 * present gives
 * ::BLADE_ERROR_NO_DEVICE with a message saying how many GPUs were found.
 */
BLADE_CORE_API blade_status blade_device_parse(const char* text, blade_device* device);

/**
 * Canonical name of a device ("cpu", "cuda:1", "emulated", "emulated:1") into
 * `text`; returns `text`.
 */
BLADE_CORE_API const char* blade_device_format(blade_device device, char* text, size_t size);

/** True if the device keeps its data in separate device memory (CUDA or emulated). */
BLADE_CORE_API bool blade_device_is_gpu_like(blade_device device);

/** Two devices are the same device. */
BLADE_CORE_API bool blade_device_equal(blade_device a, blade_device b);

/** Create a stream on the device (NULL stream for CPU and emulated devices). */
BLADE_CORE_API blade_status blade_stream_create(blade_device device, blade_stream* stream);

/** Destroy a stream made by blade_stream_create() (NULL is ignored). */
BLADE_CORE_API void blade_stream_destroy(blade_device device, blade_stream stream);

/** Wait until all work queued on the stream has finished. */
BLADE_CORE_API blade_status blade_stream_synchronize(blade_device device, blade_stream stream);

/** A point in a stream's work, for timing: a `cudaEvent_t` on CUDA, a host clock otherwise. */
typedef struct blade_event blade_event;

/** Create an event on the device. */
BLADE_CORE_API blade_status blade_event_create(blade_device device, blade_event** event);

/** Mark the event when the work queued so far on `stream` is done (host: now). */
BLADE_CORE_API blade_status blade_event_record(blade_event* event, blade_stream stream);

/** Milliseconds between two recorded events (waits for `stop`). */
BLADE_CORE_API blade_status blade_event_elapsed_ms(blade_event* start,
                                                   blade_event* stop,
                                                   double* milliseconds);

/** Destroy an event (NULL is ignored). */
BLADE_CORE_API void blade_event_destroy(blade_event* event);

/** Make the device current for the calling thread (CUDA); no-op otherwise. */
BLADE_CORE_API blade_status blade_device_activate(blade_device device);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_DEVICE_H */
