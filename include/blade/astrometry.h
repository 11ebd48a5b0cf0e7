/* SPDX-License-Identifier: MIT */
/**
 * @file astrometry.h
 * @brief Array geometry and apparent source directions for delay computation.
 *
 * The conversions the phasor module builds on, public so that they can be tested
 * and reused on their own:
 *
 * - geodetic (WGS84) <-> ECEF coordinates of the array reference position;
 * - east/north/up antenna offsets -> offsets along the ECEF axes;
 * - the observed hour angle and declination of ICRS directions at one instant,
 *   through ERFA (eraApco13, eraAtciq, eraAtioq): precession, nutation, Earth
 *   rotation, annual and diurnal aberration and light deflection are applied;
 *   refraction and polar motion are not (pressure 0, xp = yp = 0);
 * - the projection of an array-frame position onto a direction.
 *
 * Units: radians, metres, seconds. Longitudes are east-positive. Times are UTC
 * Julian dates with DUT1 = UT1 - UTC in seconds.
 */
#ifndef BLADE_ASTROMETRY_H
#define BLADE_ASTROMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include <blade/export.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** pi (math.h's M_PI is not part of strict C11). */
#define BLADE_PI 3.14159265358979323846

/** Speed of light in vacuum, m/s. */
#define BLADE_SPEED_OF_LIGHT 299792458.0

/** Julian date of the unix epoch (1970-01-01T00:00:00 UTC). */
#define BLADE_UNIX_EPOCH_JD 2440587.5

/**
 * WGS84 geodetic position -> Earth-centred, Earth-fixed (ITRS) metres.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for a latitude outside [-pi/2, pi/2] or a
 *         non-finite value.
 */
BLADE_CORE_API blade_status blade_geodetic_to_ecef(double longitude,
                                                   double latitude,
                                                   double altitude,
                                                   double ecef[3]);

/**
 * ECEF metres -> WGS84 longitude (-pi..pi], latitude and altitude (metres above
 * the ellipsoid). @return ::BLADE_ERROR_INVALID_ARGUMENT for a non-finite input
 * or a point ERFA cannot convert.
 */
BLADE_CORE_API blade_status blade_ecef_to_geodetic(const double ecef[3],
                                                   double* longitude,
                                                   double* latitude,
                                                   double* altitude);

/**
 * Rotate an offset given as (east, north, up) metres at geodetic `longitude`,
 * `latitude` into the same offset along the ECEF axes (X towards longitude 0,
 * Z towards the north pole). A pure rotation: lengths are kept.
 */
BLADE_CORE_API void blade_enu_to_ecef_offset(double longitude,
                                             double latitude,
                                             const double enu[3],
                                             double ecef_offset[3]);

/**
 * Unix seconds -> UTC Julian date in two parts (ERFA's convention): `day` the
 * Julian date of the preceding midnight, `fraction` the fraction of the day. Two
 * parts keep ~10 ns of resolution where one double keeps ~40 us.
 */
BLADE_CORE_API void blade_unix_to_jd_split(double unix_time, double* day, double* fraction);

/**
 * Observed hour angle and declination of `count` ICRS directions, seen from the
 * geodetic position (`longitude`, `latitude`, `altitude`) at the UTC Julian date
 * `jd_day` + `jd_fraction` (split anywhere; blade_unix_to_jd_split() splits at
 * midnight) with UT1 - UTC = `dut1` seconds.
 *
 * @param dubious_year set to true when ERFA flags the date as dubious (beyond its
 *        leap-second table, e.g. after 2026 for ERFA 2.0): a warning, the results
 *        are still computed. May be NULL.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for an unacceptable date or non-finite
 *         inputs.
 */
BLADE_CORE_API blade_status blade_observed_hadec(double longitude,
                                                 double latitude,
                                                 double altitude,
                                                 double jd_day,
                                                 double jd_fraction,
                                                 double dut1,
                                                 int64_t count,
                                                 const double* ra,
                                                 const double* dec,
                                                 double* hour_angle,
                                                 double* declination,
                                                 bool* dubious_year);

/**
 * Projection W of an array-frame position (metres along the ECEF axes, relative
 * to the reference position) onto the direction of observed hour angle
 * `hour_angle` and declination `declination`, with theta = longitude - hour_angle:
 * W = cos(dec) cos(theta) X + cos(dec) sin(theta) Y + sin(dec) Z.
 * W / c is how much earlier a wavefront from that direction reaches the position
 * than the reference position.
 */
BLADE_CORE_API double
blade_projection_w(double longitude, double hour_angle, double declination, const double xyz[3]);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_ASTROMETRY_H */
