// SPDX-License-Identifier: MIT
//
// The beamformer's fp16 path: a matrix product on tensor cores with half operands and
// float32 accumulation (mma.sync m16n8k16, sm_80 and newer).
//
// For one channel f and polarization p the beams are Y = W X: W [B, A] phasors, X
// [A, T] voltages, Y [B, T] (see beamformer_tensor.cu for why this is our own kernel
// and not cuBLAS: the [A, F, T, P] layout, read as it lies in memory). The tiling and
// the cp.async pipeline are those of the TF32 kernel; what changes is the operand type
// and with it the fragment layout.
//
// Complex products. Of the two ways to make a complex product from real ones, four
// real products (Yr = Wr Xr - Wi Xi, Yi = Wr Xi + Wi Xr: four mma per tile, the
// voltages' real and imaginary parts as separate B operands) or the real block matrix
//
//   [Re y]   [ Wr  -Wi ] [Re x]
//   [Im y] = [ Wi   Wr ] [Im x]
//
// (one mma of twice the size), this kernel takes the block matrix, with the k axis
// interleaving each antenna's real and imaginary parts (k = 2a, 2a + 1). Both do the
// same 4 real multiply-adds per complex MAC, but with the block matrix every fragment
// register is one whole complex number: in mma.m16n8k16's layout a 32-bit register
// holds the k pair (2j, 2j + 1) of one row (A) or one column (B), so
//   * a B register is one voltage x(antenna, time) as a half2 {Re, Im}: exactly a
//     cf16 element, so voltages need no shuffling, only the conversion to half;
//   * an A register of a "real" row (beam g, rows 0-7) is {Wr, -Wi} and of an
//     "imaginary" row (rows 8-15) {Wi, Wr}: both from the one phasor half2 {Wr, Wi}
//     with one instruction each (flip the high sign bit; swap the halves);
//   * the accumulators of lane (g, t) are {Re, Re, Im, Im} of beam g at columns 2t
//     and 2t + 1: whole complex outputs, stored as in the TF32 kernel.
// The four-product form would need separate real and imaginary voltage planes (a
// shuffle per value) and twice the A fragments. No arithmetic is wasted either way:
// one mma = 8 beams x 8 columns x 8 antennas = 512 complex MACs.
//
// Tiles: a block computes 64 beams x 128 (time, pol) columns of one channel with 8
// warps (4 along beams x 2 along columns, 16 beams x 64 columns each: 16 mma per k-step
// of 8 antennas, 64 float accumulators per thread; m-tiles without beams are skipped),
// streaming 32 antennas (ci8, cf16) or 16 (cf32) per stage through a 4-stage cp.async
// pipeline, several consecutive time tiles per block; blocks of the same voltages for
// different beam groups are adjacent in the grid, so the voltages come from DRAM once
// and from L2 after. Shared-memory rows are padded by 32 bytes, which puts a warp's
// fragment loads (4 antenna rows x 8 times or beams) in distinct banks.
//
// Phasors: packed once per call into the plan's workspace as half2 [F][group][A][64][P]
// (rounded to nearest even), and kept resident in shared memory for all the time tiles
// of a block (A x 64 x P x 4 bytes: 34 KB at A = 64, P = 2, with padding), so that the
// only traffic per tile is the voltages. Where they do not fit next to the pipeline
// (at P = 2: beyond 64 antennas for cf32 and cf16 voltages, 128 for ci8) each stage
// copies its antennas' phasors along with the voltages, as the TF32 kernel does.
//
// Conversion to half happens on the way from shared memory to the fragment, once per
// warp that reads the value (each voltage is read by the 4 warps along beams): cf16
// needs none, cf32 one cvt.rn.f16x2.f32 per complex value, ci8 five integer/half
// instructions per two complex values (the sign-flipped byte placed in the mantissa
// of 1024 with a byte permute, 1152 subtracted: exact). Per warp and k-step that is
// 16 mma against 12 shared loads and 16-40 conversion instructions, well within the
// issue slots the tensor pipe leaves (about 13 per mma at the 40 T complex MAC/s
// target, 4 at the dense peak); converting into a second shared-memory buffer instead
// would cost a pass and a barrier per stage to save those instructions.
//
// Bytes and flops at (B, A) = (64, 64), F = 192, T = 8192, P = 2, one complex MAC = 8
// flops: 12.9 G complex MACs = 103 GFLOP, 0.10 ms at the ~990 TFLOP/s dense fp16 peak.
// Memory: ci8 voltages 0.40 GB + cf16 beams 0.81 GB = 1.21 GB: 0.29 ms at 4.2 TB/s,
// 45 T complex MAC/s; cf32 in and out (3.2 GB) caps it at 17 T. At (1024, 64): 206 G
// complex MACs (1.7 ms at peak), ci8 in and cf16 out 13.3 GB (3.2 ms): 65 T if memory
// bound. So the path is memory bound at both shapes; the kernel must stream.
//
// Precision. Each operand is rounded to half (relative error <= 2^-11); the product of
// two halves is exact in float32, and the tensor cores accumulate in float32. Error
// per output about 2^-11 sum_a |x_a||w_a| (bound 2^-10 + A 2^-23); ci8 and cf16
// voltages are exact in half, so then only the phasors are rounded. cf32 voltages
// beyond the half range (|x| > 65504) become infinite. The CPU backend computes the
// same sums (operands rounded to half, float32 sums): results agree to float32
// accumulation order.

#include "beamformer_half_operands.h"
#include "beamformer_tensor_tiles.h"

#include <cstdlib>
#include <cstring>

namespace beamformer_cuda {
namespace {

// kBeams, kColumns, kThreads, kPad: beamformer_tensor_tiles.h
// Pipeline stages (3 in flight ahead of the one computed). Antennas per stage: 32 (4
// k-steps of 8 between barriers) for ci8 and cf16, whose stages are small (9 and 17 KB),
// 16 for cf32 (17 KB), so that 4 stages and the resident phasors of 64 antennas leave
// room for two blocks per SM. More work and bytes in flight per barrier than the TF32
// kernel's 3 stages of 16 antennas: the stage is what a block waits for.
constexpr int kStages = 4;
// Resident phasors while a block stays within this much shared memory: two blocks per
// SM on sm_80/sm_90 (228 KB per SM, 1 KB reserved per block).
constexpr int kResidentLimit = 110 * 1024;

constexpr int stage_antennas(blade_dtype in) { return in == BLADE_CF32 ? 16 : 32; }

template <blade_dtype In, int P>
struct Layout {
    static constexpr int antennas = stage_antennas(In);                 // per stage
    static constexpr int times = kColumns / P;                          // per time tile
    static constexpr int x_row = kColumns * element_bytes<In>() + kPad; // one antenna's voltages
    static constexpr int w_row = kBeams * P * 4 + kPad;                 // one antenna's phasors
    static constexpr int x_stage = antennas * x_row;
    static constexpr int octets = kColumns / 2 / 8 / P; // 8-time groups per warp
    // One pipeline stage: voltages, and the phasors when they are not resident.
    static constexpr int stage(bool resident)
    {
        return x_stage + (resident ? 0 : antennas * w_row);
    }
};

struct Fp16Args {
    const void* x;
    const __half2* w_packed; // [Fw][groups][A_pad][64][P]
    void* y;
    int64_t channels, times;
    int64_t beams;
    int64_t packed_channel_stride; // half2 elements between channels of w_packed (0: MeerKAT)
    int antennas;
    int chunks;          // antenna chunks of a stage (A_pad / Layout::antennas)
    int groups;          // beam groups of kBeams
    int64_t tiles;       // time tiles per channel
    int64_t segment;     // time tiles per block
    int64_t segments;    // blocks per (channel, beam group)
    bool async_voltages; // rows 16-byte aligned: cp.async; else plain loads
    bool aligned_output; // 16-byte (cf32) or 8-byte (cf16) aligned: paired stores
};

#ifdef BLADE_CP_ASYNC

// All antennas' phasors of the block's (channel, group) into `resident` (A_pad rows).
template <blade_dtype In, int P>
__device__ __forceinline__ void
load_resident_phasors(const Fp16Args& args, char* resident, int64_t channel, int group)
{
    using L = Layout<In, P>;
    constexpr int per_row = kBeams * P * 4 / 16;
    const int rows = args.chunks * L::antennas;
    const char* w =
        reinterpret_cast<const char*>(args.w_packed + channel * args.packed_channel_stride +
                                      static_cast<int64_t>(group) * rows * kBeams * P);
    for (int c = threadIdx.x; c < rows * per_row; c += kThreads) {
        const int r = c / per_row, k = c % per_row;
        cp_async16(resident + r * L::w_row + k * 16,
                   w + (static_cast<int64_t>(r) * per_row + k) * 16,
                   true);
    }
}

// The products of one pipeline stage for this warp: its first M (1 or 2) m-tiles of 8
// beams (the others hold no beam) x its 64 columns, over the stage's antennas.
template <blade_dtype In, int P, int M>
__device__ __forceinline__ void stage_products(const char* x_stage,
                                               const char* w_rows,
                                               int warp_beam,
                                               int warp_time,
                                               int g,
                                               int t,
                                               float (&acc)[2][Layout<In, P>::octets][P][4])
{
    using L = Layout<In, P>;
    // Not unrolled: each k-step has 16 independent mma already, and unrolling pushed
    // ptxas past the 128 registers that let two blocks share an SM (spills).
#pragma unroll 1
    for (int k = 0; k < L::antennas / 8; k++) {
        const int lo = k * 8 + t, hi = lo + 4; // the antennas of k-words t and t + 4
        // A fragments: phasors (beam g of each m-tile; antennas lo, hi) per pol.
        uint32_t a[M][P][4];
#pragma unroll
        for (int m = 0; m < M; m++) {
            const int column = (warp_beam + m * 8 + g) * P * 4;
            uint32_t w_lo[2], w_hi[2];
            if constexpr (P == 2) {
                const uint2 q_lo = *reinterpret_cast<const uint2*>(w_rows + lo * L::w_row + column);
                const uint2 q_hi = *reinterpret_cast<const uint2*>(w_rows + hi * L::w_row + column);
                w_lo[0] = q_lo.x;
                w_lo[1] = q_lo.y;
                w_hi[0] = q_hi.x;
                w_hi[1] = q_hi.y;
            } else {
                w_lo[0] = *reinterpret_cast<const uint32_t*>(w_rows + lo * L::w_row + column);
                w_hi[0] = *reinterpret_cast<const uint32_t*>(w_rows + hi * L::w_row + column);
            }
#pragma unroll
            for (int p = 0; p < P; p++) {
                a[m][p][0] = real_row(w_lo[p]);
                a[m][p][1] = imaginary_row(w_lo[p]);
                a[m][p][2] = real_row(w_hi[p]);
                a[m][p][3] = imaginary_row(w_hi[p]);
            }
        }
        // B fragments: voltages (antennas lo, hi; time g of each octet) per pol.
        const char* x_lo = x_stage + lo * L::x_row;
        const char* x_hi = x_stage + hi * L::x_row;
#pragma unroll
        for (int o = 0; o < L::octets; o++) {
            constexpr int element = element_bytes<In>() * P; // one (antenna, time)
            uint32_t v_lo[P], v_hi[P];
            voltage_words<In, P>(x_lo + (warp_time + o * 8 + g) * element, v_lo);
            voltage_words<In, P>(x_hi + (warp_time + o * 8 + g) * element, v_hi);
#pragma unroll
            for (int p = 0; p < P; p++) {
                const uint32_t b[2] = { v_lo[p], v_hi[p] };
#pragma unroll
                for (int m = 0; m < M; m++)
                    blade_mma_f16(acc[m][o][p], a[m][p], b);
            }
        }
    }
}

#endif // BLADE_CP_ASYNC

template <blade_dtype Out>
__device__ __forceinline__ void store_pair(const Fp16Args& args, int64_t i, float2 a, float2 b)
{
    if (args.aligned_output) {
        store_two<Out>(args.y, i, a, b);
    } else {
        store_one<Out>(args.y, i, a);
        store_one<Out>(args.y, i + 1, b);
    }
}

template <blade_dtype In, blade_dtype Out, int P, bool Resident>
__global__ void __launch_bounds__(kThreads, 2) fp16_kernel(const Fp16Args args)
{
    using L = Layout<In, P>;
    static_assert(L::times * P == kColumns && L::octets * 8 * P * 2 == kColumns,
                  "two warps of 8-sample octets cover the columns of a time tile");
    static_assert(L::x_row % 16 == 0 && L::w_row % 16 == 0 && L::x_stage % 16 == 0,
                  "cp.async needs 16-byte aligned shared-memory rows");
    static_assert(L::antennas % 8 == 0, "a k-step covers 8 antennas");
#ifdef BLADE_CP_ASYNC
    constexpr int kOctets = L::octets;
    constexpr int kStageBytes = L::stage(Resident);
    extern __shared__ __align__(16) char shared[];
    char* const resident = shared + kStages * kStageBytes; // Resident: [A_pad][w_row]

    const BlockWork work = block_work(args);
    const int group = work.group;
    const int64_t channel = work.channel, first_tile = work.first_tile, last_tile = work.last_tile;
    if (first_tile >= last_tile)
        return;
    const int64_t steps = (last_tile - first_tile) * args.chunks;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    // Warps 2j and 2j + 1 share beams 16j ... 16j + 15 (the two column halves), so that
    // with few beams the busy warps sit on different schedulers (warp % 4).
    const int warp_beam = (warp / 2) * 16;                 // within the beam group
    const int warp_time = (warp % 2) * (kColumns / 2 / P); // within the time tile
    // m-tiles (8 beams) of this warp that hold beams: B < 64, or a last group of fewer
    // than 64, leaves tiles or whole warps with padding only; their mma are skipped
    // (warp-uniform branches), which spares the tensor cores 7/8 of the work at B = 8.
    const int64_t warp_beams = args.beams - (static_cast<int64_t>(group) * kBeams + warp_beam);
    const int live_tiles = warp_beams <= 0 ? 0 : warp_beams <= 8 ? 1 : 2;

    float acc[2][kOctets][P][4];
    clear_accumulators(acc);

    // The resident phasors travel with stage 0 (the first commit group).
    if constexpr (Resident)
        load_resident_phasors<In, P>(args, resident, channel, group);
    for (int s = 0; s < kStages - 1; s++) {
        if (s < steps)
            load_stage<In, P, L, !Resident>(args,
                                            shared + s * kStageBytes,
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
            load_stage<In, P, L, !Resident>(args,
                                            shared + (next % kStages) * kStageBytes,
                                            channel,
                                            group,
                                            first_tile + next / args.chunks,
                                            static_cast<int>(next % args.chunks));
        cp_async_commit();

        const int chunk = static_cast<int>(step % args.chunks);
        const char* x_stage = shared + (step % kStages) * kStageBytes;
        const char* w_rows =
            Resident ? resident + chunk * L::antennas * L::w_row : x_stage + L::x_stage;
        // Compiled for 2 and 1 live m-tiles, so that the loop has no branch per mma.
        if (live_tiles == 2)
            stage_products<In, P, 2>(x_stage, w_rows, warp_beam, warp_time, g, t, acc);
        else if (live_tiles == 1)
            stage_products<In, P, 1>(x_stage, w_rows, warp_beam, warp_time, g, t, acc);

        if (chunk == args.chunks - 1) {
            // Tile done: write the beams, reset the accumulators.
            const int64_t t0 = (first_tile + step / args.chunks) * L::times;
            const auto pair = [&](int64_t i, float2 a, float2 b) {
                store_pair<Out>(args, i, a, b);
            };
            store_tile<Out>(args, acc, group, channel, t0, warp_beam, warp_time, g, t, pair);
        }
    }
    cp_async_wait<0>(); // nothing may be in flight when the block exits
#endif
}

int64_t padded_antennas(const blade_beamformer_job& job)
{
    const int64_t chunk = stage_antennas(job.input_type);
    return (job.antennas + chunk - 1) / chunk * chunk;
}

template <blade_dtype In, int P>
int resident_bytes(int64_t antennas_padded)
{
    return kStages * Layout<In, P>::stage(true) +
           static_cast<int>(antennas_padded) * Layout<In, P>::w_row;
}

template <blade_dtype In, blade_dtype Out, int P, bool Resident>
blade_status launch_products(const Fp16Args& args, unsigned blocks, cudaStream_t stream)
{
    const int bytes =
        Resident
            ? resident_bytes<In, P>(static_cast<int64_t>(args.chunks) * Layout<In, P>::antennas)
            : kStages * Layout<In, P>::stage(false);
    auto kernel = fp16_kernel<In, Out, P, Resident>;
    const blade_status code = blade_check_tensor_code(kernel, "beamformer");
    if (code != BLADE_OK)
        return code;
    BLADE_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    kernel<<<blocks, kThreads, bytes, stream>>>(args);
    BLADE_CUDA_CHECK_LAUNCH("fp16_kernel");
    return BLADE_OK;
}

template <blade_dtype In, blade_dtype Out, int P>
blade_status launch_resident(const Fp16Args& args, unsigned blocks, cudaStream_t stream)
{
    if (resident_bytes<In, P>(static_cast<int64_t>(args.chunks) * Layout<In, P>::antennas) <=
        kResidentLimit)
        return launch_products<In, Out, P, true>(args, blocks, stream);
    return launch_products<In, Out, P, false>(args, blocks, stream);
}

template <blade_dtype In, blade_dtype Out>
blade_status launch_pols(const Fp16Args& args, int pols, unsigned blocks, cudaStream_t stream)
{
    if (pols == 2)
        return launch_resident<In, Out, 2>(args, blocks, stream);
    return launch_resident<In, Out, 1>(args, blocks, stream);
}

} // namespace

size_t fp16_workspace_bytes(const blade_beamformer_job& job)
{
    return static_cast<size_t>(phasor_channels(job)) * static_cast<size_t>(beam_groups(job)) *
           static_cast<size_t>(padded_antennas(job)) * kBeams * static_cast<size_t>(job.pols) *
           sizeof(__half2);
}

blade_status launch_fp16(const blade_beamformer_job& job, cudaStream_t stream)
{
    const int64_t groups = beam_groups(job);
    const int64_t antennas_padded = padded_antennas(job);
    const size_t needed = fp16_workspace_bytes(job);
    if (job.workspace == nullptr || job.workspace_bytes < needed)
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "beamformer: the fp16 path needs %zu bytes of workspace, the plan has %zu",
            needed,
            job.workspace_bytes);
    if (groups > INT32_MAX / 2 || antennas_padded > INT32_MAX / 2)
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "beamformer: too many beams or antennas for the fp16 path");

    // 1. Pack the phasors as half2 (small: B x A x F x P complex).
    const int64_t total = static_cast<int64_t>(needed / sizeof(__half2));
    auto* packed = static_cast<__half2*>(job.workspace);
    const blade_status packing = pack_phasors(
        job, packed, total, antennas_padded, groups, "pack_phasors_fp16_kernel", stream);
    if (packing != BLADE_OK)
        return packing;

    // 2. The products: on Hopper's wgmma where it fits (beamformer_fp16_hopper.cu), else
    // here. Blocks: (channel, time segment, beam group), beam group fastest.
    if (fp16_hopper_fits(job))
        return launch_fp16_hopper(job, packed, antennas_padded, groups, stream);
    const char* chosen = std::getenv("BLADE_BEAMFORMER_WGMMA");
    if (chosen != nullptr && std::strcmp(chosen, "1") == 0)
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "beamformer: BLADE_BEAMFORMER_WGMMA=1 requires the Hopper fp16 kernel, "
                          "which cannot run this job (it needs a GPU of compute capability 9.0, "
                          "a build for sm_90a, voltage rows of whole 16-byte copies, an output "
                          "aligned for both polarizations and the phasors in shared memory)");
    Fp16Args args{};
    fill_args(args, job, packed, groups, antennas_padded, stage_antennas(job.input_type));
    args.aligned_output = tensor_output_aligned(job);
    const int64_t blocks = job.channels * args.segments * groups;
    BLADE_TRY(blade_check_grid(blocks, "beamformer", "split the chunk along channels"));
    const unsigned grid = static_cast<unsigned>(blocks);
    const int pols = static_cast<int>(job.pols);
    return for_types(job, "fp16", [&](auto in, auto out) {
        return launch_pols<decltype(in)::value, decltype(out)::value>(args, pols, grid, stream);
    });
}

} // namespace beamformer_cuda
