/* SPDX-License-Identifier: MIT */
/*
 * What the two tensor-core correlator kernels (correlator_tensor.cu, 64-input tiles,
 * and correlator_tensor_wide.cu, 128-input tiles) share: the J operand made from the R
 * operand and writing a warp's accumulator fragments out as visibilities (their mma
 * and the tensor-code check are cuda_check.h's, shared with the beamformer). The
 * maths is explained at the top of correlator_tensor.cu. Not installed.
 */
#ifndef BLADE_KERNELS_CORRELATOR_FRAGMENTS_H
#define BLADE_KERNELS_CORRELATOR_FRAGMENTS_H

#include "correlator_kernels.h"
#include "cuda_check.h"

#include <cstdint>

namespace correlator_cuda {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define BLADE_CORRELATOR_TENSOR_CORES 1

// (re, im) -> (-im, re) of a half2: the J operand from the R operand (halves swapped,
// the new low half's sign flipped).
__device__ __forceinline__ uint32_t rotate(uint32_t bits)
{
    return __byte_perm(bits, 0, 0x1032) ^ 0x00008000u;
}

#endif

// A warp's kM x kN accumulator fragments (re, im) as visibilities: accumulator r of
// fragment (m, n) is input first_row + 16 m + g (+ 8 for r >= 2) against input
// first_column + 8 n + 2 t + (r & 1), g = lane / 4, t = lane % 4. Pairs below the
// diagonal or past the last antenna are dropped.
template <int kM, int kN, int P>
__device__ __forceinline__ void store_fragments(const Grid& grid,
                                                const BlockWork& work,
                                                int first_row,
                                                int first_column,
                                                const float (&re)[kM][kN][4],
                                                const float (&im)[kM][kN][4])
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int m = 0; m < kM; m++) {
#pragma unroll
        for (int n = 0; n < kN; n++) {
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const int row_input = first_row + 16 * m + g + (r < 2 ? 0 : 8);
                const int column_input = first_column + 8 * n + 2 * t + (r & 1);
                const int i = row_input / P, jj = column_input / P;
                if (i > jj || jj >= grid.antennas)
                    continue;
                const int product = (row_input % P) * P + column_input % P;
                store_sum(grid,
                          work,
                          baseline_index(grid.antennas, i, jj),
                          product,
                          make_float2(re[m][n][r], im[m][n][r]));
            }
        }
    }
}


} // namespace correlator_cuda

#endif
