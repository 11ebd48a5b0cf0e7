// SPDX-License-Identifier: MIT
//
// The tensor-core correlator for large arrays: tiles of 128 x 128 inputs, stages
// brought to shared memory by cp.async (sm_80 and newer).
//
// The maths is that of correlator_tensor.cu (read its header first): V = X X^H with
// real matrices whose k axis interleaves each sample's real and imaginary parts, so
// that a 32-bit register of an mma.m16n8k16 fragment is one complex sample as a half2,
// and the imaginary part's B operand is the real one's with halves swapped and the
// new low half negated.
//
// Why a second kernel. The 64-input kernel, at A = 128 and 256 on the H200, ran at
// 11-14 % of the fp16 peak, and its ci8 cases were no faster than its cf32 ones
// although they read a quarter of the bytes: it waits on the latency of its loads (one
// stage in flight, held in registers, two blocks of 4 warps per multiprocessor) more
// than on their bytes. Here a block of 8 warps computes 128 x 128 inputs: per stage of
// 32 samples it reads 64 KB of cf32 for 1024 mma, half the bytes per product of the
// 64-input tile; and two further stages are in flight as cp.async copies, which hold
// no registers (the 128 float accumulators of a thread need most of them).
//
// Stages are stored as they are in global memory (an antenna's samples [time][pol],
// 16-byte copies) in rows padded so that a warp's fragment loads are conflict-free,
// and converted to fp16 as the fragments are loaded: cf32 times operand_scale rounded
// to nearest (as the 64-input kernel does, so both give the same operands); ci8 exactly,
// by placing each byte in the mantissa of 1024 + 128 + x and subtracting 1152 (three
// integer and half-precision instructions where a conversion instruction would run at
// a quarter of the rate).
//
// Warps: 2 along the rows (64 inputs each) x 4 along the columns (32 each): per k-step
// (8 samples) a warp loads 4 A fragments and 2 x 4 B fragment registers for 32 mma.
//
// Requirements, checked by tensor_tile_inputs() and the dispatcher: a window's samples
// are whole 16-byte copies (window * P * sample bytes a multiple of 16), the input is
// 16-byte aligned, and the GPU lends a block the shared memory of three stages
// (216 KB for cf32; the H100 and H200 lend 227 KB, the A100 164 KB). Otherwise the
// 64-input kernel runs.

#include "correlator_kernels.h"
#include "correlator_stage.h"
#include "cp_async.h"
#include "cuda_check.h"

#include <cuda_fp16.h>

namespace correlator_cuda {
namespace {

constexpr int kSide = kWideTileInputs; // inputs per tile side
constexpr int kThreads = 256;          // 8 warps: 2 along rows x 4 along columns
constexpr int kBuffers = 3;            // stages in shared memory: two in flight, one used

// One side (rows or columns) of a stage in shared memory: the side's antennas, each
// a row of kStageTimes * P samples as stored ([time][pol]) plus padding. The padding
// puts the fragment loads of a warp (inputs g = 0 .. 7 at samples t = 0 .. 3) in
// distinct banks: for cf32 (8-byte loads, two half-warp wavefronts) rows 8 float2
// apart modulo 16 at P = 2 (4 at P = 1); for ci8 (2-byte loads, pairs of samples in
// one word) rows 4 * odd words apart modulo 32.
template <blade_dtype In, int P>
struct WideSide {
    using Element = typename StoredSample<In>::type;
    static constexpr int kBytes = sizeof(Element);
    static constexpr int kAntennas = kSide / P;
    static constexpr int kPad = In == BLADE_CF32 && P == 1 ? 4 : 8;
    static constexpr int kRow = kStageTimes * P + kPad; // elements per antenna row
    static constexpr int kElements = kAntennas * kRow;
    static constexpr int kTimesPerCopy = 16 / (P * kBytes);
    static constexpr int kCopiesPerRow = kStageTimes / kTimesPerCopy;
    static constexpr int kCopiesPerThread = kAntennas * kCopiesPerRow / kThreads;
    static constexpr int kSharedBytes = kBuffers * 2 * kElements * kBytes;
    static_assert(kAntennas * kCopiesPerRow % kThreads == 0, "whole copies per thread");
    static_assert(kRow * kBytes % 16 == 0, "rows keep the 16-byte copies aligned");

    // Element of input n (antenna n / P, polarization n % P) at sample t of the stage.
    __device__ static int at(int n, int t) { return (n / P) * kRow + t * P + n % P; }
};

// The shared memory the kernel for (In, P) asks for.
int wide_shared_bytes(blade_dtype in, int64_t pols)
{
    if (in == BLADE_CI8)
        return pols == 2 ? WideSide<BLADE_CI8, 2>::kSharedBytes
                         : WideSide<BLADE_CI8, 1>::kSharedBytes;
    return pols == 2 ? WideSide<BLADE_CF32, 2>::kSharedBytes
                     : WideSide<BLADE_CF32, 1>::kSharedBytes;
}

#ifdef BLADE_CP_ASYNC
union HalfBits {
    __half2 h;
    uint32_t u;
};

// The operand register of one stored sample.
__device__ __forceinline__ uint32_t operand(const float2* side, int index, float scale)
{
    const float2 v = side[index];
    HalfBits bits;
    bits.h = __floats2half2_rn(v.x * scale, v.y * scale);
    return bits.u;
}
__device__ __forceinline__ uint32_t operand(const char2* side, int index, float)
{
    const uint32_t raw = *reinterpret_cast<const unsigned short*>(side + index);
    // Bytes x + 128 (0 .. 255) under the exponent of 1024: halves 1152 + x, exact.
    HalfBits biased;
    biased.u = __byte_perm(raw ^ 0x8080u, 0x6464u, 0x4140);
    HalfBits bits;
    bits.h = __hsub2(biased.h, __float2half2_rn(1152.0f));
    return bits.u;
}

// (re, im) -> (-im, re): the J operand from the R operand.
__device__ __forceinline__ uint32_t rotate(uint32_t bits)
{
    return __byte_perm(bits, 0, 0x1032) ^ 0x00008000u;
}

__device__ __forceinline__ void
mma_f16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Copies of one side of stage (channel f, samples from t0) into `side`; antennas past
// the array and samples past `end` are filled with zeros.
template <blade_dtype In, int P>
__device__ __forceinline__ void fetch_side(const Grid& grid,
                                           int64_t f,
                                           int64_t t0,
                                           int64_t end,
                                           int first_antenna,
                                           typename WideSide<In, P>::Element* side)
{
    using S = WideSide<In, P>;
    const auto* input = static_cast<const typename S::Element*>(grid.input);
#pragma unroll
    for (int i = 0; i < S::kCopiesPerThread; i++) {
        const int copy = threadIdx.x + i * kThreads;
        const int antenna = copy / S::kCopiesPerRow, piece = copy % S::kCopiesPerRow;
        const int a = first_antenna + antenna;
        const int64_t t = t0 + piece * S::kTimesPerCopy;
        const bool valid = a < grid.antennas && t < end;
        const auto* from = valid ? input + ((a * grid.channels + f) * grid.times + t) * P : input;
        cp_async16(side + antenna * S::kRow + piece * S::kTimesPerCopy * P, from, valid);
    }
}
#endif

template <int P, blade_dtype In>
__global__ void __launch_bounds__(kThreads, 1) correlate_wide_kernel(Grid grid, float scale)
{
#ifdef BLADE_CP_ASYNC
    using S = WideSide<In, P>;
    using Element = typename S::Element;
    extern __shared__ __align__(16) unsigned char shared_memory[];
    Element* buffers = reinterpret_cast<Element*>(shared_memory);

    const BlockWork work = block_work(grid, blockIdx.x);
    const int first_row = work.ti * kSide, first_column = work.tj * kSide;
    const bool diagonal = work.ti == work.tj;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4; // fragment row group, thread in group
    const int warp_row = (warp / 4) * 64, warp_column = (warp % 4) * 32;
    float re[4][4][4], im[4][4][4];
#pragma unroll
    for (int m = 0; m < 4; m++)
#pragma unroll
        for (int n = 0; n < 4; n++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                re[m][n][r] = im[m][n][r] = 0.0f;

    const StageWalk walk(grid, work);
    // Stage s goes to buffer s % kBuffers: rows, then (off the diagonal) columns.
    auto issue = [&](int64_t s, int buffer) {
        if (s < walk.count) {
            Element* rows = buffers + buffer * 2 * S::kElements;
            const int64_t f = walk.channel(s), t0 = walk.first_time(s);
            fetch_side<In, P>(grid, f, t0, walk.end, first_row / P, rows);
            if (!diagonal)
                fetch_side<In, P>(grid, f, t0, walk.end, first_column / P, rows + S::kElements);
        }
        cp_async_commit(); // empty groups too: the wait below counts groups
    };
    issue(0, 0);
    issue(1, 1);
    int buffer = 0;
    for (int64_t s = 0; s < walk.count; s++) {
        cp_async_wait<kBuffers - 2>(); // this thread's copies of stage s have landed
        __syncthreads();               // everyone's have, and stage s - 1 is done with
        issue(s + 2, buffer == 0 ? kBuffers - 1 : buffer - 1);
        const Element* rows = buffers + buffer * 2 * S::kElements;
        const Element* columns = diagonal ? rows : rows + S::kElements;
#pragma unroll
        for (int k = 0; k < kStageTimes; k += 8) {
            uint32_t a[4][4], b[4][2], j[4][2];
#pragma unroll
            for (int m = 0; m < 4; m++) {
                const int row = warp_row + 16 * m + g;
                a[m][0] = operand(rows, S::at(row, k + t), scale);
                a[m][1] = operand(rows, S::at(row + 8, k + t), scale);
                a[m][2] = operand(rows, S::at(row, k + t + 4), scale);
                a[m][3] = operand(rows, S::at(row + 8, k + t + 4), scale);
            }
#pragma unroll
            for (int n = 0; n < 4; n++) {
                const int column = warp_column + 8 * n + g;
                b[n][0] = operand(columns, S::at(column, k + t), scale);
                b[n][1] = operand(columns, S::at(column, k + t + 4), scale);
                j[n][0] = rotate(b[n][0]);
                j[n][1] = rotate(b[n][1]);
            }
#pragma unroll
            for (int m = 0; m < 4; m++)
#pragma unroll
                for (int n = 0; n < 4; n++) {
                    mma_f16(re[m][n], a[m], b[n]);
                    mma_f16(im[m][n], a[m], j[n]);
                }
        }
        buffer = buffer + 1 == kBuffers ? 0 : buffer + 1;
    }

    // Accumulator r of fragment (m, n): row g (r < 2) or g + 8, column 2t + (r & 1).
#pragma unroll
    for (int m = 0; m < 4; m++) {
#pragma unroll
        for (int n = 0; n < 4; n++) {
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const int row_input = first_row + warp_row + 16 * m + g + (r < 2 ? 0 : 8);
                const int column_input = first_column + warp_column + 8 * n + 2 * t + (r & 1);
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
#endif
}

template <int P, blade_dtype In>
blade_status launch_one(const Grid& grid, float scale, unsigned blocks, cudaStream_t stream)
{
    auto kernel = correlate_wide_kernel<P, In>;
    cudaFuncAttributes attributes{};
    BLADE_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    if (attributes.ptxVersion < 80)
        return blade_fail(
            BLADE_ERROR_UNSUPPORTED,
            "correlator: this build has no tensor-core code for the GPU (compiled for compute "
            "capability %d.%d; add 80 or 90 to CMAKE_CUDA_ARCHITECTURES) - use path fp32",
            attributes.ptxVersion / 10,
            attributes.ptxVersion % 10);
    const int bytes = WideSide<In, P>::kSharedBytes;
    BLADE_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    kernel<<<blocks, kThreads, bytes, stream>>>(grid, scale);
    BLADE_CUDA_CHECK_LAUNCH("correlate_wide_kernel");
    return BLADE_OK;
}

// The opt-in shared memory per block of the current GPU (cached per device).
int shared_memory_optin()
{
    static int cached[64];
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) {
        (void)cudaGetLastError();
        return 0;
    }
    if (cached[device] == 0 &&
        cudaDeviceGetAttribute(&cached[device], cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
            cudaSuccess) {
        (void)cudaGetLastError();
        cached[device] = 0;
    }
    return cached[device];
}

} // namespace

int tensor_tile_inputs(const blade_correlator_job& job)
{
    const int64_t sample_bytes = job.input_type == BLADE_CI8 ? 2 : 8;
    const bool whole_copies = job.window * job.pols * sample_bytes % 16 == 0;
    if (job.antennas * job.pols <= kTensorTileInputs || !whole_copies ||
        shared_memory_optin() < wide_shared_bytes(job.input_type, job.pols))
        return kTensorTileInputs;
    return kWideTileInputs;
}

blade_status launch_fp16_wide(const blade_correlator_job& job,
                              const Grid& grid,
                              int64_t blocks,
                              cudaStream_t stream)
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
