// SPDX-License-Identifier: MIT
//
// Correlator dispatcher: how many time slices a chunk's windows are cut into (enough
// thread blocks to fill the GPU, no more), the workspace those slices need, the
// launch of the fp32 or one of the tensor-core kernels (64- or 128-input tiles, the
// latter on mma.sync or, on Hopper, wgmma with fp16 or, for ci8, int8 operands),
// and the kernel that adds the slices in a fixed order. See correlator_kernels.h for
// the decomposition.

#include "correlator_kernels.h"
#include "cuda_check.h"

#include <algorithm>

namespace correlator_cuda {
namespace {

constexpr int kReduceThreads = 256;
// Thread blocks per multiprocessor that the slices aim at: a few resident blocks per
// SM hide each other's loads, and a tail of partly filled waves costs little then.
constexpr int kBlocksPerMultiprocessor = 8;

// The 128-input tiles' kernels hold one block per SM (their shared memory) and keep
// their own copies in flight: more slices than fill the GPU only add partial sums to
// write and add, but a last wave of blocks that leaves SMs idle costs its share. Their
// slice count is the smallest that gives at least one block per SM with the last wave
// at least 90 % full. Measured on an H100 (docs/correlator.md): A = 64 (192 tiles x
// channels) took 2 slices rather than 6, 1.16x (cf32) and 1.30x (ci8) faster; A = 128
// (576) ran 1.12x slower (cf32) with 1 slice (4.4 waves) than with 2.
int64_t wide_tile_slices(int64_t base, int64_t stages)
{
    const int64_t sms = blade_cuda_multiprocessors();
    int64_t slices = std::max<int64_t>(1, sms / std::max<int64_t>(base, 1));
    for (; slices < stages; slices++) {
        const int64_t blocks = base * slices, waves = (blocks + sms - 1) / sms;
        if (blocks >= sms && 10 * blocks >= 9 * waves * sms)
            break;
    }
    return std::min(slices, std::max<int64_t>(stages, 1));
}

// `tile_inputs`: the tensor-core kernel's tile side in inputs (path fp16 only).
int64_t tiles_per_side(const blade_correlator_job& job, int tile_inputs)
{
    if (job.path == BLADE_CORRELATOR_FP16) {
        const int64_t inputs = job.antennas * job.pols;
        return (inputs + tile_inputs - 1) / tile_inputs;
    }
    const int64_t side = fp32_tile_antennas(job.antennas);
    return (job.antennas + side - 1) / side;
}

// The most samples one block may sum for a job on a tile size (the int8 kernel's
// int32 sums); 0: no limit.
int64_t block_sample_limit(const blade_correlator_job& job, int tile_inputs)
{
    return tile_inputs == kWideTileInputs && hopper_kernel(job) == HopperKernel::int8
               ? kInt8BlockSamples
               : 0;
}

// The grid without pointers: tiles, slices, and the output count.
Grid plan_grid(const blade_correlator_job& job, int tile_inputs)
{
    Grid grid{};
    grid.antennas = static_cast<int>(job.antennas);
    grid.pols = static_cast<int>(job.pols);
    grid.channels = job.channels;
    grid.times = job.times;
    grid.window = job.window;
    grid.windows = job.windows;
    grid.fc = job.channel_integration;
    grid.groups = job.channels / job.channel_integration;
    grid.tiles_per_side = static_cast<int>(tiles_per_side(job, tile_inputs));
    grid.tiles = static_cast<int64_t>(grid.tiles_per_side) * (grid.tiles_per_side + 1) / 2;
    grid.outputs =
        blade_correlator_baselines(job.antennas) * grid.groups * grid.windows * job.pols * job.pols;
    // ci8 voltages are exact in fp16 and are not scaled.
    const bool scaled = job.path == BLADE_CORRELATOR_FP16 && job.input_type == BLADE_CF32;
    grid.output_scale = scaled ? 1.0f / (job.operand_scale * job.operand_scale) : 1.0f;
    grid.lower_sideband = job.lower_sideband;
    // Slices: only when the other axes leave the GPU short of blocks.
    const int64_t base = grid.tiles * grid.groups * grid.windows;
    const int64_t target =
        static_cast<int64_t>(kBlocksPerMultiprocessor) * blade_cuda_multiprocessors();
    const int64_t stages = (job.window + kStageTimes - 1) / kStageTimes;
    int64_t slices = base >= target ? 1 : std::min<int64_t>((target + base - 1) / base, stages);
    if (tile_inputs == kWideTileInputs)
        slices = wide_tile_slices(base, stages);
    slices = std::max<int64_t>(slices, 1);
    int64_t per_slice = (stages + slices - 1) / slices; // stages
    const int64_t limit = block_sample_limit(job, tile_inputs);
    if (limit > 0) // a block sums Fc channels of its slice
        per_slice = std::min(per_slice,
                             std::max<int64_t>(1, limit / (kStageTimes * job.channel_integration)));
    grid.slice = per_slice * kStageTimes;
    grid.slices = (job.window + grid.slice - 1) / grid.slice; // no empty slice
    return grid;
}

// destination[k] = previous[k] + the slices' partial sums of output k, added in slice
// order, conjugated for a lower sideband. `previous` may alias `destination`.
__global__ void add_slices_kernel(const float2* __restrict__ partial,
                                  int64_t outputs,
                                  int64_t slices,
                                  bool lower_sideband,
                                  const float2* previous,
                                  float2* destination)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < outputs;
         k += stride) {
        float2 sum = partial[k];
        for (int64_t s = 1; s < slices; s++) {
            const float2 v = partial[s * outputs + k];
            sum.x += v.x;
            sum.y += v.y;
        }
        if (lower_sideband)
            sum.y = -sum.y;
        if (previous != nullptr) {
            const float2 before = previous[k];
            sum.x += before.x;
            sum.y += before.y;
        }
        destination[k] = sum;
    }
}

// Workspace bytes of a plan: its slices' partial sums.
size_t workspace_bytes(const Grid& grid)
{
    return grid.slices > 1 ? static_cast<size_t>(grid.slices) * static_cast<size_t>(grid.outputs) *
                                 sizeof(float2)
                           : 0;
}

} // namespace
} // namespace correlator_cuda

using namespace correlator_cuda;

// Path fp16 plans for the narrow tile too: a chunk whose input is not 16-byte aligned
// runs the 64-input kernel whatever the shapes allow.
extern "C" size_t blade_cuda_correlator_workspace(const blade_correlator_job* job)
{
    if (job->path != BLADE_CORRELATOR_FP16)
        return workspace_bytes(plan_grid(*job, 0));
    return std::max(workspace_bytes(plan_grid(*job, tensor_tile_inputs(*job))),
                    workspace_bytes(plan_grid(*job, kTensorTileInputs)));
}

extern "C" blade_status blade_cuda_correlate(const blade_correlator_job* job,
                                             const float* previous,
                                             float* destination,
                                             void* stream_handle)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    const size_t alignment = job->input_type == BLADE_CF32 ? 8 : 2;
    if (reinterpret_cast<uintptr_t>(job->input) % alignment != 0 ||
        reinterpret_cast<uintptr_t>(destination) % 8 != 0)
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "correlator: CUDA tensors must be aligned to their elements (cudaMalloc memory "
            "and gr-blade items are)");
    int tile_inputs = job->path == BLADE_CORRELATOR_FP16 ? tensor_tile_inputs(*job) : 0;
    if (tile_inputs == kWideTileInputs && reinterpret_cast<uintptr_t>(job->input) % 16 != 0)
        tile_inputs = kTensorTileInputs;
    Grid grid = plan_grid(*job, tile_inputs);
    grid.input = job->input;
    grid.previous = reinterpret_cast<const float2*>(previous);
    grid.destination = reinterpret_cast<float2*>(destination);
    if (grid.slices > 1) {
        const size_t needed =
            static_cast<size_t>(grid.slices) * static_cast<size_t>(grid.outputs) * sizeof(float2);
        if (job->workspace == nullptr || job->workspace_bytes < needed)
            return blade_fail(
                BLADE_ERROR_INVALID_ARGUMENT,
                "correlator: %lld time slices need %zu bytes of workspace, the plan has %zu",
                static_cast<long long>(grid.slices),
                needed,
                job->workspace_bytes);
        grid.partial = static_cast<float2*>(job->workspace);
    }
    const int64_t blocks = grid.tiles * grid.groups * grid.windows * grid.slices;
    BLADE_TRY(blade_check_grid(
        blocks, "correlator", "integrate longer or correlate fewer channels per chunk"));
    const HopperKernel hopper =
        tile_inputs == kWideTileInputs ? hopper_kernel(*job) : HopperKernel::none;
    if (hopper != HopperKernel::none)
        BLADE_TRY(launch_hopper(*job, hopper, grid, blocks, stream));
    else if (tile_inputs == kWideTileInputs)
        BLADE_TRY(launch_fp16_wide(*job, grid, blocks, stream));
    else if (job->path == BLADE_CORRELATOR_FP16)
        BLADE_TRY(launch_fp16(*job, grid, blocks, stream));
    else
        BLADE_TRY(launch_fp32(*job, grid, blocks, stream));
    if (grid.slices > 1) {
        const unsigned reduce_blocks =
            blade_grid_size(grid.outputs, kReduceThreads, 16u * blade_cuda_multiprocessors());
        add_slices_kernel<<<reduce_blocks, kReduceThreads, 0, stream>>>(grid.partial,
                                                                        grid.outputs,
                                                                        grid.slices,
                                                                        grid.lower_sideband,
                                                                        grid.previous,
                                                                        grid.destination);
        BLADE_CUDA_CHECK_LAUNCH("add_slices_kernel");
    }
    return BLADE_OK;
}
