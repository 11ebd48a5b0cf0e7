// SPDX-License-Identifier: MIT
//
// The correlator on tensor cores: fp16 operands, float32 accumulation (sm_80 and
// newer), as the Tensor-Core Correlator does it.
//
// For one channel the visibilities of inputs n = (antenna, polarization) are the
// complex matrix product V = X X^H over time. Written with real matrices whose k axis
// interleaves each sample's real and imaginary parts (k = 2t, 2t + 1):
//
//   Re V[m][n] = sum_k R[m][k] R[n][k]        R[n][2t] = Re x_n(t),  R[n][2t+1] = Im x_n(t)
//   Im V[m][n] = sum_k R[m][k] J[n][k]        J[n][2t] = -Im x_n(t), J[n][2t+1] = Re x_n(t)
//
// which is Re and Im of x_m conj(x_n). mma.m16n8k16 (fp16 in, fp32 accumulate) takes
// its A operand as 16 rows x 16 k, and in its fragment layout each 32-bit register of
// a thread is a pair of k = 2t', 2t'+1 of one row: one complex sample as a half2. Its
// B operand (16 k x 8 columns, "col" layout) is the same: one register = one sample
// of one column input. So A and B fragments are plain 32-bit loads of half2 samples
// from one shared-memory layout, [input][time] half2, and J's fragment is R's with
// the halves swapped and the new low half negated (two instructions). One k-step
// covers 8 samples; per k-step two mma (Re, Im) give 16 x 8 input pairs: 1024 complex
// multiply-adds, all of them needed products (the redundancy is only the lower
// triangle of the diagonal tiles).
//
// Tiles: a block of 4 warps computes 64 x 64 inputs (32 x 32 antennas at P = 2), each
// warp 32 x 32 (2 A fragments x 4 B fragments: 16 mma per k-step, 64 float
// accumulators per thread). Stages of kStageTimes = 32 samples (4 k-steps) are
// converted to fp16 (times operand_scale, round to nearest) while being copied to
// shared memory. Rows of the stage are padded by 4 words: the fragment loads of a warp
// (8 rows x 4 consecutive words) then fall in 32 distinct banks.
//
// Error (fp16 operands, unit roundoff 2^-11 each): |error| <= (2^-10 + 2^-22) sum |x_i||x_j|
// from the operands plus the float32 accumulation; ci8 voltages are exact in fp16.

#include "correlator_fragments.h"
#include "correlator_kernels.h"
#include "correlator_stage.h"
#include "cuda_check.h"

#include <cuda_fp16.h>

namespace correlator_cuda {
namespace {

[[maybe_unused]] constexpr int kInputs = kTensorTileInputs; // inputs per tile side
constexpr int kThreads = 128;                          // 4 warps: 2 along rows x 2 along columns
[[maybe_unused]] constexpr int kRow = kStageTimes + 4; // half2 words per shared-memory row (padded)

__device__ __forceinline__ __half2 to_half2(char2 v, float scale)
{
    (void)scale; // ci8 voltages are exact in fp16: not scaled
    return __floats2half2_rn(static_cast<float>(v.x), static_cast<float>(v.y));
}
__device__ __forceinline__ __half2 to_half2(float2 v, float scale)
{
    return __floats2half2_rn(v.x * scale, v.y * scale);
}

// A thread's fetched units into stage[input][t] as fp16.
template <int P, blade_dtype In>
using Fetch = StageFetch<kInputs / P, P, kThreads, In>;

template <int P, blade_dtype In>
__device__ __forceinline__ void
store_stage(const Fetch<P, In>& fetched, float scale, __half2* stage)
{
#pragma unroll
    for (int i = 0; i < Fetch<P, In>::kPerThread; i++) {
        if (!Fetch<P, In>::owned(i))
            continue;
        const int antenna = Fetch<P, In>::antenna(i), t = Fetch<P, In>::time(i);
#pragma unroll
        for (int p = 0; p < P; p++)
            stage[(antenna * P + p) * kRow + t] = to_half2(fetched.v[i][p], scale);
    }
}

template <int P, blade_dtype In>
__global__ void __launch_bounds__(kThreads) correlate_fp16_kernel(Grid grid, float scale)
{
#ifdef BLADE_CORRELATOR_TENSOR_CORES
    __shared__ __align__(16) __half2 rows_stage[kInputs * kRow];
    __shared__ __align__(16) __half2 columns_stage[kInputs * kRow];

    const BlockWork work = block_work(grid, blockIdx.x);
    const int first_row = work.ti * kInputs, first_column = work.tj * kInputs;
    const bool diagonal = work.ti == work.tj;
    const __half2* columns = diagonal ? rows_stage : columns_stage;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4; // fragment row group, thread in group
    const int warp_row = (warp / 2) * 32, warp_column = (warp % 2) * 32;
    float re[2][4][4], im[2][4][4];
#pragma unroll
    for (int m = 0; m < 2; m++)
#pragma unroll
        for (int n = 0; n < 4; n++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                re[m][n][r] = im[m][n][r] = 0.0f;

    const uint32_t* rows_words = reinterpret_cast<const uint32_t*>(rows_stage);
    const uint32_t* columns_words = reinterpret_cast<const uint32_t*>(columns);
    const StageWalk walk(grid, work);
    Fetch<P, In> rows_next, columns_next;
    const int first_row_antenna = first_row / P, first_column_antenna = first_column / P;
    if (walk.count > 0) {
        rows_next.fetch(grid, walk, 0, first_row_antenna);
        if (!diagonal)
            columns_next.fetch(grid, walk, 0, first_column_antenna);
    }
    for (int64_t s = 0; s < walk.count; s++) {
        __syncthreads(); // every warp is done with the previous stage
        store_stage<P, In>(rows_next, scale, rows_stage);
        if (!diagonal)
            store_stage<P, In>(columns_next, scale, columns_stage);
        __syncthreads();
        if (s + 1 < walk.count) { // in flight while this stage is computed
            rows_next.fetch(grid, walk, s + 1, first_row_antenna);
            if (!diagonal)
                columns_next.fetch(grid, walk, s + 1, first_column_antenna);
        }
#pragma unroll
        for (int k = 0; k < kStageTimes; k += 8) {
            uint32_t a[2][4], b[4][2], j[4][2];
#pragma unroll
            for (int m = 0; m < 2; m++) {
                const int row = warp_row + 16 * m + g;
                a[m][0] = rows_words[row * kRow + k + t];
                a[m][1] = rows_words[(row + 8) * kRow + k + t];
                a[m][2] = rows_words[row * kRow + k + t + 4];
                a[m][3] = rows_words[(row + 8) * kRow + k + t + 4];
            }
#pragma unroll
            for (int n = 0; n < 4; n++) {
                const int column = warp_column + 8 * n + g;
                b[n][0] = columns_words[column * kRow + k + t];
                b[n][1] = columns_words[column * kRow + k + t + 4];
                j[n][0] = rotate(b[n][0]);
                j[n][1] = rotate(b[n][1]);
            }
#pragma unroll
            for (int m = 0; m < 2; m++)
#pragma unroll
                for (int n = 0; n < 4; n++) {
                    blade_mma_f16(re[m][n], a[m], b[n]);
                    blade_mma_f16(im[m][n], a[m], j[n]);
                }
        }
    }

    store_fragments<2, 4, P>(grid, work, first_row + warp_row, first_column + warp_column, re, im);
#endif
}

template <int P, blade_dtype In>
blade_status launch_one(const Grid& grid, float scale, unsigned blocks, cudaStream_t stream)
{
    auto kernel = correlate_fp16_kernel<P, In>;
    BLADE_TRY(blade_check_tensor_code(kernel, "correlator"));
    kernel<<<blocks, kThreads, 0, stream>>>(grid, scale);
    BLADE_CUDA_CHECK_LAUNCH("correlate_fp16_kernel");
    return BLADE_OK;
}

} // namespace

blade_status
launch_fp16(const blade_correlator_job& job, const Grid& grid, int64_t blocks, cudaStream_t stream)
{
    const unsigned count = static_cast<unsigned>(blocks);
    const float scale = job.operand_scale;
    if (job.pols == 2)
        return job.input_type == BLADE_CI8 ? launch_one<2, BLADE_CI8>(grid, scale, count, stream)
                                           : launch_one<2, BLADE_CF32>(grid, scale, count, stream);
    return job.input_type == BLADE_CI8 ? launch_one<1, BLADE_CI8>(grid, scale, count, stream)
                                       : launch_one<1, BLADE_CF32>(grid, scale, count, stream);
}

} // namespace correlator_cuda
