// SPDX-License-Identifier: MIT
//
// The correlator on CUDA cores, in float32 (the xGPU class of kernel).
//
// A block of kSide x kSide threads computes a tile of 2 kSide x 2 kSide antenna pairs
// (all P x P products) for its channel, window and slice (correlator_kernels.h). Per
// stage it copies kStageTimes samples of the tile's row antennas and of its column
// antennas (one copy for a tile on the diagonal) into shared memory, time-major, then
// every thread accumulates a 2 x 2 register tile of antennas: antennas ty and
// ty + kSide of the rows against tx and tx + kSide of the columns, 4 P^2 complex sums
// in registers. Per sample a thread loads 4 antennas' samples (2P complex) from
// shared memory for 4 P^2 complex multiply-adds: with P = 2, 4 float4 loads for 64
// fused multiply-adds. A warp's loads hit 2 distinct row antennas (broadcast) and 16
// distinct column antennas (256 contiguous bytes, two conflict-free wavefronts), so
// the FMA pipe, not shared memory, is the limit: 16 of every 17 issued instructions
// are FMAs at best.
//
// Arithmetic: each complex multiply-add is four fused multiply-adds in a fixed order,
// and every sum runs over its channels, then its samples in time order, in one thread.
//
// Shared-memory rows (one sample time) hold the tile's antennas' P samples plus 2
// float2 of padding: a row is then 4 banks further than the previous, so the
// transposing stores (consecutive lanes: consecutive times of one antenna) fall in
// distinct banks, and rows stay 16-byte aligned for the float4 loads.
//
// Tile sizes: 32 x 32 antennas (256 threads) from 33 antennas on, 16 x 16 (64
// threads) below, where a 32-antenna tile would mostly compute pairs that do not
// exist (A = 28: 768 pairs computed for 406 baselines with 16-antenna tiles, 1024
// with one 32-antenna tile). Stages come from global memory through registers, the
// next one's loads in flight while this one is computed (correlator_stage.h).

#include "correlator_kernels.h"
#include "correlator_stage.h"
#include "cuda_check.h"

namespace correlator_cuda {
namespace {

__device__ __forceinline__ float2 to_float2(char2 v)
{
    return make_float2(static_cast<float>(v.x), static_cast<float>(v.y));
}
__device__ __forceinline__ float2 to_float2(float2 v) { return v; }

// acc += x * conj(y), four fused multiply-adds in this order.
__device__ __forceinline__ void multiply_conjugate_add(float2& acc, float2 x, float2 y)
{
    acc.x = fmaf(x.x, y.x, acc.x);
    acc.x = fmaf(x.y, y.y, acc.x);
    acc.y = fmaf(x.y, y.x, acc.y);
    acc.y = fmaf(-x.x, y.y, acc.y);
}

// One 64-bit index per stage where it measured faster (correlator_stage.h).
template <int kSide, int P, blade_dtype In>
using Fetch = StageFetch<2 * kSide, P, kSide * kSide, In, (kSide == 16) == (In == BLADE_CF32)>;

// A thread's fetched units into stage[t][antenna][p]: both polarizations of a unit
// in one 16-byte store.
template <int kSide, int P, blade_dtype In>
__device__ __forceinline__ void store_stage(const Fetch<kSide, P, In>& fetched, float2* stage)
{
    constexpr int kRow = 2 * kSide * P + 2;
#pragma unroll
    for (int i = 0; i < Fetch<kSide, P, In>::kPerThread; i++) {
        if (!Fetch<kSide, P, In>::owned(i))
            continue;
        float2* at =
            stage + Fetch<kSide, P, In>::time(i) * kRow + Fetch<kSide, P, In>::antenna(i) * P;
        if constexpr (P == 2) {
            const float2 x = to_float2(fetched.v[i][0]), y = to_float2(fetched.v[i][1]);
            *reinterpret_cast<float4*>(at) = make_float4(x.x, x.y, y.x, y.y);
        } else {
            *at = to_float2(fetched.v[i][0]);
        }
    }
}

// The P samples of one antenna at one time of a stage.
template <int P>
__device__ __forceinline__ void load_antenna(const float2* row, int antenna, float2 (&v)[P])
{
    if constexpr (P == 2) {
        const float4 q = *reinterpret_cast<const float4*>(row + 2 * antenna);
        v[0] = make_float2(q.x, q.y);
        v[1] = make_float2(q.z, q.w);
    } else {
        v[0] = row[antenna];
    }
}

template <int kSide, int P, blade_dtype In>
__global__ void __launch_bounds__(kSide* kSide) correlate_fp32_kernel(Grid grid)
{
    constexpr int kTile = 2 * kSide;
    constexpr int kRow = kTile * P + 2;
    __shared__ __align__(16) float2 rows_stage[kStageTimes * kRow];
    __shared__ __align__(16) float2 columns_stage[kStageTimes * kRow];

    const BlockWork work = block_work(grid, blockIdx.x);
    const int first_row = work.ti * kTile, first_column = work.tj * kTile;
    const bool diagonal = work.ti == work.tj;
    const float2* columns = diagonal ? rows_stage : columns_stage;
    const int tx = threadIdx.x % kSide, ty = threadIdx.x / kSide;
    float2 acc[2][2][P][P];
#pragma unroll
    for (int m = 0; m < 2; m++)
#pragma unroll
        for (int n = 0; n < 2; n++)
#pragma unroll
            for (int p = 0; p < P; p++)
#pragma unroll
                for (int q = 0; q < P; q++)
                    acc[m][n][p][q] = make_float2(0.0f, 0.0f);

    const StageWalk walk(grid, work);
    Fetch<kSide, P, In> rows_next, columns_next;
    if (walk.count > 0) {
        rows_next.fetch(grid, walk, 0, first_row);
        if (!diagonal)
            columns_next.fetch(grid, walk, 0, first_column);
    }
    for (int64_t s = 0; s < walk.count; s++) {
        __syncthreads(); // the previous stage has been used by every thread
        store_stage<kSide, P, In>(rows_next, rows_stage);
        if (!diagonal)
            store_stage<kSide, P, In>(columns_next, columns_stage);
        __syncthreads();
        if (s + 1 < walk.count) { // in flight while this stage is computed
            rows_next.fetch(grid, walk, s + 1, first_row);
            if (!diagonal)
                columns_next.fetch(grid, walk, s + 1, first_column);
        }
#pragma unroll 4
        for (int t = 0; t < kStageTimes; t++) {
            float2 x[2][P], y[2][P];
            load_antenna<P>(rows_stage + t * kRow, ty, x[0]);
            load_antenna<P>(rows_stage + t * kRow, ty + kSide, x[1]);
            load_antenna<P>(columns + t * kRow, tx, y[0]);
            load_antenna<P>(columns + t * kRow, tx + kSide, y[1]);
#pragma unroll
            for (int m = 0; m < 2; m++)
#pragma unroll
                for (int n = 0; n < 2; n++)
#pragma unroll
                    for (int p = 0; p < P; p++)
#pragma unroll
                        for (int q = 0; q < P; q++)
                            multiply_conjugate_add(acc[m][n][p][q], x[m][p], y[n][q]);
        }
    }

#pragma unroll
    for (int m = 0; m < 2; m++) {
#pragma unroll
        for (int n = 0; n < 2; n++) {
            const int i = first_row + ty + m * kSide, j = first_column + tx + n * kSide;
            if (i > j || j >= grid.antennas) // below the diagonal, or past the last antenna
                continue;
            const int64_t baseline = baseline_index(grid.antennas, i, j);
#pragma unroll
            for (int p = 0; p < P; p++)
#pragma unroll
                for (int q = 0; q < P; q++)
                    store_sum(grid, work, baseline, p * P + q, acc[m][n][p][q]);
        }
    }
}

template <int kSide, int P>
blade_status launch_type(blade_dtype type, const Grid& grid, unsigned blocks, cudaStream_t stream)
{
    if (type == BLADE_CI8)
        correlate_fp32_kernel<kSide, P, BLADE_CI8><<<blocks, kSide * kSide, 0, stream>>>(grid);
    else
        correlate_fp32_kernel<kSide, P, BLADE_CF32><<<blocks, kSide * kSide, 0, stream>>>(grid);
    BLADE_CUDA_CHECK_LAUNCH("correlate_fp32_kernel");
    return BLADE_OK;
}

template <int kSide>
blade_status
launch_pols(const blade_correlator_job& job, const Grid& grid, unsigned blocks, cudaStream_t stream)
{
    return job.pols == 2 ? launch_type<kSide, 2>(job.input_type, grid, blocks, stream)
                         : launch_type<kSide, 1>(job.input_type, grid, blocks, stream);
}

} // namespace

int fp32_tile_antennas(int64_t antennas) { return antennas <= 32 ? 16 : 32; }

blade_status
launch_fp32(const blade_correlator_job& job, const Grid& grid, int64_t blocks, cudaStream_t stream)
{
    const unsigned count = static_cast<unsigned>(blocks);
    if (fp32_tile_antennas(job.antennas) == 16)
        return launch_pols<8>(job, grid, count, stream);
    return launch_pols<16>(job, grid, count, stream);
}

} // namespace correlator_cuda
