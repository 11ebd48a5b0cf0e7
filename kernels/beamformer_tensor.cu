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

#include "beamformer_kernels.h"
#include "cp_async.h"
#include "cuda_check.h"

#include <algorithm>

namespace beamformer_cuda {
namespace {

constexpr int kBeams = 64;    // beams per block (a beam group)
constexpr int kAntennas = 16; // antennas per pipeline stage
constexpr int kColumns = 128; // (time, pol) columns per time tile
constexpr int kStages = 3;
constexpr int kThreads = 256; // 8 warps: 4 along beams, 2 along columns
constexpr int kPad = 32;      // bytes added to every shared-memory row

template <blade_dtype In>
constexpr int element_bytes()
{
    return In == BLADE_CF32 ? 8 : In == BLADE_CF16 ? 4 : 2;
}

template <blade_dtype In, int P>
struct Layout {
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

// Issue the copies of pipeline step `step` (time tile, antenna chunk) into `stage`.
template <blade_dtype In, int P>
__device__ __forceinline__ void
load_stage(const TensorArgs& args, char* stage, int64_t channel, int group, int64_t tile, int chunk)
{
    using L = Layout<In, P>;
    constexpr int esize = element_bytes<In>();
    const int64_t t0 = tile * L::times;
    const int64_t valid_columns = std::min<int64_t>(kColumns, (args.times - t0) * P);
    const char* x = static_cast<const char*>(args.x);

    // Voltages: kAntennas rows of kColumns elements, contiguous in memory.
    if (args.async_voltages) {
        constexpr int per_row = kColumns * esize / 16;
        for (int c = threadIdx.x; c < kAntennas * per_row; c += kThreads) {
            const int r = c / per_row, k = c % per_row;
            const int a = chunk * kAntennas + r;
            const bool valid = a < args.antennas && k * (16 / esize) < valid_columns;
            const char* source =
                valid ? x +
                            ((static_cast<int64_t>(a) * args.channels + channel) * args.times * P +
                             t0 * P) *
                                esize +
                            k * 16
                      : x;
            cp_async16(stage + r * L::x_row + k * 16, source, valid);
        }
    } else {
        for (int e = threadIdx.x; e < kAntennas * kColumns; e += kThreads) {
            const int r = e / kColumns, k = e % kColumns;
            const int a = chunk * kAntennas + r;
            const bool valid = a < args.antennas && k < valid_columns;
            const int64_t i =
                (static_cast<int64_t>(a) * args.channels + channel) * args.times * P + t0 * P + k;
            char* target = stage + r * L::x_row + k * esize;
            if constexpr (In == BLADE_CF32)
                *reinterpret_cast<float2*>(target) =
                    valid ? __ldg(static_cast<const float2*>(args.x) + i) : make_float2(0.0f, 0.0f);
            else if constexpr (In == BLADE_CF16)
                *reinterpret_cast<uint32_t*>(target) =
                    valid ? __ldg(static_cast<const unsigned int*>(args.x) + i) : 0u;
            else
                *reinterpret_cast<uint16_t*>(target) =
                    valid ? __ldg(static_cast<const unsigned short*>(args.x) + i)
                          : static_cast<unsigned short>(0);
        }
    }

    // Phasors: kAntennas rows of kBeams x P complex, packed and zero-padded.
    constexpr int per_row = kBeams * P * 8 / 16;
    const char* w = reinterpret_cast<const char*>(
        args.w_packed + channel * args.packed_channel_stride +
        (static_cast<int64_t>(group) * args.chunks + chunk) * kAntennas * kBeams * P);
    char* w_stage = stage + L::x_stage;
    for (int c = threadIdx.x; c < kAntennas * per_row; c += kThreads) {
        const int r = c / per_row, k = c % per_row;
        cp_async16(w_stage + r * L::w_row + k * 16, w + (r * per_row + k) * 16, true);
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

    int64_t id = blockIdx.x;
    const int group = static_cast<int>(id % args.groups);
    id /= args.groups;
    const int64_t segment = id % args.segments;
    const int64_t channel = id / args.segments;
    const int64_t first_tile = segment * args.segment;
    const int64_t last_tile = std::min(args.tiles, first_tile + args.segment);
    if (first_tile >= last_tile)
        return;
    const int64_t steps = (last_tile - first_tile) * args.chunks;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int warp_beam = (warp % 4) * 16;                 // within the beam group
    const int warp_time = (warp / 4) * (kColumns / 2 / P); // within the time tile

    float acc[2][kOctets][P][4];
#pragma unroll
    for (int m = 0; m < 2; m++)
#pragma unroll
        for (int o = 0; o < kOctets; o++)
#pragma unroll
            for (int p = 0; p < P; p++)
#pragma unroll
                for (int r = 0; r < 4; r++)
                    acc[m][o][p][r] = 0.0f;

    for (int s = 0; s < kStages - 1; s++) {
        if (s < steps)
            load_stage<In, P>(args,
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
            load_stage<In, P>(args,
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
#pragma unroll
            for (int m = 0; m < 2; m++) {
                const int64_t beam = static_cast<int64_t>(group) * kBeams + warp_beam + m * 8 + g;
#pragma unroll
                for (int o = 0; o < kOctets; o++) {
                    const int64_t time = t0 + warp_time + o * 8 + 2 * t;
                    if (beam < args.beams && time < args.times) {
                        const int64_t base =
                            ((beam * args.channels + channel) * args.times + time) * P;
                        const bool both = time + 1 < args.times;
                        if constexpr (P == 2) {
                            // (time, p0) (time, p1) (time+1, p0) (time+1, p1): 4 adjacent elements
                            store_two<Out>(args.y,
                                           base,
                                           make_float2(acc[m][o][0][0], acc[m][o][0][2]),
                                           make_float2(acc[m][o][1][0], acc[m][o][1][2]));
                            if (both)
                                store_two<Out>(args.y,
                                               base + 2,
                                               make_float2(acc[m][o][0][1], acc[m][o][0][3]),
                                               make_float2(acc[m][o][1][1], acc[m][o][1][3]));
                        } else {
                            const float2 first = make_float2(acc[m][o][0][0], acc[m][o][0][2]);
                            const float2 second = make_float2(acc[m][o][0][1], acc[m][o][0][3]);
                            if (both && base % 2 == 0) {
                                store_two<Out>(args.y, base, first, second);
                            } else {
                                store_one<Out>(args.y, base, first);
                                if (both)
                                    store_one<Out>(args.y, base + 1, second);
                            }
                        }
                    }
#pragma unroll
                    for (int p = 0; p < P; p++)
#pragma unroll
                        for (int r = 0; r < 4; r++)
                            acc[m][o][p][r] = 0.0f;
                }
            }
        }
    }
    cp_async_wait<0>(); // nothing may be in flight when the block exits
#endif
}

// Phasors [B, A, F, 1, P] (or [B, A]) -> [Fw][groups][A_pad][64][P], zero-padded, so
// that every pipeline stage's phasors are one contiguous, aligned block.
__global__ void pack_phasors_kernel(const float2* __restrict__ w,
                                    float2* __restrict__ packed,
                                    int64_t total,
                                    int64_t beams,
                                    int64_t antennas,
                                    int64_t padded_antennas,
                                    int groups,
                                    int pols,
                                    int64_t sb,
                                    int64_t sa,
                                    int64_t sf,
                                    int64_t sp)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += stride) {
        int64_t rest = i;
        const int p = static_cast<int>(rest % pols);
        rest /= pols;
        const int64_t beam_in_group = rest % kBeams;
        rest /= kBeams;
        const int64_t antenna = rest % padded_antennas;
        rest /= padded_antennas;
        const int64_t group = rest % groups;
        const int64_t channel = rest / groups;
        const int64_t beam = group * kBeams + beam_in_group;
        packed[i] = beam < beams && antenna < antennas
                        ? __ldg(w + beam * sb + antenna * sa + channel * sf + p * sp)
                        : make_float2(0.0f, 0.0f);
    }
}

int64_t padded_antennas(const blade_beamformer_job& job)
{
    return (job.antennas + kAntennas - 1) / kAntennas * kAntennas;
}

int64_t beam_groups(const blade_beamformer_job& job) { return (job.beams + kBeams - 1) / kBeams; }

template <blade_dtype In, blade_dtype Out, int P, bool SplitMode>
blade_status launch_products(const TensorArgs& args, unsigned blocks, cudaStream_t stream)
{
    constexpr int bytes = Layout<In, P>::shared_bytes;
    auto kernel = tensor_kernel<In, Out, P, SplitMode>;
    // The kernel body exists only in code compiled for sm_80 or newer; a build for
    // older architectures only, run through PTX on a newer GPU, would launch an empty
    // kernel.
    cudaFuncAttributes attributes{};
    BLADE_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    if (attributes.ptxVersion < 80)
        return blade_fail(
            BLADE_ERROR_UNSUPPORTED,
            "beamformer: this build has no tensor-core code for the GPU (compiled for "
            "compute capability %d.%d; add 80 or 90 to CMAKE_CUDA_ARCHITECTURES) - use "
            "path fp32",
            attributes.ptxVersion / 10,
            attributes.ptxVersion % 10);
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

// Phasors [B, A, F, 1, P] are packed per channel; [B, A] (no channel stride) once.
int64_t phasor_channels(const blade_beamformer_job& job)
{
    return job.stride_channel != 0 ? job.channels : 1;
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
    pack_phasors_kernel<<<blade_grid_size(total, 256, 8u * blade_cuda_multiprocessors()),
                          256,
                          0,
                          stream>>>(reinterpret_cast<const float2*>(job.phasors),
                                    packed,
                                    total,
                                    job.beams,
                                    job.antennas,
                                    antennas_padded,
                                    static_cast<int>(groups),
                                    static_cast<int>(job.pols),
                                    job.stride_beam,
                                    job.stride_antenna,
                                    job.stride_channel,
                                    job.stride_pol);
    BLADE_CUDA_CHECK_LAUNCH("pack_phasors_kernel");

    // 2. The products. Blocks: (channel, time segment, beam group), beam group fastest.
    TensorArgs args{};
    args.x = job.input;
    args.w_packed = packed;
    args.y = job.output;
    args.channels = job.channels;
    args.times = job.times;
    args.beams = job.beams;
    args.packed_channel_stride =
        job.stride_channel != 0 ? groups * antennas_padded * kBeams * job.pols : 0;
    args.antennas = static_cast<int>(job.antennas);
    args.chunks = static_cast<int>(antennas_padded / kAntennas);
    args.groups = static_cast<int>(groups);
    const int64_t tile_times = kColumns / job.pols;
    args.tiles = (job.times + tile_times - 1) / tile_times;
    // About 16 blocks per SM in all; each block at least one tile, at most a channel.
    const int64_t target_blocks = 16 * static_cast<int64_t>(blade_cuda_multiprocessors());
    const int64_t all_tiles = job.channels * groups * args.tiles;
    args.segment = std::min<int64_t>(args.tiles, std::max<int64_t>(1, all_tiles / target_blocks));
    args.segments = (args.tiles + args.segment - 1) / args.segment;
    const int64_t element_bytes = job.input_type == BLADE_CF32   ? 8
                                  : job.input_type == BLADE_CF16 ? 4
                                                                 : 2;
    args.async_voltages = (job.times * job.pols * element_bytes) % 16 == 0 &&
                          reinterpret_cast<uintptr_t>(job.input) % 16 == 0;
    const int64_t blocks = job.channels * args.segments * groups;
    if (blocks > INT32_MAX)
        return blade_fail(
            BLADE_ERROR_UNSUPPORTED,
            "beamformer: %lld thread blocks exceed the CUDA grid limit; split the chunk "
            "along channels",
            static_cast<long long>(blocks));
    if (!tensor_output_aligned(job))
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "beamformer: the tensor-core path needs a 16-byte (cf32) or 8-byte (cf16) "
            "aligned output");
    const unsigned grid = static_cast<unsigned>(blocks);
    if (job.input_type == BLADE_CF32 && job.output_type == BLADE_CF32)
        return launch_pols<BLADE_CF32, BLADE_CF32>(
            args, static_cast<int>(job.pols), split, grid, stream);
    if (job.input_type == BLADE_CF32 && job.output_type == BLADE_CF16)
        return launch_pols<BLADE_CF32, BLADE_CF16>(
            args, static_cast<int>(job.pols), split, grid, stream);
    if (job.input_type == BLADE_CF16 && job.output_type == BLADE_CF32)
        return launch_pols<BLADE_CF16, BLADE_CF32>(
            args, static_cast<int>(job.pols), split, grid, stream);
    if (job.input_type == BLADE_CF16 && job.output_type == BLADE_CF16)
        return launch_pols<BLADE_CF16, BLADE_CF16>(
            args, static_cast<int>(job.pols), split, grid, stream);
    if (job.input_type == BLADE_CI8 && job.output_type == BLADE_CF32)
        return launch_pols<BLADE_CI8, BLADE_CF32>(
            args, static_cast<int>(job.pols), split, grid, stream);
    if (job.input_type == BLADE_CI8 && job.output_type == BLADE_CF16)
        return launch_pols<BLADE_CI8, BLADE_CF16>(
            args, static_cast<int>(job.pols), split, grid, stream);
    return blade_fail(BLADE_ERROR_UNSUPPORTED,
                      "beamformer: no tensor-core kernel for %s -> %s",
                      blade_dtype_name(job.input_type),
                      blade_dtype_name(job.output_type));
}

} // namespace beamformer_cuda
