/* SPDX-License-Identifier: MIT */
/*
 * What the beamformer's CUDA files share: element loads and stores (with the cf16 and
 * ci8 conversions fused into the load) and the launchers of the two kernels, called by the
 * dispatcher in beamformer.cu. Not installed.
 */
#ifndef BLADE_KERNELS_BEAMFORMER_KERNELS_H
#define BLADE_KERNELS_BEAMFORMER_KERNELS_H

#include "beamformer_backend.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace beamformer_cuda {

// ---------------------------------------------------------------------------------
// Element types

// int8 -> float without the I2F unit: on sm_90 I2F runs at 16 results per clock per
// SM, a 1/8 of the FP32 rate, and would cost the (B, A) = (8, 28) ci8 case half its
// arithmetic throughput. Instead the byte, made unsigned by flipping its sign bit
// (u = s + 128), is placed in the mantissa of 2^23 with one byte permute, and
// 2^23 + 128 is subtracted: exact, since both are integers below 2^24.
__device__ __forceinline__ float4 ci8x2_to_float4(uint32_t packed)
{
    const uint32_t biased = packed ^ 0x80808080u;
    const float offset = 8388736.0f; // 2^23 + 128
    return make_float4(__uint_as_float(__byte_perm(biased, 0x4b000000u, 0x7440)) - offset,
                       __uint_as_float(__byte_perm(biased, 0x4b000000u, 0x7441)) - offset,
                       __uint_as_float(__byte_perm(biased, 0x4b000000u, 0x7442)) - offset,
                       __uint_as_float(__byte_perm(biased, 0x4b000000u, 0x7443)) - offset);
}

__device__ __forceinline__ float2 ci8_to_float2(uint16_t packed)
{
    const float4 v = ci8x2_to_float4(packed);
    return make_float2(v.x, v.y);
}

// cf16 (one complex half, re in the low 16 bits) -> float2, exact.
__device__ __forceinline__ float2 cf16_to_float2(uint32_t packed)
{
    return __half22float2(*reinterpret_cast<const __half2*>(&packed));
}

// ---------------------------------------------------------------------------------
// Arithmetic of the CUDA-core kernels, shared so that they give the same bits

// acc + w x, as four fused multiply-adds in this order.
__device__ __forceinline__ float2 cmac(float2 acc, float2 w, float2 x)
{
    acc.x = fmaf(w.x, x.x, acc.x);
    acc.x = fmaf(-w.y, x.y, acc.x);
    acc.y = fmaf(w.x, x.y, acc.y);
    acc.y = fmaf(w.y, x.x, acc.y);
    return acc;
}

// |x|^2
__device__ __forceinline__ float power_of(float2 x) { return fmaf(x.x, x.x, x.y * x.y); }

// NaN is written as the canonical quiet NaN, as the CPU backend (and Cast) do.
__device__ __forceinline__ __half canonical_half(float value)
{
    const __half h = __float2half_rn(value);
    return __hisnan(h) ? __ushort_as_half(0x7e00) : h;
}

// One complex output element (cf32 or cf16) at element index i.
template <blade_dtype Out>
__device__ __forceinline__ void store_one(void* y, int64_t i, float2 v)
{
    if constexpr (Out == BLADE_CF16)
        static_cast<__half2*>(y)[i] = __halves2half2(canonical_half(v.x), canonical_half(v.y));
    else
        static_cast<float2*>(y)[i] = v;
}

// Two consecutive complex output elements at i, i + 1 (i aligned to two elements).
template <blade_dtype Out>
__device__ __forceinline__ void store_two(void* y, int64_t i, float2 a, float2 b)
{
    if constexpr (Out == BLADE_CF16) {
        __half2 h[2] = { __halves2half2(canonical_half(a.x), canonical_half(a.y)),
                         __halves2half2(canonical_half(b.x), canonical_half(b.y)) };
        *reinterpret_cast<uint2*>(static_cast<__half2*>(y) + i) = *reinterpret_cast<uint2*>(h);
    } else {
        *reinterpret_cast<float4*>(static_cast<float2*>(y) + i) = make_float4(a.x, a.y, b.x, b.y);
    }
}

// ---------------------------------------------------------------------------------
// Launchers (each checks its own launch)

// The CUDA-core kernel for beams [beam_begin, beam_begin + count) (count may be 0
// with incoherent set: the incoherent beam alone). Exact float32 sums.
blade_status launch_direct(const blade_beamformer_job& job,
                           int64_t beam_begin,
                           int64_t count,
                           bool incoherent,
                           cudaStream_t stream);

// The CUDA-core kernel with the phasors staged in shared memory
// (beamformer_staged.cu): the same sums as launch_direct, bit for bit, for all beams
// of the job (and the incoherent beam if the job asks), with 1 or 2 slots (pairs of
// elements sharing a phasor) per thread. It needs T*P even, slot-aligned tensors and
// the phasors of all antennas for at least 8 beams in shared memory; otherwise it
// sets *launched to false and queues nothing (the dispatcher runs launch_direct).
blade_status launch_staged(const blade_beamformer_job& job,
                           int slots_per_thread,
                           cudaStream_t stream,
                           bool* launched);

// The tensor-core kernels (sm_80 and newer): bytes of packed phasors they need, and
// the launch (phasor packing, then the matrix products). `split` selects tf32x3.
size_t tensor_workspace_bytes(const blade_beamformer_job& job);
bool tensor_output_aligned(const blade_beamformer_job& job);
blade_status launch_tensor(const blade_beamformer_job& job, bool split, cudaStream_t stream);

// The fp16 tensor-core kernel (beamformer_fp16.cu, sm_80 and newer): bytes of packed
// half phasors it needs, and the launch (phasor packing, then the matrix products).
// Any output alignment (unaligned outputs are stored element by element).
size_t fp16_workspace_bytes(const blade_beamformer_job& job);
blade_status launch_fp16(const blade_beamformer_job& job, cudaStream_t stream);

#ifdef BLADE_HOPPER_KERNELS
// The fp16 path on Hopper's wgmma (beamformer_fp16_hopper.cu, sm_90a): whether it runs
// the job on the current GPU (compute capability 9.0, whole 16-byte voltage rows, an
// output aligned for both polarizations' stores, the phasors in shared memory; not
// where $BLADE_BEAMFORMER_WGMMA is 0), and the products from phasors packed by
// launch_fp16 ([Fw][groups][packed_antennas][64][P] half2).
bool fp16_hopper_fits(const blade_beamformer_job& job);
blade_status launch_fp16_hopper(const blade_beamformer_job& job,
                                const __half2* packed,
                                int64_t packed_antennas,
                                int64_t groups,
                                cudaStream_t stream);
#else
inline bool fp16_hopper_fits(const blade_beamformer_job&) { return false; }
inline blade_status
launch_fp16_hopper(const blade_beamformer_job&, const __half2*, int64_t, int64_t, cudaStream_t)
{
    return BLADE_ERROR_UNSUPPORTED;
}
#endif

} // namespace beamformer_cuda

#endif
