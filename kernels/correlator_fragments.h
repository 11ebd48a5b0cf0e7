/* SPDX-License-Identifier: MIT */
/*
 * What the two tensor-core correlator kernels (correlator_tensor.cu, 64-input tiles,
 * and correlator_tensor_wide.cu, 128-input tiles) share: the mma they issue, the J
 * operand made from the R operand, writing a warp's accumulator fragments out as
 * visibilities, and the check that the build has tensor-core code for the GPU. The
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

// c += a b, fp16 operands and float32 accumulators, m16n8k16.
__device__ __forceinline__ void
mma_f16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
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

// The kernel body exists only in code compiled for sm_80 or newer; a build whose
// newest code is older would launch an empty kernel on a newer GPU.
template <class Kernel>
blade_status check_tensor_code(Kernel kernel)
{
    cudaFuncAttributes attributes{};
    BLADE_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    if (attributes.ptxVersion < 80)
        return blade_fail(
            BLADE_ERROR_UNSUPPORTED,
            "correlator: this build has no tensor-core code for the GPU (compiled for compute "
            "capability %d.%d; add 80 or 90 to CMAKE_CUDA_ARCHITECTURES) - use path fp32",
            attributes.ptxVersion / 10,
            attributes.ptxVersion % 10);
    return BLADE_OK;
}

} // namespace correlator_cuda

#endif
