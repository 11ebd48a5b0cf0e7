/* SPDX-License-Identifier: MIT */
/*
 * What the correlator's CUDA files share: how a chunk's work is cut into thread
 * blocks, where a block's sums go, and the launchers of the two kernels, called by
 * the dispatcher in correlator.cu. Not installed.
 *
 * Work decomposition (both kernels). The correlation matrix of one channel is cut
 * into square tiles of the upper triangle (tile rows ti <= tile columns tj); a block
 * computes one tile for one output channel g (summing its Fc input channels), one
 * time window w, and one slice s of that window. With one slice the block writes the
 * outputs itself (adding the previous group's partial sums and conjugating for a
 * lower sideband); with several, each writes its slice's sums to the workspace and a
 * second kernel adds the slices in a fixed order. Slices exist only to fill the GPU
 * when tiles x channels x windows are few; every sum's order depends on the shapes
 * and the GPU's multiprocessor count alone, so repeated runs give identical bits.
 */
#ifndef BLADE_KERNELS_CORRELATOR_KERNELS_H
#define BLADE_KERNELS_CORRELATOR_KERNELS_H

#include "correlator_backend.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace correlator_cuda {

// Samples per shared-memory stage in both kernels, and so the granularity of slices.
constexpr int kStageTimes = 32;

struct Grid {
    const void* input;
    int antennas, pols;
    int64_t channels, times;
    int64_t window, windows; // samples per window, windows per chunk
    int64_t fc, groups;      // channels summed per output, output channels
    int64_t slice;           // samples per slice (a multiple of kStageTimes)
    int64_t slices;          // slices per window
    int64_t tiles;           // tiles of the upper triangle
    int tiles_per_side;
    int64_t outputs;        // complex outputs of the chunk: B * groups * windows * P * P
    const float2* previous; // slices == 1: added to the sums (may alias destination)
    float2* destination;    // slices == 1: the accumulator or the output
    float2* partial;        // slices > 1: [slices][outputs]
    float output_scale;     // multiplies every sum (1 / operand_scale^2 for fp16)
    bool lower_sideband;
};

// Block index -> (tile row, tile column, group, window, slice). The tile varies
// fastest: blocks running together read the same channel and samples from L2.
struct BlockWork {
    int ti, tj;
    int64_t g, w, s;
};

__device__ inline BlockWork block_work(const Grid& grid, int64_t block)
{
    BlockWork work;
    int64_t tile = block % grid.tiles;
    int64_t rest = block / grid.tiles;
    work.s = rest % grid.slices;
    rest /= grid.slices;
    work.w = rest % grid.windows;
    work.g = rest / grid.windows;
    // Row by row over the upper triangle of tiles (at most a few dozen rows).
    int row = 0;
    while (tile >= grid.tiles_per_side - row) {
        tile -= grid.tiles_per_side - row;
        row++;
    }
    work.ti = row;
    work.tj = row + static_cast<int>(tile);
    return work;
}

// Index of baseline (i, j), i <= j, as in the public header.
__device__ inline int64_t baseline_index(int64_t antennas, int64_t i, int64_t j)
{
    return i * antennas - i * (i - 1) / 2 + (j - i);
}

// Samples [begin, end) of the chunk that slice s of window w covers.
__device__ inline void
slice_bounds(const Grid& grid, const BlockWork& work, int64_t* begin, int64_t* end)
{
    const int64_t window_end = (work.w + 1) * grid.window;
    *begin = work.w * grid.window + work.s * grid.slice;
    *end = *begin + grid.slice < window_end ? *begin + grid.slice : window_end;
}

// Write one sum of baseline (i, j), product q, for the block's work.
__device__ inline void
store_sum(const Grid& grid, const BlockWork& work, int64_t baseline, int product, float2 sum)
{
    const int products = grid.pols * grid.pols;
    const int64_t at =
        ((baseline * grid.groups + work.g) * grid.windows + work.w) * products + product;
    sum.x *= grid.output_scale;
    sum.y *= grid.output_scale;
    if (grid.slices > 1) {
        grid.partial[work.s * grid.outputs + at] = sum;
        return;
    }
    if (grid.lower_sideband)
        sum.y = -sum.y;
    if (grid.previous != nullptr) {
        const float2 before = grid.previous[at];
        sum.x += before.x;
        sum.y += before.y;
    }
    grid.destination[at] = sum;
}

// Launchers (each checks its own launch). `blocks` = tiles * groups * windows * slices.
blade_status
launch_fp32(const blade_correlator_job& job, const Grid& grid, int64_t blocks, cudaStream_t stream);
blade_status
launch_fp16(const blade_correlator_job& job, const Grid& grid, int64_t blocks, cudaStream_t stream);

// Antennas per tile side of the fp32 kernel, and inputs (antenna, polarization) per
// tile side of the two tensor-core kernels: they decide the tile counts.
int fp32_tile_antennas(int64_t antennas);
constexpr int kTensorTileInputs = 64; // correlator_tensor.cu
constexpr int kWideTileInputs = 128;  // correlator_tensor_wide.cu

// The tensor-core tile of a job's shapes on the current GPU: kWideTileInputs for more
// than 64 inputs where the wide kernel's copies and shared memory allow, else
// kTensorTileInputs. The wide kernel also needs a 16-byte aligned input, which the
// dispatcher checks per chunk.
int tensor_tile_inputs(const blade_correlator_job& job);
blade_status launch_fp16_wide(const blade_correlator_job& job,
                              const Grid& grid,
                              int64_t blocks,
                              cudaStream_t stream);

// The same 128-input tiles on Hopper's wgmma (correlator_tensor_hopper.cu, built for
// sm_90a where the build has 90 among its architectures): which of its kernels runs a
// job's tiles on the current GPU (compute capability 9.0 with its shared memory):
// int8 operands with exact int32 sums for ci8 voltages, fp16 otherwise; none where
// $BLADE_CORRELATOR_WGMMA is 0 (the mma.sync kernel), fp16 for ci8 too where it is
// "fp16" (tests and benchmarks set these to compare the kernels). The int8 kernel's
// int32 sums hold kInt8BlockSamples samples of a block (32768 x 2 x 128^2 < 2^31):
// plan_grid cuts windows into slices no longer, and channel integration beyond
// kInt8BlockSamples / kStageTimes channels runs the fp16 kernel.
enum class HopperKernel { none, fp16, int8 };
constexpr int64_t kInt8BlockSamples = 32768;
#ifdef BLADE_HOPPER_KERNELS
HopperKernel hopper_kernel(const blade_correlator_job& job);
blade_status launch_hopper(const blade_correlator_job& job,
                           HopperKernel kernel,
                           const Grid& grid,
                           int64_t blocks,
                           cudaStream_t stream);
#else
inline HopperKernel hopper_kernel(const blade_correlator_job&) { return HopperKernel::none; }
inline blade_status
launch_hopper(const blade_correlator_job&, HopperKernel, const Grid&, int64_t, cudaStream_t)
{
    return BLADE_ERROR_UNSUPPORTED;
}
#endif

} // namespace correlator_cuda

#endif
