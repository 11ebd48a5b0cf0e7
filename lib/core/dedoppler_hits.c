/* SPDX-License-Identifier: MIT */
/*
 * The dedoppler's top-hit selection (turbo_seti's rule, see dedoppler.h): a start
 * channel whose best path is above the SNR threshold and not beaten within the
 * window [f − N, f + N) of its beam (the rule is dedoppler_hit_rule.h, which the
 * CUDA selection shares). Only channels above the threshold look at their window, so
 * the cost is one pass over the channels plus N per candidate.
 */
#include "dedoppler_backend.h"
#include "dedoppler_hit_rule.h"

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
            float snr;
            if (!dedoppler_is_hit(sums,
                                  beam_centres,
                                  beam_spreads,
                                  channels,
                                  nfpc,
                                  window,
                                  snr_threshold,
                                  f,
                                  &snr))
                continue;
            if (found < capacity)
                dedoppler_fill_hit(&hits[found],
                                   beam,
                                   f,
                                   nfpc,
                                   best_k[beam * channels + f],
                                   drift_step,
                                   snr,
                                   sums[f]);
            found++;
        }
    }
    *count = found < capacity ? found : capacity;
    if (dropped)
        *dropped = found - *count;
}
