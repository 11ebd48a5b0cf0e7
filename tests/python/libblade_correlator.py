# SPDX-License-Identifier: MIT
"""The correlator of the C core (libblade) through ctypes, for checks that must not
depend on the GNU Radio bindings: libblade is a plain C library, so Python can call
blade_correlator_create/process/destroy directly on numpy arrays (CPU device).

The library is $BLADE_LIBRARY, else build/lib/core/libblade.so of this tree;
load() returns None when neither exists (the callers skip)."""

import ctypes

import numpy

from libblade_ctypes import Device, Shape, Tensor, library_path, open_library  # noqa: F401

# enum values of include/blade/dtype.h and status.h
CI8, CF32 = 1, 4
OK = 0


class Config(ctypes.Structure):
    _fields_ = [
        ("input_type", ctypes.c_int),
        ("integration", ctypes.c_int64),
        ("channel_integration", ctypes.c_int64),
        ("path", ctypes.c_int),
        ("operand_scale", ctypes.c_float),
        ("lower_sideband", ctypes.c_bool),
    ]


def load():
    """The library, or None if it is not built."""
    lib = open_library()
    if lib is None:
        return None
    lib.blade_correlator_config_default.restype = Config
    lib.blade_correlator_create.argtypes = [
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(Config),
        ctypes.POINTER(Shape),
        Device,
    ]
    lib.blade_correlator_output_shape.restype = Shape
    lib.blade_correlator_output_shape.argtypes = [ctypes.c_void_p]
    lib.blade_correlator_steps.restype = ctypes.c_int64
    lib.blade_correlator_steps.argtypes = [ctypes.c_void_p]
    lib.blade_correlator_process.argtypes = [
        ctypes.c_void_p,
        ctypes.POINTER(Tensor),
        ctypes.POINTER(Tensor),
        ctypes.c_void_p,
    ]
    lib.blade_correlator_destroy.argtypes = [ctypes.c_void_p]
    lib.blade_last_error.restype = ctypes.c_char_p
    return lib


class CoreError(RuntimeError):
    pass


def correlate(lib, chunks, integration, channel_integration=1, lower_sideband=False):
    """
    The C CPU path on chunks [n, A, F, T, P] complex64, or [n, A, F, T, P, 2] int8
    (ci8). Returns the output chunks [n_out, B, F/Fc, T/I (or 1), P*P] complex64.
    """
    chunks = numpy.ascontiguousarray(chunks)
    ci8 = chunks.dtype == numpy.int8
    if not ci8 and chunks.dtype != numpy.complex64:
        raise TypeError(f"chunks must be complex64 or int8 (ci8), given {chunks.dtype}")
    n, a, f, t, p = chunks.shape[:5]
    config = lib.blade_correlator_config_default()
    config.input_type = CI8 if ci8 else CF32
    config.integration = integration
    config.channel_integration = channel_integration
    config.lower_sideband = lower_sideband
    shape = lib.blade_shape_aftp(a, f, t, p)
    plan = ctypes.c_void_p()
    device = lib.blade_device_cpu()
    if lib.blade_correlator_create(ctypes.byref(plan), ctypes.byref(config), ctypes.byref(shape), device) != OK:
        raise CoreError(lib.blade_last_error().decode())
    try:
        out_shape = lib.blade_correlator_output_shape(plan)
        steps = lib.blade_correlator_steps(plan)
        dims = tuple(out_shape.dims[k] for k in range(out_shape.rank))
        outputs = numpy.zeros((n // steps,) + dims, numpy.complex64)
        for c in range(n // steps * steps):
            source = Tensor(config.input_type, shape, device, chunks[c].ctypes.data)
            target = Tensor(CF32, out_shape, device, outputs[c // steps].ctypes.data)
            if lib.blade_correlator_process(plan, ctypes.byref(source), ctypes.byref(target), None) != OK:
                raise CoreError(lib.blade_last_error().decode())
        return outputs
    finally:
        lib.blade_correlator_destroy(plan)
