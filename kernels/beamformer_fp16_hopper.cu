// SPDX-License-Identifier: MIT
//
// The beamformer's fp16 path on Hopper (compute capability 9.0): the same sums as
// beamformer_fp16.cu (half operands, float32 accumulation; read its header first) on
// the warpgroup mma (wgmma). Built for sm_90a only; beamformer_fp16.cu runs
// everywhere else, and where this kernel's conditions (below) do not hold.
//
// Why. On the H200 the mma.sync kernel reached 17.5 T complex MAC/s at (B, A) = (64,
// 64), 39 % of the copy rate for the bytes it moves, neither compute nor memory bound:
// each voltage was converted to half by the four warps that read it, every phasor
// fragment was loaded and rebuilt for every k-step, and a warp issued about 5
// instructions per mma. Here each voltage is read and converted once per polarization
// pair, the phasors sit in shared memory as the tensor cores read them, and one
// wgmma is 64 x 128 x 16 multiply-adds: the instructions per byte moved drop about
// sixfold, and the kernel can stream at the memory's rate.
//
// The product, transposed. For channel f and polarization p the beams of 64 times are
//
//   Y^T [64 times, 2 x 64 beams] = X^T [64 times, 2 A] W^T [2 A, 2 x 64 beams]
//
// in the real block form of beamformer_fp16.cu, k interleaving each antenna's real and
// imaginary parts, columns interleaving each beam's real and imaginary outputs:
//   * A operand (64 times x k16, from registers): in wgmma's register layout a 32-bit
//     word is the k pair (2a, 2a + 1) of one row, that is one voltage x(antenna a,
//     time) as a half2 {Re, Im}; a ci8 word of a stage holds both polarizations of
//     one (antenna, time) and converts to the words of both products;
//   * B operand (128 columns x k16, from shared memory): beam b's real column holds
//     {Wr, -Wi} per antenna, its imaginary column {Wi, Wr}, built once per block from
//     the packed half2 phasors (the same packing and rounding as the mma.sync kernel),
//     K-major in the 128-byte swizzle: one 16 KB matrix of 128 rows x 64 halves per
//     polarization and chunk of 32 antennas;
//   * accumulators: lane (g, t) of warp w holds columns 8n + 2t, + 1 of rows 16w + g
//     and + 8: Re and Im of beam 4n + t at two times, both polarizations: stored as
//     whole (time, pol) pairs where they lie in y [B, F, T, P].
//
// Blocks: one or two warpgroups (128 threads each; launch_sized says which) for one
// channel, one group of 64 beams and a segment of time tiles of 64 times a warpgroup;
// voltages stream through four cp.async stages of 32 antennas x the tile's times (the
// raw elements, rows padded by 32 bytes so that a warp's fragment loads hit distinct
// banks). A stage's four k-steps x P polarizations are
// issued as one group and waited for before the next stage's fragments are loaded
// (the A registers are reused): the tensor cores' share of a stage (8 wgmma of 64
// cycles at P = 2) is a fraction of the time its bytes take at the memory's rate.
// Blocks of the same voltages for different beam groups are adjacent in the grid
// (their voltages come from L2 after the first), and the segments per channel are
// the fewest whose last wave of blocks is at least 90 % full.
//
// Conditions (fp16_hopper_fits): a GPU of compute capability 9.0, voltages rows of
// whole 16-byte copies (T P element size a multiple of 16, a 16-byte aligned input),
// an output aligned for stores of both polarizations together, and the phasors of all
// antennas with the stages in the shared memory a block may have (227 KB on the H100
// and H200: at P = 2, A <= 64 with cf32 voltages, 128 with cf16, 160 with ci8).
// $BLADE_BEAMFORMER_WGMMA=0 runs the mma.sync kernel instead, =1 makes a job this
// kernel cannot run fail (tests and benchmarks compare the two kernels and make sure
// which one ran).

#include "beamformer_half_operands.h"
#include "beamformer_tensor_tiles.h"
#include "wgmma.h"

#include <cstdlib>
#include <cstring>

namespace beamformer_cuda {
namespace {

constexpr int kGroupThreads = 128;            // one warpgroup
constexpr int kGroupTimes = 64;               // rows of a wgmma: a warpgroup's times per tile
constexpr int kChunkAntennas = 32;            // antennas per stage: k = 64 halves, one 128-byte row
constexpr int kHopperStages = 4;              // cp.async stages of voltages
constexpr int kImageRows = 2 * kBeams;        // B operand columns: Re, Im of 64 beams
constexpr int kImageBytes = kImageRows * 128; // one polarization and chunk: 16 KB
constexpr int kRowPad = 32;                   // bytes after each stage row (bank spread)

// WG warpgroups a block, each 64 times of a tile: 64 WG times a tile, 128 WG threads.
template <blade_dtype In, int P, int WG>
struct HopperLayout {
    static constexpr int threads = kGroupThreads * WG;
    static constexpr int times = kGroupTimes * WG;          // a tile's
    static constexpr int element = element_bytes<In>() * P; // one (antenna, time)
    static constexpr int row = times * element + kRowPad;   // one antenna's times
    static constexpr int stage = kChunkAntennas * row;
    static constexpr int pieces = times * element / 16;           // 16-byte copies a row
    static constexpr int rows_per_pass = threads / pieces;        // rows a copy pass covers
    static constexpr int copies = kChunkAntennas / rows_per_pass; // a thread's, per stage
    static_assert(threads % pieces == 0 && copies * rows_per_pass == kChunkAntennas,
                  "a stage's copies divide evenly among the threads");
    static_assert(row % 16 == 0 && (row / 4) % 32 == 8,
                  "rows 8 banks apart: the four antennas of a fragment load in distinct banks");
};

struct HopperArgs {
    const void* x;
    const __half2* w_packed; // [Fw][groups][packed_antennas][64][P]
    void* y;
    int64_t channels, times, beams;
    int64_t packed_channel_stride; // half2 elements between channels (0: one set)
    int antennas;
    int packed_antennas; // A_pad of the packing
    int chunks;          // stages of 32 antennas per tile
    int groups;
    int64_t tiles;    // time tiles of 64 per channel
    int64_t segment;  // time tiles per block
    int64_t segments; // blocks per (channel, beam group)
};

__host__ __device__ constexpr int image_bytes(int pols, int chunks)
{
    return pols * chunks * kImageBytes;
}

template <blade_dtype In, int P, int WG>
int hopper_shared_bytes(int chunks)
{
    return kWgmmaAlignment + image_bytes(P, chunks) +
           kHopperStages * HopperLayout<In, P, WG>::stage;
}

#ifdef BLADE_WGMMA

// The B operand of the block's (channel, beam group): for each polarization p and
// chunk c, 128 rows (beam b's real column 2b, imaginary 2b + 1) of 64 halves (antenna
// a's pair at word a % 32), 16-byte chunk q of row n stored at q ^ (n % 8). Antennas
// past the packing are zero. Read in the packing's order (coalesced).
template <int P, int kThreads>
__device__ void build_image(const HopperArgs& args, int64_t channel, int group, char* image)
{
    const int64_t packed_rows = static_cast<int64_t>(args.packed_antennas) * kBeams * P;
    const __half2* w = args.w_packed + channel * args.packed_channel_stride +
                       static_cast<int64_t>(group) * packed_rows;
    const int total = args.chunks * kChunkAntennas * kBeams * P;
    for (int e = threadIdx.x; e < total; e += kThreads) {
        const int p = e % P, beam = (e / P) % kBeams, antenna = e / (P * kBeams);
        const uint32_t value = antenna < args.packed_antennas ? half2_bits(w[e]) : 0u;
        const int word = antenna % kChunkAntennas;
        char* matrix = image + (p * args.chunks + antenna / kChunkAntennas) * kImageBytes;
        const int re = 2 * beam, im = 2 * beam + 1; // the beam's columns of Re y, Im y
        const int in_row = (word & 3) * 4;
        *reinterpret_cast<uint32_t*>(matrix + re * 128 + (((word >> 2) ^ re) & 7) * 16 + in_row) =
            real_row(value);
        *reinterpret_cast<uint32_t*>(matrix + im * 128 + (((word >> 2) ^ im) & 7) * 16 + in_row) =
            imaginary_row(value);
    }
}

// This thread's cp.async copies of a stage: its 16-byte piece `piece` of rows `row0`
// + i rows_per_pass, the same offsets every stage; only (chunk, channel, t0) move.
template <blade_dtype In, int P, int WG>
struct StageCopies {
    using L = HopperLayout<In, P, WG>;
    int piece, row0;
    __device__ StageCopies() : piece(threadIdx.x % L::pieces), row0(threadIdx.x / L::pieces) {}

    __device__ __forceinline__ void
    issue(const HopperArgs& args, char* stage, int chunk, int64_t channel, int64_t tile) const
    {
        const int64_t t0 = tile * L::times;
        const bool in_time = t0 + piece * 16 / L::element < args.times;
        const int64_t antenna_bytes = args.channels * args.times * L::element;
        const char* x = static_cast<const char*>(args.x) +
                        (channel * args.times + t0) * L::element + piece * 16;
#pragma unroll
        for (int i = 0; i < L::copies; i++) {
            const int row = row0 + i * L::rows_per_pass;
            const int antenna = chunk * kChunkAntennas + row;
            const bool valid = in_time && antenna < args.antennas;
            cp_async16(stage + row * L::row + piece * 16,
                       valid ? x + antenna * antenna_bytes : args.x,
                       valid);
        }
    }
};

#endif // BLADE_WGMMA

template <blade_dtype In, blade_dtype Out, int P, int WG>
__global__ void __launch_bounds__(kGroupThreads* WG) fp16_hopper_kernel(const HopperArgs args)
{
#ifdef BLADE_WGMMA
    using L = HopperLayout<In, P, WG>;
    extern __shared__ unsigned char shared_memory[];
    const uint32_t unaligned = static_cast<uint32_t>(__cvta_generic_to_shared(shared_memory));
    const uint32_t skip = (kWgmmaAlignment - unaligned % kWgmmaAlignment) % kWgmmaAlignment;
    char* const image = reinterpret_cast<char*>(shared_memory + skip);
    const uint32_t image_address = unaligned + skip;
    char* const stages = image + image_bytes(P, args.chunks);

    const BlockWork work = block_work(args);
    const int64_t channel = work.channel;
    if (work.first_tile >= work.last_tile)
        return;
    const int64_t steps = (work.last_tile - work.first_tile) * args.chunks;

    // Voltages: stages 0 .. S - 2 in flight while the phasor image is built.
    const StageCopies<In, P, WG> copies;
    int64_t next_tile = work.first_tile;
    int next_chunk = 0;
    auto issue = [&](int64_t step) {
        if (step < steps) {
            copies.issue(
                args, stages + (step % kHopperStages) * L::stage, next_chunk, channel, next_tile);
            if (++next_chunk == args.chunks) {
                next_chunk = 0;
                next_tile++;
            }
        }
        cp_async_commit(); // empty groups too: the waits count groups
    };
    for (int s = 0; s < kHopperStages - 1; s++)
        issue(s);
    build_image<P, L::threads>(
        args, args.packed_channel_stride != 0 ? channel : 0, work.group, image);
    fence_proxy_async(); // the image, written by ordinary stores, is read by the tensor cores

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    // Warp w has rows 16 (w % 4) .. + 15 of its warpgroup's 64 times (64 (w / 4) on):
    // times 16 w + g (+ 8) of the tile. Fragment loads: antenna t (+ 4) of each k-step.
    const int fragment = t * L::row + (16 * warp + g) * L::element;

    float acc[P][16][4];
    int chunk = 0;
    int64_t tile = work.first_tile;
    for (int64_t step = 0; step < steps; step++) {
        cp_async_wait<kHopperStages - 2>();
        __syncthreads(); // stage `step` has landed; every warp is done with step - 1's
        issue(step + kHopperStages - 1);

        // The stage's A fragments: 4 k-steps of 8 antennas, P polarizations.
        const char* stage = stages + (step % kHopperStages) * L::stage + fragment;
        uint32_t a[4][P][4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            uint32_t v[4][P];
            voltage_words<In, P>(stage + (8 * k) * L::row, v[0]);
            voltage_words<In, P>(stage + (8 * k) * L::row + 8 * L::element, v[1]);
            voltage_words<In, P>(stage + (8 * k + 4) * L::row, v[2]);
            voltage_words<In, P>(stage + (8 * k + 4) * L::row + 8 * L::element, v[3]);
#pragma unroll
            for (int p = 0; p < P; p++)
#pragma unroll
                for (int r = 0; r < 4; r++)
                    a[k][p][r] = v[r][p];
        }
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < 4; k++)
#pragma unroll
            for (int p = 0; p < P; p++)
                wgmma_m64n128k16_rs(
                    acc[p],
                    a[k][p],
                    descriptor(image_address + (p * args.chunks + chunk) * kImageBytes + 32 * k),
                    chunk > 0 || k > 0);
        wgmma_commit();
        wgmma_wait<0>(); // the A registers are loaded again next stage

        if (++chunk == args.chunks) {
            chunk = 0;
#pragma unroll
            for (int p = 0; p < P; p++) {
                touch(acc[p]);
            }
            // Beam 4n + t (columns 8n + 2t, + 1) at times 16 warp + g and + 8.
#pragma unroll
            for (int n = 0; n < 16; n++) {
                const int64_t beam = static_cast<int64_t>(work.group) * kBeams + 4 * n + t;
#pragma unroll
                for (int half = 0; half < 2; half++) {
                    const int64_t time = tile * L::times + 16 * warp + g + 8 * half;
                    if (beam < args.beams && time < args.times) {
                        const int64_t i =
                            ((beam * args.channels + channel) * args.times + time) * P;
                        const float2 first =
                            make_float2(acc[0][n][2 * half], acc[0][n][2 * half + 1]);
                        if constexpr (P == 2)
                            store_two<Out>(
                                args.y,
                                i,
                                first,
                                make_float2(acc[1][n][2 * half], acc[1][n][2 * half + 1]));
                        else
                            store_one<Out>(args.y, i, first);
                    }
                }
            }
            tile++;
        }
    }
    cp_async_wait<0>(); // nothing may be in flight when the block exits
#endif
}

template <blade_dtype In, blade_dtype Out, int P, int WG>
blade_status blocks_per_sm(int chunks, int& per_sm)
{
    auto kernel = fp16_hopper_kernel<In, Out, P, WG>;
    const int bytes = hopper_shared_bytes<In, P, WG>(chunks);
    BLADE_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    BLADE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kernel, HopperLayout<In, P, WG>::threads, bytes));
    return BLADE_OK;
}

// per_sm: blocks_per_sm's count for this kernel (which also lent it the shared memory).
template <blade_dtype In, blade_dtype Out, int P, int WG>
blade_status launch_kernel(HopperArgs& args, int64_t items, int per_sm, cudaStream_t stream)
{
    using L = HopperLayout<In, P, WG>;
    const int bytes = hopper_shared_bytes<In, P, WG>(args.chunks);
    args.tiles = (args.times + L::times - 1) / L::times;
    // Segments per (channel, beam group): the fewest that fill the last wave of blocks
    // to 90 % (or one tile per block).
    const int64_t slots = std::max(1, per_sm) * static_cast<int64_t>(blade_cuda_multiprocessors());
    for (int64_t wanted = 1;; wanted++) {
        args.segment = (args.tiles + wanted - 1) / wanted;
        args.segments = (args.tiles + args.segment - 1) / args.segment;
        const int64_t blocks = items * args.segments;
        const int64_t waves = (blocks + slots - 1) / slots;
        if (10 * blocks >= 9 * waves * slots || args.segment == 1)
            break;
    }
    const int64_t blocks = items * args.segments;
    BLADE_TRY(blade_check_grid(blocks, "beamformer", "split the chunk along channels"));
    fp16_hopper_kernel<In, Out, P, WG>
        <<<static_cast<unsigned>(blocks), L::threads, bytes, stream>>>(args);
    BLADE_CUDA_CHECK_LAUNCH("fp16_hopper_kernel");
    return BLADE_OK;
}

int chunks_of(const blade_beamformer_job& job)
{
    return static_cast<int>((job.antennas + kChunkAntennas - 1) / kChunkAntennas);
}

// Shared memory of a one-warpgroup block, the smaller kind: whether this kernel runs.
int shared_bytes(const blade_beamformer_job& job)
{
    const int chunks = chunks_of(job);
    const bool two = job.pols == 2;
    switch (job.input_type) {
    case BLADE_CI8:
        return two ? hopper_shared_bytes<BLADE_CI8, 2, 1>(chunks)
                   : hopper_shared_bytes<BLADE_CI8, 1, 1>(chunks);
    case BLADE_CF16:
        return two ? hopper_shared_bytes<BLADE_CF16, 2, 1>(chunks)
                   : hopper_shared_bytes<BLADE_CF16, 1, 1>(chunks);
    default:
        return two ? hopper_shared_bytes<BLADE_CF32, 2, 1>(chunks)
                   : hopper_shared_bytes<BLADE_CF32, 1, 1>(chunks);
    }
}

// Warpgroups a block. Two (tiles of 128 times, one phasor image for both) where a
// block of one would be alone on its SM (for want of shared memory: cf16 voltages at P
// = 2, 133 KB a block) and two fit: the SM then holds 8 warps instead of 4. Measured on
// an H100: cf16 -> cf16 1.04-1.06x at (B, A) = (64, 64), 1.18-1.21x at (1024, 64). Where
// two blocks of one fit an SM (ci8: 101 KB each), one: two-warpgroup blocks were
// 1.03-1.05x faster at (64, 64) but 1.09x slower at (1024, 64).
// $BLADE_BEAMFORMER_WGMMA_GROUPS = 1 or 2 asks for one or (where they fit) two, for tests
// and benchmarks.
template <blade_dtype In, blade_dtype Out, int P>
blade_status launch_sized(HopperArgs& args, int64_t items, cudaStream_t stream)
{
    const bool two_fit =
        hopper_shared_bytes<In, P, 2>(args.chunks) <= blade_cuda_shared_memory_optin();
    int per_sm = 0;
    BLADE_TRY((blocks_per_sm<In, Out, P, 1>(args.chunks, per_sm)));
    bool wide = two_fit && per_sm < 2;
    const char* chosen = std::getenv("BLADE_BEAMFORMER_WGMMA_GROUPS");
    if (chosen != nullptr && (std::strcmp(chosen, "1") == 0 || std::strcmp(chosen, "2") == 0))
        wide = chosen[0] == '2' && two_fit;
    if (!wide)
        return launch_kernel<In, Out, P, 1>(args, items, per_sm, stream);
    BLADE_TRY((blocks_per_sm<In, Out, P, 2>(args.chunks, per_sm)));
    return launch_kernel<In, Out, P, 2>(args, items, per_sm, stream);
}

} // namespace

bool fp16_hopper_fits(const blade_beamformer_job& job)
{
    const char* chosen = std::getenv("BLADE_BEAMFORMER_WGMMA");
    if (chosen != nullptr && std::strcmp(chosen, "0") == 0)
        return false;
    if (blade_cuda_compute_capability() != 90 || (job.pols != 1 && job.pols != 2))
        return false;
    if (job.antennas > 4096 || job.beams > INT32_MAX / 2)
        return false;
    const int64_t element = (job.input_type == BLADE_CF32   ? 8
                             : job.input_type == BLADE_CF16 ? 4
                                                            : 2) *
                            job.pols;
    if ((job.times * element) % 16 != 0 || reinterpret_cast<uintptr_t>(job.input) % 16 != 0)
        return false;
    const size_t output_element = job.output_type == BLADE_CF16 ? 4 : 8;
    if (reinterpret_cast<uintptr_t>(job.output) % (output_element * job.pols) != 0)
        return false;
    return shared_bytes(job) <= blade_cuda_shared_memory_optin();
}

blade_status launch_fp16_hopper(const blade_beamformer_job& job,
                                const __half2* packed,
                                int64_t packed_antennas,
                                int64_t groups,
                                cudaStream_t stream)
{
    HopperArgs args{};
    fill_tensors(args, job, packed, groups, packed_antennas);
    args.packed_antennas = static_cast<int>(packed_antennas);
    args.chunks = chunks_of(job);
    const int64_t items = job.channels * groups;
    const bool two = job.pols == 2;
    return for_types(job, "fp16", [&](auto in, auto out) {
        constexpr blade_dtype In = decltype(in)::value, Out = decltype(out)::value;
        return two ? launch_sized<In, Out, 2>(args, items, stream)
                   : launch_sized<In, Out, 1>(args, items, stream);
    });
}

} // namespace beamformer_cuda
