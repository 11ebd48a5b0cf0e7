/* SPDX-License-Identifier: MIT */
/**
 * @file modules/dedoppler.h
 * @brief Dedoppler: search a spectrogram for narrowband signals that drift linearly in
 *        frequency (the Breakthrough Listen hit search of turbo_seti and seticore).
 *
 * **Input.** A float32 spectrogram [T, F] (T spectra of F fine channels, spectrum t at
 * time t·tsamp, channel f at frequency fch1 + f·foff), or [B, T, F] for B beams or
 * antennas searched in one call, each independently. The F channels are C = F / nfpc
 * coarse channels of nfpc fine channels each (channel f is in coarse channel
 * f / nfpc, at index f mod nfpc within it).
 *
 * **The drift grid.** Let T' be T rounded up to a power of two (T' = T when T is one);
 * spectra T … T'−1 are taken as zeros (the spectrogram is *padded*, as turbo_seti and
 * seticore do, never refused). A drift index k (an integer) is the path that starts
 * at channel f in spectrum 0 and ends at channel f + k in spectrum T'−1: k channels
 * over a span of T'−1 spectrum intervals. Its drift rate is
 *
 *     rate(k) = k · foff / ((T' − 1) · tsamp)      [Hz/s; foff signed]
 *
 * so the drift step is |foff| / ((T' − 1)·tsamp). The span is T'−1, not T', because
 * a path touches T' spectra whose times are 0 … (T'−1)·tsamp: the frequency changes
 * over T'−1 intervals (turbo_seti's and seticore's resolution, so drift rates
 * compare one to one). Positive rates rise in frequency: with foff < 0, a path
 * towards higher channel indices (k > 0) has a negative rate. The plan searches
 * every k with min_drift ≤ |rate(k)| ≤ max_drift (bounds inclusive, with a relative
 * tolerance of 1e-9), both signs; k = 0 when min_drift is 0. With T = 1 there is
 * no span: only k = 0 exists, and min_drift must be 0.
 *
 * **Valid paths.** A path is searched only when it starts and ends inside the
 * spectrogram: 0 ≤ f < F and 0 ≤ f + k < F (paths are monotonic, so every channel
 * they touch is inside). Paths may cross coarse-channel boundaries: a tone drifting
 * from one coarse channel into the next is integrated whole. A path belongs to the
 * coarse channel of its start f.
 *
 * **Two integration methods** (blade_dedoppler_method):
 *
 * * *Brute force* (exact, O(T·F·D)): the sum of the nearest channel of each real
 *   spectrum, x(t) = f + round(k·t / (T' − 1)), rounding halves away from zero (for a
 *   power of two T' no half ever occurs), summed in double precision in increasing
 *   t and rounded once to float.
 * * *Taylor tree* (O(T'·log2 T'·F) per block of T'−1 drifts). Write |k| = b·(T'−1) + p
 *   with 0 ≤ p ≤ T'−1 (p ≥ 1 when k ≠ 0; k = 0 is b = p = 0): drift block b shifts
 *   spectrum t by b·t channels, and within a block the tree sums path p, whose offset
 *   at spectrum t is P(p, t) defined by halving: P over one spectrum is 0, and over
 *   2m spectra P(p, t) = P_m(⌊p/2⌋, t) for t < m and ⌈p/2⌉ + P_m(⌊p/2⌋, t − m) for
 *   t ≥ m. The path of k is x(t) = f + sign(k)·(b·t + P(p, t)) (negative drifts are
 *   the mirror image of positive ones, which the tree also obeys: P(T'−1−p, t) =
 *   t − P(p, t)). Sums are float32, added in the tree's order (at every level: the
 *   earlier half's sum + the later half's), identical on both backends.
 *
 * **How the tree's paths differ from brute force.** For T' ≤ 8 every tree path is the
 * brute-force path, so the two agree to float rounding. From T' = 16 on, some paths
 * step one channel earlier or later than the nearest-channel line: T' = 16: 6 of the
 * 16 offsets p (3, 5, 6, 9, 10, 12) differ, in at most 2 spectra, by 1 channel;
 * T' = 32: 20 of 32, in at most 4 spectra; T' = 64: 50 of 64, up to 16 spectra, by
 * 1 channel; T' = 1024: up to 2 channels. The tree's path stays within 0.67 (T' = 16),
 * 0.77 (32), 1.0 (64) and 1.67 (1024) channels of the straight line, brute force
 * within 0.5. Whole-channel-per-spectrum drifts (p = 0 or p = T'−1, so k a multiple
 * of T'−1) are exact for every T': both methods then give the same paths.
 *
 * **Normalisation, per beam and coarse channel.** The zero-drift sum z(f) = Σ_t s[t][f]
 * (double precision, rounded to float) of every unflagged channel of the coarse
 * channel gives a centre and a spread (blade_dedoppler_normalization):
 *
 * * MAD (default): centre = median(z), spread = 1.4826 · median(|z − median(z)|) (the
 *   median absolute deviation scaled to the standard deviation of a Gaussian);
 * * turbo_seti: centre = the 50th percentile of z, spread = the population standard
 *   deviation (ddof 0) of the values z with p5 ≤ z ≤ p95, percentiles interpolated
 *   linearly between order statistics as numpy's default does. This is turbo_seti's
 *   comp_stats(); note that on Gaussian noise its spread is about 0.79 σ, so its SNRs
 *   are about 1.27× those of the MAD convention.
 *
 * The medians of an even count are the mean of the two middle values. The SNR of a
 * path is (sum − centre) / spread of its start's coarse channel. A coarse channel
 * whose spread is 0 (constant data) gives no hits.
 *
 * **Hits (turbo_seti's rule).** For each start channel f the best path is the valid
 * path of largest sum over the searched drifts (ties: the smallest k, as turbo_seti,
 * which visits drifts in increasing order and keeps the first maximum). Channel f is a
 * hit when its best SNR exceeds snr_threshold (strictly) and no channel g of the same
 * beam with max(0, f − N) ≤ g < min(F, f + N) has a strictly larger best SNR, where
 * N = 2·⌈max_drift / drift step⌉ (so two hits are at least the channels that two
 * signals drifting towards each other at max_drift can cover apart; a channel equal
 * to the window's maximum is a hit too, as in turbo_seti). Unlike turbo_seti, the
 * window spans coarse-channel boundaries (the whole row of F channels). Hits are
 * listed by beam, then channel; when more than the capacity are found, the first
 * `hit_capacity` in that order are kept and the rest counted as dropped.
 *
 * **Preprocessing** (optional, in this order, on a working copy; the input is never
 * written): (1) *spectral-kurtosis flagging*: for channel f, with S1 = Σ_t s[t][f] and
 * S2 = Σ_t s[t][f]² over the M = T real spectra, the generalised estimator of Nita &
 * Gary (2010), SK = (M·n + 1)/(M − 1) · (M·S2/S1² − 1), where n = sk_shape is the
 * number of independent exponentially distributed powers summed into each spectrum
 * value (its gamma shape: 2·I for Stokes I integrated over I spectra of two
 * polarizations, I for one polarization). Gaussian noise gives E[SK] = 1 with
 * variance σ² = 2·n·(n + 1)·M² / ((M − 1)(M·n + 2)(M·n + 3)); channels with
 * |SK − 1| > sk_sigmas · σ (a Gaussian approximation of the SK distribution, whose
 * upper tail is in truth longer) or with S1 ≤ 0 are flagged. It needs M ≥ 2 and the
 * unnormalised powers' statistics, so rescaling is fine but a spectrogram of
 * means of unknown counts is not. Flagged channels are left out of the statistics
 * and replaced in every real spectrum by centre/T (so their zero-drift sum is the
 * centre: SNR 0). Beware that a strong drifting tone raises the SK of the channels
 * it crosses: flagging can hide the signals searched for. (2) *DC blanking*
 * (turbo_seti's blank_dc): the channel nfpc/2 of every coarse channel (the
 * channelizer's DC bin) is replaced in every spectrum by the mean of its two
 * neighbours. The statistics are taken before blanking, as turbo_seti does.
 *
 * **Backends.** The CPU computes trees of tiles of channels in cache, in parallel
 * with OpenMP; CUDA runs the same tiles in shared memory, every stage of every drift
 * block of a tile in one kernel. Path sums, statistics and hits are identical on both
 * (same operations in the same order); process() on CUDA waits for its stream,
 * because the hits are returned in host memory.
 *
 * @code
 *   blade_dedoppler* search;
 *   blade_dedoppler_config config = blade_dedoppler_config_default();
 *   config.foff_hz = 2.7939677238464355;   // BL high-resolution product
 *   config.tsamp_s = 18.253611008;
 *   config.nfpc = 1 << 20;
 *   config.max_drift_hz_per_s = 4.0;
 *   config.snr_threshold = 10.0;
 *   blade_shape shape = blade_shape_tf(16, 64 << 20);
 *   if (blade_dedoppler_create(&search, &config, &shape, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   blade_dedoppler_hit* hits = calloc(config.hit_capacity, sizeof *hits);
 *   int64_t count, dropped;
 *   blade_dedoppler_process(search, &spectrogram, hits, &count, &dropped, stream);
 *   blade_dedoppler_destroy(search);
 * @endcode
 */
#ifndef BLADE_DEDOPPLER_H
#define BLADE_DEDOPPLER_H

#include <stdbool.h>
#include <stdint.h>

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How path sums are integrated (see this file's description). */
typedef enum blade_dedoppler_method {
    BLADE_DEDOPPLER_TAYLOR = 0,     /**< Taylor tree: the search (O(F·T·log T) per drift block) */
    BLADE_DEDOPPLER_BRUTE_FORCE = 1 /**< exact nearest-channel sums: a reference, small T */
} blade_dedoppler_method;

/** Centre and spread of the SNR (see this file's description). */
typedef enum blade_dedoppler_normalization {
    BLADE_DEDOPPLER_NORM_MAD = 0,       /**< median, 1.4826 × median absolute deviation */
    BLADE_DEDOPPLER_NORM_TURBO_SETI = 1 /**< median, std of the values within [p5, p95] */
} blade_dedoppler_normalization;

/** Configuration of a search. Start from blade_dedoppler_config_default(). */
typedef struct blade_dedoppler_config {
    double foff_hz;            /**< fine channel width, Hz; negative when frequency descends */
    double tsamp_s;            /**< time from one spectrum to the next, s (> 0) */
    int64_t nfpc;              /**< fine channels per coarse channel (divides F) */
    double min_drift_hz_per_s; /**< smallest |drift rate| searched, ≥ 0 */
    double max_drift_hz_per_s; /**< largest |drift rate| searched, ≥ min_drift */
    double snr_threshold;      /**< a hit's SNR must exceed this (≥ 0) */
    blade_dedoppler_method method;
    blade_dedoppler_normalization normalization;
    bool blank_dc;        /**< replace channel nfpc/2 of each coarse channel (nfpc ≥ 3) */
    double sk_shape;      /**< spectral-kurtosis flagging: n, powers per value; 0 = off */
    double sk_sigmas;     /**< flag when |SK − 1| > sk_sigmas · σ (> 0 when sk_shape > 0) */
    int64_t hit_capacity; /**< most hits one process() call returns (≥ 1) */
} blade_dedoppler_config;

/** One hit: the best path of a start channel, a local maximum of SNR. */
typedef struct blade_dedoppler_hit {
    int64_t channel;            /**< fine channel of the path's start (spectrum 0), 0 … F−1 */
    int64_t channel_in_coarse;  /**< the start's index in its coarse channel (turbo_seti's
                                  Index) */
    int64_t coarse_channel;     /**< channel / nfpc */
    int64_t beam;               /**< 0 … B−1 */
    int64_t drift_index;        /**< k: channels drifted from spectrum 0 to spectrum T'−1 */
    double drift_rate_hz_per_s; /**< k · foff / ((T' − 1) · tsamp) */
    float snr;                  /**< (path sum − centre) / spread */
    float path_sum;             /**< the path's sum (preprocessed input units) */
} blade_dedoppler_hit;

/** Sizes and grid of a plan, for callers that label or allocate. */
typedef struct blade_dedoppler_geometry {
    int64_t beams;              /**< B (1 for a rank-2 input) */
    int64_t spectra;            /**< T */
    int64_t padded_spectra;     /**< T': T rounded up to a power of two */
    int64_t channels;           /**< F */
    int64_t coarse_channels;    /**< C = F / nfpc */
    int64_t drift_count;        /**< D: drifts searched (both signs) */
    int64_t min_drift_index;    /**< smallest |k| searched */
    int64_t max_drift_index;    /**< largest |k| searched */
    double drift_step_hz_per_s; /**< foff / ((T' − 1) · tsamp), signed; 0 when T' = 1 */
    int64_t window;             /**< N of the top-hit window [f − N, f + N) */
    int64_t drift_blocks;       /**< Taylor tree blocks per direction (0 for brute force) */
} blade_dedoppler_geometry;

/** An opaque dedoppler plan. */
typedef struct blade_dedoppler blade_dedoppler;

/** Defaults: MAD normalisation, Taylor tree, SNR 10, 0 … 4 Hz/s, capacity 65536,
 *  no flagging or blanking; foff, tsamp and nfpc are 0 and must be set. */
BLADE_CORE_API blade_dedoppler_config blade_dedoppler_config_default(void);

/** A spectrogram shape [T, F] (rank 2). */
BLADE_CORE_API blade_shape blade_shape_tf(int64_t spectra, int64_t channels);

/** A spectrogram shape [B, T, F] (rank 3). */
BLADE_CORE_API blade_shape blade_shape_btf(int64_t beams, int64_t spectra, int64_t channels);

/** Name of a normalisation: "MAD", "turbo_seti", or "unknown". */
BLADE_CORE_API const char*
blade_dedoppler_normalization_name(blade_dedoppler_normalization normalization);

/** Name of a method: "taylor", "brute_force", or "unknown". */
BLADE_CORE_API const char* blade_dedoppler_method_name(blade_dedoppler_method method);

/**
 * Validate and prepare a search of f32 spectrograms of `input_shape` ([T, F] or
 * [B, T, F]) on `device`.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT with the reason for: a shape of another rank
 *         or an empty one; foff 0 or not finite; tsamp ≤ 0; nfpc < 1 or not dividing
 *         F; drifts negative, not finite, or min > max; a drift range holding no drift
 *         of the grid (the message gives the step); T = 1 with min_drift > 0; a
 *         negative SNR threshold; hit_capacity < 1; blank_dc with nfpc < 3; SK
 *         flagging with T < 2 or sk_sigmas ≤ 0; an unknown method or normalisation.
 *         ::BLADE_ERROR_OUT_OF_MEMORY, ::BLADE_ERROR_NO_DEVICE as for every module.
 */
BLADE_CORE_API blade_status blade_dedoppler_create(blade_dedoppler** plan,
                                                   const blade_dedoppler_config* config,
                                                   const blade_shape* input_shape,
                                                   blade_device device);

/** The plan's sizes and drift grid. */
BLADE_CORE_API blade_dedoppler_geometry blade_dedoppler_get_geometry(const blade_dedoppler* plan);

/** The drift indices k searched, in increasing order, into `indices` (D values). */
BLADE_CORE_API void blade_dedoppler_drift_indices(const blade_dedoppler* plan, int64_t* indices);

/** Capacity of the hit list given to process() (config.hit_capacity). */
BLADE_CORE_API int64_t blade_dedoppler_hit_capacity(const blade_dedoppler* plan);

/** Shape of the path-sum plane written by blade_dedoppler_integrate(): [B, D, F]. */
BLADE_CORE_API blade_shape blade_dedoppler_plane_shape(const blade_dedoppler* plan);

/**
 * Search one spectrogram. `input` is f32 of the plan's shape on the plan's device;
 * `hits` is host memory for blade_dedoppler_hit_capacity() hits; `hit_count` gets the
 * hits written, `dropped` (may be NULL) the hits found beyond the capacity. On CUDA
 * the work is queued on `stream` and the call waits for it.
 */
BLADE_CORE_API blade_status blade_dedoppler_process(blade_dedoppler* plan,
                                                    const blade_tensor* input,
                                                    blade_dedoppler_hit* hits,
                                                    int64_t* hit_count,
                                                    int64_t* dropped,
                                                    blade_stream stream);

/**
 * The path sums themselves, after the same preprocessing: `plane` f32
 * [B, D, F] on the plan's device, plane[b][d][f] the sum of the path of the d-th
 * drift (blade_dedoppler_drift_indices()) starting at f, NaN where that path is not
 * valid. For tests and for pictures of the drift-rate plane; it also leaves the
 * statistics that blade_dedoppler_last_statistics() reports.
 */
BLADE_CORE_API blade_status blade_dedoppler_integrate(blade_dedoppler* plan,
                                                      const blade_tensor* input,
                                                      blade_tensor* plane,
                                                      blade_stream stream);

/**
 * The normalisation of the last process() or integrate() call: `centres` and
 * `spreads` get B·C values each ([beam][coarse channel]; either may be NULL),
 * `flagged` (may be NULL) B·F bytes, 1 for channels that spectral kurtosis flagged.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT before any call.
 */
BLADE_CORE_API blade_status blade_dedoppler_last_statistics(const blade_dedoppler* plan,
                                                            float* centres,
                                                            float* spreads,
                                                            uint8_t* flagged);

/**
 * Where the last process() call spent its time (wall clock on the host, seconds):
 * the steps are separated by waits for the stream (most of which process() makes
 * anyway), so the figures add up to the call. For benchmarks and profiling.
 */
typedef struct blade_dedoppler_timings {
    double moments_s;    /**< zero-drift sums (and S1, S2), with their download on CUDA */
    double statistics_s; /**< centres, spreads and flags (on the host, or the device for MAD) */
    double integrate_s;  /**< preparation and the Taylor tree or brute force */
    double select_s;     /**< hit selection, with the hits' download on CUDA */
    int64_t candidates;  /**< hits found before the capacity was applied */
} blade_dedoppler_timings;

/** The timings of the last process() call (zeros before any). */
BLADE_CORE_API blade_dedoppler_timings blade_dedoppler_last_timings(const blade_dedoppler* plan);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_dedoppler_destroy(blade_dedoppler* plan);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_DEDOPPLER_H */
