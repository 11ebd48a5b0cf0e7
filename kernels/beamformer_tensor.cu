// SPDX-License-Identifier: MIT
//
// The beamformer as a matrix product on tensor cores (sm_80 and newer).
//
// For one channel f and polarization p the beams are Y = W X: W [B, A] phasors, X
// [A, T] voltages, Y [B, T]. Why our own kernel and not cuBLAS: in the [A, F, T, P]
// layout X has element stride P along t, which no GEMM accepts for P = 2; cuBLAS would
// need the voltages repacked to [F, P, A, T] and the beams unpacked back, two extra
// passes over the largest tensors (at (B, A) = (64, 64): 6.4 GB of traffic instead
// of 3.2 GB, and the kernel is memory bound there). Here the repacking happens where
// it costs nothing: tiles of [16 antennas, 64 times, 2 pols] are copied as they lie in
// memory (contiguous rows) into shared memory, and the fragment loads pick the
// polarizations apart. Outputs go straight from the accumulators to their interleaved
// places. Only the small phasor tensor is repacked (into the plan's workspace).
//
// Complex products on real tensor cores. mma.m16n8k8 (TF32 in, FP32 accumulate)
// multiplies a 16x8 A by an 8x8 B. The complex product becomes a real one of twice
// the size: the 16 rows of A are the real parts (rows 0-7) and imaginary parts
// (rows 8-15) of 8 beams, its 8 columns the real (0-3) and imaginary (4-7) parts of
// 4 antennas, and B's 8 columns are 8 time samples:
//
//   [Re y]   [ Wr  -Wi ] [Re x]
//   [Im y] = [ Wi   Wr ] [Im x]
//
// With that ordering each thread's A fragment (rows g, g+8; columns t, t+4 for
// lane = 4g + t) is exactly {Wr, Wi, -Wi, Wr} of the single phasor (beam g, antenna t),
// its B fragment {Re, Im} of one voltage (antenna t, time g), and its accumulators
// {Re, Re, Im, Im} of beam g at times 2t and 2t+1: every fragment is one complex
// load, and the results leave as whole complex numbers. No arithmetic is wasted
// (one mma = 8 beams x 8 times x 4 antennas = 256 complex MACs).
//
// Tiles: a block computes 64 beams x 128 (time, pol) columns of one channel with 8
// warps (4 along beams x 2 along columns, 16 beams x 64 columns each: 16 mma per
// k-step, 64 accumulators per thread), streaming 16 antennas per stage through a
// 3-stage cp.async pipeline (cf32, P = 2: 33 KB per stage, 2 blocks per SM). A block
// runs several consecutive time tiles of its channel so that the pipeline flows
// across tile boundaries; blocks of the same voltages for different beam groups are
// adjacent in the grid, so the voltages come from DRAM once and from L2 after.
// Shared-memory rows are padded by 32 bytes: the fragment loads of a warp (4 antennas
// x 8 times or beams) then fall in distinct banks.
//
// Bytes and flops at (B, A) = (64, 64), F = 192, T = 8192, P = 2: 1.61 GB read, 1.61 GB
// written (0.75 ms at 4.28 TB/s), 12.9 G complex MACs = 103 GFLOP: 17 T complex
// MAC/s if memory bound; FP32 CUDA cores top out at 8.4 T (67 TFLOP/s / 8).
//
// Precision. TF32 keeps 10 mantissa bits: each operand is rounded (cvt.rna) with a
// relative error below 2^-11, so |error| <= (2^-10 + A 2^-24) sum_a |w_a||x_a| for
// one output. ci8 and cf16 voltages are exact in TF32. The split mode (tf32x3) writes each
// operand as big + small, both TF32, and adds small*big + big*small + big*big (the
// small*small term is below float32 resolution; for ci8 and cf16 input big*small
// vanishes and is skipped): float32-class accuracy for 3 (or 2) tensor-core products.

#include "beamformer_tensor_tiles.h"

namespace beamformer_cuda {
namespace {

// kBeams, kColumns, kThreads, kPad: beamformer_tensor_tiles.h
constexpr int kAntennas = 16; // antennas per pipeline stage
constexpr int kStages = 3;

template <blade_dtype In, int P>
struct Layout {
    static constexpr int antennas = kAntennas;                          // per stage
    static constexpr int times = kColumns / P;                          // per time tile
    static constexpr int x_row = kColumns * element_bytes<In>() + kPad; // one antenna's voltages
    static constexpr int w_row = kBeams * P * 8 + kPad;                 // one antenna's phasors
    static constexpr int x_stage = kAntennas * x_row;
    static constexpr int stage = kAntennas * (x_row + w_row);
    static constexpr int shared_bytes = kStages * stage;
    static constexpr int octets = kColumns / 2 / 8 / P; // 8-time groups per warp
};

struct TensorArgs {
    const void* x;
    const float2* w_packed; // [Fw][groups][A_pad][64][P]
    void* y;
    int64_t channels, times;
    int64_t beams;
    int64_t packed_channel_stride; // complex elements between channels of w_packed (0: MeerKAT)
    int antennas;
    int chunks;          // antenna chunks of kAntennas (A_pad / kAntennas)
    int groups;          // beam groups of kBeams
    int64_t tiles;       // time tiles per channel
    int64_t segment;     // time tiles per block
    int64_t segments;    // blocks per (channel, beam group)
    bool async_voltages; // rows 16-byte aligned: cp.async; else plain loads
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define BLADE_TENSOR_CORES 1
#endif

#ifdef BLADE_TENSOR_CORES

__device__ __forceinline__ uint32_t to_tf32(float value)
{
    uint32_t result;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(result) : "f"(value));
    return result;
}

__device__ __forceinline__ void
mma_tf32(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Operands as TF32: `big` always, `small` (the rounding remainder) for the split mode.
struct Split {
    uint32_t big, small;
};

template <bool SplitMode>
__device__ __forceinline__ Split split(float value)
{
    Split s;
    s.big = to_tf32(value);
    s.small = SplitMode ? to_tf32(value - __uint_as_float(s.big)) : 0u;
    return s;
}

// A fragment of phasor w for beam rows (Re, Im) and antenna columns (Re, Im).
__device__ __forceinline__ void a_fragment(uint32_t wr, uint32_t wi, uint32_t (&a)[4])
{
    a[0] = wr;
    a[1] = wi;
    a[2] = wi ^ 0x80000000u; // -wi: rounding to TF32 is symmetric
    a[3] = wr;
}

// Voltage (antenna, column) of a shared-memory stage as complex, both pols for P = 2.
template <blade_dtype In, int P>
__device__ __forceinline__ void load_voltage(const char* row, int time, float2 (&v)[2])
{
    if constexpr (In == BLADE_CF32) {
        if constexpr (P == 2) {
            const float4 q = *reinterpret_cast<const float4*>(row + time * 16);
            v[0] = make_float2(q.x, q.y);
            v[1] = make_float2(q.z, q.w);
        } else {
            v[0] = *reinterpret_cast<const float2*>(row + time * 8);
        }
    } else if constexpr (In == BLADE_CF16) {
        if constexpr (P == 2) {
            const uint2 q = *reinterpret_cast<const uint2*>(row + time * 8);
            v[0] = cf16_to_float2(q.x);
            v[1] = cf16_to_float2(q.y);
        } else {
            v[0] = cf16_to_float2(*reinterpret_cast<const uint32_t*>(row + time * 4));
        }
    } else {
        if constexpr (P == 2) {
            const float4 q = ci8x2_to_float4(*reinterpret_cast<const uint32_t*>(row + time * 4));
            v[0] = make_float2(q.x, q.y);
            v[1] = make_float2(q.z, q.w);
        } else {
            v[0] = ci8_to_float2(*reinterpret_cast<const uint16_t*>(row + time * 2));
        }
    }
}

#endif // BLADE_TENSOR_CORES

template <blade_dtype In, blade_dtype Out, int P, bool SplitMode>
__global__ void __launch_bounds__(kThreads, 2) tensor_kernel(const TensorArgs args)
{
    using L = Layout<In, P>;
    static_assert(L::times * P == kColumns && L::octets * 8 * P * 2 == kColumns,
                  "two warps of 8-sample octets cover the columns of a time tile");
    static_assert(L::x_row % 16 == 0 && L::w_row % 16 == 0 && L::x_stage % 16 == 0,
                  "cp.async needs 16-byte aligned shared-memory rows");
#ifdef BLADE_TENSOR_CORES
    constexpr int kOctets = L::octets;
    extern __shared__ __align__(16) char shared[];

    const BlockWork work = block_work(args);
    const int group = work.group;
    const int64_t channel = work.channel, first_tile = work.first_tile, last_tile = work.last_tile;
    if (first_tile >= last_tile)
        return;
    const int64_t steps = (last_tile - first_tile) * args.chunks;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int warp_beam = (warp % 4) * 16;                 // within the beam group
    const int warp_time = (warp / 4) * (kColumns / 2 / P); // within the time tile

    float acc[2][kOctets][P][4];
    clear_accumulators(acc);

    for (int s = 0; s < kStages - 1; s++) {
        if (s < steps)
            load_stage<In, P, L, true>(args,
                                       shared + s * L::stage,
                                       channel,
                                       group,
                                       first_tile + s / args.chunks,
                                       static_cast<int>(s % args.chunks));
        cp_async_commit();
    }

    for (int64_t step = 0; step < steps; step++) {
        cp_async_wait<kStages - 2>();
        __syncthreads(); // stage `step` has landed; every warp is done with step - 1
        const int64_t next = step + kStages - 1;
        if (next < steps)
            load_stage<In, P, L, true>(args,
                                       shared + (next % kStages) * L::stage,
                                       channel,
                                       group,
                                       first_tile + next / args.chunks,
                                       static_cast<int>(next % args.chunks));
        cp_async_commit();

        const char* x_stage = shared + (step % kStages) * L::stage;
        const char* w_stage = x_stage + L::x_stage;
        // Not unrolled: each k-step has 16 (split: 32 or 48) independent mma already,
        // and unrolling would push the kernel past the 128 registers that let two
        // blocks share an SM.
#pragma unroll 1
        for (int k = 0; k < kAntennas / 4; k++) {
            const int antenna = k * 4 + t;
            // A fragments: phasor (beam g of each m-tile, antenna t) for each pol.
            uint32_t a_big[2][P][4], a_small[2][P][4];
#pragma unroll
            for (int m = 0; m < 2; m++) {
                const char* row = w_stage + antenna * L::w_row + (warp_beam + m * 8 + g) * P * 8;
                float2 w[2];
                if constexpr (P == 2) {
                    const float4 q = *reinterpret_cast<const float4*>(row);
                    w[0] = make_float2(q.x, q.y);
                    w[1] = make_float2(q.z, q.w);
                } else {
                    w[0] = *reinterpret_cast<const float2*>(row);
                }
#pragma unroll
                for (int p = 0; p < P; p++) {
                    const Split re = split<SplitMode>(w[p].x), im = split<SplitMode>(w[p].y);
                    a_fragment(re.big, im.big, a_big[m][p]);
                    a_fragment(re.small, im.small, a_small[m][p]);
                }
            }
            // B fragments: voltage (antenna t, time g of each octet) for each pol.
            const char* x_row = x_stage + antenna * L::x_row;
#pragma unroll
            for (int o = 0; o < kOctets; o++) {
                float2 v[2];
                load_voltage<In, P>(x_row, warp_time + o * 8 + g, v);
#pragma unroll
                for (int p = 0; p < P; p++) {
                    // ci8 voltages (integers below 2^8) and cf16 voltages (11-bit
                    // significands) are exact in TF32: no remainder.
                    constexpr bool split_voltages = SplitMode && In == BLADE_CF32;
                    const Split re = split<split_voltages>(v[p].x),
                                im = split<split_voltages>(v[p].y);
                    const uint32_t b_big[2] = { re.big, im.big };
#pragma unroll
                    for (int m = 0; m < 2; m++) {
                        if constexpr (SplitMode) {
                            mma_tf32(acc[m][o][p], a_small[m][p], b_big);
                            if constexpr (split_voltages) {
                                const uint32_t b_small[2] = { re.small, im.small };
                                mma_tf32(acc[m][o][p], a_big[m][p], b_small);
                            }
                        }
                        mma_tf32(acc[m][o][p], a_big[m][p], b_big);
                    }
                }
            }
        }

        if ((step + 1) % args.chunks == 0) {
            // Tile done: write the beams, reset the accumulators.
            const int64_t t0 = (first_tile + step / args.chunks) * L::times;
            const auto pair = [&](int64_t i, float2 a, float2 b) {
                store_two<Out>(args.y, i, a, b);
            };
            store_tile<Out>(args, acc, group, channel, t0, warp_beam, warp_time, g, t, pair);
        }
    }
    cp_async_wait<0>(); // nothing may be in flight when the block exits
#endif
}

int64_t padded_antennas(const blade_beamformer_job& job)
{
    return (job.antennas + kAntennas - 1) / kAntennas * kAntennas;
}

template <blade_dtype In, blade_dtype Out, int P, bool SplitMode>
blade_status launch_products(const TensorArgs& args, unsigned blocks, cudaStream_t stream)
{
    constexpr int bytes = Layout<In, P>::shared_bytes;
    auto kernel = tensor_kernel<In, Out, P, SplitMode>;
    const blade_status code = blade_check_tensor_code(kernel, "beamformer");
    if (code != BLADE_OK)
        return code;
    BLADE_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    kernel<<<blocks, kThreads, bytes, stream>>>(args);
    BLADE_CUDA_CHECK_LAUNCH("tensor_kernel");
    return BLADE_OK;
}

template <blade_dtype In, blade_dtype Out>
blade_status
launch_pols(const TensorArgs& args, int pols, bool split, unsigned blocks, cudaStream_t stream)
{
    if (pols == 2)
        return split ? launch_products<In, Out, 2, true>(args, blocks, stream)
                     : launch_products<In, Out, 2, false>(args, blocks, stream);
    return split ? launch_products<In, Out, 1, true>(args, blocks, stream)
                 : launch_products<In, Out, 1, false>(args, blocks, stream);
}

} // namespace

bool tensor_output_aligned(const blade_beamformer_job& job)
{
    return reinterpret_cast<uintptr_t>(job.output) % (job.output_type == BLADE_CF32 ? 16 : 8) == 0;
}

size_t tensor_workspace_bytes(const blade_beamformer_job& job)
{
    return static_cast<size_t>(phasor_channels(job)) * static_cast<size_t>(beam_groups(job)) *
           static_cast<size_t>(padded_antennas(job)) * kBeams * static_cast<size_t>(job.pols) *
           sizeof(float2);
}

blade_status launch_tensor(const blade_beamformer_job& job, bool split, cudaStream_t stream)
{
    const int64_t groups = beam_groups(job);
    const int64_t antennas_padded = padded_antennas(job);
    const size_t needed = tensor_workspace_bytes(job);
    if (job.workspace == nullptr || job.workspace_bytes < needed)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: the tensor-core path needs %zu bytes of workspace, the plan "
                          "has %zu",
                          needed,
                          job.workspace_bytes);
    if (groups > INT32_MAX / 2 || antennas_padded / kAntennas > INT32_MAX)
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "beamformer: too many beams for the tensor-core path");

    // 1. Pack the phasors (small: B x A x F x P complex).
    const int64_t total = static_cast<int64_t>(needed / sizeof(float2));
    auto* packed = static_cast<float2*>(job.workspace);
    const blade_status packing =
        pack_phasors(job, packed, total, antennas_padded, groups, "pack_phasors_kernel", stream);
    if (packing != BLADE_OK)
        return packing;

    // 2. The products. Blocks: (channel, time segment, beam group), beam group fastest.
    TensorArgs args{};
    fill_args(args, job, packed, groups, antennas_padded, kAntennas);
    const int64_t blocks = job.channels * args.segments * groups;
    BLADE_TRY(blade_check_grid(blocks, "beamformer", "split the chunk along channels"));
    if (!tensor_output_aligned(job))
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "beamformer: the tensor-core path needs a 16-byte (cf32) or 8-byte (cf16) "
            "aligned output");
    const unsigned grid = static_cast<unsigned>(blocks);
    const int pols = static_cast<int>(job.pols);
    return for_types(job, "tensor-core", [&](auto in, auto out) {
        return launch_pols<decltype(in)::value, decltype(out)::value>(
            args, pols, split, grid, stream);
    });
}

} // namespace beamformer_cuda
