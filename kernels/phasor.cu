// SPDX-License-Identifier: MIT
//
// Phasor expansion on the device (lib/core/phasor_synthesis.h): the host takes the
// sines and cosines, one anchor per PHASOR_ANCHOR channels and one step per (beam,
// antenna) pair, and uploads them with the calibration (kilobytes); here one thread
// per (pair, anchor) rotates its way across PHASOR_ANCHOR channels and writes their
// cf32 phasors (for two polarizations through shared memory, so that a warp's stores
// are contiguous). The same doubles are multiplied in the same order as on the host
// (no FMA: the header's arithmetic uses __dmul_rn, __dadd_rn, __dsub_rn), so the
// phasors equal the CPU plan's bit for bit, and a chunk's phasors (700 MB for Mode B
// ×1024 at the ATA node) are written at device bandwidth instead of crossing PCIe.

#include "cuda_backend.h"
#include "cuda_check.h"
#include "phasor_synthesis.h"

#include <cstdint>

namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
// Channels a thread computes before its warp writes them out together.
constexpr int kGroup = 8;

// Any polarization count and alignment: each thread writes its own run of channels.
__global__ void __launch_bounds__(kThreads) expand_kernel(const phasor_complex* __restrict__ seeds,
                                                          int64_t pairs,
                                                          int64_t antennas,
                                                          int64_t coarse,
                                                          int64_t rate,
                                                          int64_t fine,
                                                          int64_t pols,
                                                          float* phasors)
{
    const int64_t count = phasor_anchor_count(fine);
    const phasor_complex* anchors = seeds;
    const phasor_complex* steps = seeds + pairs * count;
    const phasor_complex* cal = steps + pairs;
    const int64_t items = pairs * count;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t item = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; item < items;
         item += stride) {
        const int64_t pair = item / count, m = item - pair * count;
        const int64_t a = pair % antennas;
        const int64_t first = m * PHASOR_ANCHOR;
        const int64_t end = first + PHASOR_ANCHOR < fine ? first + PHASOR_ANCHOR : fine;
        phasor_expand(anchors[item],
                      steps[pair],
                      cal + a * coarse * pols,
                      rate,
                      pols,
                      first,
                      end,
                      phasors + 2 * pair * fine * pols);
    }
}

// Two polarizations, 16-byte aligned rows: phasor_expand's arithmetic, but
// the stores go through shared memory. A thread's run of PHASOR_ANCHOR channels is
// 16 KB from its neighbour's, so a warp's direct stores touch 32 sectors each (the
// H200 wrote 0.6 TB/s that way, 1.3 ms for Mode B x1024's 792 MB); here each thread
// computes kGroup channels into shared memory, then every 8 lanes write one thread's
// kGroup channels, 128 contiguous bytes.
__global__ void __launch_bounds__(kThreads)
    expand_pairs_kernel(const phasor_complex* __restrict__ seeds,
                        int64_t pairs,
                        int64_t antennas,
                        int64_t coarse,
                        int64_t rate,
                        int64_t fine,
                        float4* phasors)
{
    // [warp][channel of the group][lane], padded so that both the lanes' writes and
    // the eight-lane reads of one thread's channels fall in distinct banks.
    __shared__ float4 stage[kWarps][kGroup][33];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t count = phasor_anchor_count(fine);
    const phasor_complex* anchors = seeds;
    const phasor_complex* steps = seeds + pairs * count;
    const phasor_complex* cal = steps + pairs;
    const int64_t item = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;

    int length = 0;
    int64_t base = 0; // this thread's first channel, in float4 of the output
    phasor_complex phase{ 1.0, 0.0 }, step{ 1.0, 0.0 };
    const phasor_complex* cal_row = cal;
    int64_t coarse_channel = 0, within = 0;
    if (item < pairs * count) {
        const int64_t pair = item / count, m = item - pair * count;
        const int64_t first = m * PHASOR_ANCHOR;
        length =
            static_cast<int>((first + PHASOR_ANCHOR < fine ? first + PHASOR_ANCHOR : fine) - first);
        base = pair * fine + first;
        phase = anchors[item];
        step = steps[pair];
        cal_row = cal + (pair % antennas) * coarse * 2;
        coarse_channel = first / rate;
        within = first - coarse_channel * rate;
    }
    // Where lane `lane` writes in each of the kGroup rounds: thread 4 r + lane / 8's
    // run, channel lane % 8 of the group.
    int64_t write_base[kGroup];
    int write_length[kGroup];
#pragma unroll
    for (int r = 0; r < kGroup; r++) {
        const int source = r * 4 + lane / 8;
        write_base[r] = __shfl_sync(0xffffffffu, base, source);
        write_length[r] = __shfl_sync(0xffffffffu, length, source);
    }
    int longest = length; // the warp's longest run (shuffles: sm_75 has no __reduce_max_sync)
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        longest = max(longest, __shfl_xor_sync(0xffffffffu, longest, offset));
    for (int g = 0; g < longest; g += kGroup) {
#pragma unroll
        for (int j = 0; j < kGroup; j++) {
            const int c = g + j;
            if (c < length) {
                if (c > 0)
                    phase = phasor_multiply(phase, step);
                float values[4];
                phasor_channel(phase, cal_row + coarse_channel * 2, 2, values);
                stage[warp][j][lane] = make_float4(values[0], values[1], values[2], values[3]);
                if (++within == rate) {
                    within = 0;
                    coarse_channel++;
                }
            }
        }
        __syncwarp();
#pragma unroll
        for (int r = 0; r < kGroup; r++) {
            const int c = lane % 8;
            if (g + c < write_length[r])
                phasors[write_base[r] + g + c] = stage[warp][c][r * 4 + lane / 8];
        }
        __syncwarp();
    }
}

} // namespace

extern "C" blade_status blade_cuda_phasor_expand(const void* seeds,
                                                 int64_t beams,
                                                 int64_t antennas,
                                                 int64_t coarse,
                                                 int64_t rate,
                                                 int64_t fine,
                                                 int64_t pols,
                                                 void* phasors,
                                                 void* stream)
{
    const int64_t pairs = beams * antennas;
    const int64_t items = pairs * phasor_anchor_count(fine);
    if (items == 0)
        return BLADE_OK;
    if (pols == 2 && reinterpret_cast<uintptr_t>(phasors) % 16 == 0) {
        const int64_t blocks = (items + kThreads - 1) / kThreads;
        BLADE_TRY(blade_check_grid(blocks, "phasor", ""));
        expand_pairs_kernel<<<static_cast<unsigned>(blocks),
                              kThreads,
                              0,
                              static_cast<cudaStream_t>(stream)>>>(
            static_cast<const phasor_complex*>(seeds),
            pairs,
            antennas,
            coarse,
            rate,
            fine,
            static_cast<float4*>(phasors));
        BLADE_CUDA_CHECK_LAUNCH("phasor expand_pairs_kernel");
        return BLADE_OK;
    }
    expand_kernel<<<blade_grid_size(items, kThreads, 65535u * 8u),
                    kThreads,
                    0,
                    static_cast<cudaStream_t>(stream)>>>(static_cast<const phasor_complex*>(seeds),
                                                         pairs,
                                                         antennas,
                                                         coarse,
                                                         rate,
                                                         fine,
                                                         pols,
                                                         static_cast<float*>(phasors));
    BLADE_CUDA_CHECK_LAUNCH("phasor expand_kernel");
    return BLADE_OK;
}
