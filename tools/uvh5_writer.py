# SPDX-License-Identifier: MIT
"""
UVH5 files (the HDF5 visibility format of pyuvdata, memo version 1.2) from the
correlator's output chunks, with numpy, h5py and ERFA only, so that it runs in GNU
Radio's Python (/usr/bin/python3: Debian's h5py and pyerfa) as well as anywhere else.

Why Python for now: the writer is needed by the Mode X bundle and blade-cli, which are
Python; writing a file per integration is not on a hot path; h5py writes the compound
complex type, bytes strings and groups that pyuvdata expects with no code of our own;
and it is tested against pyuvdata directly. A C writer (lib/core, HDF5 C API, like the
FBH5 writer) can follow when a C pipeline needs one.

Conventions (those of include/blade/modules/correlator.h, which are UVH5's):
- visibilities V_ij = x_i conj(x_j) with i <= j; ant_1 = i, ant_2 = j and
  uvw = position(j) - position(i): pyuvdata's "ant1 * conj(ant2)" with
  uvw = xyz(ant2) - xyz(ant1). The data are written as the correlator made them
  (a lower-sideband band is conjugated by the correlator's lower_sideband option).
- products XX, XY, YX, YY: polarization numbers -5, -7, -8, -6 (P = 1: -5).
- baseline-time order: time-major ("time, baseline"), baselines in the correlator's
  order within each time.
- vis_units "uncalib": sums (not averages) of I * Fc products, in squared input units;
  nsamples 1 (each visibility is one whole integration), flags all false.
- uvw (m) are the baseline vectors in the ICRS-aligned frame of the phase centre:
  the ITRS baseline rotated to the GCRS with ERFA's c2t06a (IAU 2006/2000A precession
  and nutation, Earth rotation angle from UT1 = UTC + dut1, polar motion neglected),
  then projected on w = the direction of the phase centre, u = east, v = north. That is
  what pyuvdata recomputes from the antenna positions to within the annual aberration
  (20.5", 3 cm on a 300 m baseline) and DUT1; its check() allows 1 m.
- times: the Julian date (UTC) of each integration's centre; lst_array and the
  apparent phase-centre coordinates are left for pyuvdata to compute when it reads.

    from uvh5_writer import write_uvh5
    write_uvh5("obs.uvh5", chunks, antenna_names=names, antenna_positions=ecef,
               site=(lon, lat, alt), times=jd_centres, integration_time=0.131072,
               frequencies=centres_hz, channel_width=width_hz,
               phase_centre=(ra, dec), phase_centre_name="3C286")
"""

import math

import erfa
import h5py
import numpy

#: UVH5 polarization numbers of the correlator's products, in its order.
POLARIZATION_NUMBERS = {1: [-5], 2: [-5, -7, -8, -6]}

SECONDS_PER_DAY = 86400.0


def baselines(antennas):
    """(ant_1, ant_2) of every baseline in the correlator's order: i <= j, row by row."""
    first, second = numpy.triu_indices(antennas)
    return first.astype(numpy.int64), second.astype(numpy.int64)


def site_ecef(site):
    """ITRS position (m) of a site (longitude, latitude in radians, altitude in m, WGS84)."""
    longitude, latitude, altitude = site
    return numpy.asarray(erfa.gd2gc(1, longitude, latitude, altitude), numpy.float64)


def _two_part_dates(jd_utc, dut1):
    """(TT, UT1) two-part Julian dates of a UTC Julian date, from ERFA's leap seconds."""
    day = math.floor(jd_utc - 0.5) + 0.5
    tai1, tai2 = erfa.utctai(day, jd_utc - day)
    tt1, tt2 = erfa.taitt(tai1, tai2)
    ut11, ut12 = erfa.utcut1(day, jd_utc - day, dut1)
    return (tt1, tt2), (ut11, ut12)


def celestial_from_terrestrial(jd_utc, dut1=0.0):
    """The rotation (3 x 3) from ITRS to GCRS axes at a UTC Julian date (transpose of
    ERFA's celestial-to-terrestrial matrix, IAU 2006/2000A, no polar motion)."""
    (tt1, tt2), (ut11, ut12) = _two_part_dates(jd_utc, dut1)
    return numpy.asarray(erfa.c2t06a(tt1, tt2, ut11, ut12, 0.0, 0.0)).T


def phase_centre_axes(ra, dec):
    """Unit vectors (u: east, v: north, w: towards the source) of a direction (ICRS)."""
    east = numpy.array([-math.sin(ra), math.cos(ra), 0.0])
    north = numpy.array([-math.sin(dec) * math.cos(ra), -math.sin(dec) * math.sin(ra), math.cos(dec)])
    towards = numpy.array([math.cos(dec) * math.cos(ra), math.cos(dec) * math.sin(ra), math.sin(dec)])
    return numpy.stack([east, north, towards])


def uvw(antenna_positions, jd_utc, phase_centre, dut1=0.0):
    """uvw (m) [B, 3] of every baseline (correlator order) at one time: position(ant_2)
    - position(ant_1) in the frame of the phase centre (ra, dec radians, ICRS)."""
    positions = numpy.asarray(antenna_positions, numpy.float64)
    first, second = baselines(len(positions))
    itrs = positions[second] - positions[first]
    gcrs = itrs @ celestial_from_terrestrial(jd_utc, dut1).T
    return gcrs @ phase_centre_axes(*phase_centre).T


def _bytes(text):
    return numpy.bytes_(text.encode("utf8"))


def write_uvh5(path, chunks, *, antenna_names, antenna_positions, site, times, integration_time, frequencies,
               channel_width, phase_centre, phase_centre_name, telescope_name="ATA", instrument="gr-blade",
               dut1=0.0, antenna_diameters=None, polarization_numbers=None, history="", overwrite=False):
    """
    Write the correlator's output as a UVH5 file.

    chunks: complex array [N, B, F, P*P] of N integrations (or a sequence of the
        correlator's output chunks [B, F, T', P*P], concatenated along T'), with B =
        A(A+1)/2 in the correlator's baseline order.
    antenna_names: A names; antenna_positions: [A, 3] ITRS (ECEF) positions (m);
    site: (longitude, latitude in radians, altitude m) of the telescope (WGS84).
    times: N Julian dates (UTC) of the integrations' centres; integration_time (s).
    frequencies: F channel centres (Hz); channel_width: their width (Hz, scalar or F).
    phase_centre: (ra, dec) radians, ICRS; phase_centre_name: its name.
    dut1: UT1 - UTC (s) for the uvw.
    Returns the path.
    """
    if isinstance(chunks, (list, tuple)):
        chunks = numpy.concatenate([numpy.asarray(c) for c in chunks], axis=2).transpose(2, 0, 1, 3)
    data = numpy.asarray(chunks)
    if data.ndim != 4:
        raise ValueError(f"visibilities must be [N, B, F, P*P], given shape {data.shape}")
    ntimes, nbls, nfreqs, npols = data.shape
    positions = numpy.asarray(antenna_positions, numpy.float64)
    antennas = len(antenna_names)
    if positions.shape != (antennas, 3):
        raise ValueError(f"antenna_positions must be [{antennas}, 3] (one per name), given {positions.shape}")
    if nbls != antennas * (antennas + 1) // 2:
        raise ValueError(f"{antennas} antennas make {antennas * (antennas + 1) // 2} baselines, the data have {nbls}")
    polarizations = POLARIZATION_NUMBERS.get({1: 1, 4: 2}.get(npols)) if polarization_numbers is None \
        else list(polarization_numbers)
    if polarizations is None or len(polarizations) != npols:
        raise ValueError(f"{npols} products per visibility: expected 1 or 4 (or give polarization_numbers)")
    times = numpy.asarray(times, numpy.float64).reshape(-1)
    if len(times) != ntimes:
        raise ValueError(f"{ntimes} integrations but {len(times)} times")
    frequencies = numpy.asarray(frequencies, numpy.float64).reshape(-1)
    if len(frequencies) != nfreqs:
        raise ValueError(f"{nfreqs} channels but {len(frequencies)} frequencies")
    widths = numpy.broadcast_to(numpy.asarray(channel_width, numpy.float64), (nfreqs,)).copy()

    first, second = baselines(antennas)
    nblts = ntimes * nbls
    uvws = numpy.concatenate([uvw(positions, t, phase_centre, dut1) for t in times])
    mode = "w" if overwrite else "w-"
    with h5py.File(path, mode) as f:
        header = f.create_group("Header")
        header["version"] = _bytes("1.2")
        header["telescope_name"] = _bytes(telescope_name)
        header["telescope_frame"] = _bytes("itrs")
        header["instrument"] = _bytes(instrument)
        header["latitude"] = math.degrees(site[1])
        header["longitude"] = math.degrees(site[0])
        header["altitude"] = float(site[2])
        header["Nants_telescope"] = antennas
        header["Nants_data"] = antennas
        header["antenna_names"] = numpy.array([n.encode("utf8") for n in antenna_names])
        header["antenna_numbers"] = numpy.arange(antennas, dtype=numpy.int64)
        header["antenna_positions"] = positions - site_ecef(site)
        if antenna_diameters is not None:
            header["antenna_diameters"] = numpy.broadcast_to(numpy.asarray(antenna_diameters, numpy.float64),
                                                             (antennas,)).copy()
        header["Nbls"] = nbls
        header["Nblts"] = nblts
        header["Ntimes"] = ntimes
        header["Nfreqs"] = nfreqs
        header["Npols"] = npols
        header["Nspws"] = 1
        header["ant_1_array"] = numpy.tile(first, ntimes)
        header["ant_2_array"] = numpy.tile(second, ntimes)
        header["uvw_array"] = uvws
        header["time_array"] = numpy.repeat(times, nbls)
        header["integration_time"] = numpy.full(nblts, float(integration_time))
        header["freq_array"] = frequencies
        header["channel_width"] = widths
        header["spw_array"] = numpy.zeros(1, numpy.int64)
        header["flex_spw_id_array"] = numpy.zeros(nfreqs, numpy.int64)
        header["polarization_array"] = numpy.asarray(polarizations, numpy.int64)
        header["vis_units"] = _bytes("uncalib")
        header["blt_order"] = _bytes("time, baseline")
        header["blts_are_rectangular"] = True
        header["time_axis_faster_than_bls"] = False
        header["Nphase"] = 1
        header["phase_center_id_array"] = numpy.zeros(nblts, numpy.int64)
        centre = header.create_group("phase_center_catalog").create_group("0")
        centre["cat_name"] = _bytes(phase_centre_name)
        centre["cat_type"] = _bytes("sidereal")
        centre["cat_lon"] = float(phase_centre[0])
        centre["cat_lat"] = float(phase_centre[1])
        centre["cat_frame"] = _bytes("icrs")
        centre["cat_epoch"] = 2000.0
        centre["info_source"] = _bytes("user")
        header["dut1"] = float(dut1)
        header["history"] = _bytes(history or "Written by gr-blade's UVH5 writer (tools/uvh5_writer.py).")

        group = f.create_group("Data")
        group["visdata"] = data.reshape(nblts, nfreqs, npols).astype(numpy.complex64)
        group["flags"] = numpy.zeros((nblts, nfreqs, npols), bool)
        group["nsamples"] = numpy.ones((nblts, nfreqs, npols), numpy.float32)
    return path
