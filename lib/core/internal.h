/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the core's translation units. Not installed.
 */
#ifndef BLADE_CORE_INTERNAL_H
#define BLADE_CORE_INTERNAL_H

#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define BLADE_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define BLADE_PRINTF(fmt, args)
#endif

/* Record a failure message for blade_last_error() and return `status`, so that a
 * failing path reads `return blade_fail(BLADE_ERROR_..., "what went wrong", ...);`. */
blade_status blade_fail(blade_status status, const char* format, ...) BLADE_PRINTF(2, 3);

/* Prefix the current error message with context ("cast: " + message). */
blade_status blade_fail_context(blade_status status, const char* format, ...) BLADE_PRINTF(2, 3);

/* Propagate a failing status unchanged (its message is already set). */
#define BLADE_TRY(expression)                          \
    do {                                               \
        blade_status blade_try_status_ = (expression); \
        if (blade_try_status_ != BLADE_OK)             \
            return blade_try_status_;                  \
    } while (0)

/* Check that a tensor handed to process() is the one the plan was created for. */
blade_status blade_check_tensor(const char* module,
                                const char* role,
                                const blade_tensor* tensor,
                                blade_dtype dtype,
                                const blade_shape* shape);

/* Check how the memory of `output` relates to that of `input` before a process()
 * call writes it. Disjoint tensors always pass. The very same memory (same address,
 * same byte count: an in-place call) passes when `why_not_in_place` is NULL; the
 * same start is refused with "<module>: input and output are the same memory;
 * <why_not_in_place>" otherwise. Any other overlap (a partial one) is refused: no module can read what
 * it has already overwritten. */
blade_status blade_check_aliasing(const char* module,
                                  const blade_tensor* input,
                                  const blade_tensor* output,
                                  const char* why_not_in_place);

/* Upload a small tensor from pinned host memory (blade_host_alloc()) to `device`
 * without queueing behind the device's other DMA uploads: on CUDA a kernel on
 * `stream` reads the host memory over PCIe (kernels/host_pull.cu); elsewhere a
 * plain copy. Counted as one host-to-device copy, as blade_memcpy() would. */
blade_status blade_upload_small(blade_device device,
                                void* destination,
                                const void* pinned_source,
                                size_t bytes,
                                blade_stream stream);

/* calloc that reports failure through blade_fail(). */
blade_status blade_alloc_object(size_t bytes, const char* what, void** object);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_CORE_INTERNAL_H */
