/* SPDX-License-Identifier: MIT */
/*
 * The expansion of phasors across channels, shared word for word by the host
 * (phasor.c) and the CUDA kernel (kernels/phasor.cu): from a phase at every
 * PHASOR_ANCHOR-th channel, the channels between are reached by repeated rotation by
 * one channel's step, and each phase is multiplied by its antenna's calibration for
 * the coarse channel. The sines and cosines (the anchors and the steps) are taken on
 * the host only, so both backends multiply the same doubles in the same order: their
 * phasors are identical bit for bit. The double arithmetic goes through
 * PHASOR_DMUL/DADD/DSUB so that nvcc cannot contract it into FMAs the host does not
 * make. Not installed.
 */
#ifndef BLADE_CORE_PHASOR_SYNTHESIS_H
#define BLADE_CORE_PHASOR_SYNTHESIS_H

#include <stdint.h>

#if defined(__CUDACC__)
#define PHASOR_SHARED __host__ __device__ static inline
#else
#define PHASOR_SHARED static inline
#endif

#if defined(__CUDA_ARCH__)
#define PHASOR_DMUL(a, b) __dmul_rn((a), (b))
#define PHASOR_DADD(a, b) __dadd_rn((a), (b))
#define PHASOR_DSUB(a, b) __dsub_rn((a), (b))
#else
#define PHASOR_DMUL(a, b) ((a) * (b))
#define PHASOR_DADD(a, b) ((a) + (b))
#define PHASOR_DSUB(a, b) ((a) - (b))
#endif

/* Phases of consecutive channels differ by a constant rotation; it is applied this
 * many times between anchors (and anchors follow one another by rotation between
 * exact evaluations, phasor.c). The rounding drift stays far below float precision
 * (~(PHASOR_ANCHOR + 16) · 1e-16 rad) and the host takes one sincos per 16
 * PHASOR_ANCHOR channels: 3 000 per chunk for 8 beams × 28 antennas × 196 608 fine
 * channels (Mode B ×1024 at the ATA node). */
#define PHASOR_ANCHOR 1024

typedef struct phasor_complex {
    double re, im;
} phasor_complex;

/* x · y, as C's complex multiplication computes it for finite values. */
PHASOR_SHARED phasor_complex phasor_multiply(phasor_complex x, phasor_complex y)
{
    phasor_complex z;
    z.re = PHASOR_DSUB(PHASOR_DMUL(x.re, y.re), PHASOR_DMUL(x.im, y.im));
    z.im = PHASOR_DADD(PHASOR_DMUL(x.re, y.im), PHASOR_DMUL(x.im, y.re));
    return z;
}

/* Channels [first, end) of one (beam, antenna) row: `anchor` is the phase of channel
 * `first` (a multiple of PHASOR_ANCHOR), `step` one channel's rotation, `cal` the
 * antenna's calibration [coarse][P], `rate` fine channels per coarse channel; `row`
 * gets the cf32 phasors [F][P] of the row. */
/* Anchors (one per PHASOR_ANCHOR channels, the last may cover fewer) of `fine` channels. */
PHASOR_SHARED int64_t phasor_anchor_count(int64_t fine)
{
    return (fine + PHASOR_ANCHOR - 1) / PHASOR_ANCHOR;
}

/* One channel's phasors: its phase times the calibration of each polarization,
 * rounded to float, as (re, im) per polarization into out[2 * pols]. */
PHASOR_SHARED void
phasor_channel(phasor_complex phase, const phasor_complex* coarse, int64_t pols, float* out)
{
    for (int64_t p = 0; p < pols; p++) {
        const phasor_complex w = phasor_multiply(coarse[p], phase);
        out[2 * p] = (float)w.re;
        out[2 * p + 1] = (float)w.im;
    }
}

PHASOR_SHARED void phasor_expand(phasor_complex anchor,
                                 phasor_complex step,
                                 const phasor_complex* cal,
                                 int64_t rate,
                                 int64_t pols,
                                 int64_t first,
                                 int64_t end,
                                 float* row)
{
    phasor_complex phase = anchor;
    /* The coarse channel advances every `rate` channels: counted, not divided (a 64-bit
     * division per channel costs tens of instructions on the device). */
    int64_t coarse_channel = first / rate, within = first - coarse_channel * rate;
    for (int64_t f = first; f < end; f++) {
        if (f > first)
            phase = phasor_multiply(phase, step);
        phasor_channel(phase, cal + coarse_channel * pols, pols, row + 2 * f * pols);
        if (++within == rate) {
            within = 0;
            coarse_channel++;
        }
    }
}

#endif
