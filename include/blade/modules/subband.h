/* SPDX-License-Identifier: MIT */
/**
 * @file subband.h
 * @brief Sub-bands of a chunk: equal slices of its channel axis, moved between
 * host memory and devices.
 *
 * A chunk [A, F, T, P] (any tensor of rank 2 to 5 whose axis 1 is the channel axis)
 * splits into `parts` sub-bands of F / parts channels each: sub-band n holds
 * channels [n F / parts, (n + 1) F / parts) of every aspect, in the same order. In
 * memory a sub-band is A runs of (F / parts) T P elements, one per aspect, F T P
 * elements apart: one 2-D copy (blade_memcpy_2d) moves it, whatever the element
 * type (ci4 included: whole elements are whole bytes).
 *
 * The copy functions accept any pair of places: host memory (CPU device), the
 * emulated device, one CUDA GPU. Host to GPU is a DMA transfer of the strided
 * slice straight from the (pinned) whole chunk, which is how a chain split across
 * several GPUs gives each GPU its own channels without a host-side copy. Two
 * different GPUs cannot be the two sides of one copy: go through host memory.
 *
 * Splitting every sub-band out of a chunk and inserting them back gives the chunk
 * bit for bit.
 */
#ifndef BLADE_MODULES_SUBBAND_H
#define BLADE_MODULES_SUBBAND_H

#include <stdint.h>

#include <blade/device.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Shape of one of `parts` sub-bands of a `whole` chunk: axis 1 divided by `parts`.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT (with the channel count and the parts) if
 *         the rank is below 2, `parts` is below 1, or `parts` does not divide axis 1.
 */
BLADE_CORE_API blade_status blade_subband_shape(const blade_shape* whole,
                                                int64_t parts,
                                                blade_shape* part);

/**
 * Copy sub-band `index` (0 to parts - 1) of `whole` into `part`.
 *
 * `part` must have the type of `whole` and the shape blade_subband_shape() gives.
 * The copy runs on `stream` of the GPU side (asynchronous on CUDA: synchronize the
 * stream before reading `part` or reusing `whole`); it is counted in
 * blade_copy_stats() as one copy in its direction.
 */
BLADE_CORE_API blade_status blade_subband_extract(const blade_tensor* whole,
                                                  int64_t parts,
                                                  int64_t index,
                                                  blade_tensor* part,
                                                  blade_stream stream);

/** Copy `part` into sub-band `index` of `whole` (the inverse of blade_subband_extract()). */
BLADE_CORE_API blade_status blade_subband_insert(const blade_tensor* part,
                                                 int64_t parts,
                                                 int64_t index,
                                                 blade_tensor* whole,
                                                 blade_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_MODULES_SUBBAND_H */
