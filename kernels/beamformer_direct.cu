// SPDX-License-Identifier: MIT
//
// The beamformer on CUDA cores: exact float32 sums, any shape.
//
// Each thread owns G consecutive complex elements of the flattened (f, t, p) axis
// (length F*T*P, the same for every antenna and every beam row) and the accumulators
// of a tile of BT beams for them. It streams over the antennas: one coalesced load of
// its G voltages (cf32, or cf16 and ci8 converted in registers), then for each beam of the tile
// one phasor load and G complex multiply-adds (4 FMA each).
//
// Bytes and flops per input sample (one antenna, one (f, t, p)): the voltage is read
// once per beam tile (8 bytes cf32, 2 bytes ci8), each beam row costs 8/A bytes of
// writes, and each beam 8 flops (one complex MAC). At (B, A) = (8, 20), cf32: 704 MB
// moved (0.165 ms at 4.28 TB/s) against 4.0 GFLOP (0.060 ms at 67 TFLOP/s): memory
// bound, so the kernel is written to keep loads in flight. With ci8 input at (8, 28)
// the two meet: 377 MB (88 us) against 5.6 GFLOP (84 us), which is why the ci8
// conversion avoids the slow I2F unit (beamformer_kernels.h) and why a thread reuses
// each 16-byte phasor load for G = 4 elements (16 FMA).
//
// Beam tiles: BT in {1, 2, 4, 8} covers B <= 8 in one pass (G = 4, 64 accumulator
// registers at BT = 8); more beams are processed in tiles of 16 (G = 2, again 64
// accumulators), one grid for all tiles with the tile index varying fastest, so the
// blocks of every tile that read the same voltages run together and all but the
// first read them from L2. Time per beam is therefore constant beyond 16 beams:
// throughput falls as 1/B, never faster.
//
// Phasors are read through the read-only cache: every thread of a warp reads the same
// phasor (a broadcast), except at a channel boundary. The tensor-core path
// (beamformer_tensor.cu) takes over for large A and B.
//
// Two variants: the vector kernel when every thread's G elements lie in one channel
// (T*P a multiple of G) and the pointers are aligned, and a scalar kernel (G = 1,
// per-element channel and polarization) for every other shape, T = 1 included.

#include "beamformer_kernels.h"
#include "cuda_check.h"

#include <algorithm>

namespace beamformer_cuda {
namespace {

constexpr int kThreads = 256;

// How a thread gets the phasors of (beam, antenna, channel) for its elements.
enum class PhasorLoad {
    Shared, // one weight for all its elements: P == 1, or [B, A] (MeerKAT) phasors
    Paired  // P == 2 with both polarizations adjacent: one 16-byte load, element e uses e % 2
};

struct DirectArgs {
    const void* x;
    const float2* w;
    void* y;
    int64_t row;            // F*T*P: elements of one antenna (or beam) row
    int64_t tp;             // T*P: elements of one channel within a row
    int64_t units;          // threads needed along the row (row / G)
    int64_t sb, sa, sf, sp; // phasor strides in complex elements
    int64_t beam_begin;     // first beam of tile 0
    int64_t beam_end;       // one past the last beam of this launch
    int64_t incoherent_row; // B: the aspect row of the incoherent beam
    int antennas;
    int pols;
    int tiles;       // beam tiles in this launch (grid = tiles x row blocks)
    bool incoherent; // tile 0 also accumulates the incoherent beam
    bool incoherent_sqrt;
};

// G consecutive voltages as they lie in memory (cf32: G/2 float4; cf16: 8 or 16 bytes;
// ci8: 4 or 8 bytes), so that loads for many antennas can be in flight in few
// registers; converted to complex floats only when used.
template <blade_dtype In, int G>
struct RawGroup;

template <int G>
struct RawGroup<BLADE_CF32, G> {
    float4 q[G / 2];
};

template <>
struct RawGroup<BLADE_CI8, 4> {
    uint2 q;
};

template <>
struct RawGroup<BLADE_CI8, 2> {
    uint32_t q;
};

template <>
struct RawGroup<BLADE_CF16, 4> {
    uint4 q;
};

template <>
struct RawGroup<BLADE_CF16, 2> {
    uint2 q;
};

// The group starting at element i (a multiple of G, pointer aligned).
template <blade_dtype In, int G>
__device__ __forceinline__ RawGroup<In, G> load_group(const void* x, int64_t i)
{
    static_assert(G == 2 || G == 4, "vector groups hold 2 or 4 elements");
    RawGroup<In, G> raw;
    if constexpr (In == BLADE_CF32) {
        const float4* p = reinterpret_cast<const float4*>(static_cast<const float2*>(x) + i);
#pragma unroll
        for (int k = 0; k < G / 2; k++)
            raw.q[k] = __ldg(p + k);
    } else if constexpr (In == BLADE_CF16) {
        if constexpr (G == 4)
            raw.q = __ldg(reinterpret_cast<const uint4*>(static_cast<const uint32_t*>(x) + i));
        else
            raw.q = __ldg(reinterpret_cast<const uint2*>(static_cast<const uint32_t*>(x) + i));
    } else if constexpr (G == 4) {
        raw.q = __ldg(reinterpret_cast<const uint2*>(static_cast<const char2*>(x) + i));
    } else {
        raw.q = __ldg(reinterpret_cast<const unsigned int*>(static_cast<const char2*>(x) + i));
    }
    return raw;
}

template <blade_dtype In, int G>
__device__ __forceinline__ RawGroup<In, G> zero_group()
{
    RawGroup<In, G> raw;
    memset(&raw, 0, sizeof raw);
    return raw;
}

template <blade_dtype In, int G>
__device__ __forceinline__ void convert_group(const RawGroup<In, G>& raw, float2 (&v)[G])
{
    if constexpr (In == BLADE_CF32) {
#pragma unroll
        for (int k = 0; k < G / 2; k++) {
            v[2 * k] = make_float2(raw.q[k].x, raw.q[k].y);
            v[2 * k + 1] = make_float2(raw.q[k].z, raw.q[k].w);
        }
    } else if constexpr (In == BLADE_CF16) {
        v[0] = cf16_to_float2(raw.q.x);
        v[1] = cf16_to_float2(raw.q.y);
        if constexpr (G == 4) {
            v[2] = cf16_to_float2(raw.q.z);
            v[3] = cf16_to_float2(raw.q.w);
        }
    } else if constexpr (G == 4) {
        const float4 lo = ci8x2_to_float4(raw.q.x), hi = ci8x2_to_float4(raw.q.y);
        v[0] = make_float2(lo.x, lo.y);
        v[1] = make_float2(lo.z, lo.w);
        v[2] = make_float2(hi.x, hi.y);
        v[3] = make_float2(hi.z, hi.w);
    } else {
        const float4 q = ci8x2_to_float4(raw.q);
        v[0] = make_float2(q.x, q.y);
        v[1] = make_float2(q.z, q.w);
    }
}

template <blade_dtype In>
__device__ __forceinline__ float2 load_one(const void* x, int64_t i)
{
    if constexpr (In == BLADE_CF32)
        return __ldg(static_cast<const float2*>(x) + i);
    else if constexpr (In == BLADE_CF16)
        return cf16_to_float2(__ldg(static_cast<const unsigned int*>(x) + i));
    else
        return ci8_to_float2(__ldg(reinterpret_cast<const unsigned short*>(x) + i));
}

// Phasors of one (beam, antenna, channel): w[0] for polarization 0 (or all), w[1] for 1.
template <PhasorLoad WL>
__device__ __forceinline__ void load_phasor(const float2* w, float2 (&out)[2])
{
    if constexpr (WL == PhasorLoad::Paired) {
        const float4 q = __ldg(reinterpret_cast<const float4*>(w));
        out[0] = make_float2(q.x, q.y);
        out[1] = make_float2(q.z, q.w);
    } else {
        out[0] = out[1] = __ldg(w);
    }
}

// The vector kernel. blockIdx.x = row_block * tiles + tile.
template <blade_dtype In, blade_dtype Out, int BT, int G, PhasorLoad WL>
__global__ void __launch_bounds__(kThreads) direct_vector_kernel(const DirectArgs args)
{
    const int tile = static_cast<int>(blockIdx.x % static_cast<unsigned>(args.tiles));
    const int64_t unit =
        static_cast<int64_t>(blockIdx.x / static_cast<unsigned>(args.tiles)) * kThreads +
        threadIdx.x;
    if (unit >= args.units)
        return;
    const int64_t j0 = unit * G;    // first element of the row
    const int64_t f = j0 / args.tp; // one channel for all G elements (tp % G == 0)
    const int64_t beam0 = args.beam_begin + static_cast<int64_t>(tile) * BT;
    const int64_t nb =
        min(static_cast<int64_t>(BT), args.beam_end - beam0); // 0 for incoherent only
    const bool incoherent = args.incoherent && tile == 0;
    const float2* w_f = args.w + f * args.sf;

    float2 acc[BT][G];
#pragma unroll
    for (int b = 0; b < BT; b++)
#pragma unroll
        for (int e = 0; e < G; e++)
            acc[b][e] = make_float2(0.0f, 0.0f);
    float power[G];
#pragma unroll
    for (int e = 0; e < G; e++)
        power[e] = 0.0f;

    // Loads of U antennas are issued before their arithmetic, to keep enough bytes in
    // flight (about 64 per thread) when there is little arithmetic per byte: few beams,
    // or ci8 (cf16) voltages, whose raw groups are 4 (2) times smaller than cf32 ones.
    constexpr int U = In == BLADE_CI8 ? 8 : In == BLADE_CF16 ? 4 : (BT <= 2 ? 4 : 2);
    for (int a0 = 0; a0 < args.antennas; a0 += U) {
        RawGroup<In, G> raw[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            raw[u] = a0 + u < args.antennas
                         ? load_group<In, G>(args.x, static_cast<int64_t>(a0 + u) * args.row + j0)
                         : zero_group<In, G>();
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int a = a0 + u;
            if (a >= args.antennas)
                break;
            float2 xv[G];
            convert_group<In, G>(raw[u], xv);
            const float2* w_a = w_f + static_cast<int64_t>(a) * args.sa;
#pragma unroll
            for (int b = 0; b < BT; b++) {
                if (b >= nb) // a partial tile: the same for the whole block
                    break;
                float2 w[2];
                load_phasor<WL>(w_a + (beam0 + b) * args.sb, w);
#pragma unroll
                for (int e = 0; e < G; e++)
                    acc[b][e] = cmac(acc[b][e], w[WL == PhasorLoad::Paired ? (e & 1) : 0], xv[e]);
            }
            if (incoherent) {
                float2 w0[2];
                load_phasor<WL>(w_a, w0); // beam 0 carries the calibration
                const float gain[2] = { power_of(w0[0]), power_of(w0[1]) };
#pragma unroll
                for (int e = 0; e < G; e++)
                    power[e] = fmaf(
                        gain[WL == PhasorLoad::Paired ? (e & 1) : 0], power_of(xv[e]), power[e]);
            }
        }
    }

#pragma unroll
    for (int b = 0; b < BT; b++) {
        if (b >= nb)
            break;
        const int64_t out = (beam0 + b) * args.row + j0;
#pragma unroll
        for (int e = 0; e < G; e += 2)
            store_two<Out>(args.y, out + e, acc[b][e], acc[b][e + 1]);
    }
    if (incoherent) {
        const int64_t out = args.incoherent_row * args.row + j0;
#pragma unroll
        for (int e = 0; e < G; e += 2)
            store_two<Out>(
                args.y,
                out + e,
                make_float2(args.incoherent_sqrt ? sqrtf(power[e]) : power[e], 0.0f),
                make_float2(args.incoherent_sqrt ? sqrtf(power[e + 1]) : power[e + 1], 0.0f));
    }
}

// The scalar kernel: one element per thread, its own channel and polarization.
template <blade_dtype In, blade_dtype Out, int BT>
__global__ void __launch_bounds__(kThreads) direct_scalar_kernel(const DirectArgs args)
{
    const int tile = static_cast<int>(blockIdx.x % static_cast<unsigned>(args.tiles));
    const int64_t j =
        static_cast<int64_t>(blockIdx.x / static_cast<unsigned>(args.tiles)) * kThreads +
        threadIdx.x;
    if (j >= args.units)
        return;
    const int64_t f = j / args.tp;
    const int64_t p = j % args.pols;
    const int64_t beam0 = args.beam_begin + static_cast<int64_t>(tile) * BT;
    const int64_t nb = min(static_cast<int64_t>(BT), args.beam_end - beam0);
    const bool incoherent = args.incoherent && tile == 0;
    const float2* w_fp = args.w + f * args.sf + p * args.sp;

    float2 acc[BT];
#pragma unroll
    for (int b = 0; b < BT; b++)
        acc[b] = make_float2(0.0f, 0.0f);
    float power = 0.0f;

    constexpr int U = 4;
    for (int a0 = 0; a0 < args.antennas; a0 += U) {
        float2 xv[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            xv[u] = a0 + u < args.antennas
                        ? load_one<In>(args.x, static_cast<int64_t>(a0 + u) * args.row + j)
                        : make_float2(0.0f, 0.0f);
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int a = a0 + u;
            if (a >= args.antennas)
                break;
            const float2* w_a = w_fp + static_cast<int64_t>(a) * args.sa;
#pragma unroll
            for (int b = 0; b < BT; b++) {
                if (b >= nb)
                    break;
                acc[b] = cmac(acc[b], __ldg(w_a + (beam0 + b) * args.sb), xv[u]);
            }
            if (incoherent)
                power = fmaf(power_of(__ldg(w_a)), power_of(xv[u]), power);
        }
    }
#pragma unroll
    for (int b = 0; b < BT; b++) {
        if (b >= nb)
            break;
        store_one<Out>(args.y, (beam0 + b) * args.row + j, acc[b]);
    }
    if (incoherent)
        store_one<Out>(args.y,
                       args.incoherent_row * args.row + j,
                       make_float2(args.incoherent_sqrt ? sqrtf(power) : power, 0.0f));
}

bool aligned(const void* pointer, uintptr_t bytes)
{
    return reinterpret_cast<uintptr_t>(pointer) % bytes == 0;
}

// Elements per thread for a beam tile: 4 up to 8 beams (64 accumulator registers at
// BT = 8), 2 for tiles of 16 (again 64). If (8, 20) turns out short of memory
// parallelism on a new GPU, 2 for BT = 8 as well trades phasor loads for occupancy.
constexpr int group_elements(int beam_tile) { return beam_tile == 16 ? 2 : 4; }

// Beam tile for `count` beams: the smallest of 1, 2, 4, 8 that holds them, else 16.
int beam_tile(int64_t count)
{
    return count <= 1 ? 1 : count <= 2 ? 2 : count <= 4 ? 4 : count <= 8 ? 8 : 16;
}

template <typename Kernel>
blade_status launch_grid(
    Kernel kernel, const DirectArgs& args, int64_t units, const char* name, cudaStream_t stream)
{
    const int64_t row_blocks = (units + kThreads - 1) / kThreads;
    const int64_t blocks = row_blocks * args.tiles;
    BLADE_TRY(blade_check_grid(blocks, "beamformer", "split the chunk along time or channels"));
    kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(args);
    BLADE_CUDA_CHECK_LAUNCH(name);
    return BLADE_OK;
}

template <blade_dtype In, blade_dtype Out, int BT>
blade_status launch_tile(DirectArgs args, bool vector, PhasorLoad load, cudaStream_t stream)
{
    constexpr int G = group_elements(BT);
    if (!vector) {
        args.units = args.row;
        return launch_grid(
            direct_scalar_kernel<In, Out, BT>, args, args.units, "direct_scalar_kernel", stream);
    }
    args.units = args.row / G;
    if (load == PhasorLoad::Paired)
        return launch_grid(direct_vector_kernel<In, Out, BT, G, PhasorLoad::Paired>,
                           args,
                           args.units,
                           "direct_vector_kernel",
                           stream);
    return launch_grid(direct_vector_kernel<In, Out, BT, G, PhasorLoad::Shared>,
                       args,
                       args.units,
                       "direct_vector_kernel",
                       stream);
}

template <blade_dtype In, blade_dtype Out>
blade_status
launch_typed(const DirectArgs& args, int tile, bool vector, PhasorLoad load, cudaStream_t stream)
{
    switch (tile) {
    case 1:
        return launch_tile<In, Out, 1>(args, vector, load, stream);
    case 2:
        return launch_tile<In, Out, 2>(args, vector, load, stream);
    case 4:
        return launch_tile<In, Out, 4>(args, vector, load, stream);
    case 8:
        return launch_tile<In, Out, 8>(args, vector, load, stream);
    default:
        return launch_tile<In, Out, 16>(args, vector, load, stream);
    }
}

} // namespace

blade_status launch_direct(const blade_beamformer_job& job,
                           int64_t beam_begin,
                           int64_t count,
                           bool incoherent,
                           cudaStream_t stream)
{
    // More than one tile of 16: full tiles in one grid, the rest in a second one with
    // the smallest tile that holds it (no arithmetic on absent beams).
    if (count > 16 && count % 16 != 0) {
        const int64_t full = count / 16 * 16;
        BLADE_TRY(launch_direct(job, beam_begin, full, incoherent, stream));
        return launch_direct(job, beam_begin + full, count - full, false, stream);
    }
    const int tile = beam_tile(count);
    DirectArgs args{};
    args.x = job.input;
    args.w = reinterpret_cast<const float2*>(job.phasors);
    args.y = job.output;
    args.tp = job.times * job.pols;
    args.row = job.channels * args.tp;
    args.sb = job.stride_beam;
    args.sa = job.stride_antenna;
    args.sf = job.stride_channel;
    args.sp = job.stride_pol;
    args.beam_begin = beam_begin;
    args.beam_end = beam_begin + count;
    args.incoherent_row = job.beams;
    args.antennas = static_cast<int>(job.antennas);
    args.pols = static_cast<int>(job.pols);
    args.tiles = static_cast<int>(std::max<int64_t>(1, (count + tile - 1) / tile));
    args.incoherent = incoherent;
    args.incoherent_sqrt = job.incoherent_sqrt;

    // The vector kernel needs whole groups within a channel and aligned pointers.
    const int G = group_elements(tile);
    const uintptr_t x_align = job.input_type == BLADE_CF32   ? 16
                              : job.input_type == BLADE_CF16 ? 4 * G
                                                             : 2 * G;
    const uintptr_t y_align = job.output_type == BLADE_CF32 ? 16 : 8;
    PhasorLoad load = PhasorLoad::Shared;
    bool phasors_fit = true;
    if (job.pols == 2 && job.stride_pol != 0) {
        load = PhasorLoad::Paired;
        phasors_fit = job.stride_pol == 1 && job.stride_beam % 2 == 0 &&
                      job.stride_antenna % 2 == 0 && job.stride_channel % 2 == 0 &&
                      aligned(job.phasors, 16);
    }
    const bool vector = args.tp % G == 0 && aligned(job.input, x_align) &&
                        aligned(job.output, y_align) && phasors_fit;

    if (job.input_type == BLADE_CF32 && job.output_type == BLADE_CF32)
        return launch_typed<BLADE_CF32, BLADE_CF32>(args, tile, vector, load, stream);
    if (job.input_type == BLADE_CF32 && job.output_type == BLADE_CF16)
        return launch_typed<BLADE_CF32, BLADE_CF16>(args, tile, vector, load, stream);
    if (job.input_type == BLADE_CF16 && job.output_type == BLADE_CF32)
        return launch_typed<BLADE_CF16, BLADE_CF32>(args, tile, vector, load, stream);
    if (job.input_type == BLADE_CF16 && job.output_type == BLADE_CF16)
        return launch_typed<BLADE_CF16, BLADE_CF16>(args, tile, vector, load, stream);
    if (job.input_type == BLADE_CI8 && job.output_type == BLADE_CF32)
        return launch_typed<BLADE_CI8, BLADE_CF32>(args, tile, vector, load, stream);
    if (job.input_type == BLADE_CI8 && job.output_type == BLADE_CF16)
        return launch_typed<BLADE_CI8, BLADE_CF16>(args, tile, vector, load, stream);
    return blade_fail(BLADE_ERROR_UNSUPPORTED,
                      "beamformer: no CUDA kernel for %s -> %s",
                      blade_dtype_name(job.input_type),
                      blade_dtype_name(job.output_type));
}

} // namespace beamformer_cuda
