/* SPDX-License-Identifier: MIT */
/**
 * @file modules/polarizer.h
 * @brief Polarizer: linear to circular polarization basis, per sample.
 *
 * The input is a cf32 or cf16 tensor whose last axis holds the two linear polarizations
 * (P = 2; usually [A, F, T, P]), X at index 0 and Y at index 1. Converting to the
 * circular basis writes, for every sample,
 *
 *     out[..., 0] = X + i·Y      (labelled L, left-hand circular)
 *     out[..., 1] = X − i·Y      (labelled R, right-hand circular)
 *
 * with no 1/√2 factor, so |L|² + |R|² = 2 (|X|² + |Y|²): total power doubles. The
 * labels follow upstream BLADE (index 0 = L, index 1 = R). Whether X + i·Y is
 * physically left- or right-handed depends on the feed's handedness convention (IEEE
 * or IAU) and on the sign of the time dependence the receiver's mixing gives the
 * voltages; a system with the opposite convention swaps the two outputs. Nothing
 * else changes: the relation is exactly the formula above.
 *
 * Asking for the linear basis (the input's own) is a pass-through: a plain copy when
 * input and output are different buffers, nothing when they are the same. Input and
 * output may be the same buffer in either basis (every sample is read before its own
 * outputs are written).
 *
 * @code
 *   blade_polarizer* polarizer;
 *   blade_polarizer_config config = {BLADE_BASIS_CIRCULAR};
 *   blade_shape shape = blade_shape_aftp(16, 192, 8192, 2);
 *   if (blade_polarizer_create(&polarizer, &config, &shape, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   blade_polarizer_process(polarizer, &input, &output, stream);
 *   blade_polarizer_destroy(polarizer);
 * @endcode
 */
#ifndef BLADE_POLARIZER_H
#define BLADE_POLARIZER_H

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A polarization basis. */
typedef enum blade_basis {
    BLADE_BASIS_LINEAR = 0,  /**< X, Y (the input of every gr-blade chain) */
    BLADE_BASIS_CIRCULAR = 1 /**< L = X + iY at index 0, R = X − iY at index 1 */
} blade_basis;

/** Configuration of a polarizer. The input basis is always linear. */
typedef struct blade_polarizer_config {
    blade_basis output_basis; /**< circular: convert; linear: pass-through */
} blade_polarizer_config;

/** An opaque polarizer plan. */
typedef struct blade_polarizer blade_polarizer;

/** Lower-case name of a basis ("linear", "circular"), or "unknown". */
BLADE_CORE_API const char* blade_basis_name(blade_basis basis);

/**
 * Parse a basis name ("linear" or "circular", case-insensitive).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming the accepted names if unknown.
 */
BLADE_CORE_API blade_status blade_basis_parse(const char* name, blade_basis* basis);

/**
 * Validate and prepare a polarizer for tensors of `input_shape` on `device` (cf32 or
 * cf16: the type is the tensors', given at each process() call).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT when the last axis is not 2 polarizations
 *         or the basis is unknown, ::BLADE_ERROR_NO_DEVICE for an absent GPU.
 */
BLADE_CORE_API blade_status blade_polarizer_create(blade_polarizer** polarizer,
                                                   const blade_polarizer_config* config,
                                                   const blade_shape* input_shape,
                                                   blade_device device);

/** Output shape (equal to the input shape). */
BLADE_CORE_API blade_shape blade_polarizer_output_shape(const blade_polarizer* polarizer);

/**
 * Convert `input` into `output` (both cf32 or both cf16, the created shape, on the
 * plan's device). In place: `output` may be `input` itself (the same address), on
 * both backends, bit for bit the out-of-place result (each pair is read whole before
 * its two values are written); a partial overlap is refused
 * (::BLADE_ERROR_INVALID_ARGUMENT). cf16 values are widened to float,
 * combined, and rounded to half once (round to nearest even), on both backends
 * alike. On CUDA the work is queued on `stream`.
 */
BLADE_CORE_API blade_status blade_polarizer_process(blade_polarizer* polarizer,
                                                    const blade_tensor* input,
                                                    blade_tensor* output,
                                                    blade_stream stream);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_polarizer_destroy(blade_polarizer* polarizer);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_POLARIZER_H */
