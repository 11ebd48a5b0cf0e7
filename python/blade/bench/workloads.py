# SPDX-License-Identifier: MIT
"""
The synthetic inputs the flowgraph suites share: an ATA-like BFR5 recipe, the band
its chunks are on, and the chunk times that drive the phasors. The geometry and the
values do not change the cost; only the shapes do.
"""

import numpy

CHANNEL_WIDTH = 0.5e6  # ATA: 0.5 MHz channels, TBIN = 2 us
TBIN = 1.0 / CHANNEL_WIDTH
ATA_REFERENCE = (numpy.radians(-121.4733), numpy.radians(40.8173), 1019.2)  # lon, lat (rad), alt (m)
BORESIGHT = (1.4596, 0.3842)  # ra, dec (rad)


def make_recipe(path, antennas, beams, nchan=192):
    """A BFR5 recipe: `antennas` within 150 m of the ATA, `beams` beams near the
    boresight, unit-modulus calibration for F-engine channels 0 .. nchan - 1."""
    from ..formats.bfr5 import write_bfr5

    rng = numpy.random.default_rng(2026)
    enu = numpy.column_stack(
        [rng.uniform(-150, 150, antennas), rng.uniform(-150, 150, antennas), rng.uniform(-3, 3, antennas)]
    )
    ra, dec = BORESIGHT
    cal = numpy.exp(1j * rng.uniform(-1, 1, size=(nchan, 2, antennas)))
    write_bfr5(
        path,
        reference=ATA_REFERENCE,
        antenna_positions=enu,
        frame="enu",
        boresight=BORESIGHT,
        beams=[(ra + 0.001 * b, dec - 0.0005 * b) for b in range(beams)],
        cal_all=cal,
    )


def band(channels, width=CHANNEL_WIDTH, centre=1.42e9):
    """The blade.Observation of `channels` channels of `width` around `centre`."""
    from gnuradio import blade

    axis = blade.Observation.band(centre, width, channels)
    axis.tsamp = 1.0 / abs(width)  # critically sampled channels (the search needs the time axis)
    return axis


def chunk_times(count, chunk_seconds, tbin=TBIN, start=1.7e9):
    """`count` chunk-time items (blade.CHUNK_TIME_DTYPE) of consecutive chunks."""
    from gnuradio import blade

    times = numpy.zeros(count, dtype=blade.CHUNK_TIME_DTYPE)
    times["unix_start"] = start + numpy.arange(count) * chunk_seconds
    times["unix_mid"] = times["unix_start"] + chunk_seconds / 2
    times["jd_start"] = times["unix_start"] / 86400 + 2440587.5
    times["jd_mid"] = times["unix_mid"] / 86400 + 2440587.5
    times["tsamp"] = tbin
    times["step"] = numpy.arange(count)
    return times
