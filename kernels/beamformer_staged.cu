// SPDX-License-Identifier: MIT
//
// The beamformer on CUDA cores with the phasors staged in shared memory: exact float32
// sums, bit-identical to the direct kernel (beamformer_direct.cu: the same fused
// multiply-adds in the same order), faster where that one waits on its phasor loads.
//
// Why. The direct kernel loads each (beam, antenna) phasor from global memory right
// before the 16 FMAs that use it. A block reads each phasor once, so the load misses
// L1 and waits on L2 (~600 cycles loaded), and the branch on the tile's beam count
// keeps the compiler from issuing the next beam's load early: at 16 warps per SM that
// is 16 FMAs per warp per L2 round trip, ~10 % of the FP32 pipe (H200: 0.7-0.8 T
// complex MAC/s measured, 25 % of the memory bandwidth at (B, A) = (8, 20)). Here a
// block copies the phasors of its channel and beams into shared memory once, and
// the inner loop reads them with warp-uniform (broadcast) 16-byte shared loads, ~30
// cycles, with no branch between beams.
//
// Work split. A *slot* is two complex elements that share one phasor pair: (t, pol 0)
// and (t, pol 1) for P = 2, samples (2s, 2s + 1) for P = 1 (T even). Its voltages are
// one 16-byte load (cf32), 8-byte (cf16) or 4-byte load (ci8), its phasor pair one 16-byte shared
// load [w(p0), w(p1)] (staged as [w, w] for P = 1 and for [B, A] phasors), which serves
// both elements: 8 FMAs per beam and slot. A thread owns NT slots (the two variants,
// staged1 and staged2) s = lane + 32 k of its warp's span, so that every load and
// store instruction of a warp covers consecutive memory (512 B for cf32 voltages and
// beams), and BT beams: BT x NT x 2 complex accumulators. A block has WB warps along
// beams (beam tiles of BT, sharing each voltage load through L1) and WT along time.
//
// Latency hiding. Voltage loads run D antennas ahead of the arithmetic through a
// register ring (D groups of NT slots in flight per thread); the pipeline flows over
// antennas and on across the block's consecutive spans of time, so a block never
// drains it. D (prefetch_depth) is 4 for cf32 with NT = 1 (6 with 8 beams), 2 for cf32
// with NT = 2, 8 for ci8 with NT = 1 and 6 for ci8 with NT = 2; cf16 (half the bytes
// of cf32) 8 with NT = 1 and 4 with NT = 2.
//
// The benchmark cases the variants were sized for (H200: 132 SMs, 4.2 TB/s copy, 67
// TFLOP/s FP32 = 33.4 T FMA/s, 4 schedulers per SM each issuing one warp instruction
// per clock; F = 192, T = 8192, P = 2 -> 1.57 M slots per antenna). Registers are
// ptxas's (CUDA 13, sm_90); instruction counts from the SASS of one antenna step.
//
// (B, A) = (8, 20), cf32 voltages, staged1 (NT = 1, BT = 8): bytes 503 MB voltages +
//   25 MB x 8 beams = 704 MB -> 167 us at 4.2 TB/s; 2.0 G FMA -> 60 us: memory bound,
//   the FMA pipe ~36 % busy at the memory time. Per warp and antenna: 1 LDG.128
//   (512 consecutive bytes), 8 LDS.128 (broadcast), 64 FFMA, ~25 other (address, ring,
//   branches): 70 % FMAs, 83 us if issue bound. 108 registers (32 accumulators, 24
//   ring, phasors loaded ahead, addressing) -> 2 blocks = 16 warps per SM. Bytes in
//   flight: 512 threads x D = 6 x 16 B = 48 KB per SM, against 4.2 TB/s x ~1.2 us /
//   132 = 38 KB that Little's law asks at full bandwidth. Expect ~0.18 ms (3.9 TB/s:
//   a kernel that mostly reads can approach the copy rate), against 0.666 ms direct.
//
// (B, A) = (8, 28), ci8 voltages, staged2 (NT = 2, BT = 8, __launch_bounds__(256, 2)):
//   bytes 176 MB voltages + 201 MB beams = 377 MB -> 90 us; 2.82 G FMA -> 84 us: both.
//   Per warp and antenna: 2 LDG.32, 18 conversion instructions (byte permutes and
//   subtractions, beamformer_kernels.h), 8 LDS.128, 128 FFMA, ~20 other: 73 % of the
//   issue slots are FMAs, so 115 us if issue bound. 128 registers (64 accumulators,
//   12 ring) -> 2 blocks = 16 warps per SM, 4 per scheduler, each with 128 independent
//   FMAs per antenna to cover a ~30-cycle shared load: the FMA pipe stays fed. Bytes
//   in flight: 512 threads x D = 6 x 8 B = 24 KB per SM (2.6 TB/s x 1.2 us / 132 = 24 KB).
//   Expect 0.12-0.15 ms (60-75 % of the roofline), against 0.875 ms direct.
//
// (B, A) = (64, 64): WB = 8 warps of 8 beams each share the voltages (one L2 pass per
//   group of 64 beams); the 64 KB of phasor pairs of a block stay resident for all its
//   spans. Per warp and antenna (staged2): 2 LDG.128 (L1 hits after the first warp),
//   8 LDS.128, 128 FFMA, ~20 other: ~80 % FMAs; at 75-85 % of the issue rate that is
//   5-5.6 T complex MAC/s (2.3-2.6 ms), against 0.68 T direct.
//
// Requirements (else the dispatcher runs the direct kernel): T * P even, at least a
// warp's slots per channel (T * P / 2 >= 32 NT), voltages aligned to a slot (16 B cf32,
// 8 B cf16, 4 B ci8), beams to 16 B (cf32) or 8 B (cf16).

#include "beamformer_kernels.h"
#include "cuda_check.h"

#include <algorithm>

namespace beamformer_cuda {
namespace {

constexpr int kMaxWarps = 8; // warps per block
constexpr int kMaxThreads = 32 * kMaxWarps;
constexpr int kGroupBeams = 64; // beams sharing one pass over the voltages
// The most shared memory for a block's phasor pairs (all antennas x its beam columns):
// 64 KB holds (64 beams, 64 antennas); 2 such blocks per SM on sm_80/90.
constexpr size_t kStageBytes = 64 * 1024;

// One slot of voltages as it lies in memory.
template <blade_dtype In>
struct SlotRaw;
template <>
struct SlotRaw<BLADE_CF32> {
    using type = float4; // (re, im) of two elements
};
template <>
struct SlotRaw<BLADE_CI8> {
    using type = uint32_t; // re0, im0, re1, im1 as int8
};
template <>
struct SlotRaw<BLADE_CF16> {
    using type = uint2; // (re, im) of two elements as half
};

template <blade_dtype In>
using Raw = typename SlotRaw<In>::type;

// Prefetch depth (antennas ahead) per variant: see the file comment.
template <blade_dtype In, int BT, int NT>
constexpr int prefetch_depth()
{
    if (In == BLADE_CF32)
        return NT == 2 ? 2 : BT == 8 ? 6 : 4;
    if (In == BLADE_CF16) // half the bytes of cf32 per slot: twice the depth, same registers
        return NT == 2 ? 4 : 8;
    return NT == 2 ? 6 : 8;
}

// Blocks of 256 threads per SM the registers must allow: 2 (128 registers) for 64
// accumulators (BT = 8, NT = 2) or 8 beams with a deep ring (BT = 8, NT = 1), else 3
// (80 registers). Tighter caps made ptxas spill the ring cursor inside the loop.
template <int BT, int NT>
constexpr int min_blocks()
{
    return BT == 8 || NT == 2 ? 2 : 3;
}

struct StagedArgs {
    const void* x;
    const float2* w;
    void* y;
    int64_t row_slots;      // F*T*P/2: slots of one antenna (or beam) row (< 2^31)
    int slots;              // T*P/2: slots of one channel
    int64_t sb, sa, sf, sp; // phasor strides in complex elements
    int64_t beam_end;       // B: one past the last beam
    int64_t incoherent_row; // B: the aspect row of the incoherent beam
    int spans;              // spans (WT x 32 x NT slots) per channel
    int spans_per_block;
    int segments; // blocks per (channel, group) along time
    int antennas;
    int pols;
    int group_beams; // beams per group (the last group may have fewer)
    int groups;
    int warps_beam;  // WB
    int warps_time;  // WT
    bool incoherent; // group 0's first warp column also sums the power
    bool incoherent_sqrt;
};

// The two complex elements of a slot.
__device__ __forceinline__ void convert_slot(float4 raw, float2 (&v)[2])
{
    v[0] = make_float2(raw.x, raw.y);
    v[1] = make_float2(raw.z, raw.w);
}

__device__ __forceinline__ void convert_slot(uint2 raw, float2 (&v)[2])
{
    v[0] = cf16_to_float2(raw.x);
    v[1] = cf16_to_float2(raw.y);
}

__device__ __forceinline__ void convert_slot(uint32_t raw, float2 (&v)[2])
{
    const float4 q = ci8x2_to_float4(raw);
    v[0] = make_float2(q.x, q.y);
    v[1] = make_float2(q.z, q.w);
}

// Phasor pairs of every antenna for the block's `columns` beam columns (beam =
// group_beam0 + column), zero for absent beams, into stage[antenna][column].
__device__ __forceinline__ void stage_phasors(const StagedArgs& args,
                                              float4* stage,
                                              int columns,
                                              int64_t group_beam0,
                                              int64_t group_end,
                                              int channel)
{
    const int total = args.antennas * columns;
    for (int i = threadIdx.x; i < total; i += blockDim.x) {
        const int column = i % columns;
        const int a = i / columns;
        const int64_t beam = group_beam0 + column;
        float4 pair = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (beam < group_end) {
            const float2* w = args.w + beam * args.sb + static_cast<int64_t>(a) * args.sa +
                              static_cast<int64_t>(channel) * args.sf;
            const float2 w0 = __ldg(w);
            // P = 1 and [B, A] phasors: both elements of a slot take w0.
            const float2 w1 = args.pols == 2 ? __ldg(w + args.sp) : w0;
            pair = make_float4(w0.x, w0.y, w1.x, w1.y);
        }
        stage[i] = pair;
    }
}

// blockIdx.x = (channel * segments + segment) * groups + group: the groups that read
// the same voltages are adjacent, so all but the first read them from L2. Counters are
// 32-bit (the launcher checks that a row of slots fits) and what changes only once per
// span is updated incrementally, to leave registers to the accumulators and the ring.
template <blade_dtype In, blade_dtype Out, int BT, int NT>
__global__ void __launch_bounds__(kMaxThreads, min_blocks<BT, NT>())
    staged_kernel(const StagedArgs args)
{
    constexpr int D = prefetch_depth<In, BT, NT>();
    extern __shared__ float4 stage[]; // [antennas][columns] phasor pairs

    const int group = static_cast<int>(blockIdx.x % static_cast<unsigned>(args.groups));
    const int rest = static_cast<int>(blockIdx.x / static_cast<unsigned>(args.groups));
    const int segment = rest % args.segments;
    const int channel = rest / args.segments;
    const int first_span = segment * args.spans_per_block;
    const int spans = min(args.spans, first_span + args.spans_per_block) - first_span;
    if (spans <= 0) // (never with the launcher's segment count; block-uniform)
        return;

    const int warp = static_cast<int>(threadIdx.x / 32);
    const int warp_beam = warp % args.warps_beam;
    const int columns = args.warps_beam * BT;
    const int span_slots = args.warps_time * 32 * NT;
    const int A = args.antennas;
    const bool incoherent = args.incoherent && group == 0 && warp_beam == 0;
    // This thread's first slot in the block's first span (slot k adds 32 k).
    const int first_slot = first_span * span_slots + (warp / args.warps_beam) * 32 * NT +
                           static_cast<int>(threadIdx.x % 32);

    // Slot k of this thread in the span being computed is span_slot + 32 k (in the next
    // span, span_slot + span_slots + 32 k); a slot past the channel's end is neither
    // loaded nor stored (its ring entry keeps an older, finite value).
    const Raw<In>* const x0 =
        static_cast<const Raw<In>*>(args.x) + static_cast<int64_t>(channel) * args.slots;
    auto load = [&](Raw<In>(&out)[NT], int antenna, int first) {
        const Raw<In>* row = x0 + static_cast<int64_t>(antenna) * args.row_slots + first;
#pragma unroll
        for (int k = 0; k < NT; k++)
            if (first + 32 * k < args.slots)
                out[k] = __ldg(row + 32 * k);
    };
    int span_slot = first_slot;

    // The antenna loop runs in steps of D over A rounded up to a multiple of D, so that
    // antenna a always sits in ring[a % D]; the load issued at step a is for step a + D,
    // in this span or (past the padded end) the next one. Padded steps load but do not
    // compute. Voltage loads of the first D antennas, then the block's phasors (all
    // antennas, once) while those are in flight.
    const int padded = (A + D - 1) / D * D;
    Raw<In> ring[D][NT];
#pragma unroll
    for (int u = 0; u < D; u++)
#pragma unroll
        for (int k = 0; k < NT; k++)
            ring[u][k] = Raw<In>{};
#pragma unroll
    for (int u = 0; u < D; u++)
        if (u < A)
            load(ring[u], u, span_slot);
    {
        const int64_t group_beam0 = static_cast<int64_t>(group) * args.group_beams;
        stage_phasors(args,
                      stage,
                      columns,
                      group_beam0,
                      min(args.beam_end, group_beam0 + args.group_beams),
                      channel);
        __syncthreads();
    }

    const float4* const warp_pairs = stage + warp_beam * BT;
    const int64_t group_beam0 = static_cast<int64_t>(group) * args.group_beams;
    const int64_t beam0 = group_beam0 + warp_beam * BT;
    // Beams of this warp that exist (<= 0: a warp of absent beams in the last group).
    const int beams_here = static_cast<int>(
        max(int64_t{ -1 },
            min(int64_t{ BT }, min(args.beam_end, group_beam0 + args.group_beams) - beam0)));
    for (int span = 0; span < spans; span++) {
        const bool last_span = span + 1 == spans;
        float2 acc[BT][NT][2];
        float power[NT][2];
#pragma unroll
        for (int b = 0; b < BT; b++)
#pragma unroll
            for (int k = 0; k < NT; k++)
                acc[b][k][0] = acc[b][k][1] = make_float2(0.0f, 0.0f);
#pragma unroll
        for (int k = 0; k < NT; k++)
            power[k][0] = power[k][1] = 0.0f;

        for (int a0 = 0; a0 < padded; a0 += D) {
#pragma unroll
            for (int u = 0; u < D; u++) {
                const int a = a0 + u;
                Raw<In> current[NT];
#pragma unroll
                for (int k = 0; k < NT; k++)
                    current[k] = ring[u][k];
                // The load for step a + D (block-uniform branches).
                const int ahead = a + D;
                if (ahead < A)
                    load(ring[u], ahead, span_slot);
                else if (ahead >= padded && ahead - padded < A && !last_span)
                    load(ring[u], ahead - padded, span_slot + span_slots);
                if (a >= A)
                    continue;

                float2 v[NT][2];
#pragma unroll
                for (int k = 0; k < NT; k++)
                    convert_slot(current[k], v[k]);
                const float4* pairs = warp_pairs + a * columns;
#pragma unroll
                for (int b = 0; b < BT; b++) {
                    const float4 pair = pairs[b]; // the same address in every lane: a broadcast
                    const float2 w0 = make_float2(pair.x, pair.y), w1 = make_float2(pair.z, pair.w);
#pragma unroll
                    for (int k = 0; k < NT; k++) {
                        acc[b][k][0] = cmac(acc[b][k][0], w0, v[k][0]);
                        acc[b][k][1] = cmac(acc[b][k][1], w1, v[k][1]);
                    }
                }
                if (incoherent) { // beam 0 (group 0, this warp's first column) carries the calibration
                    const float4 pair = pairs[0];
                    const float gain0 = power_of(make_float2(pair.x, pair.y));
                    const float gain1 = power_of(make_float2(pair.z, pair.w));
#pragma unroll
                    for (int k = 0; k < NT; k++) {
                        power[k][0] = fmaf(gain0, power_of(v[k][0]), power[k][0]);
                        power[k][1] = fmaf(gain1, power_of(v[k][1]), power[k][1]);
                    }
                }
            }
        }

        // Span done: write its beams; the next span's slots.
#pragma unroll
        for (int k = 0; k < NT; k++) {
            const int here = span_slot + 32 * k;
            if (here >= args.slots)
                continue;
            const int64_t element = 2 * (static_cast<int64_t>(channel) * args.slots + here);
#pragma unroll
            for (int b = 0; b < BT; b++)
                if (b < beams_here)
                    store_two<Out>(args.y,
                                   (beam0 + b) * 2 * args.row_slots + element,
                                   acc[b][k][0],
                                   acc[b][k][1]);
            if (incoherent) {
                const float p0 = args.incoherent_sqrt ? sqrtf(power[k][0]) : power[k][0];
                const float p1 = args.incoherent_sqrt ? sqrtf(power[k][1]) : power[k][1];
                store_two<Out>(args.y,
                               args.incoherent_row * 2 * args.row_slots + element,
                               make_float2(p0, 0.0f),
                               make_float2(p1, 0.0f));
            }
        }
        span_slot += span_slots;
    }
}

bool aligned(const void* pointer, uintptr_t bytes)
{
    return reinterpret_cast<uintptr_t>(pointer) % bytes == 0;
}

// Beam layout of a launch: BT beams per warp, WB warps along beams, groups of
// `group_beams` beams that each read the voltages once.
struct BeamLayout {
    int tile;       // BT
    int warps_beam; // WB
    int group_beams;
    int groups;
    int columns() const { return tile * warps_beam; }
};

// Groups of at most `cap` beams, as even as possible; up to 8 beams in one warp (BT of
// 1, 2, 4 or 8), else tiles of 8, or of 4 where that wastes fewer accumulator columns
// on a small group (9 beams: 3 warps of 4, not 2 of 8).
BeamLayout beam_layout(int64_t count, int cap)
{
    BeamLayout layout{};
    if (count <= 8) {
        layout.tile = count <= 1 ? 1 : count <= 2 ? 2 : count <= 4 ? 4 : 8;
        layout.warps_beam = 1;
        layout.group_beams = static_cast<int>(std::max<int64_t>(1, count));
        layout.groups = 1;
        return layout;
    }
    layout.groups = static_cast<int>((count + cap - 1) / cap);
    layout.group_beams = static_cast<int>((count + layout.groups - 1) / layout.groups);
    layout.tile = layout.group_beams >= 32 || layout.group_beams % 8 == 0 ? 8 : 4;
    layout.warps_beam = (layout.group_beams + layout.tile - 1) / layout.tile;
    return layout;
}

template <blade_dtype In, blade_dtype Out, int BT, int NT>
blade_status
launch_shaped(StagedArgs args, int64_t channels, size_t shared_bytes, cudaStream_t stream)
{
    auto kernel = staged_kernel<In, Out, BT, NT>;
    const int threads = 32 * args.warps_beam * args.warps_time;
    if (shared_bytes > 48 * 1024)
        BLADE_CUDA_TRY(cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));

    // Spans per block: about 8 waves of resident blocks, each block at least one span
    // and at most a channel (more spans per block: fewer phasor stages; fewer blocks:
    // a longer tail).
    int resident = 0;
    BLADE_CUDA_TRY(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, threads, shared_bytes));
    if (resident < 1)
        return blade_fail(
            BLADE_ERROR_UNSUPPORTED,
            "beamformer: the staged kernel cannot run %d threads with %zu bytes of shared "
            "memory on this GPU",
            threads,
            shared_bytes);
    const int64_t target_blocks = 8 * static_cast<int64_t>(resident) * blade_cuda_multiprocessors();
    const int64_t all_spans = channels * args.spans * args.groups;
    const int64_t per_block = std::min<int64_t>(
        std::min<int64_t>(args.spans,
                          INT32_MAX / args.antennas), // steps = spans x antennas fit an int
        std::max<int64_t>(1, all_spans / target_blocks));
    args.spans_per_block = static_cast<int>(per_block);
    args.segments = (args.spans + args.spans_per_block - 1) / args.spans_per_block;
    const int64_t blocks = channels * args.segments * args.groups;
    BLADE_TRY(blade_check_grid(blocks, "beamformer", "split the chunk along time or channels"));
    kernel<<<static_cast<unsigned>(blocks), threads, shared_bytes, stream>>>(args);
    BLADE_CUDA_CHECK_LAUNCH("staged_kernel");
    return BLADE_OK;
}

template <blade_dtype In, blade_dtype Out, int NT>
blade_status launch_tiled(
    const StagedArgs& args, int tile, int64_t channels, size_t shared_bytes, cudaStream_t stream)
{
    switch (tile) {
    case 1:
        return launch_shaped<In, Out, 1, NT>(args, channels, shared_bytes, stream);
    case 2:
        return launch_shaped<In, Out, 2, NT>(args, channels, shared_bytes, stream);
    case 4:
        return launch_shaped<In, Out, 4, NT>(args, channels, shared_bytes, stream);
    default:
        return launch_shaped<In, Out, 8, NT>(args, channels, shared_bytes, stream);
    }
}

template <blade_dtype In, blade_dtype Out>
blade_status launch_typed(const StagedArgs& args,
                          int tile,
                          int slots_per_thread,
                          int64_t channels,
                          size_t shared_bytes,
                          cudaStream_t stream)
{
    if (slots_per_thread == 1)
        return launch_tiled<In, Out, 1>(args, tile, channels, shared_bytes, stream);
    return launch_tiled<In, Out, 2>(args, tile, channels, shared_bytes, stream);
}

} // namespace

blade_status launch_staged(const blade_beamformer_job& job,
                           int slots_per_thread,
                           cudaStream_t stream,
                           bool* launched)
{
    *launched = false;
    if (slots_per_thread != 1 && slots_per_thread != 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: the staged kernel takes 1 or 2 slots per thread, given %d",
                          slots_per_thread);
    // Slots (T*P even), aligned 16-byte (cf32), 8-byte (cf16) or 4-byte (ci8) slot loads and 16-byte
    // (cf32) or 8-byte (cf16) slot stores, and 32-bit slot counters.
    const uintptr_t x_align = job.input_type == BLADE_CF32   ? 16
                              : job.input_type == BLADE_CF16 ? 8
                                                             : 4;
    const uintptr_t y_align = job.output_type == BLADE_CF32 ? 16 : 8;
    const int64_t row_slots = job.channels * job.times * job.pols / 2;
    if ((job.times * job.pols) % 2 != 0 || job.beams < 1 || row_slots > INT32_MAX - 4096 ||
        !aligned(job.input, x_align) || !aligned(job.output, y_align))
        return BLADE_OK;

    // The phasors of all antennas stay in shared memory: groups of 64 beams where they
    // fit, else 32, 16 or 8 (more passes over the voltages); beyond, the direct kernel.
    int device = 0, optin = 0;
    BLADE_CUDA_TRY(cudaGetDevice(&device));
    BLADE_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const size_t limit = std::min<size_t>(kStageBytes, static_cast<size_t>(optin));
    BeamLayout layout{};
    size_t shared_bytes = 0;
    for (int cap = kGroupBeams;; cap /= 2) {
        layout = beam_layout(job.beams, cap);
        shared_bytes = sizeof(float4) * static_cast<size_t>(layout.columns()) *
                       static_cast<size_t>(job.antennas);
        if (shared_bytes <= limit)
            break;
        if (cap <= 8 || layout.groups == 1 && layout.group_beams <= 8)
            return BLADE_OK; // too many antennas
    }

    // A channel shorter than a warp's span leaves most lanes idle: Mode B after a ×1024
    // channelizer has T = 8, 8 slots per channel against a warp's 64 (NT = 2), and a
    // block per channel spends its time staging phasors and filling its ring for a few
    // useful FMAs (the Mode BS timeline: 12.6 ms per chunk). The direct kernel, a thread
    // per 4 elements across channels, gives the same bits there.
    const int64_t channel_slots = job.times * job.pols / 2;
    if (channel_slots < 32 * slots_per_thread)
        return BLADE_OK;

    StagedArgs args{};
    args.x = job.input;
    args.w = reinterpret_cast<const float2*>(job.phasors);
    args.y = job.output;
    args.slots = static_cast<int>(channel_slots);
    args.row_slots = row_slots;
    args.sb = job.stride_beam;
    args.sa = job.stride_antenna;
    args.sf = job.stride_channel;
    args.sp = job.stride_pol;
    args.beam_end = job.beams;
    args.incoherent_row = job.beams;
    args.antennas = static_cast<int>(job.antennas);
    args.pols = static_cast<int>(job.pols);
    args.group_beams = layout.group_beams;
    args.groups = layout.groups;
    args.warps_beam = layout.warps_beam;
    // No more warps along time than a channel fills.
    const int64_t warps_filled =
        (channel_slots + 32 * slots_per_thread - 1) / (32 * slots_per_thread);
    args.warps_time = static_cast<int>(
        std::min<int64_t>(std::max(1, kMaxWarps / layout.warps_beam), warps_filled));
    const int span_slots = 32 * slots_per_thread * args.warps_time;
    args.spans = (args.slots + span_slots - 1) / span_slots;
    args.incoherent = job.incoherent;
    args.incoherent_sqrt = job.incoherent_sqrt;

    *launched = true;
    const int tile = layout.tile;
    const int64_t F = job.channels;
    if (job.input_type == BLADE_CF32 && job.output_type == BLADE_CF32)
        return launch_typed<BLADE_CF32, BLADE_CF32>(
            args, tile, slots_per_thread, F, shared_bytes, stream);
    if (job.input_type == BLADE_CF32 && job.output_type == BLADE_CF16)
        return launch_typed<BLADE_CF32, BLADE_CF16>(
            args, tile, slots_per_thread, F, shared_bytes, stream);
    if (job.input_type == BLADE_CF16 && job.output_type == BLADE_CF32)
        return launch_typed<BLADE_CF16, BLADE_CF32>(
            args, tile, slots_per_thread, F, shared_bytes, stream);
    if (job.input_type == BLADE_CF16 && job.output_type == BLADE_CF16)
        return launch_typed<BLADE_CF16, BLADE_CF16>(
            args, tile, slots_per_thread, F, shared_bytes, stream);
    if (job.input_type == BLADE_CI8 && job.output_type == BLADE_CF32)
        return launch_typed<BLADE_CI8, BLADE_CF32>(
            args, tile, slots_per_thread, F, shared_bytes, stream);
    if (job.input_type == BLADE_CI8 && job.output_type == BLADE_CF16)
        return launch_typed<BLADE_CI8, BLADE_CF16>(
            args, tile, slots_per_thread, F, shared_bytes, stream);
    return blade_fail(BLADE_ERROR_UNSUPPORTED,
                      "beamformer: no staged kernel for %s -> %s",
                      blade_dtype_name(job.input_type),
                      blade_dtype_name(job.output_type));
}

} // namespace beamformer_cuda
