/* SPDX-License-Identifier: MIT */
/**
 * @file io/observation.h
 * @brief What a recording says about its data: time and frequency axes, pointing.
 *
 * Readers fill a ::blade_observation from a file's header; writers turn one into
 * their header (GUPPI cards, SIGPROC keys, FBH5 attributes). GNU Radio blocks carry
 * the same values as stream tags (gnuradio/blade/metadata.h). Units are SI: seconds,
 * hertz, radians. Channel frequencies are channel centres.
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
    double chan_bw;       /**< Hz per channel (negative: frequency descends) */
    int64_t nfpc;         /**< fine channels per coarse channel (1: not channelized) */
    int64_t coarse_first; /**< absolute index of coarse channel 0 (SCHAN + subset) */
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
