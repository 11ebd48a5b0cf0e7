/* SPDX-License-Identifier: MIT */
/**
 * @file modules/duplicate.h
 * @brief Duplicate: independent copies of a tensor (fan-out without aliasing).
 *
 * Writes `copies` identical, independent copies of the input tensor, for any element
 * type: afterwards each output can be modified without touching the input or the
 * other outputs. On a GPU the input is read once and written `copies` times, so two
 * copies move 3 tensor sizes rather than the 4 of two separate copies.
 *
 * The copies are this module's work, not transfers between memories: they are not
 * counted by blade_copy_stats_get(), which counts host/device transfers only.
 *
 * @code
 *   blade_duplicate* duplicate;
 *   blade_duplicate_config config = {BLADE_CF32, 2};
 *   blade_shape shape = blade_shape_aftp(20, 192, 8192, 2);
 *   if (blade_duplicate_create(&duplicate, &config, &shape, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   blade_tensor outputs[2] = {first, second};
 *   blade_duplicate_process(duplicate, &input, outputs, 2, stream);
 *   blade_duplicate_destroy(duplicate);
 * @endcode
 */
#ifndef BLADE_DUPLICATE_H
#define BLADE_DUPLICATE_H

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most copies one plan writes (a block has at most this many outputs). */
#define BLADE_DUPLICATE_MAX_COPIES 64

/** Configuration of a duplicate. */
typedef struct blade_duplicate_config {
    blade_dtype dtype; /**< element type of the input and of every copy */
    int copies;        /**< number of outputs, 1 to ::BLADE_DUPLICATE_MAX_COPIES */
} blade_duplicate_config;

/** An opaque duplicate plan. */
typedef struct blade_duplicate blade_duplicate;

/**
 * Validate the configuration and shape and prepare a duplicate on `device`.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for a bad shape, type or copy count,
 *         ::BLADE_ERROR_NO_DEVICE for a CUDA device in a build or host without one.
 */
BLADE_CORE_API blade_status blade_duplicate_create(blade_duplicate** duplicate,
                                                   const blade_duplicate_config* config,
                                                   const blade_shape* input_shape,
                                                   blade_device device);

/** Output shape (equal to the input shape). */
BLADE_CORE_API blade_shape blade_duplicate_output_shape(const blade_duplicate* duplicate);

/**
 * Copy `input` into each of the `count` tensors of `outputs` (`count` must equal the
 * configured number of copies; types and shapes as created). An output may not
 * overlap the input or another output. On CUDA the work is queued on `stream`.
 */
BLADE_CORE_API blade_status blade_duplicate_process(blade_duplicate* duplicate,
                                                    const blade_tensor* input,
                                                    blade_tensor* outputs,
                                                    int count,
                                                    blade_stream stream);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_duplicate_destroy(blade_duplicate* duplicate);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_DUPLICATE_H */
