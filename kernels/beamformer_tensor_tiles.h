/* SPDX-License-Identifier: MIT */
/*
 * What the two tensor-core beamformer kernels share (beamformer_tensor.cu: TF32
 * operands; beamformer_fp16.cu: half operands): the block shape (64 beams x 128
 * (time, pol) columns, 8 warps), the blocks' work (channel, time segment, beam group;
 * beam group fastest), the copy of an antenna chunk's voltages into a pipeline stage,
 * the stores of a finished time tile, the phasor packing kernel, and on the host the
 * arguments and checks of a launch. What differs stays in each file: the operand
 * type and fragment layout, the stages and antennas per stage, where the phasors live.
 *
 * The templates take the kernel's argument struct (TensorArgs, Fp16Args), whose
 * common fields have the same names. All of it has internal linkage (an unnamed
 * namespace), as when each file had its own copy. Not installed.
 */
#ifndef BLADE_KERNELS_BEAMFORMER_TENSOR_TILES_H
#define BLADE_KERNELS_BEAMFORMER_TENSOR_TILES_H

#include "beamformer_kernels.h"
#include "cp_async.h"
#include "cuda_check.h"

#include <type_traits>
#include <algorithm>
#include <utility>

namespace beamformer_cuda {
namespace {

constexpr int kBeams = 64;    // beams per block (a beam group)
constexpr int kColumns = 128; // (time, pol) columns per time tile
constexpr int kThreads = 256; // 8 warps: 4 along beams, 2 along columns
constexpr int kPad = 32;      // bytes added to every shared-memory row

template <blade_dtype In>
constexpr int element_bytes()
{
    return In == BLADE_CF32 ? 8 : In == BLADE_CF16 ? 4 : 2;
}

// This block's (beam group, channel) and its time tiles [first_tile, last_tile).
struct BlockWork {
    int group;
    int64_t channel;
    int64_t first_tile, last_tile;
};

template <class Args>
__device__ __forceinline__ BlockWork block_work(const Args& args)
{
    BlockWork work;
    int64_t id = blockIdx.x;
    work.group = static_cast<int>(id % args.groups);
    id /= args.groups;
    const int64_t segment = id % args.segments;
    work.channel = id / args.segments;
    work.first_tile = segment * args.segment;
    work.last_tile = std::min(args.tiles, work.first_tile + args.segment);
    return work;
}

template <int Octets, int P>
__device__ __forceinline__ void clear_accumulators(float (&acc)[2][Octets][P][4])
{
#pragma unroll
    for (int m = 0; m < 2; m++)
#pragma unroll
        for (int o = 0; o < Octets; o++)
#pragma unroll
            for (int p = 0; p < P; p++)
#pragma unroll
                for (int r = 0; r < 4; r++)
                    acc[m][o][p][r] = 0.0f;
}

#ifdef BLADE_CP_ASYNC

// Issue the copies of pipeline step (time tile, antenna chunk) into `stage`: L::antennas
// rows (of L::x_row bytes) of kColumns voltages, contiguous in memory, zero past the
// antennas and the times (cp.async where rows are 16-byte aligned, else plain loads);
// then, with Phasors, the chunk's packed phasors (L::antennas rows of kBeams x P) at
// L::x_stage. One function, as each kernel's own was: split in two, nvcc optimizes the
// voltage loops apart and the kernels' machine code changes.
template <blade_dtype In, int P, class L, bool Phasors, class Args>
__device__ __forceinline__ void
load_stage(const Args& args, char* stage, int64_t channel, int group, int64_t tile, int chunk)
{
    constexpr int esize = element_bytes<In>();
    const int64_t t0 = tile * L::times;
    const int64_t valid_columns = std::min<int64_t>(kColumns, (args.times - t0) * P);
    const char* x = static_cast<const char*>(args.x);

    // Voltages: L::antennas rows of kColumns elements, contiguous in memory.
    if (args.async_voltages) {
        constexpr int per_row = kColumns * esize / 16;
        for (int c = threadIdx.x; c < L::antennas * per_row; c += kThreads) {
            const int r = c / per_row, k = c % per_row;
            const int a = chunk * L::antennas + r;
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
        for (int e = threadIdx.x; e < L::antennas * kColumns; e += kThreads) {
            const int r = e / kColumns, k = e % kColumns;
            const int a = chunk * L::antennas + r;
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

    if constexpr (Phasors) {
        // Phasors: L::antennas rows of kBeams x P (float2 or half2), packed and zero-padded.
        constexpr int phasor_bytes = sizeof(*std::declval<Args>().w_packed);
        constexpr int per_row = kBeams * P * phasor_bytes / 16;
        const char* w = reinterpret_cast<const char*>(
            args.w_packed + channel * args.packed_channel_stride +
            (static_cast<int64_t>(group) * args.chunks + chunk) * L::antennas * kBeams * P);
        char* w_stage = stage + L::x_stage;
        for (int c = threadIdx.x; c < L::antennas * per_row; c += kThreads) {
            const int r = c / per_row, k = c % per_row;
            cp_async16(w_stage + r * L::w_row + k * 16, w + (r * per_row + k) * 16, true);
        }
    }
}

#endif // BLADE_CP_ASYNC

// A finished time tile from t0: this warp's beams (group, warp_beam + m * 8 + g) at
// times warp_time + o * 8 + 2t and + 1 (accumulators {Re, Re, Im, Im}), written where
// they lie in y [B, F, T, P]; then the accumulators are cleared. store_pair(i, a, b)
// writes elements i, i + 1 (i even).
template <blade_dtype Out, int P, int Octets, class Args, class StorePair>
__device__ __forceinline__ void store_tile(const Args& args,
                                           float (&acc)[2][Octets][P][4],
                                           int group,
                                           int64_t channel,
                                           int64_t t0,
                                           int warp_beam,
                                           int warp_time,
                                           int g,
                                           int t,
                                           StorePair store_pair)
{
#pragma unroll
    for (int m = 0; m < 2; m++) {
        const int64_t beam = static_cast<int64_t>(group) * kBeams + warp_beam + m * 8 + g;
#pragma unroll
        for (int o = 0; o < Octets; o++) {
            const int64_t time = t0 + warp_time + o * 8 + 2 * t;
            if (beam < args.beams && time < args.times) {
                const int64_t base = ((beam * args.channels + channel) * args.times + time) * P;
                const bool both = time + 1 < args.times;
                if constexpr (P == 2) {
                    // (time, p0) (time, p1) (time+1, p0) (time+1, p1): 4 adjacent elements
                    store_pair(base,
                               make_float2(acc[m][o][0][0], acc[m][o][0][2]),
                               make_float2(acc[m][o][1][0], acc[m][o][1][2]));
                    if (both)
                        store_pair(base + 2,
                                   make_float2(acc[m][o][0][1], acc[m][o][0][3]),
                                   make_float2(acc[m][o][1][1], acc[m][o][1][3]));
                } else {
                    const float2 first = make_float2(acc[m][o][0][0], acc[m][o][0][2]);
                    const float2 second = make_float2(acc[m][o][0][1], acc[m][o][0][3]);
                    if (both && base % 2 == 0) {
                        store_pair(base, first, second);
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

// A packed phasor as float2 (TF32 kernel) or as half2 rounded to nearest even (fp16).
__device__ __forceinline__ void pack_as(float2 value, float2& packed) { packed = value; }
__device__ __forceinline__ void pack_as(float2 value, __half2& packed)
{
    packed = __floats2half2_rn(value.x, value.y);
}

// Phasors [B, A, F, 1, P] (or [B, A]) -> [Fw][groups][A_pad][kBeams][P], zero-padded,
// so that the phasors of a block (or of a pipeline stage) are one contiguous block.
template <class Packed>
__global__ void pack_phasors_kernel(const float2* __restrict__ w,
                                    Packed* __restrict__ packed,
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
        const float2 value = beam < beams && antenna < antennas
                                 ? __ldg(w + beam * sb + antenna * sa + channel * sf + p * sp)
                                 : make_float2(0.0f, 0.0f);
        pack_as(value, packed[i]);
    }
}

// ---------------------------------------------------------------------------------
// Host side

inline int64_t beam_groups(const blade_beamformer_job& job)
{
    return (job.beams + kBeams - 1) / kBeams;
}

// Phasors [B, A, F, 1, P] are packed per channel; [B, A] (no channel stride) once.
inline int64_t phasor_channels(const blade_beamformer_job& job)
{
    return job.stride_channel != 0 ? job.channels : 1;
}

// The launch's arguments common to both kernels: tensors, sizes, antenna chunks of
// `stage_antennas`, and the blocks (channel, time segment, beam group), about 16 per
// SM in all, each at least one time tile and at most a channel.
// The tensors and sizes of a launch (also the Hopper fp16 kernel's), phasors packed
// for `antennas_padded` antennas in beam groups of kBeams.
template <class Args, class Packed>
void fill_tensors(Args& args,
                  const blade_beamformer_job& job,
                  const Packed* packed,
                  int64_t groups,
                  int64_t antennas_padded)
{
    args.x = job.input;
    args.w_packed = packed;
    args.y = job.output;
    args.channels = job.channels;
    args.times = job.times;
    args.beams = job.beams;
    args.packed_channel_stride =
        job.stride_channel != 0 ? groups * antennas_padded * kBeams * job.pols : 0;
    args.antennas = static_cast<int>(job.antennas);
    args.groups = static_cast<int>(groups);
}

template <class Args, class Packed>
void fill_args(Args& args,
               const blade_beamformer_job& job,
               const Packed* packed,
               int64_t groups,
               int64_t antennas_padded,
               int64_t stage_antennas)
{
    fill_tensors(args, job, packed, groups, antennas_padded);
    args.chunks = static_cast<int>(antennas_padded / stage_antennas);
    const int64_t tile_times = kColumns / job.pols;
    args.tiles = (job.times + tile_times - 1) / tile_times;
    const int64_t target_blocks = 16 * static_cast<int64_t>(blade_cuda_multiprocessors());
    const int64_t all_tiles = job.channels * groups * args.tiles;
    args.segment = std::min<int64_t>(args.tiles, std::max<int64_t>(1, all_tiles / target_blocks));
    args.segments = (args.tiles + args.segment - 1) / args.segment;
    const int64_t element_bytes = job.input_type == BLADE_CF32   ? 8
                                  : job.input_type == BLADE_CF16 ? 4
                                                                 : 2;
    args.async_voltages = (job.times * job.pols * element_bytes) % 16 == 0 &&
                          reinterpret_cast<uintptr_t>(job.input) % 16 == 0;
}

// Queue the packing of the job's phasors into `packed` (total elements).
template <class Packed>
blade_status pack_phasors(const blade_beamformer_job& job,
                          Packed* packed,
                          int64_t total,
                          int64_t antennas_padded,
                          int64_t groups,
                          const char* kernel_name,
                          cudaStream_t stream)
{
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
    BLADE_CUDA_CHECK_LAUNCH(kernel_name);
    return BLADE_OK;
}


// launch(In, Out) for the job's input and output types, as std::integral_constant
// arguments; `path` names the kernel in the error for other types.
template <class Launch>
blade_status for_types(const blade_beamformer_job& job, const char* path, Launch launch)
{
    using cf32 = std::integral_constant<blade_dtype, BLADE_CF32>;
    using cf16 = std::integral_constant<blade_dtype, BLADE_CF16>;
    using ci8 = std::integral_constant<blade_dtype, BLADE_CI8>;
    if (job.input_type == BLADE_CF32 && job.output_type == BLADE_CF32)
        return launch(cf32{}, cf32{});
    if (job.input_type == BLADE_CF32 && job.output_type == BLADE_CF16)
        return launch(cf32{}, cf16{});
    if (job.input_type == BLADE_CF16 && job.output_type == BLADE_CF32)
        return launch(cf16{}, cf32{});
    if (job.input_type == BLADE_CF16 && job.output_type == BLADE_CF16)
        return launch(cf16{}, cf16{});
    if (job.input_type == BLADE_CI8 && job.output_type == BLADE_CF32)
        return launch(ci8{}, cf32{});
    if (job.input_type == BLADE_CI8 && job.output_type == BLADE_CF16)
        return launch(ci8{}, cf16{});
    return blade_fail(BLADE_ERROR_UNSUPPORTED,
                      "beamformer: no %s kernel for %s -> %s",
                      path,
                      blade_dtype_name(job.input_type),
                      blade_dtype_name(job.output_type));
}

} // namespace
} // namespace beamformer_cuda

#endif
