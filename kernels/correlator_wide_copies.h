/* SPDX-License-Identifier: MIT */
/*
 * How the two 128-input tensor-core correlator kernels (correlator_tensor_wide.cu on
 * mma.sync, correlator_tensor_hopper.cu on Hopper's wgmma) bring a stage of samples
 * to shared memory: each side of a tile (its rows' antennas, or its columns') is
 * copied as it is stored in global memory, an antenna's samples [time][pol], by
 * 16-byte cp.async copies that hold no registers while in flight. Not installed.
 */
#ifndef BLADE_KERNELS_CORRELATOR_WIDE_COPIES_H
#define BLADE_KERNELS_CORRELATOR_WIDE_COPIES_H

#include "correlator_kernels.h"
#include "correlator_stage.h"
#include "cp_async.h"

namespace correlator_cuda {

constexpr int kWideThreads = 256; // both 128-input kernels run blocks of 8 warps

// One side of a raw stage in shared memory: the side's antennas, each a row of
// kStageTimes * P samples as stored ([time][pol]).
template <blade_dtype In, int P>
struct RawSide {
    using Element = typename StoredSample<In>::type;
    static constexpr int kBytes = sizeof(Element);
    static constexpr int kAntennas = kWideTileInputs / P;
    static constexpr int kRow = kStageTimes * P; // elements per antenna row
    static constexpr int kElements = kAntennas * kRow;
    static constexpr int kTimesPerCopy = 16 / (P * kBytes);
    static constexpr int kCopiesPerRow = kStageTimes / kTimesPerCopy;
    static constexpr int kCopiesPerThread = kAntennas * kCopiesPerRow / kWideThreads;
    static_assert(kAntennas * kCopiesPerRow % kWideThreads == 0, "whole copies per thread");
    static_assert(kRow * kBytes % 16 == 0, "rows keep the 16-byte copies aligned");
};

#ifdef BLADE_CP_ASYNC
// Copies of one side of stage (channel f, samples from t0) into `side`; antennas past
// the array and samples past `end` are filled with zeros.
template <blade_dtype In, int P>
__device__ __forceinline__ void fetch_side(const Grid& grid,
                                           int64_t f,
                                           int64_t t0,
                                           int64_t end,
                                           int first_antenna,
                                           typename RawSide<In, P>::Element* side)
{
    using S = RawSide<In, P>;
    const auto* input = static_cast<const typename S::Element*>(grid.input);
#pragma unroll
    for (int i = 0; i < S::kCopiesPerThread; i++) {
        const int copy = threadIdx.x + i * kWideThreads;
        const int antenna = copy / S::kCopiesPerRow, piece = copy % S::kCopiesPerRow;
        const int a = first_antenna + antenna;
        const int64_t t = t0 + piece * S::kTimesPerCopy;
        const bool valid = a < grid.antennas && t < end;
        const auto* from = valid ? input + ((a * grid.channels + f) * grid.times + t) * P : input;
        cp_async16(side + antenna * S::kRow + piece * S::kTimesPerCopy * P, from, valid);
    }
}
#endif

} // namespace correlator_cuda

#endif
