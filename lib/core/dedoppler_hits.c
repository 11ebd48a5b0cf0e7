/* SPDX-License-Identifier: MIT */
/*
 * The dedoppler's top-hit selection (turbo_seti's rule, see dedoppler.h): a start
 * channel whose best path is above the SNR threshold and not beaten within the
 * window [f − N, f + N) of its beam. Only channels above the threshold look at
 * their window, so the cost is one pass over the channels plus N per candidate.
 */
#include "dedoppler_backend.h"

#include <math.h>

/* SNR of a start channel's best path; NaN where no path is valid or the coarse
 * channel has no spread. One function, so that a hit and its neighbours compare
 * values computed alike. */
static float
snr_of(const float* best_sum, const float* centres, const float* spreads, int64_t f, int64_t coarse)
{
    const double spread = spreads[coarse];
    if (!(spread > 0) || !isfinite(spread) || !isfinite(best_sum[f]))
        return NAN;
    return (float)(((double)best_sum[f] - centres[coarse]) / spread);
}

void blade_dedoppler_select_hits(const float* best_sum,
                                 const int32_t* best_k,
                                 const float* centres,
                                 const float* spreads,
                                 int64_t beams,
                                 int64_t channels,
                                 int64_t nfpc,
                                 int64_t window,
                                 double snr_threshold,
                                 double drift_step,
                                 blade_dedoppler_hit* hits,
                                 int64_t capacity,
                                 int64_t* count,
                                 int64_t* dropped)
{
    const int64_t coarse = channels / nfpc;
    int64_t found = 0;
    for (int64_t beam = 0; beam < beams; beam++) {
        const float* sums = best_sum + beam * channels;
        const float* beam_centres = centres + beam * coarse;
        const float* beam_spreads = spreads + beam * coarse;
        for (int64_t f = 0; f < channels; f++) {
            /* A cheap comparison of sums first (the scan covers every channel: 2^26
             * per GBT node), with a margin far wider than the rounding of the SNR;
             * the exact SNR decides. */
            const int64_t coarse_channel = f / nfpc;
            const double spread = beam_spreads[coarse_channel];
            const double bound = beam_centres[coarse_channel] + snr_threshold * spread;
            if (!(sums[f] > bound - 1e-5 * (fabs(bound) + spread)))
                continue;
            const float snr = snr_of(sums, beam_centres, beam_spreads, f, coarse_channel);
            if (!(snr > snr_threshold))
                continue;
            const int64_t low = f - window > 0 ? f - window : 0;
            const int64_t high = f + window < channels ? f + window : channels;
            bool beaten = false;
            for (int64_t g = low; g < high && !beaten; g++)
                beaten = snr_of(sums, beam_centres, beam_spreads, g, g / nfpc) > snr;
            if (beaten)
                continue;
            if (found < capacity) {
                const int32_t k = best_k[beam * channels + f];
                blade_dedoppler_hit* hit = &hits[found];
                hit->channel = f;
                hit->channel_in_coarse = f % nfpc;
                hit->coarse_channel = f / nfpc;
                hit->beam = beam;
                hit->drift_index = k;
                hit->drift_rate_hz_per_s = (double)k * drift_step;
                hit->snr = snr;
                hit->path_sum = sums[f];
            }
            found++;
        }
    }
    *count = found < capacity ? found : capacity;
    if (dropped)
        *dropped = found - *count;
}
