/* SPDX-License-Identifier: MIT */
/*
 * Geodetic conversions and observed directions through ERFA. Nothing here is
 * hand-rolled astronomy: precession, nutation, Earth rotation and aberration all
 * come from eraApco13 / eraAtciq / eraAtioq.
 */
#include "internal.h"

#include <blade/astrometry.h>

#include <erfa.h>
#include <math.h>

#define WGS84 1 /* ERFA's ellipsoid identifier */

blade_status
blade_geodetic_to_ecef(double longitude, double latitude, double altitude, double ecef[3])
{
    if (!isfinite(longitude) || !isfinite(latitude) || !isfinite(altitude))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "geodetic position (%g rad, %g rad, %g m) is not finite",
                          longitude,
                          latitude,
                          altitude);
    if (fabs(latitude) > BLADE_PI / 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "latitude %.9g rad is outside [-pi/2, pi/2] (given in degrees?)",
                          latitude);
    if (eraGd2gc(WGS84, longitude, latitude, altitude, ecef) != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "geodetic position (%g rad, %g rad, %g m) cannot be converted",
                          longitude,
                          latitude,
                          altitude);
    return BLADE_OK;
}

blade_status
blade_ecef_to_geodetic(const double ecef[3], double* longitude, double* latitude, double* altitude)
{
    double xyz[3] = { ecef[0], ecef[1], ecef[2] };
    if (!isfinite(xyz[0]) || !isfinite(xyz[1]) || !isfinite(xyz[2]))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "ECEF position is not finite");
    if (eraGc2gd(WGS84, xyz, longitude, latitude, altitude) != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "ECEF position (%g, %g, %g) m cannot be converted to geodetic",
                          xyz[0],
                          xyz[1],
                          xyz[2]);
    return BLADE_OK;
}

void blade_enu_to_ecef_offset(double longitude,
                              double latitude,
                              const double enu[3],
                              double ecef_offset[3])
{
    /* Columns of the rotation are the local east, north and up unit vectors
     * expressed along the ECEF axes. */
    const double sl = sin(longitude), cl = cos(longitude);
    const double sp = sin(latitude), cp = cos(latitude);
    const double e = enu[0], n = enu[1], u = enu[2];
    ecef_offset[0] = -sl * e - sp * cl * n + cp * cl * u;
    ecef_offset[1] = cl * e - sp * sl * n + cp * sl * u;
    ecef_offset[2] = cp * n + sp * u;
}

void blade_unix_to_jd_split(double unix_time, double* day, double* fraction)
{
    const double days = floor(unix_time / 86400.0);
    *day = BLADE_UNIX_EPOCH_JD + days;
    *fraction = (unix_time - days * 86400.0) / 86400.0;
}

blade_status blade_observed_hadec(double longitude,
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
                                  bool* dubious_year)
{
    if (dubious_year != NULL)
        *dubious_year = false;
    const double jd_utc = jd_day + jd_fraction;
    if (!isfinite(jd_utc) || !isfinite(dut1))
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT, "time (JD %g, DUT1 %g s) is not finite", jd_utc, dut1);
    if (fabs(dut1) > 1.0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "DUT1 = %g s: UT1 - UTC is kept within +-0.9 s (seconds expected)",
                          dut1);
    eraASTROM astrom;
    double equation_of_origins;
    const int status = eraApco13(jd_day,
                                 jd_fraction,
                                 dut1,
                                 longitude,
                                 latitude,
                                 altitude,
                                 0.0, /* polar motion x */
                                 0.0, /* polar motion y */
                                 0.0, /* pressure: no refraction */
                                 0.0,
                                 0.0,
                                 0.0,
                                 &astrom,
                                 &equation_of_origins);
    if (status < 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "ERFA rejects the date JD %.6f (UTC) (eraApco13 status %d)",
                          jd_utc,
                          status);
    if (status == 1 && dubious_year != NULL)
        *dubious_year = true;

    for (int64_t i = 0; i < count; i++) {
        if (!isfinite(ra[i]) || !isfinite(dec[i]))
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "direction %lld (RA %g, Dec %g rad) is not finite",
                              (long long)i,
                              ra[i],
                              dec[i]);
        double cirs_ra, cirs_dec, azimuth, zenith_distance, observed_ra;
        eraAtciq(ra[i], dec[i], 0.0, 0.0, 0.0, 0.0, &astrom, &cirs_ra, &cirs_dec);
        eraAtioq(cirs_ra,
                 cirs_dec,
                 &astrom,
                 &azimuth,
                 &zenith_distance,
                 &hour_angle[i],
                 &declination[i],
                 &observed_ra);
    }
    return BLADE_OK;
}

double
blade_projection_w(double longitude, double hour_angle, double declination, const double xyz[3])
{
    const double theta = longitude - hour_angle;
    const double cd = cos(declination);
    return cd * cos(theta) * xyz[0] + cd * sin(theta) * xyz[1] + sin(declination) * xyz[2];
}
