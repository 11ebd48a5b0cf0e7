/* SPDX-License-Identifier: MIT */
/*
 * Stream adapters: packing sample streams into [A, F, T, P] chunks and back, and
 * the sample clock that dates them. CPU only: the streams come from and go to
 * ordinary GNU Radio host buffers.
 */
#include "internal.h"

#include <blade/io/observation.h>
#include <blade/modules/stream_adapter.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

blade_status blade_stream_adapter_check(const blade_shape* shape, int64_t nstreams)
{
    char text[128];
    BLADE_TRY(blade_shape_validate(shape, "stream adapter chunk"));
    if (shape->rank != 4)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "stream adapter: chunks are [A, F, T, P] (rank 4), got %s",
                          blade_shape_format(shape, text, sizeof text));
    const int64_t expected = blade_stream_count(shape);
    if (nstreams != expected)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "stream adapter: a %s chunk takes A*F*P = %lld streams "
                          "(port = (a*F + f)*P + p), got %lld",
                          blade_shape_format(shape, text, sizeof text),
                          (long long)expected,
                          (long long)nstreams);
    return BLADE_OK;
}

int64_t blade_stream_count(const blade_shape* shape)
{
    return shape->rank == 4 ? shape->dims[0] * shape->dims[1] * shape->dims[3] : 0;
}

int64_t blade_stream_port(const blade_shape* shape, int64_t a, int64_t f, int64_t p)
{
    return (a * shape->dims[1] + f) * shape->dims[3] + p;
}

/* One complex float sample, moved as 8 bytes (bit for bit, NaN payloads included). */
typedef struct sample {
    float re, im;
} sample;

blade_status blade_streams_to_chunk(const void* const* streams,
                                    int64_t nstreams,
                                    const blade_shape* shape,
                                    void* chunk)
{
    BLADE_TRY(blade_stream_adapter_check(shape, nstreams));
    const int64_t AF = shape->dims[0] * shape->dims[1], T = shape->dims[2], P = shape->dims[3];
    sample* out = chunk;
    for (int64_t af = 0; af < AF; af++) {
        sample* block = out + af * T * P;
        const sample* const* in = (const sample* const*)streams + af * P;
        if (P == 1) {
            memcpy(block, in[0], (size_t)T * sizeof(sample));
            continue;
        }
        for (int64_t t = 0; t < T; t++)
            for (int64_t p = 0; p < P; p++)
                block[t * P + p] = in[p][t];
    }
    return BLADE_OK;
}

blade_status blade_chunk_to_streams(const void* chunk,
                                    const blade_shape* shape,
                                    void* const* streams,
                                    int64_t nstreams)
{
    BLADE_TRY(blade_stream_adapter_check(shape, nstreams));
    const int64_t AF = shape->dims[0] * shape->dims[1], T = shape->dims[2], P = shape->dims[3];
    const sample* in = chunk;
    for (int64_t af = 0; af < AF; af++) {
        const sample* block = in + af * T * P;
        sample* const* out = (sample* const*)streams + af * P;
        if (P == 1) {
            memcpy(out[0], block, (size_t)T * sizeof(sample));
            continue;
        }
        for (int64_t t = 0; t < T; t++)
            for (int64_t p = 0; p < P; p++)
                out[p][t] = block[t * P + p];
    }
    return BLADE_OK;
}

/* Carry whole seconds out of the fraction so that 0 <= fraction < 1. */
static void normalise(int64_t* whole, double* fraction)
{
    const double carry = floor(*fraction);
    *whole += (int64_t)carry;
    *fraction -= carry;
    if (*fraction >= 1.0) { /* rounding of a fraction just below 1 */
        *whole += 1;
        *fraction -= 1.0;
    }
}

blade_status blade_sample_clock_init(blade_sample_clock* clock, double rate, double unix_seconds)
{
    if (!(rate > 0) || !isfinite(rate))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "sample clock: the sample rate must be a positive number of "
                          "samples per second, got %g",
                          rate);
    if (!isfinite(unix_seconds))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "sample clock: the start time must be finite, got %g",
                          unix_seconds);
    clock->rate = rate;
    clock->anchor_sample = 0;
    const double whole = floor(unix_seconds);
    clock->anchor_seconds = (int64_t)whole;
    clock->anchor_fraction = unix_seconds - whole;
    normalise(&clock->anchor_seconds, &clock->anchor_fraction);
    return BLADE_OK;
}

void blade_sample_clock_set_time(blade_sample_clock* clock,
                                 int64_t sample,
                                 int64_t whole_seconds,
                                 double fraction)
{
    clock->anchor_sample = sample;
    clock->anchor_seconds = whole_seconds;
    clock->anchor_fraction = fraction;
    normalise(&clock->anchor_seconds, &clock->anchor_fraction);
}

void blade_sample_clock_time(const blade_sample_clock* clock,
                             int64_t sample,
                             int64_t* whole_seconds,
                             double* fraction)
{
    /* Whole seconds of the offset are split off exactly in integers first, so a
     * long-running stream keeps sub-sample precision in the fraction. */
    const int64_t offset = sample - clock->anchor_sample;
    const double seconds = (double)offset / clock->rate;
    const double whole = trunc(seconds);
    *whole_seconds = clock->anchor_seconds + (int64_t)whole;
    *fraction = clock->anchor_fraction + (seconds - whole);
    normalise(whole_seconds, fraction);
}

blade_status blade_sample_clock_set_rate(blade_sample_clock* clock, int64_t sample, double rate)
{
    if (!(rate > 0) || !isfinite(rate))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "sample clock: the sample rate must be a positive number of "
                          "samples per second, got %g",
                          rate);
    /* Re-anchor at the change so earlier samples keep their times. */
    int64_t whole;
    double fraction;
    blade_sample_clock_time(clock, sample, &whole, &fraction);
    clock->anchor_sample = sample;
    clock->anchor_seconds = whole;
    clock->anchor_fraction = fraction;
    clock->rate = rate;
    return BLADE_OK;
}

double blade_sample_clock_unix(const blade_sample_clock* clock, int64_t sample)
{
    int64_t whole;
    double fraction;
    blade_sample_clock_time(clock, sample, &whole, &fraction);
    return (double)whole + fraction;
}

blade_chunk_times
blade_sample_clock_chunk(const blade_sample_clock* clock, int64_t first, int64_t samples)
{
    blade_chunk_times times;
    int64_t whole;
    double fraction;
    blade_sample_clock_time(clock, first, &whole, &fraction);
    const double half = (double)samples / clock->rate / 2.0;
    times.unix_start = (double)whole + fraction;
    times.unix_mid = (double)whole + (fraction + half);
    times.jd_start = blade_unix_to_jd(times.unix_start);
    times.jd_mid = blade_unix_to_jd(times.unix_mid);
    times.tsamp = 1.0 / clock->rate;
    return times;
}
