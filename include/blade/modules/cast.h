/* SPDX-License-Identifier: MIT */
/**
 * @file modules/cast.h
 * @brief Cast: element-wise type conversion of a tensor.
 *
 * Real part to real part, imaginary part to imaginary part; no scaling unless
 * blade_cast_config::scale asks for it (each value is then multiplied by the scale in
 * float, double for the real types, before the conversion rounds it once). Conversions
 * to floating point keep the value (to f16/cf16: rounded to nearest even; values
 * beyond the half range become infinities, as IEEE conversion does). Conversions to
 * integer types round to nearest (ties to even) and saturate at the type's limits
 * (int8: -128..127, ci4: -8..7): the only defined outcome for out-of-range values.
 * NaN converts to 0 in integer outputs and to the canonical quiet NaN in
 * floating-point outputs (so both backends write identical bits).
 *
 * Supported pairs: any of {ci4, ci8, ci16, cf16, cf32} to any of the same set, and
 * any of {f16, f32, f64} to any of the same set. Complex-to-real and real-to-complex
 * casts are rejected at creation. Identical types are a pass-through (a plain copy
 * when input and output are different buffers, nothing when they are the same).
 *
 * Usage follows the plan pattern of every core module:
 * @code
 *   blade_cast* cast;
 *   blade_cast_config config = {BLADE_CI8, BLADE_CF32};
 *   blade_shape shape = blade_shape_aftp(20, 192, 8192, 2);
 *   if (blade_cast_create(&cast, &config, &shape, blade_device_cpu()) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   blade_cast_process(cast, &input, &output, NULL);
 *   blade_cast_destroy(cast);
 * @endcode
 */
#ifndef BLADE_CAST_H
#define BLADE_CAST_H

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Configuration of a cast. */
typedef struct blade_cast_config {
    blade_dtype input_type;  /**< element type read */
    blade_dtype output_type; /**< element type written */
    /** Multiply every value by this before converting; 0 (a zero-initialised config)
     *  means 1, no scaling. A power of two changes no mantissa: a half-precision
     *  chain uses 2^-k to keep a channelizer's gain of up to 2^k within half's range. */
    float scale;
} blade_cast_config;

/** An opaque cast plan. */
typedef struct blade_cast blade_cast;

/** True if casting `from` to `to` is supported. */
BLADE_CORE_API bool blade_cast_supported(blade_dtype from, blade_dtype to);

/**
 * Validate the configuration and shape and prepare a cast on `device`.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for a bad shape, ::BLADE_ERROR_UNSUPPORTED
 *         for a type pair that cannot be cast, ::BLADE_ERROR_NO_DEVICE for a CUDA
 *         device in a build or host without one.
 */
BLADE_CORE_API blade_status blade_cast_create(blade_cast** cast,
                                              const blade_cast_config* config,
                                              const blade_shape* input_shape,
                                              blade_device device);

/** Output shape (equal to the input shape). */
BLADE_CORE_API blade_shape blade_cast_output_shape(const blade_cast* cast);

/**
 * Convert `input` into `output` (types and shapes as created; both on the plan's
 * device). On CUDA the work is queued on `stream` and this returns at once.
 *
 * **In place.** Between types of one size per element (a scaled cf32 → cf32,
 * ci16 ↔ cf16, an identical pair) `output` may be `input` itself (the same address):
 * element i is read before element i, and no other, is written, so the result is
 * bit for bit the out-of-place one. A narrowing or widening cast cannot run in place
 * (its threads would overwrite elements others have yet to read).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT, naming the module and both sizes, when the
 *         output overlaps the input in any other way (in place between types of
 *         different sizes, or a partial overlap).
 */
BLADE_CORE_API blade_status blade_cast_process(blade_cast* cast,
                                               const blade_tensor* input,
                                               blade_tensor* output,
                                               blade_stream stream);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_cast_destroy(blade_cast* cast);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_CAST_H */
