# SPDX-License-Identifier: MIT
"""
Dedoppler: the narrowband drifting-signal search of turbo_seti and seticore
(include/blade/modules/dedoppler.h, where every rule is given in full).

Input: a float32 spectrogram [T, F] (or [B, T, F], B beams searched independently),
channel f at fch1 + f*foff, spectrum t at t*tsamp, nfpc fine channels per coarse
channel. With T' = T rounded up to a power of two (zero spectra appended), drift
index k is the path from channel f (spectrum 0) to f + k (spectrum T'-1), at

    rate(k) = k foff / ((T' - 1) tsamp)    Hz/s

searched for min_drift <= |rate| <= max_drift. Paths are summed by the Taylor tree
(or exactly, method="brute_force"); SNR = (sum - centre) / spread per beam and coarse
channel (MAD: median and 1.4826 x median absolute deviation of the zero-drift sums;
or turbo_seti's). A start channel is a hit when its best path's SNR exceeds the
threshold and is the largest within +-N = 2 ceil(max_drift / step) channels.
search() returns the hits as a numpy structured array (host memory);
integrate() the path-sum plane [B, D, F] on the input's device.
"""

import ctypes

import numpy

from . import _arrays, _core
from ._plan import Operand, Plan, function, where_of


class _Config(ctypes.Structure):
    _fields_ = [
        ("foff_hz", ctypes.c_double),
        ("tsamp_s", ctypes.c_double),
        ("nfpc", ctypes.c_int64),
        ("min_drift_hz_per_s", ctypes.c_double),
        ("max_drift_hz_per_s", ctypes.c_double),
        ("snr_threshold", ctypes.c_double),
        ("method", ctypes.c_int),
        ("normalization", ctypes.c_int),
        ("blank_dc", ctypes.c_bool),
        ("sk_shape", ctypes.c_double),
        ("sk_sigmas", ctypes.c_double),
        ("hit_capacity", ctypes.c_int64),
    ]


class _Hit(ctypes.Structure):
    _fields_ = [
        ("channel", ctypes.c_int64),
        ("channel_in_coarse", ctypes.c_int64),
        ("coarse_channel", ctypes.c_int64),
        ("beam", ctypes.c_int64),
        ("drift_index", ctypes.c_int64),
        ("drift_rate_hz_per_s", ctypes.c_double),
        ("snr", ctypes.c_float),
        ("path_sum", ctypes.c_float),
    ]


class _Geometry(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_double if name == "drift_step_hz_per_s" else ctypes.c_int64)
        for name in (
            "beams",
            "spectra",
            "padded_spectra",
            "channels",
            "coarse_channels",
            "drift_count",
            "min_drift_index",
            "max_drift_index",
            "drift_step_hz_per_s",
            "window",
            "drift_blocks",
        )
    ]


HIT_DTYPE = numpy.dtype(
    {
        "names": [name for name, _ in _Hit._fields_],
        "formats": ["<i8"] * 5 + ["<f8", "<f4", "<f4"],
        "offsets": [getattr(_Hit, name).offset for name, _ in _Hit._fields_],
        "itemsize": ctypes.sizeof(_Hit),
    }
)

_METHODS = {"taylor": 0, "brute_force": 1, "brute-force": 1}
_NORMALIZATIONS = {"mad": 0, "turbo_seti": 1, "turbo-seti": 1}


def _choice(table, value, what):
    if isinstance(value, int):
        return value
    try:
        return table[str(value).lower()]
    except KeyError:
        raise ValueError(f"dedoppler: unknown {what} {value!r}; expected one of {', '.join(table)}") from None


class Dedoppler(Plan):
    """A search plan for spectrograms of one shape: `Dedoppler(foff, tsamp, nfpc, max_drift=4)`,
    then `.search(s)` (hits) or `.integrate(s)` (the drift plane)."""

    module = "dedoppler"
    _destroy_name = "blade_dedoppler_destroy"

    def __init__(
        self,
        foff,
        tsamp,
        nfpc,
        max_drift=4.0,
        min_drift=0.0,
        snr_threshold=10.0,
        method="taylor",
        normalization="MAD",
        blank_dc=False,
        sk_shape=0.0,
        sk_sigmas=0.0,
        hit_capacity=65536,
    ):
        super().__init__()
        self._config = _Config(
            float(foff),
            float(tsamp),
            int(nfpc),
            float(min_drift),
            float(max_drift),
            float(snr_threshold),
            _choice(_METHODS, method, "method"),
            _choice(_NORMALIZATIONS, normalization, "normalization"),
            bool(blank_dc),
            float(sk_shape),
            float(sk_sigmas),
            int(hit_capacity),
        )

    def _plan(self, v):
        shape = _arrays.blade_type(v.dtype, v.shape, "f32", "dedoppler: spectrogram")[1]
        where = where_of(v)
        self._make("blade_dedoppler_create", self._config, shape, where)
        self._input = Operand("spectrogram", "f32", shape, where)
        self._plane = Operand("plane", "f32", self._shape_of("blade_dedoppler_plane_shape"), where)
        capacity = int(self._config.hit_capacity)
        self._hits = (_Hit * capacity)()
        self._hit_view = numpy.frombuffer(self._hits, dtype=HIT_DTYPE)
        get = function("blade_dedoppler_get_geometry", _Geometry, [ctypes.c_void_p])
        g = get(self._handle)
        self.geometry = {name: getattr(g, name) for name, _ in _Geometry._fields_}

    def drift_indices(self):
        """The drift indices k searched, increasing (the plane's D axis)."""
        indices = numpy.empty(self.geometry["drift_count"], dtype=numpy.int64)
        function("blade_dedoppler_drift_indices", None, [ctypes.c_void_p, ctypes.c_void_p])(
            self._handle, indices.ctypes.data
        )
        return indices

    def drift_rates(self):
        """Drift rate (Hz/s) of each searched index."""
        return self.drift_indices() * self.geometry["drift_step_hz_per_s"]

    def search(self, spectrogram, stream=None):
        """Hits of one spectrogram, a numpy structured array (HIT_DTYPE: channel,
        channel_in_coarse, coarse_channel, beam, drift_index, drift_rate_hz_per_s, snr,
        path_sum), in host memory; `last_dropped` counts those beyond hit_capacity."""
        v = _arrays.view(spectrogram, "dedoppler: spectrogram")
        self._ensure(v)
        self._input.accept(v, self._where, self.module)
        count, dropped = ctypes.c_int64(), ctypes.c_int64()
        status = function("blade_dedoppler_process")(
            self._handle,
            self._input.ref,
            self._hits,
            ctypes.byref(count),
            ctypes.byref(dropped),
            self._stream(stream, v),
        )
        _core.check(status, self.module)
        self.last_dropped = dropped.value
        return self._hit_view[: count.value].copy()

    def integrate(self, spectrogram, out=None, stream=None):
        """The path sums [B, D, F] (NaN where a path leaves the band), on the input's device."""
        v = _arrays.view(spectrogram, "dedoppler: spectrogram")
        self._ensure(v)
        self._input.accept(v, self._where, self.module)
        result = self._plane.output(out, v, self._where, self.module)
        status = function("blade_dedoppler_integrate")(
            self._handle, self._input.ref, self._plane.ref, self._stream(stream, v)
        )
        _core.check(status, self.module)
        return result

    def statistics(self):
        """(centres [B, C], spreads [B, C], flagged [B, F] bool) of the last call."""
        g = self.geometry
        centres = numpy.empty((g["beams"], g["coarse_channels"]), numpy.float32)
        spreads = numpy.empty_like(centres)
        flagged = numpy.empty((g["beams"], g["channels"]), numpy.uint8)
        f = function("blade_dedoppler_last_statistics", ctypes.c_int, [ctypes.c_void_p] * 4)
        _core.check(f(self._handle, centres.ctypes.data, spreads.ctypes.data, flagged.ctypes.data), self.module)
        return centres, spreads, flagged.astype(bool)


def dedoppler(spectrogram, foff, tsamp, nfpc, max_drift=4.0, stream=None, **options):
    """Hits of one spectrogram (see Dedoppler and the module description)."""
    with Dedoppler(foff, tsamp, nfpc, max_drift, **options) as plan:
        return plan.search(spectrogram, stream=stream)
