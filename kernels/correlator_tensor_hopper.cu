// SPDX-License-Identifier: MIT
//
// The tensor-core correlator for large arrays on Hopper (compute capability 9.0):
// 128 x 128-input tiles multiplied by the warpgroup mma (wgmma), both operands read
// by the tensor cores from shared memory. Built for sm_90a only (wgmma exists on no
// other target); correlator_tensor_wide.cu, on mma.sync, runs everywhere else.
//
// The maths is that of correlator_tensor.cu (read its header first): V = X X^H over
// time for inputs n = (antenna, polarization). Here a stage's k axis is planar rather
// than interleaved: a stage's row for input n is the real parts of its 32 samples,
// then their imaginary parts, so that
//
//   Re V = Xr Xr^T + Xi Xi^T        Im V = Xi Xr^T - Xr Xi^T
//
// Two kinds of operands:
//   * fp16 (cf32 input; ci8 where BLADE_CORRELATOR_WGMMA=fp16): four m64n128k16 for
//     each of Re and Im a stage, the minus sign given to wgmma as its A operand's scale
//     (-1), float32 sums. Each 32-bit word of a plane holds samples t and t + 16.
//   * int8 (ci8 input): exact int32 sums, two m64n128k32 for each a stage, at twice
//     fp16's rate, and a conversion that only transposes bytes. The s8 wgmma has no
//     operand scale and -(-128) is no int8, so the rows also hold the complement of
//     their real plane (~x = -x - 1, an int8 for every int8) and
//         Im V[i][j] = (Xi Xr^T)[i][j] + (~Xr Xi^T)[i][j] + sum_t Im x_j(t),
//     each column's sum of imaginary parts kept by the conversion and added at the end.
//     Each word of a plane holds 4 samples. The sums stay within int32 for 32768 samples
//     (2 x 128^2 each): the dispatcher's slices are no longer.
// The order of samples along a row does not matter to a sum over time as long as rows
// and columns share it.
//
// Why. The mma.sync kernel (correlator_tensor_wide.cu) on an H100 kept the tensor pipe
// 38 % busy at 20-26 % of the fp16 dense peak: each mma.sync's operands pass through
// registers (ldmatrix, 8 instructions per 32 mma) and a warp issues the next only as
// the last returns. One wgmma m64n128k16 is 64 x 128 x 16 multiply-adds from shared
// memory, issued asynchronously: a warpgroup issues a stage's products and goes on to
// convert the next stage while the tensor cores work. Measured then (Nsight Compute),
// the warps' instructions per stage, not the tensor cores, set the stage time: hence
// offsets worked out once per thread, and int8 operands for ci8 (docs/correlator.md).
//
// Shared memory (cf32 225 KB, ci8 161 KB, 1 KB of it aligning the rest to 1024 bytes):
//   * three operand stages, each a rows side and a columns side of 128 rows x 128 bytes
//     in the 128-byte swizzle that wgmma's descriptors name (16-byte chunk c of row n at
//     chunk c ^ (n % 8), 8-row atoms of 1024 bytes): bank-conflict free for the tensor
//     cores and for the conversion's stores. Three, so that a stage's wgmma may still
//     run while the next stage's are issued and the one after is converted;
//   * R raw stages as copied by cp.async (two for cf32, four for ci8). A grid of one
//     tile a side (65 to 128 inputs: A = 33 .. 64 at P = 2; every tile diagonal) copies
//     one side a stage, so the same bytes hold twice as many stages (four cf32, eight
//     ci8): at A = 64 (8 KB ci8 stages, one block per SM) that made the chunk 1.05-1.07x
//     faster on an H100 (1.04x with cf32); 12 or 16 ci8 stages gained no more.
//
// Per stage s: wgmma on operand stage s (committed as one group), convert raw stage
// s + 1 into operand stage s + 1 while they run, wait until only stage s's group is
// pending (stage s - 1's operands are free), one barrier, copy raw stage s + R + 1.
// Each warpgroup (4 warps) owns 64 rows x 128 columns: 64 + 64 accumulators per
// thread, laid out as mma.sync's so store_fragments writes them.
//
// Requirements: those of correlator_tensor_wide.cu (whole 16-byte copies, a 16-byte
// aligned input), a GPU of compute capability 9.0 lending a block the shared memory
// above (the H100 and H200 lend 227 KB), and a build with 90 among its architectures.

#include "correlator_fragments.h"
#include "correlator_kernels.h"
#include "correlator_wide_copies.h"
#include "cuda_check.h"
#include "wgmma.h"

#include <cuda_fp16.h>

#include <type_traits>
#include <cstdlib>
#include <cstring>

namespace correlator_cuda {
namespace {

constexpr int kSide = kWideTileInputs;        // inputs per tile side
constexpr int kThreads = kWideThreads;        // 2 warpgroups of 64 rows each
constexpr int kRowBytes = kStageTimes * 4;    // 32 real halves, then 32 imaginary
constexpr int kSideBytes = kSide * kRowBytes; // 16 KB
constexpr int kStageBytes = 2 * kSideBytes;   // rows side, columns side
constexpr int kHalfStages = 3;                // operand stages
constexpr int kAlignment = kWgmmaAlignment;   // one 128-byte swizzle atom
constexpr int kUnitsPerSide = 1024;           // fp16 conversion units (ConvertLanes)
constexpr int kUnitsPerThread = kUnitsPerSide / kThreads;

// Raw stages in flight: the copies of stage s + kRawBuffers - 1 are issued while stage s
// is multiplied. ci8 stages (16 KB) leave room for four; cf32 (64 KB) for two. A grid of
// one tile a side (kOneTile: A P <= 128, every tile diagonal) copies one side a stage,
// so the same bytes hold twice the stages.
template <blade_dtype In, int P, bool kOneTile>
struct HopperShared : RawSide<In, P> {
    using Raw = RawSide<In, P>;
    static constexpr int kSides = kOneTile ? 1 : 2; // raw sides a stage copies
    static constexpr int kRawBuffers = (In == BLADE_CI8 ? 4 : 2) * (kOneTile ? 2 : 1);
    static constexpr int kBufferElements = kSides * Raw::kElements;
    static constexpr int kRawBytes = kRawBuffers * kBufferElements * Raw::kBytes;
    static constexpr int kBytes = kAlignment + kHalfStages * kStageBytes + kRawBytes;
};

int hopper_shared_bytes(blade_dtype in, int64_t pols)
{
    if (in == BLADE_CI8)
        return pols == 2 ? HopperShared<BLADE_CI8, 2, false>::kBytes
                         : HopperShared<BLADE_CI8, 1, false>::kBytes;
    return pols == 2 ? HopperShared<BLADE_CF32, 2, false>::kBytes
                     : HopperShared<BLADE_CF32, 1, false>::kBytes;
}

#ifdef BLADE_WGMMA
union HalfBits {
    __half2 h;
    uint32_t u;
};

__device__ __forceinline__ uint32_t halves(float low, float high)
{
    HalfBits bits;
    bits.h = __floats2half2_rn(low, high);
    return bits.u;
}

// Two loads of a unit, `early` (samples at t) and `late` (at t + 16), each two stored
// samples: (t, X), (t, Y) at P = 2, (t, t + 1) at P = 1. out: the real word and the
// imaginary word of the first sample, then of the second, each word (early, late).
// cf32 is scaled and rounded to nearest as the other tensor kernels do; ci8 is exact:
// each byte goes to the mantissa of 1024 + 128 + x, and 1152 is subtracted.
__device__ __forceinline__ void
to_planes(const float2* early, const float2* late, float scale, uint32_t (&out)[4])
{
    const float4 e = *reinterpret_cast<const float4*>(early);
    const float4 l = *reinterpret_cast<const float4*>(late);
    out[0] = halves(e.x * scale, l.x * scale);
    out[1] = halves(e.y * scale, l.y * scale);
    out[2] = halves(e.z * scale, l.z * scale);
    out[3] = halves(e.w * scale, l.w * scale);
}
__device__ __forceinline__ void
to_planes(const char2* early, const char2* late, float, uint32_t (&out)[4])
{
    const uint32_t e = *reinterpret_cast<const uint32_t*>(early) ^ 0x80808080u;
    const uint32_t l = *reinterpret_cast<const uint32_t*>(late) ^ 0x80808080u;
    // Bytes of the first sample (re early, re late, im early, im late), then the second.
    const uint32_t first = __byte_perm(e, l, 0x5140), second = __byte_perm(e, l, 0x7362);
    const uint32_t words[4] = { __byte_perm(first, 0x6464u, 0x4140),
                                __byte_perm(first, 0x6464u, 0x4342),
                                __byte_perm(second, 0x6464u, 0x4140),
                                __byte_perm(second, 0x6464u, 0x4342) };
    HalfBits bias; // 1152 in both halves
    bias.u = 0x64806480u;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        HalfBits bits;
        bits.u = words[i];
        bits.h = __hsub2(bits.h, bias.h);
        out[i] = bits.u;
    }
}

// Word w (0 .. 31: real words, then imaginary) of row n in a swizzled side.
__device__ __forceinline__ int swizzled(int n, int w)
{
    return n * (kRowBytes / 4) + ((((w >> 2) ^ n) & 7) << 2) + (w & 3);
}

// A thread's share of converting one side of a raw stage into a side of an fp16
// stage. A unit is one antenna's two early and two late samples (P = 2: t and t + 16
// of both polarizations; P = 1: t, t + 1, t + 16, t + 17). The lanes of a warp take 16
// (P = 2) or 8 (P = 1) consecutive units of each of two or four antennas whose rows
// differ by 4 modulo 8, so that their stores fall in distinct banks. A thread's units
// i = 0 .. 3 are 256 threads apart: 16 (P = 2) or 32 (P = 1) antennas, 32 rows, which
// keeps their swizzle, so that every offset below is the first unit's plus a constant,
// worked out once per thread (the conversion is most of the instructions a warp issues
// per stage).
template <blade_dtype In, int P>
struct ConvertLanes {
    using Raw = RawSide<In, P>;
    static constexpr int kAntennaStep = kThreads / 32 / 2 * (P == 2 ? 4 : 8);
    static constexpr int kLoadStep = kAntennaStep * Raw::kRow; // elements per unit
    static constexpr int kStoreStep = 32 * (kRowBytes / 4);    // words per unit: 32 rows
    int load;   // the first unit's early samples, elements into a raw side
    int first;  // its real word of the first row (P = 2: polarization X), words into a side
    int second; // P = 2: of the second row (Y); P = 1: unused

    __device__ ConvertLanes()
    {
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        int antenna, t;
        if constexpr (P == 2) {
            antenna = (warp >> 1) * 4 + (warp & 1) + 2 * (lane >> 4);
            t = lane & 15;
            first = swizzled(2 * antenna, t);
            second = swizzled(2 * antenna + 1, t);
        } else {
            antenna = (warp >> 1) * 8 + (warp & 1) * 2 + ((lane >> 3) & 1) * 4 + (lane >> 4);
            t = 2 * (lane & 7);
            first = swizzled(antenna, t);
            second = 0;
        }
        load = antenna * Raw::kRow + t * P;
    }

    // The imaginary word of a row sits in the chunk 4 away from its real word's, which
    // the swizzle (chunk ^ row % 8) keeps 4 away: word offset ^ 16.
    __device__ void convert(const typename Raw::Element* raw, float scale, uint32_t* side) const
    {
#pragma unroll
        for (int i = 0; i < kUnitsPerThread; i++) {
            const auto* early = raw + load + i * kLoadStep;
            uint32_t w[4];
            to_planes(early, early + 16 * P, scale, w);
            uint32_t* row = side + i * kStoreStep;
            if constexpr (P == 2) {
                row[first] = w[0];
                row[first ^ 16] = w[1];
                row[second] = w[2];
                row[second ^ 16] = w[3];
            } else {
                *reinterpret_cast<uint2*>(row + first) = make_uint2(w[0], w[2]);
                *reinterpret_cast<uint2*>(row + (first ^ 16)) = make_uint2(w[1], w[3]);
            }
        }
    }
};

// A thread's cp.async copies of one side of a raw stage (the layout of fetch_side in
// correlator_wide_copies.h): its copies i = 0 .. kCopiesPerThread - 1 are 256 copies
// apart, a fixed number of antennas at the same sample offset, so a copy's source is
// the stage's offset plus the thread's first copy's plus i strides, and only the
// stage's (channel, first sample) changes between stages.
template <blade_dtype In, int P>
struct CopyLanes {
    using Raw = RawSide<In, P>;
    static constexpr int kAntennaStep = kThreads / Raw::kCopiesPerRow;
    int antenna;   // of the first copy, in the side
    int time;      // its first sample, from the stage's
    int target;    // its elements into the side's raw buffer
    int64_t first; // its elements into a channel's input of antenna 0, sample 0
    int64_t stride;

    __device__ CopyLanes(const Grid& grid)
    {
        antenna = threadIdx.x / Raw::kCopiesPerRow;
        const int piece = threadIdx.x % Raw::kCopiesPerRow;
        time = piece * Raw::kTimesPerCopy;
        target = antenna * Raw::kRow + time * P;
        first = (static_cast<int64_t>(antenna) * grid.channels * grid.times + time) * P;
        stride = static_cast<int64_t>(kAntennaStep) * grid.channels * grid.times * P;
    }

    // Copies of the side whose first antenna is `first_antenna` for stage (channel f,
    // samples from t0) into `side`; antennas past the array and samples past `end`
    // are filled with zeros.
    __device__ __forceinline__ void fetch(const Grid& grid,
                                          int first_antenna,
                                          int64_t f,
                                          int64_t t0,
                                          int64_t end,
                                          typename Raw::Element* side) const
    {
        const auto* input = static_cast<const typename Raw::Element*>(grid.input);
        const int64_t stage = (static_cast<int64_t>(first_antenna) * grid.channels * grid.times +
                               f * grid.times + t0) *
                              P;
        const bool in_time = t0 + time < end;
#pragma unroll
        for (int i = 0; i < Raw::kCopiesPerThread; i++) {
            const bool valid =
                in_time && first_antenna + antenna + i * kAntennaStep < grid.antennas;
            const auto* from = valid ? input + stage + first + i * stride : input;
            cp_async16(side + target + i * kAntennaStep * Raw::kRow, from, valid);
        }
    }
};

// One stage's eight products of a warpgroup: rows from shared address `a`, columns
// from `b` (k16 slices of a row: real samples at bytes 0 and 32, imaginary at 64 and
// 96, descriptor steps of 2 per 32 bytes), the real and imaginary sums interleaved so
// that consecutive wgmma do not wait on each other's accumulators. keep = false: the
// first stage starts them.
__device__ __forceinline__ void
multiply_stage(float (&re)[1][16][4], float (&im)[1][16][4], uint32_t a, uint32_t b, bool keep)
{
    const uint64_t da = descriptor(a), db = descriptor(b);
    wgmma_m64n128k16<1>(re[0], da, db, keep);
    wgmma_m64n128k16<1>(im[0], da + 4, db, keep);
    wgmma_m64n128k16<1>(re[0], da + 2, db + 2, true);
    wgmma_m64n128k16<1>(im[0], da + 6, db + 2, true);
    wgmma_m64n128k16<1>(re[0], da + 4, db + 4, true);
    wgmma_m64n128k16<-1>(im[0], da, db + 4, true);
    wgmma_m64n128k16<1>(re[0], da + 6, db + 6, true);
    wgmma_m64n128k16<-1>(im[0], da + 2, db + 6, true);
}

// The int8 stage's four products (ci8 voltages, exact): rows hold the real plane at
// bytes 0-31, the imaginary at 32-63 and the real plane's complement (~x = -x - 1) at
// 64-95; columns the first two. Re = Xr Xr^T + Xi Xi^T; Im = Xi Xr^T + (~Xr) Xi^T,
// which is Xi Xr^T - Xr Xi^T less each column's sum of imaginary parts (added back at
// the end): s8 wgmma has no operand scale, and -x of an int8 -128 is not an int8.
__device__ __forceinline__ void
multiply_stage(int (&re)[1][16][4], int (&im)[1][16][4], uint32_t a, uint32_t b, bool keep)
{
    const uint64_t da = descriptor(a), db = descriptor(b);
    wgmma_m64n128k32_s8(re[0], da, db, keep);
    wgmma_m64n128k32_s8(im[0], da + 2, db, keep);
    wgmma_m64n128k32_s8(re[0], da + 2, db + 2, true);
    wgmma_m64n128k32_s8(im[0], da + 4, db + 2, true);
}

// A thread's share of converting one side of a ci8 raw stage into an int8 stage: the
// planes of a row are bytes of four samples a word. A unit is one antenna's 16 bytes
// of raw stage (P = 2: samples 4q .. 4q + 3 of both polarizations, q < 8; P = 1:
// samples 8q .. 8q + 7, q < 4), one 16-byte load; two units a thread, 32 warps' worth
// of antennas apart, which keeps their rows' swizzle. The lanes of a warp take
// antennas whose rows' chunks do not collide: P = 2, 4 antennas of 8 lanes (rows 2a +
// 0, 2, 4, 6); P = 1, 8 antennas of 4 lanes, a half-warp's 4 antennas 2 apart (their
// 16-byte loads are 2-way conflicted instead). Word offsets: the imaginary plane's
// word is the real one's ^ 8, the complement's ^ 16 (chunk bits of the swizzle).
template <int P>
struct ByteLanes {
    using Raw = RawSide<BLADE_CI8, P>;
    static constexpr int kUnits = 2;
    static constexpr int kAntennaStep = P == 2 ? 32 : 64; // between a thread's units
    static constexpr int kLoadStep = kAntennaStep * Raw::kRow;
    static constexpr int kStoreStep = kAntennaStep * P * (kRowBytes / 4);
    static constexpr int kSums = kUnits * P; // imaginary sums a thread keeps
    int load, first, second, input;          // input: the first unit's first input

    __device__ ByteLanes()
    {
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        if constexpr (P == 2) {
            const int antenna = warp * 4 + lane / 8, q = lane % 8;
            load = antenna * Raw::kRow + q * 4 * P;
            first = swizzled(2 * antenna, q);
            second = swizzled(2 * antenna + 1, q);
            input = 2 * antenna;
        } else {
            const int antenna = warp * 8 + ((lane / 4) % 4) * 2 + lane / 16, q = lane % 4;
            load = antenna * Raw::kRow + q * 8;
            first = swizzled(antenna, 2 * q);
            second = 0;
            input = antenna;
        }
    }

    // kComplement: write the rows' complement plane; kSum: add the imaginary parts to
    // `sums` (the columns' side, or the diagonal's one side).
    template <bool kComplement, bool kSum>
    __device__ __forceinline__ void
    convert(const char2* raw, uint32_t* side, int (&sums)[kSums]) const
    {
#pragma unroll
        for (int i = 0; i < kUnits; i++) {
            const uint4 v = *reinterpret_cast<const uint4*>(raw + load + i * kLoadStep);
            uint32_t* row = side + i * kStoreStep;
            if constexpr (P == 2) {
                // v.x .. v.w: samples 4q .. 4q + 3, bytes (re X, im X, re Y, im Y).
                const uint32_t x01 = __byte_perm(v.x, v.y, 0x5140),
                               x23 = __byte_perm(v.z, v.w, 0x5140);
                const uint32_t y01 = __byte_perm(v.x, v.y, 0x7362),
                               y23 = __byte_perm(v.z, v.w, 0x7362);
                const uint32_t xr = __byte_perm(x01, x23, 0x5410),
                               xi = __byte_perm(x01, x23, 0x7632);
                const uint32_t yr = __byte_perm(y01, y23, 0x5410),
                               yi = __byte_perm(y01, y23, 0x7632);
                row[first] = xr;
                row[first ^ 8] = xi;
                row[second] = yr;
                row[second ^ 8] = yi;
                if constexpr (kComplement) {
                    row[first ^ 16] = ~xr;
                    row[second ^ 16] = ~yr;
                }
                if constexpr (kSum) {
                    sums[2 * i] = __dp4a(static_cast<int>(xi), 0x01010101, sums[2 * i]);
                    sums[2 * i + 1] = __dp4a(static_cast<int>(yi), 0x01010101, sums[2 * i + 1]);
                }
            } else {
                // v.x .. v.w: samples 8q .. 8q + 7, bytes (re, im) each.
                const uint32_t r0 = __byte_perm(v.x, v.y, 0x6420),
                               r1 = __byte_perm(v.z, v.w, 0x6420);
                const uint32_t i0 = __byte_perm(v.x, v.y, 0x7531),
                               i1 = __byte_perm(v.z, v.w, 0x7531);
                *reinterpret_cast<uint2*>(row + first) = make_uint2(r0, r1);
                *reinterpret_cast<uint2*>(row + (first ^ 8)) = make_uint2(i0, i1);
                if constexpr (kComplement)
                    *reinterpret_cast<uint2*>(row + (first ^ 16)) = make_uint2(~r0, ~r1);
                if constexpr (kSum)
                    sums[i] = __dp4a(static_cast<int>(i1),
                                     0x01010101,
                                     __dp4a(static_cast<int>(i0), 0x01010101, sums[i]));
            }
        }
    }

    // The block's imaginary sums of its column inputs into column_sums[0 .. 127]: the
    // lanes that shared an antenna (8 at P = 2, 4 at P = 1) add theirs.
    __device__ void publish(int (&sums)[kSums], int* column_sums) const
    {
        constexpr int kLanes = P == 2 ? 8 : 4;
#pragma unroll
        for (int k = 0; k < kSums; k++)
#pragma unroll
            for (int mask = 1; mask < kLanes; mask <<= 1)
                sums[k] += __shfl_xor_sync(0xffffffffu, sums[k], mask);
        if (threadIdx.x % kLanes == 0)
#pragma unroll
            for (int i = 0; i < kUnits; i++)
#pragma unroll
                for (int p = 0; p < P; p++)
                    column_sums[input + i * kAntennaStep * P + p] = sums[i * P + p];
    }
};
#endif

// kInt8 (ci8 input only): int8 operands and int32 sums (ByteLanes, the s8 wgmma);
// otherwise fp16 operands and float32 sums.
template <int P, blade_dtype In, bool kInt8, bool kOneTile>
__global__ void __launch_bounds__(kThreads, 1) correlate_hopper_kernel(Grid grid, float scale)
{
#ifdef BLADE_WGMMA
    using Raw = RawSide<In, P>;
    using Shared = HopperShared<In, P, kOneTile>;
    using Element = typename Raw::Element;
    extern __shared__ unsigned char shared_memory[];
    const uint32_t unaligned = static_cast<uint32_t>(__cvta_generic_to_shared(shared_memory));
    const uint32_t skip = (kAlignment - unaligned % kAlignment) % kAlignment;
    uint32_t* stages = reinterpret_cast<uint32_t*>(shared_memory + skip);
    const uint32_t stages_address = unaligned + skip;
    Element* buffers = reinterpret_cast<Element*>(shared_memory + skip + kHalfStages * kStageBytes);

    const BlockWork work = block_work(grid, blockIdx.x);
    const int first_row = work.ti * kSide, first_column = work.tj * kSide;
    const bool diagonal = kOneTile || work.ti == work.tj;
    const int warpgroup = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4;
    using Sum = std::conditional_t<kInt8, int, float>;
    Sum re[1][16][4], im[1][16][4]; // started by stage 0's products

    const StageWalk walk(grid, work);
    // Raw stages are copied in order, stage s to buffer s % R: rows, then (off the
    // diagonal) columns. The channel and first sample of the next stage to copy are
    // stepped rather than divided out of s (a 64-bit division a stage).
    int64_t copied = 0, copy_channel = walk.first_channel, copy_time = walk.begin;
    const CopyLanes<In, P> copies(grid);
    auto issue = [&](int buffer) {
        if (copied < walk.count) {
            Element* rows = buffers + buffer * Shared::kBufferElements;
            copies.fetch(grid, first_row / P, copy_channel, copy_time, walk.end, rows);
            if (!diagonal)
                copies.fetch(grid,
                             first_column / P,
                             copy_channel,
                             copy_time,
                             walk.end,
                             rows + Raw::kElements);
            copy_time += kStageTimes;
            if (copy_time >= walk.end) {
                copy_time = walk.begin;
                copy_channel++;
            }
        }
        copied++;
        cp_async_commit(); // empty groups too: the waits below count groups
    };
    // `counted`: the stage is one of the block's (the conversion after the last stage
    // converts stale data, never multiplied, and must not add to the int8 sums).
    std::conditional_t<kInt8, ByteLanes<P>, ConvertLanes<In, P>> lanes;
    int sums[ByteLanes<P>::kSums] = {}; // int8: the imaginary sums of this thread's inputs
    auto convert = [&](int buffer, int stage, bool counted) {
        const Element* raw = buffers + buffer * Shared::kBufferElements;
        uint32_t* half = stages + stage * (kStageBytes / 4);
        if constexpr (kInt8) {
            if (diagonal && counted)
                lanes.template convert<true, true>(raw, half, sums);
            else
                lanes.template convert<true, false>(raw, half, sums);
            if (!diagonal && counted)
                lanes.template convert<false, true>(
                    raw + Raw::kElements, half + kSideBytes / 4, sums);
            else if (!diagonal)
                lanes.template convert<false, false>(
                    raw + Raw::kElements, half + kSideBytes / 4, sums);
        } else {
            (void)counted;
            lanes.convert(raw, scale, half);
            if (!diagonal)
                lanes.convert(raw + Raw::kElements, scale, half + kSideBytes / 4);
        }
        fence_proxy_async();
    };

    constexpr int R = Shared::kRawBuffers;
#pragma unroll
    for (int b = 0; b < R; b++)
        issue(b);
    cp_async_wait<R - 1>();
    __syncthreads();
    convert(0, 0, true);
    cp_async_wait<R - 2>();
    __syncthreads();
    issue(0);
    int stage = 0, buffer = 0; // operand stage s % 3, raw stage s % R
    for (int64_t s = 0; s < walk.count; s++) {
        const uint32_t rows = stages_address + stage * kStageBytes;
        const uint32_t columns = diagonal ? rows : rows + kSideBytes;
        wgmma_fence();
        multiply_stage(re, im, rows + warpgroup * 64 * kRowBytes, columns, s > 0);
        wgmma_commit();
        // Stage s + 1 (stale after the last stage: converted, never used) while they run.
        const int next_stage = stage == kHalfStages - 1 ? 0 : stage + 1;
        const int next_buffer = buffer == R - 1 ? 0 : buffer + 1;
        convert(next_buffer, next_stage, s + 1 < walk.count);
        wgmma_wait<1>();        // stage s - 1's products are done: its operand stage is free
        cp_async_wait<R - 2>(); // raw stage s + 2 has landed (this thread's copies)
        __syncthreads();        // operand stage s + 1 is whole; raw buffer of s + 1 is free
        issue(next_buffer);     // raw stage s + R + 1
        buffer = next_buffer;
        stage = next_stage;
    }
    wgmma_wait<0>();
    touch(re[0]);
    touch(im[0]);
    if (walk.count == 0) // never with the dispatcher's slices, each of which has samples
#pragma unroll
        for (int n = 0; n < 16; n++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                re[0][n][r] = im[0][n][r] = 0;

    const int row = first_row + warpgroup * 64 + warp * 16;
    if constexpr (kInt8) {
        // Each column's imaginary sum back into Im (see multiply_stage), then float.
        __syncthreads(); // every warpgroup's products are done: the stages are free
        int* column_sums = reinterpret_cast<int*>(stages);
        lanes.publish(sums, column_sums);
        __syncthreads();
        const int t = threadIdx.x % 4;
        float fre[1][16][4], fim[1][16][4];
#pragma unroll
        for (int n = 0; n < 16; n++)
#pragma unroll
            for (int r = 0; r < 4; r++) {
                fre[0][n][r] = static_cast<float>(re[0][n][r]);
                fim[0][n][r] =
                    static_cast<float>(im[0][n][r] + column_sums[8 * n + 2 * t + (r & 1)]);
            }
        store_fragments<1, 16, P>(grid, work, row, first_column, fre, fim);
    } else {
        store_fragments<1, 16, P>(grid, work, row, first_column, re, im);
    }
#endif
}

template <int P, blade_dtype In, bool kInt8, bool kOneTile>
blade_status launch_one(const Grid& grid, float scale, unsigned blocks, cudaStream_t stream)
{
    auto kernel = correlate_hopper_kernel<P, In, kInt8, kOneTile>;
    const int bytes = HopperShared<In, P, kOneTile>::kBytes;
    BLADE_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    kernel<<<blocks, kThreads, bytes, stream>>>(grid, scale);
    BLADE_CUDA_CHECK_LAUNCH("correlate_hopper_kernel");
    return BLADE_OK;
}

// A grid of one tile a side runs the one-side stages (HopperShared).
template <int P, blade_dtype In, bool kInt8>
blade_status launch_tiles(const Grid& grid, float scale, unsigned blocks, cudaStream_t stream)
{
    return grid.tiles_per_side == 1 ? launch_one<P, In, kInt8, true>(grid, scale, blocks, stream)
                                    : launch_one<P, In, kInt8, false>(grid, scale, blocks, stream);
}

} // namespace

HopperKernel hopper_kernel(const blade_correlator_job& job)
{
    const char* chosen = std::getenv("BLADE_CORRELATOR_WGMMA");
    if (chosen != nullptr && std::strcmp(chosen, "0") == 0)
        return HopperKernel::none;
    if (blade_cuda_compute_capability() != 90 ||
        blade_cuda_shared_memory_optin() < hopper_shared_bytes(job.input_type, job.pols))
        return HopperKernel::none;
    const bool fp16_asked = chosen != nullptr && std::strcmp(chosen, "fp16") == 0;
    if (job.input_type == BLADE_CI8 && !fp16_asked &&
        job.channel_integration * kStageTimes <= kInt8BlockSamples)
        return HopperKernel::int8;
    return HopperKernel::fp16;
}

blade_status launch_hopper(const blade_correlator_job& job,
                           HopperKernel kernel,
                           const Grid& grid,
                           int64_t blocks,
                           cudaStream_t stream)
{
    const unsigned count = static_cast<unsigned>(blocks);
    const float scale = job.operand_scale;
    if (kernel == HopperKernel::int8)
        return job.pols == 2 ? launch_tiles<2, BLADE_CI8, true>(grid, scale, count, stream)
                             : launch_tiles<1, BLADE_CI8, true>(grid, scale, count, stream);
    if (job.pols == 2)
        return job.input_type == BLADE_CI8
                   ? launch_tiles<2, BLADE_CI8, false>(grid, scale, count, stream)
                   : launch_tiles<2, BLADE_CF32, false>(grid, scale, count, stream);
    return job.input_type == BLADE_CI8
               ? launch_tiles<1, BLADE_CI8, false>(grid, scale, count, stream)
               : launch_tiles<1, BLADE_CF32, false>(grid, scale, count, stream);
}

} // namespace correlator_cuda
