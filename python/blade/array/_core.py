# SPDX-License-Identifier: MIT
"""
libblade, the C core, through ctypes: the shared structures of include/blade/tensor.h
and device.h declared field for field, the library found and opened once, and the
status-to-exception mapping every module of this package uses.

The library is, in this order: $BLADE_LIBRARY; the build tree's lib/core/libblade.so
when this package is the copy in a build tree's test_modules; the installed libblade
(found by the dynamic linker's cache); "libblade.so" on the default search path.
ctypes releases the GIL while a core function runs.
"""

import ctypes
import ctypes.util
import os
import threading

MAX_RANK = 5

# blade_dtype (include/blade/dtype.h), in enum order
DTYPE_NAMES = ("ci4", "ci8", "ci16", "cf16", "cf32", "cf64", "f16", "f32", "f64")
DTYPE_CODES = {name: code for code, name in enumerate(DTYPE_NAMES)}

# blade_device_kind
DEVICE_CPU, DEVICE_CUDA, DEVICE_EMULATED = 0, 1, 2

# blade_status
STATUS_NAMES = (
    "ok",
    "invalid argument",
    "unsupported",
    "out of memory",
    "no device",
    "device error",
    "I/O error",
    "format error",
    "end of data",
)


class Shape(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int), ("dims", ctypes.c_int64 * MAX_RANK)]


class Device(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("index", ctypes.c_int)]


class Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("shape", Shape), ("device", Device), ("data", ctypes.c_void_p)]


class BladeError(RuntimeError):
    """A failure reported by the C core: `status` is its blade_status name, the
    message the core's (what was expected and what was given)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class BladeValueError(BladeError, ValueError):
    """The core refused a shape, type or parameter (BLADE_ERROR_INVALID_ARGUMENT)."""


class BladeUnsupportedError(BladeError, NotImplementedError):
    """A valid request that this build or device cannot do (UNSUPPORTED, NO_DEVICE)."""


def make_shape(dims):
    shape = Shape()
    shape.rank = len(dims)
    for i, extent in enumerate(dims):
        shape.dims[i] = int(extent)
    return shape


def shape_tuple(shape):
    return tuple(shape.dims[i] for i in range(shape.rank))


def _candidate_paths():
    explicit = os.environ.get("BLADE_LIBRARY")
    if explicit:
        return [explicit]
    here = os.path.dirname(os.path.abspath(__file__))
    # build/test_modules/gnuradio/blade/array -> build/lib/core/libblade.so
    build_tree = os.path.normpath(os.path.join(here, "..", "..", "..", "..", "lib", "core", "libblade.so"))
    paths = [build_tree] if os.path.exists(build_tree) else []
    found = ctypes.util.find_library("blade")
    if found:
        paths.append(found)
    paths.append("libblade.so")
    return paths


_lock = threading.Lock()
_library = None


def library():
    """The opened libblade with the functions this package calls typed (opened once)."""
    global _library
    if _library is None:
        with _lock:
            if _library is None:
                _library = _open()
    return _library


def _open():
    errors = []
    for path in _candidate_paths():
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as error:
            errors.append(f"{path}: {error}")
    else:
        raise ImportError(
            "libblade (gr-blade's C core) not found; set BLADE_LIBRARY to its path (" + "; ".join(errors) + ")"
        )
    _declare(lib)
    return lib


P = ctypes.POINTER
VOIDP = ctypes.c_void_p
I64 = ctypes.c_int64
INT = ctypes.c_int
DBL = ctypes.c_double
BOOL = ctypes.c_bool


def _declare(lib):
    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = list(argtypes)

    fn("blade_last_error", ctypes.c_char_p)
    fn("blade_has_cuda_backend", BOOL)
    fn("blade_gpu_count", INT)
    fn("blade_shape_format", ctypes.c_char_p, P(Shape), ctypes.c_char_p, ctypes.c_size_t)
    fn("blade_stream_synchronize", INT, Device, VOIDP)
    fn("blade_copy_stats_get", None, VOIDP)
    fn("blade_copy_stats_reset", None)


def last_error():
    message = library().blade_last_error()
    return message.decode("utf-8", "replace") if message else ""


def check(status, context=None):
    """Raise the exception of a failed core call (with the core's message)."""
    if status == 0:
        return
    name = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else f"status {status}"
    message = last_error() or name
    if context and not message.startswith(context):
        message = f"{context}: {message}"
    if status == 1:
        raise BladeValueError(name, message)
    if status in (2, 4):
        raise BladeUnsupportedError(name, message)
    if status == 3:
        raise MemoryError(message)
    raise BladeError(name, message)


class _CopyStats(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint64 * 4), ("bytes", ctypes.c_uint64 * 4)]


COPY_KINDS = ("host_to_host", "host_to_device", "device_to_host", "device_to_device")


def copy_stats(reset=False):
    """The core's process-wide copy counters (every host/device transfer it makes goes
    through blade_memcpy and is counted): {kind: (copies, bytes)}; `reset` zeroes them
    afterwards. The modules' own work (kernels) is not counted: a GPU call on caller's
    arrays that made no transfer leaves host_to_device and device_to_host unchanged."""
    lib = library()
    stats = _CopyStats()
    lib.blade_copy_stats_get(ctypes.byref(stats))
    if reset:
        lib.blade_copy_stats_reset()
    return {name: (stats.count[i], stats.bytes[i]) for i, name in enumerate(COPY_KINDS)}


def has_cuda():
    """True when libblade was built with its CUDA backend."""
    return bool(library().blade_has_cuda_backend())


def gpu_count():
    return int(library().blade_gpu_count())
