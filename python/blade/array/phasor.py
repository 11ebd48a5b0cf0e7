# SPDX-License-Identifier: MIT
"""
Phasors: beamforming delays [B, A] and phasors [B, A, F, 1, P] for one step (a chunk
at one time) (include/blade/modules/phasor.h).

Delays (seconds): in geometry mode delay[b, a] = tau_a(beam b) - tau_a(boresight),
tau_a(dir) = (W_a(dir) - W_ref(dir)) / c with W the projection of antenna a's ECEF
position (relative to the array reference) on the observed direction (ERFA
astrometry; the data are taken as phased to the boresight, the reference antenna's
delay is 0). In table mode the delays of a table (a BFR5 recipe's /delayinfo) are
interpolated to the step's time. Then

    phasor[b, a, f, 0, p] = cal[a, f, p] exp(-2 pi i delay[b, a] nu_f)

nu_f the sky frequency of channel f's centre (freq_first + f chan_bw), cal the
calibration of f's coarse channel (1 without a table); exp(+2 pi i ...) when chan_bw
< 0. Computed in double precision on the CPU, stored as cf32, uploaded to a GPU output
on the stream. A beamformer computes sum_a x w (no conjugation).
"""

import ctypes

import numpy

from . import _arrays, _core
from ._plan import Operand, Plan, function, parse_device

_NAME = 72


class _Observation(ctypes.Structure):
    _fields_ = [
        ("unix_start", ctypes.c_double),
        ("tsamp", ctypes.c_double),
        ("freq_first", ctypes.c_double),
        ("chan_bw", ctypes.c_double),
        ("nchan", ctypes.c_int64),
        ("nfpc", ctypes.c_int64),
        ("coarse_first", ctypes.c_int64),
        ("dut1", ctypes.c_double),
        ("ra", ctypes.c_double),
        ("dec", ctypes.c_double),
        ("has_position", ctypes.c_bool),
        ("az", ctypes.c_double),
        ("za", ctypes.c_double),
        ("has_horizontal", ctypes.c_bool),
        ("source_name", ctypes.c_char * _NAME),
        ("telescope", ctypes.c_char * _NAME),
    ]


class _DelayTable(ctypes.Structure):
    _fields_ = [
        ("times", ctypes.c_int64),
        ("unix_times", ctypes.c_void_p),
        ("delays", ctypes.c_void_p),
        ("rates", ctypes.c_void_p),
    ]


class _Config(ctypes.Structure):
    _fields_ = [
        ("longitude", ctypes.c_double),
        ("latitude", ctypes.c_double),
        ("altitude", ctypes.c_double),
        ("antennas", ctypes.c_int64),
        ("antenna_positions", ctypes.c_void_p),
        ("reference_antenna", ctypes.c_int64),
        ("boresight_ra", ctypes.c_double),
        ("boresight_dec", ctypes.c_double),
        ("beams", ctypes.c_int64),
        ("beam_ra", ctypes.c_void_p),
        ("beam_dec", ctypes.c_void_p),
        ("observation", _Observation),
        ("polarizations", ctypes.c_int64),
        ("calibration", ctypes.c_void_p),
        ("calibration_channels", ctypes.c_int64),
        ("calibration_first_channel", ctypes.c_int64),
        ("delay_mode", ctypes.c_int),
        ("absolute_delays", ctypes.c_bool),
        ("table", _DelayTable),
    ]


def _doubles(values, shape, what):
    array = numpy.ascontiguousarray(values, dtype=numpy.float64)
    if shape is not None and array.shape != shape:
        raise ValueError(f"phasor: {what} must have shape {shape}; got {array.shape}")
    return array


class Phasors(Plan):
    """Delays and phasors over time for B beams and A antennas.

    Frequencies: freq_first (Hz, centre of channel 0), chan_bw (Hz, negative for a
    lower sideband), nchan (F), nfpc (fine channels per coarse channel, after a
    channelizer), coarse_first (absolute index of channel 0's coarse channel).
    Geometry mode: reference (longitude, latitude [rad], altitude [m]), antenna_positions
    [A, 3] ECEF metres, boresight (ra, dec) and beams [(ra, dec), ...] in radians (ICRS).
    Table mode: delay_table=(unix_times [n], delays [n, B, A] s[, rates [n, B, A]]),
    interpolated linearly (or "rates": nearest row + rate x offset).
    calibration: complex [A, C, P] for coarse channels calibration_first_channel ... + C - 1.
    Call `phasors(unix_time)` for the phasor tensor (numpy, or on `device`/`like`'s GPU).
    """

    module = "phasor"
    _destroy_name = "blade_phasor_destroy"

    def __init__(
        self,
        *,
        freq_first,
        chan_bw,
        nchan,
        nfpc=1,
        coarse_first=0,
        polarizations=2,
        antennas=None,
        beams=None,
        reference=(0.0, 0.0, 0.0),
        antenna_positions=None,
        reference_antenna=0,
        boresight=(0.0, 0.0),
        beam_directions=None,
        absolute_delays=False,
        delay_table=None,
        interpolation="linear",
        calibration=None,
        calibration_first_channel=0,
        device="cpu",
    ):
        super().__init__()
        config = _Config()
        config.longitude, config.latitude, config.altitude = (float(v) for v in reference)
        keep = []
        if delay_table is None:
            positions = _doubles(antenna_positions, None, "antenna_positions")
            if positions.ndim != 2 or positions.shape[1] != 3:
                raise ValueError(f"phasor: antenna_positions must be [A, 3] ECEF metres; got shape {positions.shape}")
            directions = _doubles(beam_directions, None, "beam_directions").reshape(-1, 2)
            antennas, beams = positions.shape[0], directions.shape[0]
            ra, dec = numpy.ascontiguousarray(directions[:, 0]), numpy.ascontiguousarray(directions[:, 1])
            keep += [positions, ra, dec]
            config.antenna_positions = positions.ctypes.data
            config.beam_ra, config.beam_dec = ra.ctypes.data, dec.ctypes.data
            config.delay_mode = 0
        else:
            times = _doubles(delay_table[0], None, "delay table times").reshape(-1)
            delays = _doubles(delay_table[1], None, "delay table delays")
            if delays.ndim != 3 or delays.shape[0] != times.size:
                raise ValueError(f"phasor: table delays must be [{times.size}, B, A]; got shape {delays.shape}")
            beams, antennas = delays.shape[1], delays.shape[2]
            rates = _doubles(delay_table[2], delays.shape, "table rates") if len(delay_table) > 2 else None
            keep += [times, delays, rates]
            config.table = _DelayTable(
                times.size, times.ctypes.data, delays.ctypes.data, None if rates is None else rates.ctypes.data
            )
            modes = {"linear": 1, "rates": 2}
            if interpolation not in modes:
                raise ValueError(f"phasor: interpolation must be 'linear' or 'rates'; got {interpolation!r}")
            config.delay_mode = modes[interpolation]
        config.antennas, config.beams = int(antennas), int(beams)
        config.reference_antenna = int(reference_antenna)
        config.boresight_ra, config.boresight_dec = (float(v) for v in boresight)
        config.absolute_delays = bool(absolute_delays)
        observation = config.observation
        observation.freq_first, observation.chan_bw = float(freq_first), float(chan_bw)
        observation.nchan, observation.nfpc, observation.coarse_first = int(nchan), int(nfpc), int(coarse_first)
        observation.tsamp = 1.0
        config.polarizations = int(polarizations)
        if calibration is not None:
            table = numpy.asarray(calibration, dtype=numpy.complex128)
            if table.ndim != 3 or table.shape[0] != antennas or table.shape[2] != polarizations:
                raise ValueError(
                    f"phasor: calibration must be complex [A={antennas}, channels, P={polarizations}]; "
                    f"got {table.shape}"
                )
            table = numpy.ascontiguousarray(table)
            keep.append(table)
            config.calibration = table.ctypes.data
            config.calibration_channels = table.shape[1]
            config.calibration_first_channel = int(calibration_first_channel)
        where = parse_device(device)
        create = function("blade_phasor_create")
        _core.check(create(ctypes.byref(self._handle), ctypes.byref(config), _core.Device(*where)), self.module)
        self._where = where
        shape = self._shape_of("blade_phasor_output_shape")
        self.shape = shape
        self.beams, self.antennas = int(beams), int(antennas)
        self._output = Operand("phasors", "cf32", shape, where)
        self._delays = numpy.empty((self.beams, self.antennas))
        self._compute = function("blade_phasor_compute")
        self._compute.argtypes = [
            ctypes.c_void_p,
            ctypes.c_double,
            ctypes.c_double,
            ctypes.c_void_p,
            ctypes.POINTER(_core.Tensor),
            ctypes.c_void_p,
        ]

    def delays(self, unix_time, dut1=0.0):
        """Delays [B, A] in seconds at `unix_time` (UTC unix seconds), UT1 - UTC = dut1."""
        delays = numpy.empty((self.beams, self.antennas))
        f = function(
            "blade_phasor_delays", ctypes.c_int, [ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_void_p]
        )
        _core.check(f(self._handle, float(unix_time), float(dut1), delays.ctypes.data), self.module)
        return delays

    def __call__(self, unix_time, dut1=0.0, out=None, like=None, stream=None):
        """Phasors [B, A, F, 1, P] cf32 at `unix_time`, into `out`, or a new array like
        `like` (an array of the library and device wanted), or of the plan's device.
        `last_delays` keeps the delays used."""
        if out is not None:
            place = _arrays.view(out, "phasor: out")
        elif like is not None:
            place = _arrays.view(like, "phasor: like")
        else:
            place = _arrays.Place("numpy" if self._where[0] == _arrays.CPU else "other", *self._where)
        result = self._output.output(out, place, self._where, self.module)
        handle = _arrays.stream_handle(stream, _arrays.view(result, "phasor: out"))
        status = self._compute(
            self._handle, float(unix_time), float(dut1), self._delays.ctypes.data, self._output.ref, handle
        )
        _core.check(status, self.module)
        self.last_delays = self._delays.copy()
        return result

    def set_beams(self, beam_directions):
        """New beam directions [(ra, dec), ...] (geometry mode; same count)."""
        directions = _doubles(beam_directions, None, "beam_directions").reshape(-1, 2)
        ra, dec = numpy.ascontiguousarray(directions[:, 0]), numpy.ascontiguousarray(directions[:, 1])
        f = function(
            "blade_phasor_set_beams", ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
        )
        _core.check(f(self._handle, directions.shape[0], ra.ctypes.data, dec.ctypes.data), self.module)

    def set_calibration(self, calibration, first_channel=0):
        """New calibration: complex [A, channels, P] for coarse channels first_channel ...
        (None: all ones). Refused, the plan unchanged, if it does not cover the band."""
        f = function(
            "blade_phasor_set_calibration",
            ctypes.c_int,
            [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64],
        )
        if calibration is None:
            _core.check(f(self._handle, None, 0, int(first_channel)), self.module)
            return
        table = numpy.ascontiguousarray(calibration, dtype=numpy.complex128)
        if table.ndim != 3 or table.shape[0] != self.antennas:
            raise ValueError(f"phasor: calibration must be complex [A={self.antennas}, channels, P]; got {table.shape}")
        _core.check(f(self._handle, table.ctypes.data, table.shape[1], int(first_channel)), self.module)

    def set_boresight(self, ra, dec):
        """New boresight direction (geometry mode)."""
        f = function("blade_phasor_set_boresight", ctypes.c_int, [ctypes.c_void_p, ctypes.c_double, ctypes.c_double])
        _core.check(f(self._handle, float(ra), float(dec)), self.module)
