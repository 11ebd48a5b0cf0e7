/* SPDX-License-Identifier: MIT */
/**
 * @file modules/correlator.h
 * @brief Correlator (the X of an FX correlator): every baseline and polarization
 *        product of channelized voltages, integrated over time and channels.
 *
 * **Input**: voltages x [A, F, T, P] (the channelizer's output, any rate), cf32 or
 * ci8, P = 1 or 2 (X at index 0, Y at index 1). **Output**: cf32
 * [B, F/Fc, T/I, P²] (or [B, F/Fc, 1, P²] when I is a multiple of T), where
 * B = A(A+1)/2 baselines, autocorrelations included:
 *
 *     V[b(i, j), g, τ, p·P + q] = Σ_{c=0}^{Fc−1} Σ_{t=τ·I}^{τ·I+I−1} x[i, g·Fc + c, t, p] · conj(x[j, g·Fc + c, t, q])
 *
 * **Conventions**:
 * - Baselines have i ≤ j and are ordered row by row of the upper triangle:
 *   (0,0), (0,1), …, (0,A−1), (1,1), (1,2), …, (A−1,A−1); the index of (i, j) is
 *   b = i·A − i(i−1)/2 + (j − i) (blade_correlator_baseline_index()).
 * - The first antenna of a baseline is the unconjugated one: V_ij = x_i · conj(x_j),
 *   as the detector's X·Y* and the usual V_12 = ⟨E_1 E_2*⟩. For voltages that turn
 *   as e^{+2πiνt} (an upper-sideband recording, the project's sign: the synthesizer's
 *   x_a(t) = e(t + τ_a)) a point source gives V_ij = exp(2πiν(τ_i − τ_j)), where τ_a is
 *   the time by which the wavefront reaches antenna a early: with b = r_j − r_i,
 *   V_ij = exp(−2πi b·s/λ).
 * - **UVH5 / pyuvdata** phases data as V = exp(+2πi b·s/λ) with
 *   b = uvw = xyz(ant2) − xyz(ant1), i.e. conj(x_ant1)·x_ant2 for such voltages.
 *   A UVH5 file therefore holds ant_1 = i, ant_2 = j, uvw = position(j) −
 *   position(i) and the data **conj(V_ij)**: gnuradio.blade.formats.uvh5 conjugates when it
 *   writes (no product moves: conj of XY_ij is pyuvdata's XY of (i, j)), and
 *   tests/python/check_correlator_uvh5.py shows that pyuvdata then rephases a
 *   synthesized source to zero phase. (pyuvdata names its convention
 *   "ant1·conj(ant2)" for voltages of the opposite time sign.)
 * - Products in the order XX, XY, YX, YY for P = 2 (p·2 + q; XY = x_i,X · conj(x_j,Y)):
 *   UVH5 polarization numbers −5, −7, −8, −6. P = 1 gives one product.
 *   Autocorrelations hold XY and YX too (YX_ii = conj(XY_ii)); XX_ii and YY_ii are
 *   real (their imaginary parts are exactly 0 on the CPU).
 * - Units: the square of the input's units, **summed** (not averaged) over the I
 *   time samples and the Fc channels of an output, like the detector's powers.
 * - Lower-sideband bands (CHAN_BW < 0) record the sky's conjugate voltages; with
 *   config.lower_sideband the outputs are conjugated so that they are the sky's.
 *
 * **Integration across chunks**, exactly as the detector: the time integration I is
 * a divisor of T (T/I outputs per chunk) or a multiple of T: K = I/T chunks (a group)
 * then give one output chunk; the plan keeps an accumulator between process() calls,
 * the first step of a group overwrites it, the others add, and only the last step
 * writes the output. blade_correlator_steps() gives K, blade_correlator_position()
 * the step of the next call. The channel integration Fc must divide F.
 *
 * **Paths** (blade_correlator_path). On the CPU and the emulated device every path
 * but `fp32` computes the reference: products and sums in double precision, rounded
 * to float once (the across-chunk accumulator is double too). `fp32` there (where
 * gr-blade is built with OpenBLAS; the reference otherwise, as
 * blade_correlator_path_used() says) sums each chunk in float32 with BLAS's
 * Hermitian rank-k update (cblas_cherk, 5 to 7 times faster), within the CUDA fp32
 * path's bound below; across chunks it adds in double. On a CUDA GPU:
 * - `fp32` (and `auto`): CUDA cores, float32 products and sums (fused multiply-adds):
 *   each output is summed sequentially over its samples by one thread, so its error
 *   is that of an n-term float32 sum, |error| ≤ n·2^-24·Σ|x_i||x_j| (typically
 *   √n·2^-24 of it).
 * - `fp16`: tensor cores (compute capability 8.0 or newer), the voltages multiplied
 *   by `operand_scale` and rounded to fp16, products accumulated in float32, the
 *   sums divided by operand_scale². Each operand's rounding adds at most
 *   2^-11 relative, so |error| ≤ (2^-10 + 2^-22 + n·2^-24)·Σ|x_i||x_j| (n·2^-23 where
 *   the tensor cores truncate their float32 sums). ci8 voltages are exact in fp16
 *   and not scaled (then only the float32 accumulation rounds). |operand_scale · x|
 *   must stay below 65504 (fp16's largest value); values beyond it become infinite.
 * Every output is computed in an order fixed by the shapes and the integration alone,
 * with no atomics: repeated runs give identical bits on a given backend and GPU model.
 *
 * @code
 *   blade_correlator* correlator;
 *   blade_correlator_config config = blade_correlator_config_default();
 *   config.integration = 8192;                 // one output per chunk
 *   config.channel_integration = 4;            // sum 4 adjacent fine channels
 *   blade_shape shape = blade_shape_aftp(28, 192, 8192, 2);
 *   if (blade_correlator_create(&correlator, &config, &shape, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   blade_correlator_process(correlator, &voltages, &visibilities, stream);  // [406, 48, 1, 4]
 *   blade_correlator_destroy(correlator);
 * @endcode
 */
#ifndef BLADE_CORRELATOR_H
#define BLADE_CORRELATOR_H

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

/** How the products are computed (on the CPU: the fp64 reference, or float32 BLAS for fp32). */
typedef enum blade_correlator_path {
    BLADE_CORRELATOR_AUTO = 0, /**< fp32 on a GPU, fp64 on the CPU */
    BLADE_CORRELATOR_FP64,     /**< the CPU reference: double products and sums (CPU only) */
    BLADE_CORRELATOR_FP32,     /**< CUDA cores, float32; on the CPU float32 BLAS (cherk) */
    BLADE_CORRELATOR_FP16,     /**< tensor cores, fp16 operands, float32 accumulation */
    BLADE_CORRELATOR_PATH_COUNT
} blade_correlator_path;

/** Configuration of a correlator. */
typedef struct blade_correlator_config {
    blade_dtype input_type; /**< voltages: BLADE_CF32 or BLADE_CI8 */
    int64_t integration; /**< time samples summed per output: a divisor of T, or a multiple of T */
    int64_t
        channel_integration;    /**< adjacent channels summed per output (Fc, divides F); 1: none */
    blade_correlator_path path; /**< how to compute (see Paths above) */
    /** Tensor-core path with cf32 voltages only: the voltages are multiplied by this
     *  before they are rounded to fp16 and the sums divided by its square (a power of
     *  two keeps that exact). 0 means 1. Choose it so that |scale · x| < 65504 and
     *  the smallest voltages stay above fp16's normal range (6.1e-5). ci8 voltages
     *  are exact in fp16 and are never scaled. */
    float operand_scale;
    /** The voltages are of a lower-sideband band (the sky's conjugates): every output
     *  is conjugated. */
    bool lower_sideband;
} blade_correlator_config;

/** An opaque correlator plan. */
typedef struct blade_correlator blade_correlator;

/** cf32 input, integration 1, no channel integration, path auto, scale 1, upper sideband. */
BLADE_CORE_API blade_correlator_config blade_correlator_config_default(void);

/** "auto", "fp64", "fp32", "fp16" (or "unknown"). */
BLADE_CORE_API const char* blade_correlator_path_name(blade_correlator_path path);

/**
 * Parse a path name (case-insensitive).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming the accepted names if unknown.
 */
BLADE_CORE_API blade_status blade_correlator_path_parse(const char* name,
                                                        blade_correlator_path* path);

/** Baselines of `antennas` antennas, autocorrelations included: A(A+1)/2 (0 for A < 1). */
BLADE_CORE_API int64_t blade_correlator_baselines(int64_t antennas);

/** Index of baseline (i, j), 0 ≤ i ≤ j < A, in the output; −1 for a pair outside that. */
BLADE_CORE_API int64_t blade_correlator_baseline_index(int64_t antennas, int64_t i, int64_t j);

/**
 * Antennas (i, j), i ≤ j, of baseline `index` (0 ≤ index < A(A+1)/2).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for an index outside that range.
 */
BLADE_CORE_API blade_status blade_correlator_baseline_antennas(int64_t antennas,
                                                               int64_t index,
                                                               int64_t* i,
                                                               int64_t* j);

/**
 * Validate and prepare a correlator for voltages of `input_shape` [A, F, T, P].
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for a shape that is not [A, F, T, 1 or 2], an
 *         input type other than cf32 and ci8, an integration that neither divides T
 *         nor is a multiple of it, a channel integration that does not divide F, a
 *         negative or non-finite operand scale, or path fp64 on a GPU;
 *         ::BLADE_ERROR_UNSUPPORTED for the tensor-core path on a GPU older than
 *         compute capability 8.0; ::BLADE_ERROR_NO_DEVICE for an absent GPU;
 *         ::BLADE_ERROR_OUT_OF_MEMORY when the accumulator or workspace cannot be had.
 */
BLADE_CORE_API blade_status blade_correlator_create(blade_correlator** correlator,
                                                    const blade_correlator_config* config,
                                                    const blade_shape* input_shape,
                                                    blade_device device);

/** Output shape: [B, F/Fc, T/I, P²], or [B, F/Fc, 1, P²] when I is a multiple of T. */
BLADE_CORE_API blade_shape blade_correlator_output_shape(const blade_correlator* correlator);

/** The path the plan computes with: on the CPU and the emulated device
 *  ::BLADE_CORRELATOR_FP32 where fp32 was asked for and BLAS is built in, else
 *  ::BLADE_CORRELATOR_FP64; on a GPU the resolved `auto` (fp32) or the path asked for. */
BLADE_CORE_API blade_correlator_path blade_correlator_path_used(const blade_correlator* correlator);

/** Input chunks per output chunk (K = I/T when I > T, else 1). */
BLADE_CORE_API int64_t blade_correlator_steps(const blade_correlator* correlator);

/** Position in its group (0 … K−1) of the step the next process() call will be. */
BLADE_CORE_API int64_t blade_correlator_position(const blade_correlator* correlator);

/** Start a new group: the next process() call is step 0 (after a gap in the data, say). */
BLADE_CORE_API void blade_correlator_reset(blade_correlator* correlator);

/** Whether the voltages are of a lower-sideband band from the next process() on
 *  (blade_correlator_config::lower_sideband). */
BLADE_CORE_API void blade_correlator_set_lower_sideband(blade_correlator* correlator,
                                                        bool lower_sideband);

/**
 * Correlate one input chunk. With K = 1 every call writes `output`; with K > 1 the
 * chunk is added to the plan's accumulator and the last step of the group writes the
 * group's total (earlier steps leave `output` untouched). `input` is of the
 * configured type and the plan's input shape, `output` cf32 of
 * blade_correlator_output_shape(), both on the plan's device. On CUDA the work is
 * queued on `stream` and the plan's accumulator and workspace are reused in stream
 * order: keep one plan on one stream.
 */
BLADE_CORE_API blade_status blade_correlator_process(blade_correlator* correlator,
                                                     const blade_tensor* input,
                                                     blade_tensor* output,
                                                     blade_stream stream);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_correlator_destroy(blade_correlator* correlator);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_CORRELATOR_H */
