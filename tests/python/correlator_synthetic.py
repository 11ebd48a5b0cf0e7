# SPDX-License-Identifier: MIT
"""
A point source observed by the project's synthetic array (python/blade/synth.py:
eight ATA-like antennas phased to 3C 286, a tone 0.012 rad off the boresight, Gaussian
noise, int8 voltages), correlated by the C core: what the correlator's physics and
UVH5 checks share.

The generator is used as it is, with two things of its own replaced so that no GNU
Radio bindings are needed: the antenna positions (its ENU layout turned into ITRS with
ERFA's WGS84, instead of a BFR5 recipe round trip) and the delay model (below). Its
signal model is x_a(t) = amplitude exp(2 pi i (b t + nu tau_a(t))) + noise, with
tau_a the steering delay, the time by which the wavefront reaches antenna a before it
reaches the array's reference, relative to the boresight; so the correlator's
V_ij = sum x_i conj(x_j) has the phase 2 pi nu (tau_i - tau_j).
"""

import importlib.util
import math
import os
import sys
import types

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
import libblade_correlator  # noqa: E402

SPEED_OF_LIGHT = 299792458.0


def _load_synth():
    """python/blade/synth.py from the source tree (its module needs nothing else for
    voltages)."""
    spec = importlib.util.spec_from_file_location("blade_synth", os.path.join(ROOT, "python", "blade", "synth.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


synth = _load_synth()


def _load_uvh5():
    """python/blade/formats/uvh5.py from the source tree (numpy, h5py and ERFA only),
    as a module of a stand-in package so that its relative imports (the formats'
    shared partial-file writer) resolve without importing gnuradio.blade."""
    formats = os.path.join(ROOT, "python", "blade", "formats")
    package = types.ModuleType("blade_formats")
    package.__path__ = [formats]
    sys.modules.setdefault("blade_formats", package)
    spec = importlib.util.spec_from_file_location("blade_formats.uvh5", os.path.join(formats, "uvh5.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


uvh5_writer = _load_uvh5()


def enu_to_itrs(site, enu):
    """ITRS positions (m) of east/north/up offsets (m) from a site (lon, lat rad, alt m)."""
    longitude, latitude, _ = site
    east = numpy.array([-math.sin(longitude), math.cos(longitude), 0.0])
    north = numpy.array(
        [-math.sin(latitude) * math.cos(longitude), -math.sin(latitude) * math.sin(longitude), math.cos(latitude)]
    )
    up = numpy.array(
        [math.cos(latitude) * math.cos(longitude), math.cos(latitude) * math.sin(longitude), math.sin(latitude)]
    )
    return uvh5_writer.site_ecef(site) + numpy.asarray(enu) @ numpy.stack([east, north, up])


def unit_vector(direction):
    ra, dec = direction
    return numpy.array([math.cos(dec) * math.cos(ra), math.cos(dec) * math.sin(ra), math.sin(dec)])


def geometric_delays(reference, positions, boresight, direction, jd, dut1):
    """Steering delays (s) [A]: (r_a - r_site) . (s - s_boresight) / c with the ITRS
    offsets rotated to the GCRS (ERFA c2t06a, as the UVH5 writer's uvw)."""
    offsets = numpy.asarray(positions) - uvh5_writer.site_ecef(reference)
    gcrs = offsets @ uvh5_writer.celestial_from_terrestrial(jd, dut1).T
    return gcrs @ (unit_vector(direction) - unit_vector(boresight)) / SPEED_OF_LIGHT


class PointSourceObservation(synth.SyntheticObservation):
    """The project's generator with ITRS positions and delays of our own (no recipe)."""

    def __init__(self, **kwargs):
        super().__init__(delay_model=geometric_delays, **kwargs)
        self._itrs = enu_to_itrs(self.reference, self.enu)

    @property
    def positions_ecef(self):
        return self._itrs


def observe(blocks=4, block_samples=65536, tone_amplitude=3.0, noise=8.0):
    """The observation and its correlation, one integration per block:
    (obs, visibilities [blocks, B, F, 4] complex64, block centre times as UTC JD)."""
    lib = libblade_correlator.load()
    if lib is None:
        return None
    obs = PointSourceObservation(
        antennas=8,
        channels=4,
        polarizations=2,
        block_samples=block_samples,
        blocks=blocks,
        tone_amplitude=tone_amplitude,
        noise=noise,
    )
    chunks = numpy.stack(list(obs.voltage_blocks()))  # [blocks, A, F, T, 2] complex64 of int8 values
    visibilities = libblade_correlator.correlate(lib, chunks, block_samples)[:, :, :, 0, :]
    centres = obs.start_unix + (numpy.arange(blocks) + 0.5) * block_samples * obs.tbin
    return obs, visibilities, centres / 86400.0 + synth.UNIX_JD0


def expected_phases(obs, jd):
    """2 pi nu (tau_i - tau_j) for every baseline (correlator order) at `jd`."""
    tau = geometric_delays(obs.reference, obs.positions_ecef, obs.boresight, obs.source, jd, obs.dut1)
    i, j = uvh5_writer.baselines(obs.antennas)
    return 2 * math.pi * obs.tone_frequency * (tau[i] - tau[j])


def wrap(phase):
    """Phases in (-pi, pi]."""
    return numpy.angle(numpy.exp(1j * numpy.asarray(phase)))
