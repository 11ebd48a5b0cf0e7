/* SPDX-License-Identifier: MIT */
/**
 * @file modules/gather.h
 * @brief Gather: M consecutive chunks concatenated along one axis into one chunk.
 *
 * A gather of multiplier M along axis k turns M input chunks of shape S into one
 * output chunk whose shape is S with S[k]·M, exactly
 * `numpy.concatenate([chunk0, …, chunk(M−1)], axis=k)`: chunk j fills indices
 * j·S[k] … (j+1)·S[k] − 1 of axis k. Along the time axis of [A, F, T, P] voltages it
 * makes one long chunk of M·T samples (for a high-resolution channelizer after a
 * beamformer, say). Any element type; the bytes are copied unchanged. M = 1 is a
 * plain copy.
 *
 * The plan is stateless: each call places one input chunk at a given step of the
 * output, so the caller decides the order (and may run the M steps on one stream as
 * they arrive).
 *
 * @code
 *   blade_gather* gather;
 *   blade_gather_config config = {BLADE_CF32, 2, 64};        // along T, 64 chunks
 *   blade_shape shape = blade_shape_aftp(5, 192, 8192, 2);
 *   if (blade_gather_create(&gather, &config, &shape, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   for (int step = 0; step < 64; step++)
 *       blade_gather_process(gather, &chunk[step], step, &long_chunk, stream);
 *   blade_gather_destroy(gather);
 * @endcode
 */
#ifndef BLADE_GATHER_H
#define BLADE_GATHER_H

#include <stdint.h>

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Configuration of a gather. */
typedef struct blade_gather_config {
    blade_dtype dtype;  /**< element type (any) */
    int axis;           /**< axis to concatenate along, 0 … rank − 1 */
    int64_t multiplier; /**< M: input chunks per output chunk, at least 1 */
} blade_gather_config;

/** An opaque gather plan. */
typedef struct blade_gather blade_gather;

/**
 * Validate and prepare a gather of chunks of `input_shape` on `device`.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for an axis outside the shape's rank, a
 *         multiplier below 1 or an unknown element type; ::BLADE_ERROR_NO_DEVICE for
 *         an absent GPU.
 */
BLADE_CORE_API blade_status blade_gather_create(blade_gather** gather,
                                                const blade_gather_config* config,
                                                const blade_shape* input_shape,
                                                blade_device device);

/** Output shape: the input shape with the gathered axis M times longer. */
BLADE_CORE_API blade_shape blade_gather_output_shape(const blade_gather* gather);

/**
 * Copy `input` into its place in `output` as step `step` (0 … M − 1) of the group:
 * indices step·S[k] … (step+1)·S[k] − 1 of the gathered axis. Both tensors on the
 * plan's device, not overlapping (::BLADE_ERROR_INVALID_ARGUMENT if they do: a gather
 * never runs in place); on CUDA the copy is queued on `stream`.
 */
BLADE_CORE_API blade_status blade_gather_process(blade_gather* gather,
                                                 const blade_tensor* input,
                                                 int64_t step,
                                                 blade_tensor* output,
                                                 blade_stream stream);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_gather_destroy(blade_gather* gather);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_GATHER_H */
