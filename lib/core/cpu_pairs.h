/* SPDX-License-Identifier: MIT */
/*
 * The two polarizations of a run of samples, between the interleaved layout of the
 * voltages ([t][X, Y], complex) and one plane per polarization (X[t], Y[t]), for the
 * CPU backend's packing passes (the channelizer's transforms and the beamformer's
 * matrix products take planes). Each is a copy, a conversion that is exact (int8 to
 * float) or an exact sign flip, so every clone (cpu_simd.h) gives the same bits as the
 * scalar loop it replaces.
 *
 * With __builtin_shufflevector the loops take a register's worth of samples per step
 * (eight with AVX-512, four with AVX2, two in SSE2), as two vectors that one shuffle
 * each splits or joins; the compiler's own vectorisation of the scalar loops moved
 * each float alone (the channelizer's split of N = 8192 took 10 us per row in cache,
 * 4x what this takes). Defined in cpu_pairs.c, one function per vector width, picked
 * from the CPU's features (cpu_features.h). Not installed.
 */
#ifndef BLADE_CORE_CPU_PAIRS_H
#define BLADE_CORE_CPU_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

/** X[t] = s(t) x[t][X], Y[t] = s(t) x[t][Y] for t < n, where s(t) = (-1)^t if
 *  `alternate` (the sign bit flipped, as unary minus does, NaN included), else 1. */
void blade_split_pairs(
    float* restrict X, float* restrict Y, const float* restrict x, int64_t n, bool alternate);

/** The same from ci8 samples (x[t] = (Xr, Xi, Yr, Yi) bytes), each converted exactly. */
void blade_split_pairs_ci8(float* restrict X,
                           float* restrict Y,
                           const int8_t* restrict x,
                           int64_t n);

/** blade_split_pairs from cf16 samples, each widened exactly (cpu_half.h). */
void blade_split_pairs_half(
    float* restrict X, float* restrict Y, const uint16_t* restrict x, int64_t n, bool alternate);

/** y[t] = (X[t], Y[t]) for t < n: the planes interleaved again. */
void blade_join_pairs(float* restrict y,
                      const float* restrict X,
                      const float* restrict Y,
                      int64_t n);

/** blade_join_pairs into cf16, each value rounded to half once (cpu_half.h). */
void blade_join_pairs_half(uint16_t* restrict y,
                           const float* restrict X,
                           const float* restrict Y,
                           int64_t n);

#endif
