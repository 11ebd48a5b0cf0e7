# SPDX-License-Identifier: MIT
"""
UVH5 files (the HDF5 visibility format of pyuvdata, memo version 1.2) from the
correlator's output chunks, with numpy, h5py and ERFA only, so that it runs in GNU
Radio's Python (/usr/bin/python3: Debian's h5py and pyerfa) as well as anywhere else.

Why Python: the writer is used by the Mode X job of blade-cli (gnuradio.blade.pipeline),
which is Python; one write per integration is not on a hot path; h5py writes the
compound complex type, bytes strings and groups that pyuvdata expects with no code of
our own; and it is tested against pyuvdata directly. A C writer (lib/core, HDF5 C API,
like the FBH5 writer) can follow when a C pipeline needs one.

Files are written as NAME.partial beside NAME and renamed when complete: a run that
fails or is interrupted before close() leaves no half file under NAME.

Conventions:
- the correlator gives V_ij = x_i conj(x_j), i <= j (include/blade/modules/correlator.h),
  for voltages that turn as exp(+2 pi i nu t) (an upper-sideband recording; the
  correlator's lower_sideband option conjugates a lower sideband's into that).
  pyuvdata phases data as V = integral of I exp(+2 pi i b.s / lambda) with
  b = uvw = xyz(ant2) - xyz(ant1) (UVData.phase multiplies by exp(-2 pi i dw / lambda)),
  which for such voltages is conj(x_ant1) x_ant2. So the file has ant_1 = i,
  ant_2 = j, uvw = position(j) - position(i) and the data conj(V_ij): the
  conjugation to apply when writing. (pyuvdata's maintainers call their convention
  "ant1 * conj(ant2)" with uvw = xyz(ant2) - xyz(ant1), pyuvdata issue 924: the same
  physics for voltages of the opposite time sign. tests/python/check_correlator_uvh5.py
  decides it: after pyuvdata rephases the file to a synthesized source, the source's
  phases are zero, to 0.04 rad of noise; with the data unconjugated they are random.)
- products XX, XY, YX, YY: polarization numbers -5, -7, -8, -6 (P = 1: -5); the
  conjugate of V_ij's XY is conj(x_i,X) x_j,Y, pyuvdata's XY of (ant_1, ant_2), so
  no product moves.
- baseline-time order: time-major ("time, baseline"), baselines in the correlator's
  order within each time.
- vis_units "uncalib": sums (not averages) of I * Fc products, in squared input units;
  nsamples 1 (each visibility is one whole integration), flags all false.
- uvw (m): the ITRS baseline projected on the phase centre's topocentric apparent
  place (ERFA atco13 without refraction, right ascension from the equinox; Greenwich
  apparent sidereal time, IAU 2006/2000A; UT1 = UTC + dut1; no polar motion), then
  turned by the frame position angle so that v points to the ICRS north: the frame
  pyuvdata works in. Its own recomputation from the antenna positions agrees to
  half a millimetre (its check() allows 1 m; at 21 cm a centimetre is 0.3 rad of
  phase when the data are rephased).
- times: the Julian date (UTC) of each integration's centre; lst_array is left for
  pyuvdata to compute when it reads (with its IERS tables' DUT1); the phase centre's
  apparent place and frame position angle, which the format requires, are computed
  with ERFA as pyuvdata defines them (apparent_place(), frame_position_angle()).

    from gnuradio.blade.formats import uvh5
    uvh5.write_uvh5("obs.uvh5", chunks, antenna_names=names, antenna_positions=ecef,
                    site=(lon, lat, alt), times=jd_centres, integration_time=0.131072,
                    frequencies=centres_hz, channel_width=width_hz,
                    phase_centre=(ra, dec), phase_centre_name="3C286")

    # or one integration at a time (the data go to disk as they come):
    with uvh5.UVH5Writer("obs.uvh5", antennas=..., ...) as writer:
        writer.append(visibilities_bfp, jd_centre)     # [B, F, P*P]
"""

import math
import os

import erfa
import h5py
import numpy

from .partial_file import PartialFile

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


def greenwich_sidereal_time(jd_utc, dut1=0.0):
    """Greenwich apparent sidereal time (radians, IAU 2006/2000A)."""
    (tt1, tt2), (ut11, ut12) = _two_part_dates(jd_utc, dut1)
    return float(erfa.gst06a(ut11, ut12, tt1, tt2))


def apparent_place(direction, jd_utc, site, dut1=0.0):
    """The topocentric apparent place (ra with respect to the equinox, dec; radians) of
    an ICRS direction, as pyuvdata defines phase_center_app_ra/dec: ERFA's atco13
    without refraction, its CIO-based right ascension moved to the equinox (ra - eo)."""
    day = math.floor(jd_utc - 0.5) + 0.5
    longitude, latitude, altitude = site
    _, _, _, dec, ra, eo = erfa.atco13(
        direction[0],
        direction[1],
        0.0,
        0.0,
        0.0,
        0.0,
        day,
        jd_utc - day,
        dut1,
        longitude,
        latitude,
        altitude,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    )
    return float(numpy.mod(ra - eo, 2 * math.pi)), float(dec)


def frame_position_angle(direction, jd_utc, site, dut1=0.0, offset=math.pi / 360):
    """The angle (radians) from the apparent frame's north to the ICRS north at the
    phase centre, as pyuvdata's phase_center_frame_pa: the position angle, in apparent
    coordinates, of a point half a degree north of the centre seen from one half a
    degree south (both offsets taken in the ICRS)."""
    ra, dec = direction
    south = apparent_place((ra, dec - offset), jd_utc, site, dut1)
    north = apparent_place((ra, dec + offset), jd_utc, site, dut1)
    return float(erfa.pas(south[0], south[1], north[0], north[1]))


def uvw(antenna_positions, jd_utc, phase_centre, site, dut1=0.0):
    """uvw (m) [B, 3] of every baseline (correlator order) at one time: the ITRS vector
    position(ant_2) - position(ant_1) in the frame of the phase centre's apparent place
    (w towards it, v north, u east; Greenwich hour angle from the apparent sidereal
    time), turned by the frame position angle so that v points to the ICRS north."""
    positions = numpy.asarray(antenna_positions, numpy.float64)
    first, second = baselines(len(positions))
    x, y, z = (positions[second] - positions[first]).T
    ra, dec = apparent_place(phase_centre, jd_utc, site, dut1)
    hour = greenwich_sidereal_time(jd_utc, dut1) - ra
    u = math.sin(hour) * x + math.cos(hour) * y
    v = -math.sin(dec) * math.cos(hour) * x + math.sin(dec) * math.sin(hour) * y + math.cos(dec) * z
    w = math.cos(dec) * math.cos(hour) * x - math.cos(dec) * math.sin(hour) * y + math.sin(dec) * z
    angle = frame_position_angle(phase_centre, jd_utc, site, dut1)
    return numpy.column_stack([u * math.cos(angle) - v * math.sin(angle), v * math.cos(angle) + u * math.sin(angle), w])


def _bytes(text):
    return numpy.bytes_(text.encode("utf8"))


def _check_array(antenna_names, antenna_positions):
    positions = numpy.asarray(antenna_positions, numpy.float64)
    antennas = len(antenna_names)
    if antennas < 1:
        raise ValueError("no antennas: a UVH5 file needs at least one antenna name and position")
    if positions.shape != (antennas, 3):
        raise ValueError(f"antenna_positions must be [{antennas}, 3] (one per name), given {positions.shape}")
    if not numpy.all(numpy.isfinite(positions)):
        raise ValueError("antenna_positions hold a value that is not finite")
    return positions


class UVH5Writer(PartialFile):
    """
    A UVH5 file written one integration at a time: append() puts each integration's
    visibilities [B, F, P*P] (the correlator's, unconjugated, in its baseline order)
    on disk as it comes, close() writes the header (times, uvw, phase centre) and
    renames NAME.partial to NAME. Without close() (an exception in a `with` block,
    abort()) the partial file is removed and NAME is never made. Arguments as
    write_uvh5's, without `times` (given to append()); frequencies fix F and the
    polarization numbers (default: by P*P of the first append) fix the products.
    """

    def __init__(
        self,
        path,
        *,
        antenna_names,
        antenna_positions,
        site,
        integration_time,
        frequencies,
        channel_width,
        phase_centre,
        phase_centre_name,
        telescope_name="ATA",
        instrument="gr-blade",
        dut1=0.0,
        antenna_diameters=None,
        polarization_numbers=None,
        history="",
        overwrite=False,
    ):
        self.path = os.fspath(path)
        self.antenna_names = [str(n) for n in antenna_names]
        self.positions = _check_array(self.antenna_names, antenna_positions)
        self.antennas = len(self.antenna_names)
        self.baselines = self.antennas * (self.antennas + 1) // 2
        self.site = tuple(float(v) for v in site)
        self.frequencies = numpy.asarray(frequencies, numpy.float64).reshape(-1)
        if len(self.frequencies) < 1:
            raise ValueError("no frequencies: a UVH5 file needs at least one channel")
        self.widths = numpy.broadcast_to(numpy.asarray(channel_width, numpy.float64), self.frequencies.shape).copy()
        if not float(integration_time) > 0:
            raise ValueError(f"integration_time {integration_time}: expected seconds > 0")
        self.integration_time = float(integration_time)
        self.phase_centre = (float(phase_centre[0]), float(phase_centre[1]))
        self.phase_centre_name = str(phase_centre_name) or "phase centre"
        self.telescope_name, self.instrument = str(telescope_name), str(instrument)
        self.dut1 = float(dut1)
        self.antenna_diameters = antenna_diameters
        self.polarizations = None if polarization_numbers is None else [int(p) for p in polarization_numbers]
        self.history = history or "Written by gr-blade (gnuradio.blade.formats.uvh5)."
        self._begin(self.path, overwrite)
        self.times = []
        self._file = h5py.File(self._partial, "w")
        self._data = None

    def _create_data(self, npols):
        polarizations = self.polarizations or POLARIZATION_NUMBERS.get({1: 1, 4: 2}.get(npols))
        if polarizations is None or len(polarizations) != npols:
            raise ValueError(f"{npols} products per visibility: expected 1 or 4 (or give polarization_numbers)")
        self.polarizations = list(polarizations)
        group = self._file.create_group("Data")
        shape = (0, len(self.frequencies), npols)
        limit = (None, len(self.frequencies), npols)
        chunks = (self.baselines, len(self.frequencies), npols)
        self._data = group.create_dataset("visdata", shape, numpy.complex64, maxshape=limit, chunks=chunks)
        self._flags = group.create_dataset("flags", shape, bool, maxshape=limit, chunks=chunks)
        self._nsamples = group.create_dataset("nsamples", shape, numpy.float32, maxshape=limit, chunks=chunks)

    def append(self, visibilities, jd_utc):
        """One integration: visibilities [B, F, P*P] (or [B, F, 1, P*P], a correlator
        output chunk of one integration), the UTC Julian date of its centre."""
        data = numpy.asarray(visibilities)
        if data.ndim == 4 and data.shape[2] == 1:
            data = data[:, :, 0, :]
        expected = f"[{self.baselines}, {len(self.frequencies)}, 1 or 4]"
        if data.ndim != 3 or data.shape[0] != self.baselines or data.shape[1] != len(self.frequencies):
            raise ValueError(
                f"visibilities of shape {list(data.shape)}: {self.antennas} antennas and "
                f"{len(self.frequencies)} channels need {expected}"
            )
        if self._data is None:
            self._create_data(data.shape[2])
        elif data.shape[2] != self._data.shape[2]:
            raise ValueError(
                f"{data.shape[2]} products per visibility, the file's earlier ones had {self._data.shape[2]}"
            )
        jd = float(jd_utc)
        if not math.isfinite(jd):
            raise ValueError(f"time {jd_utc}: not a Julian date")
        rows = self._data.shape[0]
        for dataset in (self._data, self._flags, self._nsamples):
            dataset.resize(rows + self.baselines, axis=0)
        # conj: see "Conventions" above
        self._data[rows:] = numpy.conj(data).astype(numpy.complex64)
        self._flags[rows:] = False
        self._nsamples[rows:] = 1.0
        self.times.append(jd)

    @property
    def integrations(self):
        return len(self.times)

    def _has_data(self):
        return bool(self.times)

    def _empty_reason(self):
        return "no integration to write (a UVH5 file needs at least one)"

    def _finish(self):
        self._write_header()
        self._file.close()
        self._file = None

    def _release(self):
        if self._file is not None:
            try:
                self._file.close()
            finally:
                self._file = None

    def _write_header(self):
        site, times = self.site, numpy.asarray(self.times, numpy.float64)
        antennas, nbls, ntimes = self.antennas, self.baselines, len(times)
        nfreqs, npols = len(self.frequencies), len(self.polarizations)
        nblts = ntimes * nbls
        first, second = baselines(antennas)
        uvws = numpy.concatenate([uvw(self.positions, t, self.phase_centre, site, self.dut1) for t in times])
        header = self._file.create_group("Header")
        header["version"] = _bytes("1.2")
        header["telescope_name"] = _bytes(self.telescope_name)
        header["telescope_frame"] = _bytes("itrs")
        header["instrument"] = _bytes(self.instrument)
        header["latitude"] = math.degrees(site[1])
        header["longitude"] = math.degrees(site[0])
        header["altitude"] = float(site[2])
        header["Nants_telescope"] = antennas
        header["Nants_data"] = antennas
        header["antenna_names"] = numpy.array([n.encode("utf8") for n in self.antenna_names])
        header["antenna_numbers"] = numpy.arange(antennas, dtype=numpy.int64)
        header["antenna_positions"] = self.positions - site_ecef(site)
        if self.antenna_diameters is not None:
            header["antenna_diameters"] = numpy.broadcast_to(
                numpy.asarray(self.antenna_diameters, numpy.float64), (antennas,)
            ).copy()
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
        header["integration_time"] = numpy.full(nblts, self.integration_time)
        header["freq_array"] = self.frequencies
        header["channel_width"] = self.widths
        header["spw_array"] = numpy.zeros(1, numpy.int64)
        header["flex_spw_id_array"] = numpy.zeros(nfreqs, numpy.int64)
        header["polarization_array"] = numpy.asarray(self.polarizations, numpy.int64)
        header["vis_units"] = _bytes("uncalib")
        header["blt_order"] = _bytes("time, baseline")
        header["blts_are_rectangular"] = True
        header["time_axis_faster_than_bls"] = False
        header["Nphase"] = 1
        header["phase_center_id_array"] = numpy.zeros(nblts, numpy.int64)
        centre = self.phase_centre
        places = numpy.array([apparent_place(centre, t, site, self.dut1) for t in times])
        angles = numpy.array([frame_position_angle(centre, t, site, self.dut1) for t in times])
        header["phase_center_app_ra"] = numpy.repeat(places[:, 0], nbls)
        header["phase_center_app_dec"] = numpy.repeat(places[:, 1], nbls)
        header["phase_center_frame_pa"] = numpy.repeat(angles, nbls)
        catalog = header.create_group("phase_center_catalog").create_group("0")
        catalog["cat_name"] = _bytes(self.phase_centre_name)
        catalog["cat_type"] = _bytes("sidereal")
        catalog["cat_lon"] = centre[0]
        catalog["cat_lat"] = centre[1]
        catalog["cat_frame"] = _bytes("icrs")
        catalog["cat_epoch"] = 2000.0
        catalog["info_source"] = _bytes("user")
        header["dut1"] = self.dut1
        header["history"] = _bytes(self.history)


def write_uvh5(path, chunks, *, times, **arguments):
    """
    Write the correlator's output as a UVH5 file (at once; UVH5Writer for one
    integration at a time).

    chunks: complex array [N, B, F, P*P] of N integrations (or a sequence of the
        correlator's output chunks [B, F, T', P*P], concatenated along T'), with B =
        A(A+1)/2 in the correlator's baseline order.
    antenna_names: A names; antenna_positions: [A, 3] ITRS (ECEF) positions (m);
    site: (longitude, latitude in radians, altitude m) of the telescope (WGS84).
    times: N Julian dates (UTC) of the integrations' centres; integration_time (s).
    frequencies: F channel centres (Hz); channel_width: their width (Hz, scalar or F).
    phase_centre: (ra, dec) radians, ICRS; phase_centre_name: its name.
    dut1: UT1 - UTC (s) for the uvw. Also telescope_name, instrument,
    antenna_diameters, polarization_numbers, history, overwrite.
    Returns the path.
    """
    if isinstance(chunks, (list, tuple)):
        chunks = numpy.concatenate([numpy.asarray(c) for c in chunks], axis=2).transpose(2, 0, 1, 3)
    data = numpy.asarray(chunks)
    if data.ndim != 4:
        raise ValueError(f"visibilities must be [N, B, F, P*P], given shape {data.shape}")
    times = numpy.asarray(times, numpy.float64).reshape(-1)
    if len(times) != data.shape[0]:
        raise ValueError(f"{data.shape[0]} integrations but {len(times)} times")
    with UVH5Writer(path, **arguments) as writer:
        for integration, jd in zip(data, times):
            writer.append(integration, jd)
    return os.fspath(path)
