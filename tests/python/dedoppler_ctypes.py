# SPDX-License-Identifier: MIT
"""
libblade's dedoppler through ctypes, for checks that need no GNU Radio (the
reference comparison, the turbo_seti comparison). Only the C API of
include/blade/modules/dedoppler.h is used; structures are declared here field for
field.
"""

import ctypes

import numpy

from libblade_ctypes import MAX_RANK, Device, Shape, Tensor, open_library  # noqa: F401


class Config(ctypes.Structure):
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


class Hit(ctypes.Structure):
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


class Geometry(ctypes.Structure):
    _fields_ = [
        ("beams", ctypes.c_int64),
        ("spectra", ctypes.c_int64),
        ("padded_spectra", ctypes.c_int64),
        ("channels", ctypes.c_int64),
        ("coarse_channels", ctypes.c_int64),
        ("drift_count", ctypes.c_int64),
        ("min_drift_index", ctypes.c_int64),
        ("max_drift_index", ctypes.c_int64),
        ("drift_step_hz_per_s", ctypes.c_double),
        ("window", ctypes.c_int64),
        ("drift_blocks", ctypes.c_int64),
    ]


METHODS = {"taylor": 0, "brute_force": 1}
NORMALIZATIONS = {"MAD": 0, "turbo_seti": 1}
F32 = None  # the dtype code, from blade_dtype_parse


def load(path=None):
    """libblade, from `path`, $BLADE_LIBRARY, or the build folder."""
    global F32
    lib = open_library(path)
    if lib is None:
        raise FileNotFoundError(f"libblade is not built (looked for {path or 'build/lib/core/libblade.so'})")
    lib.blade_dedoppler_get_geometry.restype = Geometry
    lib.blade_dedoppler_plane_shape.restype = Shape
    lib.blade_dedoppler_config_default.restype = Config
    code = ctypes.c_int(-1)
    if lib.blade_dtype_parse(b"f32", ctypes.byref(code)) != 0:
        raise RuntimeError(lib.blade_last_error().decode())
    F32 = code.value
    return lib


class Dedoppler:
    """A CPU plan for spectrograms of `shape` ([T, F] or [B, T, F])."""

    def __init__(
        self,
        lib,
        shape,
        foff,
        tsamp,
        nfpc,
        min_drift=0.0,
        max_drift=4.0,
        snr_threshold=10.0,
        method="taylor",
        normalization="MAD",
        blank_dc=False,
        sk_shape=0.0,
        sk_sigmas=0.0,
        capacity=65536,
    ):
        self.lib = lib
        config = lib.blade_dedoppler_config_default()
        config.foff_hz, config.tsamp_s, config.nfpc = foff, tsamp, nfpc
        config.min_drift_hz_per_s, config.max_drift_hz_per_s = min_drift, max_drift
        config.snr_threshold = snr_threshold
        config.method, config.normalization = METHODS[method], NORMALIZATIONS[normalization]
        config.blank_dc, config.sk_shape, config.sk_sigmas = blank_dc, sk_shape, sk_sigmas
        config.hit_capacity = capacity
        self.shape = Shape(len(shape), (ctypes.c_int64 * MAX_RANK)(*shape, *([1] * (MAX_RANK - len(shape)))))
        self.plan = ctypes.c_void_p()
        if (
            lib.blade_dedoppler_create(
                ctypes.byref(self.plan), ctypes.byref(config), ctypes.byref(self.shape), lib.blade_device_cpu()
            )
            != 0
        ):
            raise ValueError(lib.blade_last_error().decode())
        self.geometry = lib.blade_dedoppler_get_geometry(self.plan)
        self.capacity = capacity

    def __del__(self):
        if getattr(self, "plan", None):
            self.lib.blade_dedoppler_destroy(self.plan)

    def drifts(self):
        indices = numpy.zeros(self.geometry.drift_count, dtype=numpy.int64)
        self.lib.blade_dedoppler_drift_indices(self.plan, indices.ctypes.data_as(ctypes.c_void_p))
        return indices

    def _tensor(self, array, shape):
        return Tensor(F32, shape, self.lib.blade_device_cpu(), array.ctypes.data_as(ctypes.c_void_p))

    def integrate(self, spectrogram):
        data = numpy.ascontiguousarray(spectrogram, dtype=numpy.float32)
        plane_shape = self.lib.blade_dedoppler_plane_shape(self.plan)
        plane = numpy.zeros(tuple(plane_shape.dims[: plane_shape.rank]), dtype=numpy.float32)
        source, target = self._tensor(data, self.shape), self._tensor(plane, plane_shape)
        if self.lib.blade_dedoppler_integrate(self.plan, ctypes.byref(source), ctypes.byref(target), None) != 0:
            raise RuntimeError(self.lib.blade_last_error().decode())
        return plane

    def process(self, spectrogram):
        """Hits as a list of dicts, and the dropped count."""
        data = numpy.ascontiguousarray(spectrogram, dtype=numpy.float32)
        hits = (Hit * self.capacity)()
        count, dropped = ctypes.c_int64(), ctypes.c_int64()
        source = self._tensor(data, self.shape)
        if (
            self.lib.blade_dedoppler_process(
                self.plan, ctypes.byref(source), hits, ctypes.byref(count), ctypes.byref(dropped), None
            )
            != 0
        ):
            raise RuntimeError(self.lib.blade_last_error().decode())
        fields = [name for name, _ in Hit._fields_]
        listed = [{name: getattr(hits[i], name) for name in fields} for i in range(count.value)]
        for hit in listed:
            hit["drift_rate"] = hit.pop("drift_rate_hz_per_s")
        return listed, dropped.value

    def statistics(self):
        """Centres [B, C], spreads [B, C] and flags [B, F] of the last call."""
        g = self.geometry
        centres = numpy.zeros((g.beams, g.coarse_channels), dtype=numpy.float32)
        spreads = numpy.zeros_like(centres)
        flags = numpy.zeros((g.beams, g.channels), dtype=numpy.uint8)
        if (
            self.lib.blade_dedoppler_last_statistics(
                self.plan,
                centres.ctypes.data_as(ctypes.c_void_p),
                spreads.ctypes.data_as(ctypes.c_void_p),
                flags.ctypes.data_as(ctypes.c_void_p),
            )
            != 0
        ):
            raise RuntimeError(self.lib.blade_last_error().decode())
        return centres, spreads, flags.astype(bool)
