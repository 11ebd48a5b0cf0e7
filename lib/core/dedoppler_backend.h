/* SPDX-License-Identifier: MIT */
/*
 * The pieces of Dedoppler: the two backends (dedoppler_cpu.c, kernels/dedoppler.cu),
 * and the host-side steps both share (dedoppler_statistics.c, dedoppler_hits.c).
 * Not installed.
 *
 * A search runs: moments (zero-drift sums, and S1, S2 for spectral kurtosis) ->
 * statistics and flags on the host -> preparation of a working copy (flagged
 * channels, DC blanking) when asked -> integration (Taylor tree or brute force),
 * keeping per start channel the best path (sum and k) or writing every path sum ->
 * hit selection (on the host for the CPU, on the device for CUDA: only the hits come
 * back).
 */
#ifndef BLADE_CORE_DEDOPPLER_BACKEND_H
#define BLADE_CORE_DEDOPPLER_BACKEND_H

#include "dedoppler_tree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <blade/modules/dedoppler.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tile width (start channels per tile) of the CPU tree: wide enough that the T' − 1
 * halo columns cost little, small enough that two tile buffers stay in cache. */
int64_t blade_dedoppler_cpu_tile_width(int64_t padded);

/* --- host steps shared by both backends ------------------------------------- */

/* Centre and spread of every [beam][coarse channel] from the zero-drift sums z
 * [B][F], leaving out flagged channels (flags may be NULL). Spread 0 when fewer than
 * one unflagged channel remains or all are equal. Uses OpenMP over coarse channels. */
blade_status blade_dedoppler_statistics(const float* zero_drift,
                                        const uint8_t* flags,
                                        int64_t beams,
                                        int64_t channels,
                                        int64_t nfpc,
                                        blade_dedoppler_normalization normalization,
                                        float* centres,
                                        float* spreads);

/* Spectral-kurtosis flags [B][F] from S1, S2 over `spectra` spectra (see dedoppler.h). */
void blade_dedoppler_kurtosis_flags(const double* s1,
                                    const double* s2,
                                    int64_t count,
                                    int64_t spectra,
                                    double shape,
                                    double sigmas,
                                    uint8_t* flags);

/* Hits from the best path of every start channel ([B][F] sums and drift indices):
 * threshold, window of ±`window` channels, capacity. */
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
                                 int64_t* dropped);

/* --- CPU backend --------------------------------------------------------------- */

/* Zero-drift sums z[b][f] = Σ_t s (double, rounded to float); with s1, s2 (both or
 * neither) also Σ_t s and Σ_t s² in double. */
void blade_cpu_dedoppler_moments(const float* input,
                                 int64_t beams,
                                 int64_t spectra,
                                 int64_t channels,
                                 float* zero_drift,
                                 double* s1,
                                 double* s2);

/* Working copy: flagged channels (flags may be NULL) set to centre/T in every
 * spectrum, then (blank_dc) channel nfpc/2 of every coarse channel set to the mean of
 * its neighbours. */
void blade_cpu_dedoppler_prepare(const float* input,
                                 float* work,
                                 int64_t beams,
                                 int64_t spectra,
                                 int64_t channels,
                                 int64_t nfpc,
                                 const uint8_t* flags,
                                 const float* centres,
                                 bool blank_dc);

/* Taylor tree over every searched drift: best sum and k per start channel into
 * best_sum, best_k ([B][F]; −inf and INT32_MAX where no path is valid), or, with
 * `plane`, every path sum into plane [B][D][F] (NaN for invalid paths). */
blade_status blade_cpu_dedoppler_taylor(
    const float* input, const dedoppler_grid* grid, float* best_sum, int32_t* best_k, float* plane);

/* The same by brute force (exact nearest-channel paths, double sums). */
blade_status blade_cpu_dedoppler_brute_force(
    const float* input, const dedoppler_grid* grid, float* best_sum, int32_t* best_k, float* plane);

#ifdef BLADE_HAVE_CUDA
/* --- CUDA backend: the same steps on device memory, queued on `stream` ------- */

blade_status blade_cuda_dedoppler_moments(const float* input,
                                          int64_t beams,
                                          int64_t spectra,
                                          int64_t channels,
                                          float* zero_drift,
                                          double* s1,
                                          double* s2,
                                          void* stream);

blade_status blade_cuda_dedoppler_prepare(const float* input,
                                          float* work,
                                          int64_t beams,
                                          int64_t spectra,
                                          int64_t channels,
                                          int64_t nfpc,
                                          const uint8_t* flags,
                                          const float* centres,
                                          bool blank_dc,
                                          void* stream);

blade_status blade_cuda_dedoppler_taylor(const float* input,
                                         const dedoppler_grid* grid,
                                         float* best_sum,
                                         int32_t* best_k,
                                         float* plane,
                                         float* scratch,
                                         void* stream);

/* Bytes of device scratch the CUDA tree needs for this grid (0 when its tiles fit
 * in shared memory). */
size_t blade_cuda_dedoppler_scratch_bytes(const dedoppler_grid* grid);

blade_status blade_cuda_dedoppler_brute_force(const float* input,
                                              const dedoppler_grid* grid,
                                              float* best_sum,
                                              int32_t* best_k,
                                              float* plane,
                                              void* stream);

/* Hit selection on the device, the rule of dedoppler_hit_rule.h: the first `capacity`
 * hits in beam and channel order into `hits` (device memory), the number found
 * before the capacity into *total (device). `flags` (B·F bytes) and `counts`
 * (blade_cuda_dedoppler_select_spans(B·F) values) are scratch. */
blade_status blade_cuda_dedoppler_select_hits(const float* best_sum,
                                              const int32_t* best_k,
                                              const float* centres,
                                              const float* spreads,
                                              int64_t beams,
                                              int64_t channels,
                                              int64_t nfpc,
                                              int64_t window,
                                              double threshold,
                                              double drift_step,
                                              blade_dedoppler_hit* hits,
                                              int64_t capacity,
                                              uint8_t* flags,
                                              int64_t* counts,
                                              int64_t* total,
                                              void* stream);

/* Centres and spreads of the MAD normalisation on the device (no flags): the median
 * of each of `segments` consecutive runs of nfpc zero-drift sums and 1.4826 × the
 * median of their absolute deviations, by radix selection: the host's values bit for
 * bit (kernels/dedoppler_statistics.cu). `scratch`: the bytes below. */
blade_status blade_cuda_dedoppler_mad(const float* zero_drift,
                                      int64_t segments,
                                      int64_t nfpc,
                                      float* centres,
                                      float* spreads,
                                      void* scratch,
                                      void* stream);

size_t blade_cuda_dedoppler_mad_scratch_bytes(int64_t segments);

/* Spans of channels the selection counts apart: the length of its `counts`. */
size_t blade_cuda_dedoppler_select_spans(int64_t count);
#endif

#ifdef __cplusplus
}
#endif

#endif
