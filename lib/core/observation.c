/* SPDX-License-Identifier: MIT */
/*
 * Time and angle conversions shared by the file formats.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "internal.h"
#include "observation_check.h"

#include <blade/io/observation.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

blade_status blade_check_pointing(const blade_observation* observation, const char* who)
{
    if (observation->has_position &&
        !(isfinite(observation->ra) && fabs(observation->dec) <= M_PI / 2))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: the pointing (RA %g, Dec %g rad) is not a direction",
                          who,
                          observation->ra,
                          observation->dec);
    return BLADE_OK;
}

void blade_observation_set_band(blade_observation* observation,
                                double centre_hz,
                                double chan_bw_hz,
                                int64_t nchan)
{
    observation->chan_bw = chan_bw_hz;
    observation->nchan = nchan;
    observation->freq_first = centre_hz - 0.5 * (double)(nchan - 1) * chan_bw_hz;
}

double blade_observation_band_centre(const blade_observation* observation)
{
    return observation->freq_first + 0.5 * (double)(observation->nchan - 1) * observation->chan_bw;
}

double blade_observation_frequency(const blade_observation* observation, int64_t channel)
{
    return observation->freq_first + (double)channel * observation->chan_bw;
}

int64_t blade_observation_coarse_channel(const blade_observation* observation, int64_t channel)
{
    const int64_t nfpc = observation->nfpc > 0 ? observation->nfpc : 1;
    return observation->coarse_first + channel / nfpc;
}

blade_status blade_observation_select_channels(const blade_observation* observation,
                                               int64_t first,
                                               int64_t count,
                                               blade_observation* subset)
{
    *subset = *observation;
    if (observation->nfpc > 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "a channel subset is taken of coarse channels; these chunks have "
                          "%lld fine channels per coarse channel",
                          (long long)observation->nfpc);
    if (first < 0 || count < 1 || (observation->nchan > 0 && first + count > observation->nchan))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channels %lld .. %lld are not within the %lld channels",
                          (long long)first,
                          (long long)(first + count - 1),
                          (long long)observation->nchan);
    subset->freq_first = blade_observation_frequency(observation, first);
    subset->coarse_first = observation->coarse_first + first;
    subset->nchan = count;
    return BLADE_OK;
}

blade_observation blade_observation_channelized(const blade_observation* observation, int64_t rate)
{
    blade_observation fine = *observation;
    if (rate <= 1)
        return fine;
    /* Fine channel k of coarse channel 0 is centred at f0 + (k − N/2)·chan_bw/N: the
     * first at f0 − chan_bw/2, whatever the parity of N. */
    fine.freq_first = observation->freq_first - observation->chan_bw / 2.0;
    fine.chan_bw = observation->chan_bw / (double)rate;
    fine.nchan = observation->nchan * rate;
    fine.nfpc = (observation->nfpc > 0 ? observation->nfpc : 1) * rate;
    fine.tsamp = observation->tsamp * (double)rate;
    return fine;
}

blade_status blade_observation_check_axis(const blade_observation* observation, const char* what)
{
    if (!isfinite(observation->freq_first) || !isfinite(observation->chan_bw) ||
        observation->chan_bw == 0.0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: the first channel's centre (%g Hz) and the channel width (%g "
                          "Hz) must be finite, the width non-zero",
                          what,
                          observation->freq_first,
                          observation->chan_bw);
    if (observation->nchan < 1 || observation->nfpc < 1 ||
        observation->nchan % observation->nfpc != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: %lld channels of %lld fine channels per coarse channel: both "
                          "must be >= 1 and the first a multiple of the second",
                          what,
                          (long long)observation->nchan,
                          (long long)observation->nfpc);
    if (observation->coarse_first < 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: the first coarse (F-engine) channel %lld is negative",
                          what,
                          (long long)observation->coarse_first);
    return BLADE_OK;
}

blade_status blade_observation_check_within(const blade_observation* outer,
                                            const blade_observation* inner,
                                            const char* what)
{
    const int64_t outer_nfpc = outer->nfpc > 0 ? outer->nfpc : 1;
    const int64_t inner_nfpc = inner->nfpc > 0 ? inner->nfpc : 1;
    bool fits = inner_nfpc % outer_nfpc == 0;
    const blade_observation fine =
        blade_observation_channelized(outer, fits ? inner_nfpc / outer_nfpc : 1);
    const int64_t first = (inner->coarse_first - outer->coarse_first) * inner_nfpc;
    const double tolerance = 1e-3 * fabs(inner->chan_bw);
    fits = fits && fabs(fine.chan_bw - inner->chan_bw) <= 1e-9 * fabs(inner->chan_bw) &&
           first >= 0 && (outer->nchan <= 0 || first + inner->nchan <= fine.nchan) &&
           fabs(blade_observation_frequency(&fine, first) - inner->freq_first) <= tolerance;
    if (fits)
        return BLADE_OK;
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "%s: the chunks' frequency axis (first channel %.9g MHz, %.9g MHz "
                      "wide, F-engine channel %lld on, %lld per coarse channel) does not hold "
                      "the channels expected (first %.9g MHz, %.9g MHz wide, F-engine "
                      "channel %lld, %lld per coarse channel)",
                      what,
                      outer->freq_first / 1e6,
                      outer->chan_bw / 1e6,
                      (long long)outer->coarse_first,
                      (long long)outer_nfpc,
                      inner->freq_first / 1e6,
                      inner->chan_bw / 1e6,
                      (long long)inner->coarse_first,
                      (long long)inner_nfpc);
}

double blade_unix_to_mjd(double unix_seconds)
{
    return unix_seconds / 86400.0 + BLADE_MJD_OF_UNIX_EPOCH;
}

double blade_unix_to_jd(double unix_seconds)
{
    /* 2440587.5 = 40587 + 2400000.5: summing the constants first keeps the digits. */
    return unix_seconds / 86400.0 + (BLADE_MJD_OF_UNIX_EPOCH + BLADE_JD_OF_MJD_EPOCH);
}

blade_status blade_parse_sexagesimal(const char* text, double* value)
{
    const char* p = text;
    while (*p == ' ')
        p++;
    double sign = 1.0;
    if (*p == '+' || *p == '-') {
        sign = *p == '-' ? -1.0 : 1.0;
        p++;
    }
    double parts[3] = { 0, 0, 0 };
    int count = 0;
    while (*p && count < 3) {
        if (!isdigit((unsigned char)*p) && *p != '.')
            break;
        char* end;
        parts[count++] = strtod(p, &end);
        if (end == p)
            break;
        p = end;
        if (*p == ':' || *p == ' ')
            p++;
        else
            break;
    }
    while (*p == ' ')
        p++;
    /* parts[0] may be any size ("1e999" is infinite): only finite angles pass. */
    if (count == 0 || *p != '\0' || !(parts[0] >= 0 && parts[0] < 1e15) || parts[1] < 0 ||
        parts[1] >= 60 || parts[2] < 0 || parts[2] >= 60)
        return blade_fail(
            BLADE_ERROR_FORMAT, "'%s' is not a sexagesimal angle ([+-]DD:MM:SS.s)", text);
    *value = sign * (parts[0] + parts[1] / 60.0 + parts[2] / 3600.0);
    return BLADE_OK;
}

/* Split |value| into whole units, minutes and seconds rounded to `decimals`,
 * carrying so that seconds never print as 60. Units stay a double: any value a
 * file or a tag can hold (1e300, infinity, NaN) is split without converting an
 * out-of-range double to an integer, which C leaves undefined. */
static void split(double value, int decimals, double* units, int* minutes, double* seconds)
{
    const double magnitude = fabs(value);
    *minutes = 0;
    *seconds = 0;
    if (!(magnitude < 1e15)) { /* beyond a second's resolution, or not a number */
        *units = floor(magnitude);
        return;
    }
    const double scale = pow(10.0, decimals);
    double total = round(magnitude * 3600.0 * scale) / scale; /* seconds */
    *units = floor(total / 3600.0);
    total -= *units * 3600.0;
    const double whole_minutes = floor(total / 60.0);
    *minutes = whole_minutes < 0 ? 0 : whole_minutes > 59 ? 59 : (int)whole_minutes;
    *seconds = total - *minutes * 60.0;
    if (*seconds < 0)
        *seconds = 0;
}

void blade_format_sexagesimal(double value, int decimals, bool sign, char* text, size_t size)
{
    decimals = decimals < 0 ? 0 : decimals > 9 ? 9 : decimals;
    double units;
    int minutes;
    double seconds;
    split(value, decimals, &units, &minutes, &seconds);
    const char* prefix = value < 0 ? "-" : (sign ? "+" : "");
    snprintf(text,
             size,
             "%s%02.0f:%02d:%0*.*f",
             prefix,
             units,
             minutes,
             decimals > 0 ? decimals + 3 : 2,
             decimals,
             seconds);
}

double blade_sigproc_packed_angle(double value)
{
    double units;
    int minutes;
    double seconds;
    split(value, 6, &units, &minutes, &seconds);
    const double packed = units * 10000.0 + minutes * 100.0 + seconds;
    return value < 0 ? -packed : packed;
}

double blade_sigproc_unpack_angle(double packed)
{
    const double magnitude = fabs(packed);
    const double units = floor(magnitude / 10000.0);
    const double minutes = floor((magnitude - units * 10000.0) / 100.0);
    const double seconds = magnitude - units * 10000.0 - minutes * 100.0;
    const double value = units + minutes / 60.0 + seconds / 3600.0;
    return packed < 0 ? -value : value;
}

int blade_sigproc_telescope_id(const char* name)
{
    static const struct {
        const char* name;
        int id;
    } table[] = {
        { "ATA", 9 },      { "ALLEN", 9 },  { "GBT", 6 },        { "GREEN BANK", 6 },
        { "MEERKAT", 64 }, { "PARKES", 4 }, { "PKS", 4 },        { "MURRIYANG", 4 },
        { "ARECIBO", 1 },  { "AO", 1 },     { "EFFELSBERG", 8 }, { "GMRT", 7 },
        { "JODRELL", 5 },  { "NANCAY", 3 }, { "LOFAR", 11 },     { "VLA", 12 },
        { "SRT", 10 },     { "CHIME", 20 },
    };
    if (name == NULL)
        return 0;
    while (*name == ' ')
        name++;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strncasecmp(name, table[i].name, strlen(table[i].name)) == 0)
            return table[i].id;
    return 0;
}
