// SPDX-License-Identifier: MIT
//
// Dedoppler kernels.
//
// The Taylor tree runs tile by tile, as on the CPU (dedoppler_cpu.c), with the
// index maths of dedoppler_tree.h shared word for word: one thread block takes a
// tile of W start channels of one beam and, for each direction and drift block,
// loads the sheared tile (T' rows of W + T' − 1 columns) from global memory into
// shared memory, runs all log2 T' stages there (ping-pong between two buffers,
// one __syncthreads per stage), and folds the rows of searched drifts into the
// tile's best paths. So a drift block costs one read of its tile instead of the
// 2·log2 T' passes over the whole T'×F plane that a stage-per-kernel tree moves
// (the "memory roofline of the tree's passes" that the benchmark reports against):
// the stages run at shared-memory speed. Tiles whose buffers do not fit in shared
// memory (T' ≥ 128, or small GPUs) use the same code on per-block scratch buffers
// in global memory.
//
// Every float addition is the CPU's, in the CPU's order (no FMA is possible: the
// tree only adds), so both backends give identical path sums. Each output is
// written by one thread, with no atomics: runs are bit-for-bit repeatable. Double
// sums use __dadd_rn/__dmul_rn so that nvcc cannot contract them into FMAs that
// the CPU does not make.

#include "cuda_check.h"
#include "dedoppler_backend.h"
#include "dedoppler_hit_rule.h"

#include <cmath>
#include <cstdint>

namespace {

constexpr int kThreads = 256;

// Shared-memory tiles: columns per row (a multiple of kThreads, so that every load
// and stage pass keeps all threads busy) by T'.
int shared_pitch(int64_t padded) { return padded <= 16 ? 512 : 256; }

// Scratch tiles in global memory: wide enough that the halo costs a quarter.
int scratch_pitch(int64_t padded)
{
    int64_t pitch = 1024;
    while (pitch < 4 * padded)
        pitch += kThreads;
    return static_cast<int>(pitch);
}

constexpr size_t kScratchBudget = size_t{ 2 } << 30; // bytes of global scratch at most

struct tree_layout {
    bool shared;     // tiles in shared memory
    int pitch;       // columns of a tile row
    int width;       // start channels per tile: pitch − (T' − 1)
    size_t bytes;    // of both buffers of one block
    int64_t tiles;   // per beam
    unsigned blocks; // grid
};

blade_status layout_of(const dedoppler_grid* grid, tree_layout* layout)
{
    int device = 0, optin = 0, multiprocessors = 0;
    BLADE_CUDA_TRY(cudaGetDevice(&device));
    BLADE_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    BLADE_CUDA_TRY(
        cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    layout->pitch = shared_pitch(grid->padded);
    layout->bytes = 2 * static_cast<size_t>(grid->padded) * layout->pitch * sizeof(float);
    layout->shared = grid->padded < layout->pitch && layout->bytes <= static_cast<size_t>(optin);
    if (!layout->shared) {
        layout->pitch = scratch_pitch(grid->padded);
        layout->bytes = 2 * static_cast<size_t>(grid->padded) * layout->pitch * sizeof(float);
    }
    layout->width = layout->pitch - static_cast<int>(grid->padded - 1);
    layout->tiles = (grid->channels + layout->width - 1) / layout->width;
    const int64_t items = grid->beams * layout->tiles;
    int64_t blocks = items < 65535 * 64 ? items : 65535 * 64;
    if (!layout->shared) {
        int64_t affordable = static_cast<int64_t>(kScratchBudget / layout->bytes);
        affordable = affordable < 1 ? 1 : affordable;
        const int64_t useful = 2 * static_cast<int64_t>(multiprocessors);
        blocks = blocks < useful ? blocks : useful;
        blocks = blocks < affordable ? blocks : affordable;
    }
    layout->blocks = static_cast<unsigned>(blocks < 1 ? 1 : blocks);
    return BLADE_OK;
}

// Zero-drift sums (and S1, S2): one thread per channel, spectra in increasing order.
__global__ void moments_kernel(const float* __restrict__ input,
                               int64_t count,
                               int64_t spectra,
                               int64_t channels,
                               float* zero_drift,
                               double* s1,
                               double* s2)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
        const float* column = input + (i / channels) * spectra * channels + i % channels;
        double sum = 0, squares = 0;
        for (int64_t t = 0; t < spectra; t++) {
            const double value = __ldg(&column[t * channels]);
            sum = __dadd_rn(sum, value);
            squares = __dadd_rn(squares, __dmul_rn(value, value));
        }
        zero_drift[i] = static_cast<float>(sum);
        if (s1) {
            s1[i] = sum;
            s2[i] = squares;
        }
    }
}

// Working copy with flagged channels at centre/T.
__global__ void prepare_kernel(const float* __restrict__ input,
                               float* work,
                               int64_t count,
                               int64_t spectra,
                               int64_t channels,
                               int64_t nfpc,
                               const uint8_t* flags,
                               const float* centres)
{
    const int64_t coarse = channels / nfpc;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
        const int64_t f = i % channels, beam = i / (spectra * channels);
        float value = input[i];
        if (flags && flags[beam * channels + f])
            value = centres[beam * coarse + f / nfpc] / static_cast<float>(spectra);
        work[i] = value;
    }
}

// DC blanking of the working copy: one thread per (beam, spectrum, coarse channel).
__global__ void blank_dc_kernel(float* work, int64_t rows, int64_t channels, int64_t nfpc)
{
    const int64_t coarse = channels / nfpc, count = rows * coarse;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
        float* row = work + (i / coarse) * channels;
        const int64_t middle = (i % coarse) * nfpc + nfpc / 2;
        row[middle] = (row[middle - 1] + row[middle + 1]) * 0.5f;
    }
}

// The tree on tiles (see the file comment). `scratch` null: buffers in shared memory.
__global__ void __launch_bounds__(kThreads) taylor_kernel(const float* __restrict__ input,
                                                          dedoppler_grid grid,
                                                          int pitch,
                                                          int64_t tiles,
                                                          float* best_sum,
                                                          int32_t* best_k,
                                                          float* plane,
                                                          float* scratch)
{
    extern __shared__ float shared_buffers[];
    const int width = pitch - static_cast<int>(grid.padded - 1);
    const int padded = static_cast<int>(grid.padded);
    const int64_t channels = grid.channels, span = grid.padded - 1;
    const size_t tile_floats = static_cast<size_t>(padded) * pitch;
    // two named buffers, not an array of pointers: indexing one would put it on the stack
    float* const buffer_a = scratch ? scratch + blockIdx.x * 2 * tile_floats : shared_buffers;
    float* const buffer_b = buffer_a + tile_floats;
    const int64_t drifts = dedoppler_drift_count(&grid);
    const int64_t items = grid.beams * tiles;

    for (int64_t item = blockIdx.x; item < items; item += gridDim.x) {
        const int64_t beam = item / tiles, first = (item % tiles) * width;
        const float* beam_input = input + beam * grid.spectra * channels;
        const int valid_width =
            static_cast<int>(first + width <= channels ? width : channels - first);
        float* beam_best = best_sum ? best_sum + beam * channels + first : nullptr;
        int32_t* beam_best_k = best_k ? best_k + beam * channels + first : nullptr;
        float* beam_plane = plane ? plane + beam * drifts * channels : nullptr;
        if (beam_best)
            for (int c = threadIdx.x; c < valid_width; c += kThreads) {
                beam_best[c] = -INFINITY;
                beam_best_k[c] = INT32_MAX;
            }

        for (int direction = -1; direction <= 1; direction += 2) {
            const int64_t origin = dedoppler_tile_origin(channels, direction, first, width);
            for (int64_t block = grid.first_block; block <= grid.last_block; block++) {
                int64_t low, high;
                dedoppler_block_rows(&grid, block, direction, &low, &high);
                if (low > high)
                    continue; // the same for every thread of the block
                for (int t = 0; t < padded; t++) {
                    float* row = buffer_a + t * pitch;
                    for (int j = threadIdx.x; j < pitch; j += kThreads) {
                        const int64_t channel =
                            t < grid.spectra
                                ? dedoppler_tile_channel(channels, direction, origin, block, t, j)
                                : -1;
                        row[j] = channel >= 0 ? __ldg(&beam_input[t * channels + channel]) : 0.0f;
                    }
                }
                __syncthreads();
                bool in_a = true; // where the last stage's sums are
                for (int length = 2; length <= padded; length *= 2) {
                    const int columns = dedoppler_stage_columns(pitch, length);
                    const float* in = in_a ? buffer_a : buffer_b;
                    float* out = in_a ? buffer_b : buffer_a;
                    for (int row = 0; row < padded; row++) {
                        int earlier, later;
                        dedoppler_stage_sources(pitch, length, row, &earlier, &later);
                        for (int j = threadIdx.x; j < columns; j += kThreads)
                            out[row * pitch + j] = in[earlier + j] + in[later + j];
                    }
                    in_a = !in_a;
                    __syncthreads();
                }
                const float* sums = in_a ? buffer_a : buffer_b;
                for (int c = threadIdx.x; c < valid_width; c += kThreads) {
                    const int64_t start = first + c;
                    const int column = dedoppler_tile_column(direction, c, width);
                    const int64_t start_in_direction = direction > 0 ? start : channels - 1 - start;
                    float best = beam_best ? beam_best[c] : 0.0f;
                    int32_t best_drift = beam_best_k ? beam_best_k[c] : 0;
                    for (int64_t p = low; p <= high; p++) {
                        const int64_t magnitude = block * span + p;
                        const bool valid = start_in_direction + magnitude < channels;
                        const float sum = valid ? sums[p * pitch + column] : NAN;
                        if (beam_plane) {
                            const int64_t d = dedoppler_plane_index(&grid, direction * magnitude);
                            beam_plane[d * channels + start] = sum;
                        } else if (valid) {
                            dedoppler_keep_best(sum,
                                                static_cast<int32_t>(direction * magnitude),
                                                &best,
                                                &best_drift);
                        }
                    }
                    if (beam_best) {
                        beam_best[c] = best;
                        beam_best_k[c] = best_drift;
                    }
                }
                __syncthreads(); // the next load overwrites what this read
            }
        }
    }
}

// Brute force: one thread per start channel, every drift, double sums in t order.
__global__ void brute_force_kernel(const float* __restrict__ input,
                                   dedoppler_grid grid,
                                   float* best_sum,
                                   int32_t* best_k,
                                   float* plane)
{
    const int64_t channels = grid.channels, spectra = grid.spectra;
    const int64_t count = grid.beams * channels, drifts = dedoppler_drift_count(&grid);
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
        const int64_t beam = i / channels, start = i % channels;
        const float* beam_input = input + beam * spectra * channels;
        float best = -INFINITY;
        int32_t best_drift = INT32_MAX;
        for (int64_t d = 0; d < drifts; d++) {
            const int64_t k = dedoppler_drift_at(&grid, d);
            const bool valid = start + k >= 0 && start + k < channels;
            float sum = NAN;
            if (valid) {
                double total = 0;
                for (int64_t t = 0; t < spectra; t++)
                    total =
                        __dadd_rn(total,
                                  static_cast<double>(__ldg(
                                      &beam_input[t * channels + start +
                                                  dedoppler_nearest_offset(k, t, grid.padded)])));
                sum = static_cast<float>(total);
            }
            if (plane)
                plane[(beam * drifts + d) * channels + start] = sum;
            else if (valid)
                dedoppler_keep_best(sum, static_cast<int32_t>(k), &best, &best_drift);
        }
        if (!plane) {
            best_sum[i] = best;
            best_k[i] = best_drift;
        }
    }
}

// Hit selection (dedoppler_hit_rule.h) in three steps, so that the hits come out in
// beam and channel order, the first `capacity` kept, exactly as the host lists them:
// flags and a count per span of kSpan channels, an exclusive scan of the counts,
// then every hit written at its rank. Only the hits cross PCIe.
constexpr int kSpan = 4 * kThreads;

__global__ void __launch_bounds__(kThreads) hit_flags_kernel(const float* __restrict__ best_sum,
                                                             const float* __restrict__ centres,
                                                             const float* __restrict__ spreads,
                                                             int64_t count,
                                                             int64_t channels,
                                                             int64_t nfpc,
                                                             int64_t window,
                                                             double threshold,
                                                             uint8_t* flags,
                                                             int64_t* counts)
{
    const int64_t coarse = channels / nfpc, base = static_cast<int64_t>(blockIdx.x) * kSpan;
    int found = 0;
    for (int round = 0; round < kSpan / kThreads; round++) {
        const int64_t i = base + round * kThreads + threadIdx.x;
        bool hit = false;
        if (i < count) {
            const int64_t beam = i / channels, f = i - beam * channels;
            float snr;
            hit = dedoppler_is_hit(best_sum + beam * channels,
                                   centres + beam * coarse,
                                   spreads + beam * coarse,
                                   channels,
                                   nfpc,
                                   window,
                                   threshold,
                                   f,
                                   &snr);
            flags[i] = hit ? 1 : 0;
        }
        found += __syncthreads_count(hit);
    }
    if (threadIdx.x == 0)
        counts[blockIdx.x] = found;
}

// Exclusive prefix sums of n counts in place, by one block; the total into *total.
__global__ void scan_kernel(int64_t* counts, int64_t n, int64_t* total)
{
    __shared__ int64_t partial[1024];
    int64_t carry = 0;
    for (int64_t first = 0; first < n; first += blockDim.x) {
        const int64_t i = first + threadIdx.x;
        const int64_t value = i < n ? counts[i] : 0;
        partial[threadIdx.x] = value;
        __syncthreads();
        for (unsigned step = 1; step < blockDim.x; step *= 2) {
            const int64_t add = threadIdx.x >= step ? partial[threadIdx.x - step] : 0;
            __syncthreads();
            partial[threadIdx.x] += add;
            __syncthreads();
        }
        if (i < n)
            counts[i] = carry + partial[threadIdx.x] - value;
        carry += partial[blockDim.x - 1];
        __syncthreads(); // the next round overwrites what was read
    }
    if (threadIdx.x == 0)
        *total = carry;
}

__global__ void __launch_bounds__(kThreads) write_hits_kernel(const uint8_t* __restrict__ flags,
                                                              const int64_t* __restrict__ offsets,
                                                              const float* __restrict__ best_sum,
                                                              const int32_t* __restrict__ best_k,
                                                              const float* __restrict__ centres,
                                                              const float* __restrict__ spreads,
                                                              int64_t count,
                                                              int64_t channels,
                                                              int64_t nfpc,
                                                              double drift_step,
                                                              blade_dedoppler_hit* hits,
                                                              int64_t capacity)
{
    __shared__ int warp_counts[kThreads / 32];
    const int64_t coarse = channels / nfpc, base = static_cast<int64_t>(blockIdx.x) * kSpan;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t position = offsets[blockIdx.x];
    for (int round = 0; round < kSpan / kThreads; round++) {
        const int64_t i = base + round * kThreads + threadIdx.x;
        const bool flag = i < count && flags[i] != 0;
        const unsigned ballot = __ballot_sync(0xffffffffu, flag);
        if (lane == 0)
            warp_counts[warp] = __popc(ballot);
        __syncthreads();
        int64_t rank = position + __popc(ballot & ((1u << lane) - 1u));
        int round_total = 0;
        for (int w = 0; w < kThreads / 32; w++) {
            if (w < warp)
                rank += warp_counts[w];
            round_total += warp_counts[w];
        }
        if (flag && rank < capacity) {
            const int64_t beam = i / channels, f = i - beam * channels;
            const int64_t c = beam * coarse + f / nfpc;
            dedoppler_fill_hit(&hits[rank],
                               beam,
                               f,
                               nfpc,
                               best_k[i],
                               drift_step,
                               dedoppler_snr(best_sum[i], centres[c], spreads[c]),
                               best_sum[i]);
        }
        __syncthreads(); // the next round overwrites warp_counts
        position += round_total;
    }
}

} // namespace

extern "C" blade_status blade_cuda_dedoppler_moments(const float* input,
                                                     int64_t beams,
                                                     int64_t spectra,
                                                     int64_t channels,
                                                     float* zero_drift,
                                                     double* s1,
                                                     double* s2,
                                                     void* stream)
{
    const int64_t count = beams * channels;
    moments_kernel<<<blade_grid_size(count, kThreads, 65535u * 8u),
                     kThreads,
                     0,
                     static_cast<cudaStream_t>(stream)>>>(
        input, count, spectra, channels, zero_drift, s1, s2);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler moments_kernel");
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_dedoppler_prepare(const float* input,
                                                     float* work,
                                                     int64_t beams,
                                                     int64_t spectra,
                                                     int64_t channels,
                                                     int64_t nfpc,
                                                     const uint8_t* flags,
                                                     const float* centres,
                                                     bool blank_dc,
                                                     void* stream_handle)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    const int64_t count = beams * spectra * channels;
    prepare_kernel<<<blade_grid_size(count, kThreads, 65535u * 8u), kThreads, 0, stream>>>(
        input, work, count, spectra, channels, nfpc, flags, centres);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler prepare_kernel");
    if (blank_dc) {
        const int64_t rows = beams * spectra;
        blank_dc_kernel<<<blade_grid_size(rows * (channels / nfpc), kThreads, 65535u * 8u),
                          kThreads,
                          0,
                          stream>>>(work, rows, channels, nfpc);
        BLADE_CUDA_CHECK_LAUNCH("dedoppler blank_dc_kernel");
    }
    return BLADE_OK;
}

extern "C" size_t blade_cuda_dedoppler_scratch_bytes(const dedoppler_grid* grid)
{
    tree_layout layout;
    if (layout_of(grid, &layout) != BLADE_OK || layout.shared)
        return 0;
    return layout.bytes * layout.blocks;
}

extern "C" blade_status blade_cuda_dedoppler_taylor(const float* input,
                                                    const dedoppler_grid* grid,
                                                    float* best_sum,
                                                    int32_t* best_k,
                                                    float* plane,
                                                    float* scratch,
                                                    void* stream)
{
    tree_layout layout;
    BLADE_TRY(layout_of(grid, &layout));
    if (!layout.shared && scratch == nullptr)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: the CUDA tree of T' = %lld needs scratch memory",
                          static_cast<long long>(grid->padded));
    const size_t shared_bytes = layout.shared ? layout.bytes : 0;
    if (shared_bytes > 48 * 1024)
        BLADE_CUDA_TRY(cudaFuncSetAttribute(taylor_kernel,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared_bytes)));
    taylor_kernel<<<layout.blocks, kThreads, shared_bytes, static_cast<cudaStream_t>(stream)>>>(
        input,
        *grid,
        layout.pitch,
        layout.tiles,
        best_sum,
        best_k,
        plane,
        layout.shared ? nullptr : scratch);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler taylor_kernel");
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_dedoppler_brute_force(const float* input,
                                                         const dedoppler_grid* grid,
                                                         float* best_sum,
                                                         int32_t* best_k,
                                                         float* plane,
                                                         void* stream)
{
    const int64_t count = grid->beams * grid->channels;
    brute_force_kernel<<<blade_grid_size(count, kThreads, 65535u * 8u),
                         kThreads,
                         0,
                         static_cast<cudaStream_t>(stream)>>>(
        input, *grid, best_sum, best_k, plane);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler brute_force_kernel");
    return BLADE_OK;
}

extern "C" size_t blade_cuda_dedoppler_select_spans(int64_t count)
{
    return static_cast<size_t>((count + kSpan - 1) / kSpan);
}

extern "C" blade_status blade_cuda_dedoppler_select_hits(const float* best_sum,
                                                         const int32_t* best_k,
                                                         const float* centres,
                                                         const float* spreads,
                                                         int64_t beams,
                                                         int64_t channels,
                                                         int64_t nfpc,
                                                         int64_t window,
                                                         double threshold,
                                                         double drift_step,
                                                         blade_dedoppler_hit* hits,
                                                         int64_t capacity,
                                                         uint8_t* flags,
                                                         int64_t* counts,
                                                         int64_t* total,
                                                         void* stream_handle)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    const int64_t count = beams * channels;
    const size_t spans = blade_cuda_dedoppler_select_spans(count);
    if (spans > 0x7fffffffu)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: %lld channels are too many for the hit selection",
                          static_cast<long long>(count));
    hit_flags_kernel<<<static_cast<unsigned>(spans), kThreads, 0, stream>>>(
        best_sum, centres, spreads, count, channels, nfpc, window, threshold, flags, counts);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler hit_flags_kernel");
    scan_kernel<<<1, 1024, 0, stream>>>(counts, static_cast<int64_t>(spans), total);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler scan_kernel");
    write_hits_kernel<<<static_cast<unsigned>(spans), kThreads, 0, stream>>>(flags,
                                                                             counts,
                                                                             best_sum,
                                                                             best_k,
                                                                             centres,
                                                                             spreads,
                                                                             count,
                                                                             channels,
                                                                             nfpc,
                                                                             drift_step,
                                                                             hits,
                                                                             capacity);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler write_hits_kernel");
    return BLADE_OK;
}
