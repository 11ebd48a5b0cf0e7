/* SPDX-License-Identifier: MIT */
/*
 * The half-precision operands of the beamformer's fp16 tensor-core kernels (mma.sync:
 * beamformer_fp16.cu; wgmma: beamformer_fp16_hopper.cu), which both use the real block
 * form with each antenna's real and imaginary parts adjacent along k: a 32-bit operand
 * word is one complex value as a half2 {Re, Im}. Here: the words of a phasor's two
 * rows (or columns) of the block matrix, and a voltage of a pipeline stage as words,
 * converted exactly from ci8, taken as they are from cf16, rounded to nearest from
 * cf32. Only compiled for sm_80 or newer (BLADE_CP_ASYNC). Not installed.
 */
#ifndef BLADE_KERNELS_BEAMFORMER_HALF_OPERANDS_H
#define BLADE_KERNELS_BEAMFORMER_HALF_OPERANDS_H

#include "beamformer_kernels.h"
#include "cp_async.h"

#include <cuda_fp16.h>

namespace beamformer_cuda {
namespace {

#ifdef BLADE_CP_ASYNC

__device__ __forceinline__ uint32_t half2_bits(__half2 v)
{
    return *reinterpret_cast<uint32_t*>(&v);
}

// The words of phasor w = {Wr, Wi} (half2, Wr in the low half) in the block matrix: the
// row (or column) of Re y takes {Wr, -Wi}, that of Im y {Wi, Wr}.
__device__ __forceinline__ uint32_t real_row(uint32_t w) { return w ^ 0x80000000u; }
__device__ __forceinline__ uint32_t imaginary_row(uint32_t w) { return __byte_perm(w, 0u, 0x1032); }

// Two ci8 complex values (re0, im0, re1, im1 as int8, re0 lowest) -> two half2, exact:
// each byte, sign-flipped to u = s + 128, becomes the mantissa of 1024 + u (half
// 0x6400 | u), and 1152 = 1024 + 128 (half 0x6480) is subtracted.
__device__ __forceinline__ void ci8x2_to_half2(uint32_t packed, uint32_t& first, uint32_t& second)
{
    const uint32_t biased = packed ^ 0x80808080u;
    const __half2 offset = __half2half2(__ushort_as_half(0x6480));
    const uint32_t lo = __byte_perm(biased, 0x64646464u, 0x4140);
    const uint32_t hi = __byte_perm(biased, 0x64646464u, 0x4342);
    first = half2_bits(__hsub2(*reinterpret_cast<const __half2*>(&lo), offset));
    second = half2_bits(__hsub2(*reinterpret_cast<const __half2*>(&hi), offset));
}

// The voltage of one (antenna, time) of a stage at `at` (its P polarizations adjacent,
// as in memory) as half2 words, one per polarization.
template <blade_dtype In, int P>
__device__ __forceinline__ void voltage_words(const char* at, uint32_t (&v)[P])
{
    if constexpr (In == BLADE_CF16) {
        if constexpr (P == 2) {
            const uint2 q = *reinterpret_cast<const uint2*>(at);
            v[0] = q.x;
            v[1] = q.y;
        } else {
            v[0] = *reinterpret_cast<const uint32_t*>(at);
        }
    } else if constexpr (In == BLADE_CF32) {
        if constexpr (P == 2) {
            const float4 q = *reinterpret_cast<const float4*>(at);
            v[0] = half2_bits(__floats2half2_rn(q.x, q.y));
            v[1] = half2_bits(__floats2half2_rn(q.z, q.w));
        } else {
            const float2 q = *reinterpret_cast<const float2*>(at);
            v[0] = half2_bits(__floats2half2_rn(q.x, q.y));
        }
    } else {
        if constexpr (P == 2) {
            ci8x2_to_half2(*reinterpret_cast<const uint32_t*>(at), v[0], v[1]);
        } else {
            uint32_t unused;
            ci8x2_to_half2(*reinterpret_cast<const uint16_t*>(at), v[0], unused);
        }
    }
}

#endif // BLADE_CP_ASYNC

} // namespace
} // namespace beamformer_cuda

#endif
