/* SPDX-License-Identifier: MIT */
/*
 * cpu_features.h: which of the CPU backend's hand-written vector paths this CPU may
 * run, read once as the library loads, in one place for every module (the half
 * conversions, streaming stores, transposes and the beamformer's register tiles).
 *
 * BLADE_CPU_ISA caps them, so that the narrower paths can be tested (and timed) on a
 * machine that has wider ones: `baseline` (no hand-written vector path), `avx2`
 * (AVX2, FMA and F16C where the CPU has them), `avx512` (x86-64-v4's AVX-512, without
 * AVX512-FP16 arithmetic), `avx512fp16` (everything; the same as unset). A cap never
 * enables what the CPU lacks; an unknown value is reported on stderr and ignored. The
 * compiler's clones (cpu_simd.h: the detector, polarizer and channelizer loops) are
 * picked by the loader from the CPU alone and are not capped. Not installed.
 */
#ifndef BLADE_CORE_CPU_FEATURES_H
#define BLADE_CORE_CPU_FEATURES_H

#include <stdbool.h>

/** The vector paths the backend may take on this CPU (after BLADE_CPU_ISA). */
typedef struct blade_cpu_features {
    bool avx2;       /**< AVX2: 256-bit integer and float vectors. */
    bool fma;        /**< AVX2 and FMA: fused multiply-adds (the AVX2 register tiles). */
    bool f16c;       /**< AVX2 and F16C: eight halves converted per instruction. */
    bool avx512;     /**< AVX-512 F, BW, VL and DQ, with AVX2, FMA and F16C (x86-64-v4,
                      *   as every AVX-512 CPU since Skylake-SP has): 512-bit arithmetic,
                      *   masks, 16 halves per conversion. */
    bool avx512fp16; /**< AVX-512 and AVX512-FP16: arithmetic on 32 halves at a time
                      *   (Sapphire Rapids and later); only in builds by GCC 12 or later. */
} blade_cpu_features;

/** This CPU's features, capped by BLADE_CPU_ISA; the same value for the life of the
 *  process. A function built with target("...") runs only where its flag is set. */
const blade_cpu_features* blade_cpu_features_get(void);

#endif
