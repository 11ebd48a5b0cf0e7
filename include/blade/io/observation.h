/* SPDX-License-Identifier: MIT */
/**
 * @file io/observation.h
 * @brief What a recording says about its data: time and frequency axes, pointing.
 *
 * The one place where the time and frequency axes of a stream of chunks live. The
 * GUPPI reader computes it once from a recording's header; every later stage
 * derives what it needs with the small functions below (the channels of a subset,
 * the axis after a channelizer, the frequency or the F-engine channel of a channel);
 * writers turn it into their header (GUPPI cards, SIGPROC keys, FBH5 attributes);
 * GNU Radio blocks carry the same values as stream tags (gnuradio/blade/metadata.h)
 * and C++ and Python see it as gr::blade::observation (blade.Observation). Units are
 * SI: seconds, hertz, radians. Channel frequencies are channel centres: channel j
 * (0-based, per aspect) of the chunks is centred at freq_first + j·chan_bw and
 * belongs to F-engine (coarse) channel coarse_first + j / nfpc.
 *
 * Also here: the time and angle conversions the formats share (unix time to
 * Julian and modified Julian dates, sexagesimal text, SIGPROC's packed angles and
 * telescope numbers).
 */
#ifndef BLADE_IO_OBSERVATION_H
#define BLADE_IO_OBSERVATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <blade/export.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Room for a source or telescope name, terminating NUL included. */
#define BLADE_OBSERVATION_NAME_SIZE 72

/** Axes and pointing of a stream of chunks. */
typedef struct blade_observation {
    double unix_start;    /**< unix seconds at the start of the first sample */
    double tsamp;         /**< seconds per time sample */
    double freq_first;    /**< Hz, centre of channel 0 */
    double chan_bw;       /**< Hz per channel (negative: frequency descends, a lower
                               sideband: the voltages are the sky's conjugates) */
    int64_t nchan;        /**< channels per aspect in the chunks (0: not said) */
    int64_t nfpc;         /**< fine channels per coarse channel (1: not channelized) */
    int64_t coarse_first; /**< absolute (F-engine) index of the coarse channel of
                               channel 0 (SCHAN + the subset's first channel) */
    double dut1;          /**< UT1 - UTC, seconds */
    double ra;            /**< boresight right ascension, radians */
    double dec;           /**< boresight declination, radians */
    bool has_position;    /**< ra and dec are known */
    double az;            /**< azimuth at the start, radians (AZ) */
    double za;            /**< zenith angle at the start, radians (ZA, or 90° − EL) */
    bool has_horizontal;  /**< az and za are known */
    char source_name[BLADE_OBSERVATION_NAME_SIZE]; /**< "" if unknown */
    char telescope[BLADE_OBSERVATION_NAME_SIZE];   /**< "" if unknown */
} blade_observation;

/**
 * Set the frequency axis from a band's centre, as recorders write it (GUPPI OBSFREQ):
 * nchan channels of chan_bw, channel 0 centred at centre − (nchan − 1)·chan_bw/2.
 */
BLADE_CORE_API void blade_observation_set_band(blade_observation* observation,
                                               double centre_hz,
                                               double chan_bw_hz,
                                               int64_t nchan);

/** Centre (Hz) of the band of the nchan channels: the inverse of blade_observation_set_band(). */
BLADE_CORE_API double blade_observation_band_centre(const blade_observation* observation);

/** Centre (Hz) of channel `channel` of the chunks: freq_first + channel·chan_bw. */
BLADE_CORE_API double blade_observation_frequency(const blade_observation* observation,
                                                  int64_t channel);

/** The absolute (F-engine) coarse channel that channel `channel` belongs to:
 *  coarse_first + channel / nfpc (what calibration tables are indexed by). */
BLADE_CORE_API int64_t blade_observation_coarse_channel(const blade_observation* observation,
                                                        int64_t channel);

/**
 * The observation of channels first .. first + count − 1 of the chunks (a subset of
 * coarse channels: nfpc must be 1): freq_first and coarse_first move, nchan is count.
 * ::BLADE_ERROR_INVALID_ARGUMENT if the channels are not within nchan.
 */
BLADE_CORE_API blade_status blade_observation_select_channels(const blade_observation* observation,
                                                              int64_t first,
                                                              int64_t count,
                                                              blade_observation* subset);

/**
 * The observation after a channelizer of rate N (N ≥ 1): fine channel 0 is centred
 * at freq_first − chan_bw/2 (N ≥ 2; its fine channel k of coarse channel c sits at
 * that centre + (k − N/2)·chan_bw/N, fftshifted, N/2 not rounded for odd N), the
 * width is chan_bw/N, nchan and nfpc are multiplied and tsamp too. N = 1 changes
 * nothing.
 */
BLADE_CORE_API blade_observation blade_observation_channelized(const blade_observation* observation,
                                                               int64_t rate);

/**
 * Check that the observation has a usable frequency axis for `what` (named in the
 * message): finite freq_first, non-zero finite chan_bw, nchan and nfpc ≥ 1, nchan a
 * multiple of nfpc, coarse_first ≥ 0.
 */
BLADE_CORE_API blade_status blade_observation_check_axis(const blade_observation* observation,
                                                         const char* what);

/**
 * Check that the channels `inner` describes are channels of `outer` (e.g. a
 * sub-band of the recording, channelized): after channelizing outer to inner's
 * nfpc, the same width, and inner's first channel where outer puts the F-engine
 * channel inner claims (within a thousandth of a channel). ::BLADE_ERROR_INVALID_ARGUMENT
 * naming `what` and both axes otherwise.
 */
BLADE_CORE_API blade_status blade_observation_check_within(const blade_observation* outer,
                                                           const blade_observation* inner,
                                                           const char* what);

/** Seconds from the unix epoch to the MJD epoch offset: MJD = unix/86400 + 40587. */
#define BLADE_MJD_OF_UNIX_EPOCH 40587.0
/** JD = MJD + 2400000.5. */
#define BLADE_JD_OF_MJD_EPOCH 2400000.5

/** UTC Julian date of a unix time: unix/86400 + 2440587.5. */
BLADE_CORE_API double blade_unix_to_jd(double unix_seconds);

/** UTC modified Julian date of a unix time: unix/86400 + 40587. */
BLADE_CORE_API double blade_unix_to_mjd(double unix_seconds);

/**
 * Parse sexagesimal text "[+-]a:b:c" (also "a b c" or a bare number) into a
 * number of units (hours for RA, degrees for Dec). The sign applies to the whole
 * value ("-00:30:00" is -0.5). ::BLADE_ERROR_FORMAT if malformed, with the text;
 * also for a first field of 1e15 or more (or one that overflows to infinity), so a
 * parsed angle is always finite.
 */
BLADE_CORE_API blade_status blade_parse_sexagesimal(const char* text, double* value);

/**
 * Format `value` units as "[+-]DD:MM:SS.sss" with `decimals` digits of seconds
 * (0 to 9; no rounding up to 60). `sign` forces a leading "+" for positive values
 * (Dec). Any double is accepted: values of 1e15 units and more, infinities and NaN
 * print their whole units only ("inf:00:00.000"); writers refuse such values
 * before formatting them.
 */
BLADE_CORE_API void
blade_format_sexagesimal(double value, int decimals, bool sign, char* text, size_t size);

/**
 * SIGPROC's packed angle: `value` units (hours or degrees) as the double
 * ±(a·10000 + b·100 + c.c), e.g. 12.5 h -> 123000.0.
 */
BLADE_CORE_API double blade_sigproc_packed_angle(double value);

/** Inverse of blade_sigproc_packed_angle(). */
BLADE_CORE_API double blade_sigproc_unpack_angle(double packed);

/**
 * SIGPROC telescope_id of a telescope name, as the Breakthrough Listen tools
 * (rawspec, blimpy, seticore) number them (case-insensitive, by prefix: "ATA" or
 * "Allen" 9, "GBT" or "Green Bank" 6, "MeerKAT" 64, "Parkes", "PKS" or "Murriyang"
 * 4, "Arecibo" or "AO" 1, "Effelsberg" 8, "GMRT" 7, "Jodrell" 5, "Nancay" 3,
 * "LOFAR" 11, "VLA" 12, "SRT" 10, "CHIME" 20), 0 ("fake") for anything else.
 */
BLADE_CORE_API int blade_sigproc_telescope_id(const char* name);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_IO_OBSERVATION_H */
