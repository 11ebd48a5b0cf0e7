# SPDX-License-Identifier: MIT
"""
libblade (the C core) through ctypes: the structures every module's C API shares
(blade_shape, blade_device, blade_tensor of include/blade/tensor.h and device.h,
declared field for field) and the library itself, for checks that need no GNU
Radio bindings (libblade is a plain C library).

The library is $BLADE_LIBRARY, else build/lib/core/libblade.so of this tree.
"""

import ctypes
import os

MAX_RANK = 5
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Shape(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int), ("dims", ctypes.c_int64 * MAX_RANK)]


class Device(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("index", ctypes.c_int)]


class Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("shape", Shape), ("device", Device), ("data", ctypes.c_void_p)]


def library_path(path=None):
    return path or os.environ.get("BLADE_LIBRARY") or os.path.join(ROOT, "build", "lib", "core", "libblade.so")


def open_library(path=None):
    """The library with its shared functions typed, or None when it is not built."""
    path = library_path(path)
    if not os.path.exists(path):
        return None
    lib = ctypes.CDLL(path)
    lib.blade_last_error.restype = ctypes.c_char_p
    lib.blade_device_cpu.restype = Device
    lib.blade_shape_aftp.restype = Shape
    lib.blade_shape_aftp.argtypes = [ctypes.c_int64] * 4
    return lib
