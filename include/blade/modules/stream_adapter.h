/* SPDX-License-Identifier: MIT */
/**
 * @file modules/stream_adapter.h
 * @brief Sample streams <-> [A, F, T, P] chunks, and the clock that times them.
 *
 * Ordinary radio software delivers one stream of complex samples per receiver
 * channel. gr-blade works on [A, F, T, P] chunks (aspects, channels, time samples,
 * polarizations). The adapters map stream number ("port") s to one (a, f, p) of the
 * chunk, polarization fastest:
 *
 *     port(a, f, p) = (a * F + f) * P + p
 *
 * so for an SDR (F = 1) with two polarizations per antenna, ports 0, 1 are antenna
 * 0 pol 0, 1; ports 2, 3 antenna 1; and so on. Sample t of stream port(a, f, p) is
 * element [a, f, t, p] of the chunk. Both directions move cf32 values bit for bit
 * on the CPU (the chunk is uploaded by the next GPU block's buffer, if any).
 *
 * The sample clock converts sample indices to time: a stream has a rate and an
 * anchor (a sample index whose time is known, e.g. from a receiver's rx_time tag);
 * sample n is at anchor time + (n - anchor sample) / rate. Time is kept as whole
 * unix seconds plus a fraction, so that the anchor itself loses no precision.
 */
#ifndef BLADE_STREAM_ADAPTER_H
#define BLADE_STREAM_ADAPTER_H

#include <stdint.h>

#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Check that `shape` is a valid [A, F, T, P] chunk for the adapters (rank 4, every
 * extent >= 1) and that `nstreams` = A * F * P.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming what was expected and given.
 */
BLADE_CORE_API blade_status blade_stream_adapter_check(const blade_shape* shape, int64_t nstreams);

/** Number of streams of an [A, F, T, P] chunk: A * F * P (0 if the rank is not 4). */
BLADE_CORE_API int64_t blade_stream_count(const blade_shape* shape);

/** Stream number of (a, f, p) in an [A, F, T, P] chunk: (a * F + f) * P + p. */
BLADE_CORE_API int64_t blade_stream_port(const blade_shape* shape, int64_t a, int64_t f, int64_t p);

/**
 * Pack one chunk: sample t of `streams[port(a, f, p)]` (T cf32 values each) goes to
 * element [a, f, t, p] of `chunk` (cf32 [A, F, T, P]).
 */
BLADE_CORE_API blade_status blade_streams_to_chunk(const void* const* streams,
                                                   int64_t nstreams,
                                                   const blade_shape* shape,
                                                   void* chunk);

/** The inverse: element [a, f, t, p] of `chunk` to sample t of stream port(a, f, p). */
BLADE_CORE_API blade_status blade_chunk_to_streams(const void* chunk,
                                                   const blade_shape* shape,
                                                   void* const* streams,
                                                   int64_t nstreams);

/** A stream's sample clock: anchor_sample is at anchor_seconds + anchor_fraction. */
typedef struct blade_sample_clock {
    double rate;            /**< samples per second (> 0) */
    int64_t anchor_sample;  /**< a sample whose time is known */
    int64_t anchor_seconds; /**< its whole unix seconds */
    double anchor_fraction; /**< and fraction of a second, in [0, 1) */
} blade_sample_clock;

/**
 * A clock at `rate` with sample 0 at `unix_seconds`.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT unless rate is positive and both are finite.
 */
BLADE_CORE_API blade_status blade_sample_clock_init(blade_sample_clock* clock,
                                                    double rate,
                                                    double unix_seconds);

/** Sample `sample` is at whole + fraction unix seconds (e.g. a UHD rx_time tag). */
BLADE_CORE_API void blade_sample_clock_set_time(blade_sample_clock* clock,
                                                int64_t sample,
                                                int64_t whole_seconds,
                                                double fraction);

/**
 * From sample `sample` on, the rate is `rate` (earlier samples keep their times).
 * ::BLADE_ERROR_INVALID_ARGUMENT if rate <= 0.
 */
BLADE_CORE_API blade_status blade_sample_clock_set_rate(blade_sample_clock* clock,
                                                        int64_t sample,
                                                        double rate);

/**
 * Unix time of `sample` as whole seconds plus a fraction in [0, 1) (for tags that
 * keep full precision, like rx_time).
 */
BLADE_CORE_API void blade_sample_clock_time(const blade_sample_clock* clock,
                                            int64_t sample,
                                            int64_t* whole_seconds,
                                            double* fraction);

/** Unix time of `sample` in seconds (as a double: about 0.24 us resolution today). */
BLADE_CORE_API double blade_sample_clock_unix(const blade_sample_clock* clock, int64_t sample);

/** When a chunk of samples was observed (the gr-blade time tags of a chunk). */
typedef struct blade_chunk_times {
    double unix_start; /**< unix seconds of the first sample */
    double unix_mid;   /**< unix_start + samples / rate / 2: the middle of the chunk */
    double jd_start;   /**< UTC Julian date of unix_start (blade_unix_to_jd()) */
    double jd_mid;     /**< UTC Julian date of unix_mid */
    double tsamp;      /**< seconds per sample, 1 / rate */
} blade_chunk_times;

/** Times of the chunk of `samples` samples starting at sample `first`. */
BLADE_CORE_API blade_chunk_times blade_sample_clock_chunk(const blade_sample_clock* clock,
                                                          int64_t first,
                                                          int64_t samples);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_STREAM_ADAPTER_H */
