/* SPDX-License-Identifier: MIT */
/*
 * How both correlator kernels bring a stage of samples from global memory: every
 * thread owns fixed (antenna, time) units of the stage (consecutive threads take
 * consecutive times of one antenna: contiguous P-sample runs in memory), issues all
 * of its loads at once into registers, and the kernel writes those registers to
 * shared memory in its own layout after the previous stage has been used. The loads
 * of stage s + 1 are issued before stage s is computed, so they are in flight during
 * its maths. Before this, each thread loaded, converted and stored one element at a
 * time: at the ATA node (A = 28, one tile per channel) the kernels waited on one
 * load after another and read 0.7 TB/s of a 4.8 TB/s memory.
 *
 * A block's stages run over its channels (Fc of them) and, in each, over its slice's
 * samples in steps of kStageTimes; `StageWalk` numbers them. Not installed.
 */
#ifndef BLADE_KERNELS_CORRELATOR_STAGE_H
#define BLADE_KERNELS_CORRELATOR_STAGE_H

#include "correlator_kernels.h"

namespace correlator_cuda {

// The stored form of one complex sample.
template <blade_dtype In>
struct StoredSample;
template <>
struct StoredSample<BLADE_CI8> {
    using type = char2;
    __device__ static char2 zero() { return make_char2(0, 0); }
    __device__ static char2 load(const void* input, int64_t index)
    {
        return static_cast<const char2*>(input)[index];
    }
};
template <>
struct StoredSample<BLADE_CF32> {
    using type = float2;
    __device__ static float2 zero() { return make_float2(0.0f, 0.0f); }
    __device__ static float2 load(const void* input, int64_t index)
    {
        return __ldg(static_cast<const float2*>(input) + index);
    }
};

// The stages of a block: channel f = g Fc + s / per_channel, first sample
// begin + (s % per_channel) kStageTimes.
struct StageWalk {
    int64_t first_channel, begin, end, per_channel, count;

    __device__ StageWalk(const Grid& grid, const BlockWork& work)
    {
        slice_bounds(grid, work, &begin, &end);
        first_channel = work.g * grid.fc;
        per_channel = end > begin ? (end - begin + kStageTimes - 1) / kStageTimes : 0;
        count = grid.fc * per_channel;
    }
    __device__ int64_t channel(int64_t s) const { return first_channel + s / per_channel; }
    __device__ int64_t first_time(int64_t s) const
    {
        return begin + (s % per_channel) * kStageTimes;
    }
};

// The registers of one thread holding its units of a stage of kAntennas antennas
// (the P samples of one antenna at one time per unit); units past the last antenna
// or past the slice's end hold zeros. kOneIndex: how a unit's index is formed (below).
template <int kAntennas, int P, int kThreads, blade_dtype In, bool kOneIndex = true>
struct StageFetch {
    using Sample = StoredSample<In>;
    static constexpr int kUnits = kAntennas * kStageTimes;
    static constexpr int kPerThread = (kUnits + kThreads - 1) / kThreads;
    typename Sample::type v[kPerThread][P];

    __device__ static int antenna(int i) { return (threadIdx.x + i * kThreads) / kStageTimes; }
    __device__ static int time(int i) { return (threadIdx.x + i * kThreads) % kStageTimes; }
    __device__ static bool owned(int i)
    {
        return kUnits % kThreads == 0 || threadIdx.x + i * kThreads < kUnits;
    }

    // A thread's units share its time (kThreads is a multiple of kStageTimes) and step
    // kThreads / kStageTimes antennas. kOneIndex: one 64-bit index per stage, then a
    // constant stride per unit; else each unit's index worked out in full. Measured on
    // an H100 (alternating, correlator_fp32.cu and correlator_tensor.cu): one index made
    // the tensor-core kernel at A = 28 1.21x faster (cf32) and the fp32 kernel's cf32
    // 32-antenna tiles (A = 64 .. 256) 1.13-1.15x, but the fp32 kernel's cf32 16-antenna
    // tiles (A = 28) and ci8 32-antenna tiles 4-8 % slower: those keep the full index.
    static_assert(kThreads % kStageTimes == 0, "units of a thread share their time");
    static constexpr int kAntennaStep = kThreads / kStageTimes;

    __device__ __forceinline__ void
    fetch(const Grid& grid, const StageWalk& walk, int64_t s, int first_antenna)
    {
        if constexpr (kOneIndex) {
            const int64_t f = walk.channel(s), t = walk.first_time(s) + time(0);
            const int a0 = first_antenna + antenna(0);
            const int64_t first = ((a0 * grid.channels + f) * grid.times + t) * P;
            const int64_t stride = kAntennaStep * grid.channels * grid.times * P;
            const bool in_time = t < walk.end;
#pragma unroll
            for (int i = 0; i < kPerThread; i++) {
                const bool inside = owned(i) && in_time && a0 + i * kAntennaStep < grid.antennas;
#pragma unroll
                for (int p = 0; p < P; p++)
                    v[i][p] =
                        inside ? Sample::load(grid.input, first + i * stride + p) : Sample::zero();
            }
        } else {
            const int64_t f = walk.channel(s), t0 = walk.first_time(s);
#pragma unroll
            for (int i = 0; i < kPerThread; i++) {
                const int a = first_antenna + antenna(i);
                const int64_t t = t0 + time(i);
                const bool inside = owned(i) && a < grid.antennas && t < walk.end;
                const int64_t first = ((a * grid.channels + f) * grid.times + t) * P;
#pragma unroll
                for (int p = 0; p < P; p++)
                    v[i][p] = inside ? Sample::load(grid.input, first + p) : Sample::zero();
            }
        }
    }
};

} // namespace correlator_cuda

#endif
