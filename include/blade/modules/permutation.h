/* SPDX-License-Identifier: MIT */
/**
 * @file modules/permutation.h
 * @brief Permutation: reorder the axes of a tensor, as numpy.transpose(x, axes).
 *
 * Output axis i is input axis axes[i]: the output shape is
 * (shape[axes[0]], shape[axes[1]], ...), and
 * output[i0, i1, ...] = input[j] where j[axes[k]] = ik. Any permutation of up to
 * ::BLADE_MAX_RANK axes, any element type; elements are moved bit for bit. The
 * identity permutation is a pass-through (a plain copy, or nothing when input and
 * output are the same memory).
 *
 * With the voltage layout [A, F, T, P] (axes 0, 1, 2, 3):
 * | order | axes         | use                                      |
 * |-------|--------------|------------------------------------------|
 * | ATFP  | {0, 2, 1, 3} | time-major spectra per antenna           |
 * | AFPT  | {0, 1, 3, 2} | polarization-planar time series (FFTs)   |
 * | ATPF  | {0, 2, 3, 1} | channels innermost (filterbank order)    |
 *
 * Axes of extent 1 and runs of axes that stay adjacent and in order are merged
 * before the work is planned, so e.g. AFTP -> ATPF is a batched 2-D transpose of
 * [F, T*P]. On a GPU the transpose goes through shared-memory tiles so that both
 * the reads and the writes of every warp are contiguous.
 *
 * @code
 *   blade_permutation* permutation;
 *   blade_permutation_config config = {BLADE_CF32, 4, {0, 2, 3, 1}};  // AFTP -> ATPF
 *   blade_shape shape = blade_shape_aftp(2, 192, 8192, 2);
 *   if (blade_permutation_create(&permutation, &config, &shape, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   // output shape: [2, 8192, 2, 192]
 *   blade_shape out_shape = blade_permutation_output_shape(permutation);
 *   blade_permutation_process(permutation, &input, &output, stream);
 *   blade_permutation_destroy(permutation);
 * @endcode
 */
#ifndef BLADE_PERMUTATION_H
#define BLADE_PERMUTATION_H

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Configuration of a permutation. */
typedef struct blade_permutation_config {
    blade_dtype dtype;        /**< element type (input and output) */
    int naxes;                /**< entries used in `axes`: the input's rank */
    int axes[BLADE_MAX_RANK]; /**< output axis i is input axis axes[i] */
} blade_permutation_config;

/** An opaque permutation plan. */
typedef struct blade_permutation blade_permutation;

/**
 * Validate the configuration and shape and prepare a permutation on `device`.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT if the shape is invalid, naxes differs
 *         from the shape's rank, or `axes` is not a permutation of 0 .. rank-1;
 *         ::BLADE_ERROR_NO_DEVICE for a CUDA device in a build or host without one.
 */
BLADE_CORE_API blade_status blade_permutation_create(blade_permutation** permutation,
                                                     const blade_permutation_config* config,
                                                     const blade_shape* input_shape,
                                                     blade_device device);

/** Output shape: (shape[axes[0]], shape[axes[1]], ...). */
BLADE_CORE_API blade_shape blade_permutation_output_shape(const blade_permutation* permutation);

/** True when the permutation leaves the memory layout unchanged (a plain copy). */
BLADE_CORE_API bool blade_permutation_is_identity(const blade_permutation* permutation);

/**
 * Permute `input` into `output` (types and shapes as created; both on the plan's
 * device; not overlapping unless the permutation is the identity and they are the
 * same memory). On CUDA the work is queued on `stream` and this returns at once.
 */
BLADE_CORE_API blade_status blade_permutation_process(blade_permutation* permutation,
                                                      const blade_tensor* input,
                                                      blade_tensor* output,
                                                      blade_stream stream);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_permutation_destroy(blade_permutation* permutation);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_PERMUTATION_H */
