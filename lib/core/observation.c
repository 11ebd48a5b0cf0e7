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

void blade_format_sexagesimal(
    double value, int decimals, bool sign, char* text, size_t size)
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
        { "ATA", 9 },      { "ALLEN", 9 },   { "GBT", 6 },         { "GREEN BANK", 6 },
        { "MEERKAT", 64 }, { "PARKES", 4 },  { "PKS", 4 },         { "MURRIYANG", 4 },
        { "ARECIBO", 1 },  { "AO", 1 },      { "EFFELSBERG", 8 },  { "GMRT", 7 },
        { "JODRELL", 5 },  { "NANCAY", 3 },  { "LOFAR", 11 },      { "VLA", 12 },
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
