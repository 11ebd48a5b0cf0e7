/* SPDX-License-Identifier: MIT */
/**
 * @file modules/beamformer.h
 * @brief Beamformer: weighted sums of antenna voltages into beams.
 *
 * For voltages x [A, F, T, P] and phasors w [B, A, F, 1, P] the coherent beams are
 *
 *     y[b, f, t, p] = sum_a x[a, f, t, p] * w[b, a, f, 0, p]        (no conjugation)
 *
 * written as the first B aspects of the output [B (+1), F, T, P]. The sum runs over
 * the antennas in increasing order, in float32.
 *
 * Optional **incoherent beam** (aspect index B): the power sum
 * sum_a |x[a, f, t, p] * w[0, a, f, 0, p]|^2 = sum_a |w[0, a, f, 0, p]|^2 |x|^2
 * (beam 0's phasors carry the calibration; the geometric phase has unit modulus), as a
 * real number in the real part, imaginary part 0. With `incoherent_sqrt` its square
 * root is written instead, so that a following detector squares it back to power.
 *
 * **MeerKAT-style weights**: phasors of shape [B, A] (one weight per beam and antenna,
 * shared by every channel and polarization) instead of [B, A, F, 1, P]; the same
 * formula with the weight broadcast.
 *
 * Any A, B, F and T (T = 1 after full channelization included); P is 1 or 2.
 * Voltages are cf32, cf16 (half-precision storage, e.g. from a cf16 channelizer) or ci8
 * (the GUPPI 8-bit layout); cf16 and ci8 are converted exactly while loading, so the
 * result is identical to a cast to cf32 followed by the cf32 beamformer. The output is
 * cf32 or cf16 (rounded to nearest even when stored). Phasors are cf32.
 *
 * **Paths** (blade_beamformer_path): on the CPU (and the emulated device) every path
 * but `fp16` computes the float32 sum; `fp16` is emulated there (voltages and phasors
 * rounded to half, then the float32 sum), so that CPU and GPU agree to float32
 * accumulation order. On a CUDA GPU:
 * - `fp32`: a CUDA-core kernel, exact float32 sums (fused multiply-adds), memory bound
 *   for few beams, FP32 bound beyond; beams are processed in tiles, so time grows
 *   linearly with B.
 * - `tf32`: a tensor-core matrix product per (channel, polarization) with TF32 inputs
 *   (10-bit mantissa) and float32 accumulation. Error bound per output:
 *   |error| <= 2^-10 * sum_a |x_a||w_a| (RMS about 4e-5 of it); ci8 voltages are
 *   exact in TF32, so then only the phasors are rounded.
 * - `tf32x3`: the same with each operand split into two TF32 parts (3 products, 2 for
 *   ci8 input): float32 accuracy at tensor-core speed.
 * - `fp16`: tensor cores with half operands (mma.sync m16n8k16, sm_80 and newer) and
 *   float32 accumulation: voltages and phasors are rounded to half (round to nearest
 *   even; ci8 and cf16 voltages are exact, cf32 voltages must lie within the half range,
 *   |x| <= 65504, or become infinite), the products of halves are exact in float32.
 *   Error per output about 2^-11 sum_a |x_a||w_a| from the operand rounding (RMS of
 *   the docs' measurement). The incoherent beam stays float32 (CUDA cores, operands
 *   not rounded). The fastest path: 4-8 times tf32.
 * - `auto`: `tf32x3` when A >= 32, B >= 32 and T >= 64 (where the FP32 kernel is
 *   compute bound and the matrix product pays), else `fp32`. `auto` never chooses
 *   the lower-precision `tf32` or `fp16`: only an explicit path changes the accuracy.
 *
 * @code
 *   blade_beamformer* bf;
 *   blade_beamformer_config config = blade_beamformer_config_default();
 *   config.incoherent = true;
 *   blade_shape voltages = blade_shape_aftp(20, 192, 8192, 2);
 *   int64_t w[5] = {8, 20, 192, 1, 2};
 *   blade_shape phasors;
 *   blade_shape_make(w, 5, &phasors);
 *   if (blade_beamformer_create(&bf, &config, &voltages, &phasors, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   blade_beamformer_process(bf, &input, &phasor_tensor, &output, stream);
 *   blade_beamformer_destroy(bf);
 * @endcode
 *
 * **Kernels** (blade_beamformer_kernel): how a path is computed on a GPU, for
 * benchmarking and tuning. Every kernel of a path computes the same sums (the
 * CUDA-core kernels give identical bits; see docs/blocks/beamformer.md, "Kernels").
 * `default` lets the library choose; a CUDA-core kernel (direct, staged1, staged2)
 * needs the path fp32 and a tensor-core kernel (tensor) tf32, tf32x3 or fp16; with path
 * `auto`, a CUDA-core kernel makes the path fp32 and a tensor-core kernel tf32x3.
 * Ignored on the CPU and the emulated device.
 *
 * A plan owns a device workspace (the tensor-core paths repack the phasors into it),
 * so one plan must not process on two streams at once.
 */
#ifndef BLADE_BEAMFORMER_H
#define BLADE_BEAMFORMER_H

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How the beam sums are computed on a GPU (the CPU always computes float32 sums). */
typedef enum blade_beamformer_path {
    BLADE_BEAMFORMER_AUTO = 0, /**< tf32x3 for large A and B on a GPU, else fp32 */
    BLADE_BEAMFORMER_FP32,     /**< float32 on CUDA cores (the reference precision) */
    BLADE_BEAMFORMER_TF32,     /**< tensor cores, TF32 inputs, float32 accumulation */
    BLADE_BEAMFORMER_TF32X3,   /**< tensor cores, split TF32 operands: float32 accuracy */
    BLADE_BEAMFORMER_FP16,     /**< tensor cores, operands rounded to half, float32 accumulation */
    BLADE_BEAMFORMER_PATH_COUNT
} blade_beamformer_path;

/**
 * Which GPU kernel computes the path. The staged kernels fall back to `direct` for
 * chunks they do not cover (T*P odd, tensors not aligned for their vector loads, or
 * more antennas than shared memory holds phasors of 8 beams for).
 */
typedef enum blade_beamformer_kernel {
    BLADE_BEAMFORMER_KERNEL_DEFAULT = 0, /**< the library's choice for the path */
    BLADE_BEAMFORMER_KERNEL_DIRECT, /**< fp32: phasors read from global memory before each use */
    BLADE_BEAMFORMER_KERNEL_STAGED1, /**< fp32: phasors staged in shared memory, 2 elements per thread */
    BLADE_BEAMFORMER_KERNEL_STAGED2, /**< fp32: phasors staged in shared memory, 4 elements per thread */
    BLADE_BEAMFORMER_KERNEL_TENSOR, /**< tf32, tf32x3, fp16: 64 beams x 128 columns per block */
    BLADE_BEAMFORMER_KERNEL_COUNT
} blade_beamformer_kernel;

/** Configuration of a beamformer. */
typedef struct blade_beamformer_config {
    blade_dtype input_type;         /**< voltages: BLADE_CF32, BLADE_CF16 or BLADE_CI8 */
    blade_dtype output_type;        /**< beams: BLADE_CF32 or BLADE_CF16 */
    bool incoherent;                /**< append the incoherent beam (aspect index B) */
    bool incoherent_sqrt;           /**< write sqrt of the incoherent power */
    blade_beamformer_path path;     /**< how to compute on a GPU */
    blade_beamformer_kernel kernel; /**< which GPU kernel (DEFAULT: the library's choice) */
} blade_beamformer_config;

/** An opaque beamformer plan. */
typedef struct blade_beamformer blade_beamformer;

/** cf32 in, cf32 out, no incoherent beam, automatic path, default kernel. */
BLADE_CORE_API blade_beamformer_config blade_beamformer_config_default(void);

/** "auto", "fp32", "tf32", "tf32x3", "fp16" (or "unknown"). */
BLADE_CORE_API const char* blade_beamformer_path_name(blade_beamformer_path path);

/**
 * Parse a path name (case-insensitive).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming the accepted names if unknown.
 */
BLADE_CORE_API blade_status blade_beamformer_path_parse(const char* name,
                                                        blade_beamformer_path* path);

/** "default", "direct", "staged1", "staged2", "tensor" (or "unknown"). */
BLADE_CORE_API const char* blade_beamformer_kernel_name(blade_beamformer_kernel kernel);

/**
 * Parse a kernel name (case-insensitive).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming the accepted names if unknown.
 */
BLADE_CORE_API blade_status blade_beamformer_kernel_parse(const char* name,
                                                          blade_beamformer_kernel* kernel);

/**
 * Validate and prepare a beamformer on `device`.
 *
 * `input_shape` is [A, F, T, P] with P in {1, 2}; `phasor_shape` is [B, A, F, 1, P]
 * (per channel and polarization) or [B, A] (one weight per beam and antenna). A
 * phasor shape that does not fit the input is refused with a message naming the
 * axis, what was expected and what was given.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for bad shapes or types,
 *         ::BLADE_ERROR_NO_DEVICE for a CUDA device in a build or host without one,
 *         ::BLADE_ERROR_OUT_OF_MEMORY if the device workspace cannot be allocated.
 */
BLADE_CORE_API blade_status blade_beamformer_create(blade_beamformer** plan,
                                                    const blade_beamformer_config* config,
                                                    const blade_shape* input_shape,
                                                    const blade_shape* phasor_shape,
                                                    blade_device device);

/** Output shape: [B, F, T, P], or [B + 1, F, T, P] with the incoherent beam. */
BLADE_CORE_API blade_shape blade_beamformer_output_shape(const blade_beamformer* plan);

/** The phasor shape the plan was made for. */
BLADE_CORE_API blade_shape blade_beamformer_phasor_shape(const blade_beamformer* plan);

/** Number of coherent beams B. */
BLADE_CORE_API int64_t blade_beamformer_beams(const blade_beamformer* plan);

/**
 * The path the plan computes with: the resolved `auto`; on the CPU and the emulated
 * device ::BLADE_BEAMFORMER_FP16 for an explicit `fp16` (emulated), else
 * ::BLADE_BEAMFORMER_FP32.
 */
BLADE_CORE_API blade_beamformer_path blade_beamformer_path_used(const blade_beamformer* plan);

/**
 * The GPU kernel the plan runs (`default` resolved for the path; a staged kernel may
 * still fall back to `direct` per chunk, see ::blade_beamformer_kernel), and
 * ::BLADE_BEAMFORMER_KERNEL_DEFAULT on the CPU and the emulated device (no GPU kernel).
 */
BLADE_CORE_API blade_beamformer_kernel blade_beamformer_kernel_used(const blade_beamformer* plan);

/**
 * Beamform one chunk: `input` [A, F, T, P] of the input type, `phasors` cf32 of the
 * phasor shape, `output` of the output type and shape, all on the plan's device and
 * not overlapping. On CUDA the work is queued on `stream` and this returns at once.
 */
BLADE_CORE_API blade_status blade_beamformer_process(blade_beamformer* plan,
                                                     const blade_tensor* input,
                                                     const blade_tensor* phasors,
                                                     blade_tensor* output,
                                                     blade_stream stream);

/** Release the plan and its workspace (NULL is ignored). */
BLADE_CORE_API void blade_beamformer_destroy(blade_beamformer* plan);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_BEAMFORMER_H */
