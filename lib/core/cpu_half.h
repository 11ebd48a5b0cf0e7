/* SPDX-License-Identifier: MIT */
/*
 * Runs of IEEE binary16 values to and from float, for the CPU backend's half-precision
 * paths: the bits of half.h's blade_half_to_float and blade_half_from_float value by
 * value (round to nearest, ties to even; overflow to infinity; NaN as the canonical
 * quiet NaN), at the speed of the x86 F16C instructions where the CPU has them (every
 * x86-64-v3 machine), with half.h's loops elsewhere. The per-value conversions of
 * half.h, written out in integer arithmetic, do not vectorise: the cf16 paths ran 7 to
 * 14 times slower than the cf32 ones (docs/performance.md). Not installed.
 */
#ifndef BLADE_CORE_CPU_HALF_H
#define BLADE_CORE_CPU_HALF_H

#include <stdint.h>

/** out[i] = blade_half_to_float(in[i]) for i < n. */
void blade_halves_to_floats(float* restrict out, const uint16_t* restrict in, int64_t n);

/** out[i] = blade_half_from_float(in[i]) for i < n. */
void blade_floats_to_halves(uint16_t* restrict out, const float* restrict in, int64_t n);

#endif
