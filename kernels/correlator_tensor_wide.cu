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
// 64-input tile; and the next stages come as cp.async copies, which hold no registers
// (the 128 float accumulators of a thread need most of them).
//
// Stages are copied as they are in global memory (an antenna's samples [time][pol],
// 16-byte copies) into one of two raw buffers (stage s + 2 in flight while stage s + 1
// is converted), then converted once by the whole block
// into one of two fp16 stages laid out as the fragments want them ([input][time]
// half2, rows padded to 144 bytes so that ldmatrix's eight row addresses fall in
// distinct banks): cf32 times operand_scale rounded to nearest (as the 64-input kernel
// does, so both give the same operands and the same sums); ci8 exactly, by placing
// each byte in the mantissa of 1024 + 128 + x and subtracting 1152 (three integer and
// half-precision instructions where a conversion instruction would run at a quarter
// of the rate). Fragments then come from ldmatrix.x4, four registers an instruction.
// Stage s + 1 is converted between the k-steps of stage s, so the tensor pipe keeps
// working while the block converts, and one barrier a stage suffices.
//
// Measured on an H100 (docs/correlator.md): converting as the fragments were loaded,
// by every warp that read an element, issued 8.3 instructions per mma and kept the
// tensor pipe 34 % busy; one conversion per stage between two barriers, 6.4
// instructions per mma and the pipe still 34.6 % busy (no mma while converting).
//
// Warps: 2 along the rows (64 inputs each) x 4 along the columns (32 each): per k-step
// (8 samples) a warp loads its A fragments with 4 ldmatrix.x4 and its B fragments
// with 2, and issues 32 mma.
//
// Requirements, checked by tensor_tile_inputs() and the dispatcher: a window's samples
// are whole 16-byte copies (window * P * sample bytes a multiple of 16), the input is
// 16-byte aligned, and the GPU lends a block the shared memory of two raw stages and
// two fp16 ones (216 KB for cf32; the H100 and H200 lend 227 KB, the A100 164 KB).
// Otherwise the 64-input kernel runs.

#include "correlator_fragments.h"
#include "correlator_kernels.h"
#include "correlator_stage.h"
#include "correlator_wide_copies.h"
#include "cuda_check.h"

#include <cuda_fp16.h>

namespace correlator_cuda {
namespace {

constexpr int kSide = kWideTileInputs;    // inputs per tile side
constexpr int kThreads = kWideThreads;    // 8 warps: 2 along rows x 4 along columns
constexpr int kBuffers = 2;               // raw stages: one converted, the next in flight
constexpr int kHalfRow = kStageTimes + 4; // half2 words per fp16 row (144 bytes)
constexpr int kHalfBytes = 2 * kSide * kHalfRow * 4; // one fp16 stage, rows and columns
constexpr int kHalfStages = 2;          // stage s multiplied while stage s + 1 is converted
constexpr int kSteps = kStageTimes / 8; // k-steps per stage

// One side (rows or columns) of a raw stage (correlator_wide_copies.h) and its
// conversion. The conversion reads it in pairs of samples, consecutive lanes along a
// row: no padding is needed.
template <blade_dtype In, int P>
struct WideSide : RawSide<In, P> {
    using Raw = RawSide<In, P>;
    static constexpr int kRawBytes = kBuffers * 2 * Raw::kElements * Raw::kBytes;
    static constexpr int kSharedBytes = kRawBytes + kHalfStages * kHalfBytes;
    // Conversion units: two samples (one LDS of 2 x kBytes), (t, X) and (t, Y) at
    // P = 2, (t, t + 1) at P = 1.
    static constexpr int kUnitsPerThread = kSide * kStageTimes / 2 / kThreads;
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

// Two stored samples (one load) as two operand registers: cf32 scaled and rounded to
// nearest, ci8 exactly.
__device__ __forceinline__ void to_operands(const float2* pair, float scale, uint32_t (&out)[2])
{
    const float4 v = *reinterpret_cast<const float4*>(pair);
    HalfBits first, second;
    first.h = __floats2half2_rn(v.x * scale, v.y * scale);
    second.h = __floats2half2_rn(v.z * scale, v.w * scale);
    out[0] = first.u;
    out[1] = second.u;
}
__device__ __forceinline__ void to_operands(const char2* pair, float, uint32_t (&out)[2])
{
    const uint32_t raw = *reinterpret_cast<const uint32_t*>(pair);
    // Bytes x + 128 (0 .. 255) under the exponent of 1024: halves 1152 + x, exact.
    const uint32_t biased = raw ^ 0x80808080u;
    HalfBits low, high;
    low.u = __byte_perm(biased, 0x6464u, 0x4140);
    high.u = __byte_perm(biased, 0x6464u, 0x4342);
    const __half2 bias = __float2half2_rn(1152.0f);
    low.h = __hsub2(low.h, bias);
    high.h = __hsub2(high.h, bias);
    out[0] = low.u;
    out[1] = high.u;
}

// Four 8 x 8 matrices of 16-bit values from shared memory, each lane giving one row
// address (lanes 8q .. 8q + 7: matrix q), each thread receiving in register q the
// pair of row lane / 4, elements 2 (lane % 4) and 2 (lane % 4) + 1, of matrix q.
__device__ __forceinline__ void load_matrices(const uint32_t* row, uint32_t (&r)[4])
{
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

// Converts a thread's units first .. first + kCount - 1 of one side of a raw stage
// into the fp16 stage: half2 of input n at sample t in half[n * kHalfRow + t].
template <blade_dtype In, int P, int kCount = WideSide<In, P>::kUnitsPerThread>
__device__ __forceinline__ void convert_side(const typename WideSide<In, P>::Element* raw,
                                             float scale,
                                             uint32_t* half,
                                             int first = 0)
{
    using S = WideSide<In, P>;
#pragma unroll
    for (int i = first; i < first + kCount; i++) {
        const int unit = threadIdx.x + i * kThreads;
        // Consecutive threads: consecutive pairs of one antenna's row.
        const int antenna = unit / (kStageTimes * P / 2), pair = unit % (kStageTimes * P / 2);
        uint32_t v[2];
        to_operands(raw + antenna * S::kRow + 2 * pair, scale, v);
        if constexpr (P == 2) { // (t, X), (t, Y)
            half[(2 * antenna) * kHalfRow + pair] = v[0];
            half[(2 * antenna + 1) * kHalfRow + pair] = v[1];
        } else { // (t, t + 1) of one input
            *reinterpret_cast<uint2*>(half + antenna * kHalfRow + 2 * pair) =
                make_uint2(v[0], v[1]);
        }
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
    const int warp_row = (warp / 4) * 64, warp_column = (warp % 4) * 32;
    float re[4][4][4], im[4][4][4];
#pragma unroll
    for (int m = 0; m < 4; m++)
#pragma unroll
        for (int n = 0; n < 4; n++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                re[m][n][r] = im[m][n][r] = 0.0f;

    // The fp16 stage, and each lane's row address for ldmatrix: lanes 8q .. 8q + 7
    // give rows of matrix q. A (16 rows x 8 samples): q = 0 .. 3 are rows 0-7 and
    // 8-15 of samples 0-3, then of samples 4-7 (registers a0 .. a3 of mma). B (two
    // 8-column fragments): columns 0-7 of samples 0-3 and 4-7, then columns 8-15.
    uint32_t* halves = reinterpret_cast<uint32_t*>(shared_memory + S::kRawBytes);
    constexpr int kHalfWords = kHalfBytes / 4;
    const int q = lane / 8, r8 = lane % 8;
    const int a_lane = (warp_row + (q & 1) * 8 + r8) * kHalfRow + (q >> 1) * 4;
    const int b_lane = (diagonal ? 0 : kSide * kHalfRow) +
                       (warp_column + (q >> 1) * 8 + r8) * kHalfRow + (q & 1) * 4;

    const StageWalk walk(grid, work);
    // Raw stage s goes to buffer s % 2: rows, then (off the diagonal) columns.
    auto issue = [&](int64_t s, int buffer) {
        if (s < walk.count) {
            Element* rows = buffers + buffer * 2 * S::kElements;
            const int64_t f = walk.channel(s), t0 = walk.first_time(s);
            fetch_side<In, P>(grid, f, t0, walk.end, first_row / P, rows);
            if (!diagonal)
                fetch_side<In, P>(grid, f, t0, walk.end, first_column / P, rows + S::kElements);
        }
        cp_async_commit(); // empty groups too: the waits below count groups
    };
    // Raw stage s in raw buffer s % 2, fp16 stage s in fp16 buffer s % 2. Before the
    // loop: stage 0 converted, stage 1 landed, stage 2 in flight.
    issue(0, 0);
    issue(1, 1);
    cp_async_wait<1>();
    __syncthreads();
    convert_side<In, P>(buffers, scale, halves);
    if (!diagonal)
        convert_side<In, P>(buffers + S::kElements, scale, halves + kSide * kHalfRow);
    cp_async_wait<0>();
    __syncthreads();
    issue(2, 0);
    int buffer = 0;
    for (int64_t s = 0; s < walk.count; s++) {
        // Multiply fp16 stage s; between its k-steps convert raw stage s + 1 (stale
        // data after the last stage: converted, never used), a quarter per k-step, so
        // that the tensor pipe is not idle while the block converts.
        const uint32_t* half = halves + buffer * kHalfWords;
        const Element* next_raw = buffers + (buffer ^ 1) * 2 * S::kElements;
        uint32_t* next_half = halves + (buffer ^ 1) * kHalfWords;
#pragma unroll
        for (int step = 0; step < kSteps; step++) {
            const int k = 8 * step;
            uint32_t a[4][4], b[4][2], j[4][2];
#pragma unroll
            for (int m = 0; m < 4; m++)
                load_matrices(half + a_lane + 16 * m * kHalfRow + k, a[m]);
#pragma unroll
            for (int pair = 0; pair < 2; pair++) {
                uint32_t r[4];
                load_matrices(half + b_lane + 16 * pair * kHalfRow + k, r);
                b[2 * pair][0] = r[0];
                b[2 * pair][1] = r[1];
                b[2 * pair + 1][0] = r[2];
                b[2 * pair + 1][1] = r[3];
            }
#pragma unroll
            for (int n = 0; n < 4; n++) {
                j[n][0] = rotate(b[n][0]);
                j[n][1] = rotate(b[n][1]);
            }
            constexpr int kPart = S::kUnitsPerThread / kSteps;
            convert_side<In, P, kPart>(next_raw, scale, next_half, kPart * step);
            if (!diagonal)
                convert_side<In, P, kPart>(
                    next_raw + S::kElements, scale, next_half + kSide * kHalfRow, kPart * step);
#pragma unroll
            for (int m = 0; m < 4; m++)
#pragma unroll
                for (int n = 0; n < 4; n++) {
                    blade_mma_f16(re[m][n], a[m], b[n]);
                    blade_mma_f16(im[m][n], a[m], j[n]);
                }
        }
        cp_async_wait<0>(); // raw stage s + 2 has landed (this thread's copies)
        __syncthreads();    // fp16 stage s + 1 is whole, fp16 stage s and raw s + 1 free
        issue(s + 3, buffer ^ 1);
        buffer ^= 1;
    }

    store_fragments<4, 4, P>(grid, work, first_row + warp_row, first_column + warp_column, re, im);
#endif
}

template <int P, blade_dtype In>
blade_status launch_one(const Grid& grid, float scale, unsigned blocks, cudaStream_t stream)
{
    auto kernel = correlate_wide_kernel<P, In>;
    BLADE_TRY(blade_check_tensor_code(kernel, "correlator"));
    const int bytes = WideSide<In, P>::kSharedBytes;
    BLADE_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    kernel<<<blocks, kThreads, bytes, stream>>>(grid, scale);
    BLADE_CUDA_CHECK_LAUNCH("correlate_wide_kernel");
    return BLADE_OK;
}

} // namespace

int tensor_tile_inputs(const blade_correlator_job& job)
{
    const int64_t sample_bytes = job.input_type == BLADE_CI8 ? 2 : 8;
    const bool whole_copies = job.window * job.pols * sample_bytes % 16 == 0;
    if (job.antennas * job.pols <= kTensorTileInputs || !whole_copies ||
        blade_cuda_shared_memory_optin() < wide_shared_bytes(job.input_type, job.pols))
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
