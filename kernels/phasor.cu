// SPDX-License-Identifier: MIT
//
// Phasor expansion on the device (lib/core/phasor_synthesis.h): the host takes the
// sines and cosines, one anchor per PHASOR_ANCHOR channels and one step per (beam,
// antenna) pair, and uploads them with the calibration (kilobytes); here one thread
// per (pair, anchor) rotates its way across PHASOR_ANCHOR channels and writes their
// cf32 phasors. The same doubles are multiplied in the same order as on the host
// (no FMA: the header's arithmetic uses __dmul_rn, __dadd_rn, __dsub_rn), so the
// phasors equal the CPU plan's bit for bit, and a chunk's phasors (700 MB for Mode B
// ×1024 at the ATA node) are written at device bandwidth instead of crossing PCIe.

#include "cuda_backend.h"
#include "cuda_check.h"
#include "phasor_synthesis.h"

#include <cstdint>

namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) expand_kernel(const phasor_complex* __restrict__ seeds,
                                                          int64_t pairs,
                                                          int64_t antennas,
                                                          int64_t coarse,
                                                          int64_t rate,
                                                          int64_t fine,
                                                          int64_t pols,
                                                          float* phasors)
{
    const int64_t count = (fine + PHASOR_ANCHOR - 1) / PHASOR_ANCHOR;
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
    const int64_t items = pairs * ((fine + PHASOR_ANCHOR - 1) / PHASOR_ANCHOR);
    if (items == 0)
        return BLADE_OK;
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
