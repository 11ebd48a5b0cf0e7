#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Delays of blade.compute_delays against an independent computation with astropy:
astropy's own ICRS -> HADec pipeline (its own aberration and light deflection
code, its IERS handling, its geodetic conversion) and the projection of
astrometry.md written here. Both sides use the same DUT1 and no polar motion or
refraction (the spec's choices), offline IERS tables only.

Tolerances (astrometry.md): absolute delays (relative to the reference antenna,
boresight not subtracted, beams tens of degrees apart) within 2 ps; steering
delays (beam minus boresight, beams within a few degrees) within 0.1 ps.
"""

import warnings
from unittest import mock

import numpy
from gnuradio import gr_unittest

from gnuradio import blade

import blade_testing

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import astropy.units as u
    from astropy.coordinates import HADec, SkyCoord, EarthLocation, erfa_astrom
    from astropy.time import Time
    from astropy.utils import iers

iers.conf.auto_download = False
iers.conf.iers_degraded_accuracy = "warn"

C = 299792458.0

DATES = [
    (2458635.625, -0.2153),  # 2019-06-01 03:00 UTC, inside the bundled IERS tables
    (2460400.7531, 0.0112),  # 2024-03-30
    (2463000.3, -0.35),  # 2031: beyond the tables and ERFA's leap seconds ("dubious year")
]


def astropy_hadec(location, jd, dut1, ra, dec):
    """Observed hour angle and declination (rad) by astropy, without polar motion."""
    time = Time(jd, format="jd", scale="utc")
    time.delta_ut1_utc = dut1
    frame = HADec(obstime=time, location=location)  # pressure 0: no refraction
    with warnings.catch_warnings(), mock.patch.object(
        erfa_astrom, "get_polar_motion", lambda t: (numpy.zeros(numpy.shape(t.jd)), numpy.zeros(numpy.shape(t.jd)))
    ):
        warnings.simplefilter("ignore")
        hadec = SkyCoord(ra=ra * u.rad, dec=dec * u.rad, frame="icrs").transform_to(frame)
    return hadec.ha.to_value(u.rad), hadec.dec.to_value(u.rad)


def geometry(array, boresight, beams, reference_antenna=0):
    """The array and beams as blade.compute_delays takes them."""
    return blade.array_geometry(
        reference=array["reference"],
        antenna_positions=array["positions"],
        boresight=boresight,
        beams=beams,
        reference_antenna=reference_antenna,
    )


def astropy_delays(reference, positions, boresight, beams, jd, dut1, reference_antenna=0, absolute=False):
    """delay[b, a] from the formulas of astrometry.md, directions from astropy."""
    lon, lat, alt = reference
    location = EarthLocation.from_geodetic(lon * u.rad, lat * u.rad, alt * u.m)  # WGS84
    origin = numpy.array([location.x.to_value(u.m), location.y.to_value(u.m), location.z.to_value(u.m)])
    xyz = numpy.asarray(positions) - origin
    ra = numpy.concatenate([[boresight[0]], numpy.asarray(beams)[:, 0]])
    dec = numpy.concatenate([[boresight[1]], numpy.asarray(beams)[:, 1]])
    hour_angle, declination = astropy_hadec(location, jd, dut1, ra, dec)
    theta = lon - hour_angle
    direction = numpy.stack(
        [numpy.cos(declination) * numpy.cos(theta), numpy.cos(declination) * numpy.sin(theta), numpy.sin(declination)],
        -1,
    )
    w = direction @ xyz.T  # [1 + B, A]
    tau = (w - w[:, [reference_antenna]]) / C
    return tau[1:] if absolute else tau[1:] - tau[0]


class qa_delays_astropy(gr_unittest.TestCase):
    def arrays(self):
        return [blade_testing.ata_like_array(), blade_testing.meerkat_like_array()]

    def test_absolute_delays_agree_within_2_ps(self):
        for array in self.arrays():
            boresight = (array["ra"], array["dec"])
            # Beams tens of degrees from each other and from the boresight.
            beams = numpy.array(
                [
                    [boresight[0] + dra, boresight[1] + ddec]
                    for dra, ddec in [(0.0, 0.0), (0.5, -0.2), (-0.4, 0.3), (0.9, 0.25)]
                ]
            )
            for jd, dut1 in DATES:
                with self.subTest(array=array["name"], jd=jd):
                    ours = blade.compute_delays(
                        geometry(array, boresight, beams, reference_antenna=2), jd, dut1, absolute=True
                    )
                    theirs = astropy_delays(
                        array["reference"],
                        array["positions"],
                        boresight,
                        beams,
                        jd,
                        dut1,
                        reference_antenna=2,
                        absolute=True,
                    )
                    self.assertGreater(numpy.abs(theirs).max(), 1e-7 if array["name"] == "meerkat" else 1e-7 / 20)
                    numpy.testing.assert_allclose(ours, theirs, rtol=0, atol=2e-12)
                    self.assertTrue(numpy.all(ours[:, 2] == 0.0))

    def test_steering_delays_agree_within_0_1_ps(self):
        for array in self.arrays():
            boresight = (array["ra"], array["dec"])
            offsets = [(0.0, 0.0), (0.01, 0.0), (0.0, -0.02), (-0.03, 0.025), (0.05, 0.04)]
            beams = numpy.array([[boresight[0] + dra, boresight[1] + ddec] for dra, ddec in offsets])
            for jd, dut1 in DATES:
                with self.subTest(array=array["name"], jd=jd):
                    ours = blade.compute_delays(geometry(array, boresight, beams), jd, dut1)
                    theirs = astropy_delays(array["reference"], array["positions"], boresight, beams, jd, dut1)
                    self.assertGreater(numpy.abs(theirs).max(), 1e-9)  # the test can see an error
                    numpy.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-13)
                    self.assertTrue(numpy.all(ours[0] == 0.0))  # beam 0 is the boresight

    def test_projection_direction_is_the_itrs_direction(self):
        # The projection formula itself (theta = longitude - hour angle) checked
        # against astropy's geocentric ITRS direction of the source: they differ
        # only by diurnal aberration (< 0.32 arcsec), while a sign or axis mistake
        # would be off by radians.
        from astropy.coordinates import ITRS

        for array in self.arrays():
            lon, lat, alt = array["reference"]
            location = EarthLocation.from_geodetic(lon * u.rad, lat * u.rad, alt * u.m)
            for jd, dut1 in DATES:
                ra = numpy.array([array["ra"], array["ra"] + 1.0, 0.3])
                dec = numpy.array([array["dec"], -0.1, 1.2])
                hour_angle, declination = astropy_hadec(location, jd, dut1, ra, dec)
                theta = lon - hour_angle
                ours = numpy.stack(
                    [
                        numpy.cos(declination) * numpy.cos(theta),
                        numpy.cos(declination) * numpy.sin(theta),
                        numpy.sin(declination),
                    ],
                    -1,
                )
                time = Time(jd, format="jd", scale="utc")
                time.delta_ut1_utc = dut1
                with warnings.catch_warnings(), mock.patch.object(
                    erfa_astrom, "get_polar_motion", lambda t: (numpy.zeros(numpy.shape(t.jd)),) * 2
                ), mock.patch(
                    "astropy.coordinates.builtin_frames.intermediate_rotation_transforms.get_polar_motion",
                    lambda t: (numpy.zeros(numpy.shape(t.jd)),) * 2,
                ):
                    warnings.simplefilter("ignore")
                    itrs = SkyCoord(ra=ra * u.rad, dec=dec * u.rad, frame="icrs").transform_to(ITRS(obstime=time))
                cartesian = itrs.cartesian.xyz.value.T
                cartesian /= numpy.linalg.norm(cartesian, axis=1, keepdims=True)
                angle = numpy.arccos(numpy.clip(numpy.sum(ours * cartesian, axis=1), -1, 1))
                self.assertLess(angle.max(), 2e-6, f"{array['name']} {jd}")

    def test_dut1_and_time_matter(self):
        # The comparison above would pass trivially if time were ignored: check
        # that the delays move with time and with DUT1 as Earth rotation says.
        array = blade_testing.meerkat_like_array()
        boresight = (array["ra"], array["dec"])
        beams = numpy.array([[boresight[0] + 0.5, boresight[1] - 0.2]])
        jd, dut1 = DATES[1]
        base = blade.compute_delays(geometry(array, boresight, beams), jd, dut1, absolute=True)
        later = blade.compute_delays(geometry(array, boresight, beams), jd, dut1 + 0.5, absolute=True)
        theirs = astropy_delays(array["reference"], array["positions"], boresight, beams, jd, dut1 + 0.5, absolute=True)
        self.assertGreater(numpy.abs(later - base).max(), 5e-12)  # 0.5 s of DUT1 is visible
        numpy.testing.assert_allclose(later, theirs, rtol=0, atol=2e-12)


if __name__ == "__main__":
    gr_unittest.run(qa_delays_astropy)
