/* SPDX-License-Identifier: MIT */
/**
 * @file modules/detector.h
 * @brief Detector: voltages to power, integrated over time, within and across chunks.
 *
 * Input: a cf32 voltage tensor [A, F, T, P] with P = 2 (X at index 0, Y at index 1;
 * P = 1 is accepted by the modes that make sense with one polarization, i.e. mode
 * I, which is then the total power Σ|X|²). Output: f32 [A, F, T/I, Pout], the power
 * **summed** (not averaged) over I consecutive samples t = τ·I … τ·I + I − 1:
 *
 * | mode  | Pout | outputs                                                       |
 * |-------|------|---------------------------------------------------------------|
 * | I     | 1    | Σ(|X|² + |Y|²)                                                |
 * | XXYY  | 2    | Σ|X|², Σ|Y|²                                                  |
 * | cross | 4    | Σ|X|², Σ|Y|², Σ Re(X·Y*), Σ Im(X·Y*)   (upstream BLADE's 4-pol) |
 * | IQUV  | 4    | I = XX + YY, Q = XX − YY, U = 2 Re(X·Y*), V = −2 Im(X·Y*)      |
 *
 * where XX = Σ|X|², YY = Σ|Y|² and X·Y* is summed likewise (IAU Stokes parameters for
 * linear feeds; after a polarizer to the circular basis the same formulas give the
 * circular-basis products). For a lower-sideband band (config.lower_sideband) the
 * voltages are the sky's conjugates and Im(X·Y*) changes sign.
 *
 * **Integration across chunks.** The integration I is in time samples. When I
 * divides T, each chunk gives T/I output samples. When I is larger than T it must
 * be a multiple of T: then K = I/T consecutive chunks (a *group*) give one output
 * chunk [A, F, 1, Pout]. The plan keeps an accumulator between process() calls: the
 * first step of a group overwrites it, the following steps add to it, and the last
 * step writes the group's total to the output. Only that last step writes the
 * output; the others leave it untouched. blade_detector_steps() gives K and
 * blade_detector_position() the step the next call will be.
 *
 * **Determinism.** Every output value is computed by one thread in an order fixed by
 * I alone (the CPU sums in double precision in lanes fixed by the code and rounds
 * once; the GPU sums each sample run sequentially and combines runs in a fixed tree,
 * in single precision), so repeated runs give identical bits on a given backend. No
 * atomics are used. The two backends agree to float32 rounding (relative 1e-5 for
 * sums of powers).
 *
 * @code
 *   blade_detector* detector;
 *   blade_detector_config config = {BLADE_DETECT_IQUV, 8};
 *   blade_shape shape = blade_shape_aftp(16, 192, 8192, 2);
 *   if (blade_detector_create(&detector, &config, &shape, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   blade_detector_process(detector, &voltages, &power, stream);  // [16, 192, 1024, 4]
 *   blade_detector_destroy(detector);
 * @endcode
 */
#ifndef BLADE_DETECTOR_H
#define BLADE_DETECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What the detector computes (see the table in this file's description). */
typedef enum blade_detector_mode {
    BLADE_DETECT_I = 0,     /**< Stokes I: Σ(|X|² + |Y|²), Pout = 1 */
    BLADE_DETECT_XXYY = 1,  /**< Σ|X|², Σ|Y|², Pout = 2 */
    BLADE_DETECT_CROSS = 2, /**< Σ|X|², Σ|Y|², Σ Re(XY*), Σ Im(XY*), Pout = 4 */
    BLADE_DETECT_IQUV = 3   /**< Stokes I, Q, U, V (IAU, linear feeds), Pout = 4 */
} blade_detector_mode;

/** Configuration of a detector. */
typedef struct blade_detector_config {
    blade_detector_mode mode; /**< products to compute */
    int64_t integration; /**< time samples summed per output: a divisor of T, or a multiple of T */
    /** The voltages are of a lower-sideband band (CHAN_BW < 0): the conjugates of the
     *  sky signal's, so Im(X·Y*) is negated (cross: the 4th output; IQUV: V) to give
     *  the sky's, as rawspec does. Total powers, XX, YY, Re(X·Y*), Q and U do not
     *  change. */
    bool lower_sideband;
    /** Every output is multiplied by this (0, a zero-initialised config, means 1): a
     *  half-precision chain that scaled its voltages by 2^-k to stay within half's
     *  range gives 2^2k here, and the power comes out at the fp32 chain's scale (a
     *  power of two changes no mantissa). */
    float scale;
} blade_detector_config;

/** An opaque detector plan. */
typedef struct blade_detector blade_detector;

/** Name of a mode ("I", "XXYY", "cross", "IQUV"), or "unknown". */
BLADE_CORE_API const char* blade_detector_mode_name(blade_detector_mode mode);

/**
 * Parse a mode name ("I", "XXYY", "cross", "IQUV"; case-insensitive).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming the accepted names if unknown.
 */
BLADE_CORE_API blade_status blade_detector_mode_parse(const char* name, blade_detector_mode* mode);

/** Output values per sample of a mode (Pout: 1, 2 or 4; 0 for an unknown mode). */
BLADE_CORE_API int blade_detector_mode_outputs(blade_detector_mode mode);

/**
 * Validate and prepare a detector for voltages of `input_shape` [A, F, T, P] (cf32
 * or cf16: the type is the input tensor's, given at each process() call).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for a shape that is not [A, F, T, 1 or 2], a
 *         mode that needs two polarizations on P = 1, or an integration that neither
 *         divides T nor is a multiple of it; ::BLADE_ERROR_NO_DEVICE for an absent GPU.
 */
BLADE_CORE_API blade_status blade_detector_create(blade_detector** detector,
                                                  const blade_detector_config* config,
                                                  const blade_shape* input_shape,
                                                  blade_device device);

/** Output shape: [A, F, T/I, Pout], or [A, F, 1, Pout] when I is a multiple of T. */
BLADE_CORE_API blade_shape blade_detector_output_shape(const blade_detector* detector);

/** Input chunks per output chunk (K = I/T when I > T, else 1). */
BLADE_CORE_API int64_t blade_detector_steps(const blade_detector* detector);

/** Position in its group (0 … K−1) of the step the next process() call will be. */
BLADE_CORE_API int64_t blade_detector_position(const blade_detector* detector);

/** Start a new group: the next process() call is step 0 (after a gap in the data, say). */
/**
 * Whether the voltages are of a lower-sideband band from the next process() on
 * (blade_detector_config::lower_sideband): a block learns it from the chunks' channel
 * width once it sees them.
 */
BLADE_CORE_API void blade_detector_set_lower_sideband(blade_detector* detector,
                                                      bool lower_sideband);

BLADE_CORE_API void blade_detector_reset(blade_detector* detector);

/**
 * Detect one input chunk. With K = 1 every call writes `output`. With K > 1 the
 * call adds the chunk to the plan's accumulator, and the last step of the group
 * writes the group's total into `output` (earlier steps leave it untouched).
 * `input` is cf32 or cf16 [A, F, T, P] (cf16 is widened to float as it is read: the
 * result is that of its cast to cf32, and the sums keep their precision, double on
 * the CPU and float on CUDA), `output` f32 of blade_detector_output_shape(), both
 * on the plan's device and not overlapping (::BLADE_ERROR_INVALID_ARGUMENT if they
 * do: the detector never runs in place, as its threads would write power over
 * voltages other threads have yet to read). On CUDA the work is queued on `stream`: the accumulator is
 * then reused by the next call in stream order, so keep one plan on one stream.
 */
BLADE_CORE_API blade_status blade_detector_process(blade_detector* detector,
                                                   const blade_tensor* input,
                                                   blade_tensor* output,
                                                   blade_stream stream);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_detector_destroy(blade_detector* detector);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_DETECTOR_H */
