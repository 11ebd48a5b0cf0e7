/* SPDX-License-Identifier: MIT */
/*
 * The dedoppler's top-hit rule (turbo_seti's, see dedoppler.h), shared word for word
 * by the host selection (dedoppler_hits.c) and the CUDA selection kernels
 * (kernels/dedoppler.cu), so that both backends decide every channel alike: a start
 * channel is a hit when its best path's SNR exceeds the threshold and no channel of
 * the same beam in [f − N, f + N) has a strictly larger SNR. The double arithmetic
 * goes through DEDOPPLER_DADD/DMUL so that nvcc cannot contract it into FMAs the
 * host does not make. Not installed.
 */
#ifndef BLADE_CORE_DEDOPPLER_HIT_RULE_H
#define BLADE_CORE_DEDOPPLER_HIT_RULE_H

#include "dedoppler_tree.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <blade/modules/dedoppler.h>

#if defined(__CUDA_ARCH__)
#define DEDOPPLER_DADD(a, b) __dadd_rn((a), (b))
#define DEDOPPLER_DMUL(a, b) __dmul_rn((a), (b))
#else
#define DEDOPPLER_DADD(a, b) ((a) + (b))
#define DEDOPPLER_DMUL(a, b) ((a) * (b))
#endif

/* SNR of a path sum in a coarse channel of centre and spread; NaN where the path is
 * not valid (sum −inf) or the coarse channel has no spread. One function, so that a
 * hit and its neighbours compare values computed alike. */
DEDOPPLER_SHARED float dedoppler_snr(float sum, float centre, float spread)
{
    const double s = spread;
    if (!(s > 0) || !isfinite(s) || !isfinite(sum))
        return NAN;
    return (float)(((double)sum - (double)centre) / s);
}

/* Whether start channel f of one beam (sums, centres and spreads are that beam's) is
 * a hit; its SNR in *snr when it is. */
DEDOPPLER_SHARED bool dedoppler_is_hit(const float* sums,
                                       const float* centres,
                                       const float* spreads,
                                       int64_t channels,
                                       int64_t nfpc,
                                       int64_t window,
                                       double threshold,
                                       int64_t f,
                                       float* snr)
{
    /* A cheap comparison of sums first (every channel is looked at: 2^26 per GBT
     * node), with a margin far wider than the rounding of the SNR; the exact SNR
     * decides. */
    const int64_t coarse = f / nfpc;
    const double spread = spreads[coarse];
    const double bound = DEDOPPLER_DADD((double)centres[coarse], DEDOPPLER_DMUL(threshold, spread));
    const double margin = DEDOPPLER_DMUL(1e-5, DEDOPPLER_DADD(fabs(bound), spread));
    if (!((double)sums[f] > DEDOPPLER_DADD(bound, -margin)))
        return false;
    const float own = dedoppler_snr(sums[f], centres[coarse], spreads[coarse]);
    if (!(own > threshold))
        return false;
    const int64_t low = f - window > 0 ? f - window : 0;
    const int64_t high = f + window < channels ? f + window : channels;
    for (int64_t g = low; g < high; g++)
        if (dedoppler_snr(sums[g], centres[g / nfpc], spreads[g / nfpc]) > own)
            return false;
    *snr = own;
    return true;
}

/* The hit of start channel f of a beam. */
DEDOPPLER_SHARED void dedoppler_fill_hit(blade_dedoppler_hit* hit,
                                         int64_t beam,
                                         int64_t f,
                                         int64_t nfpc,
                                         int32_t k,
                                         double drift_step,
                                         float snr,
                                         float sum)
{
    hit->channel = f;
    hit->channel_in_coarse = f % nfpc;
    hit->coarse_channel = f / nfpc;
    hit->beam = beam;
    hit->drift_index = k;
    hit->drift_rate_hz_per_s = DEDOPPLER_DMUL((double)k, drift_step);
    hit->snr = snr;
    hit->path_sum = sum;
}

#endif
