# SPDX-License-Identifier: MIT
"""
What the core needs to know of a caller's array, without copying it: where its first
element is, on which device, its shape and element type; and how to allocate an
output of the caller's own kind (numpy, CuPy, PyTorch) and find the caller's stream.

Arrays are recognised, in this order, as: numpy.ndarray (host memory, the CPU
backend); cupy.ndarray and torch.Tensor (read through their own attributes, the
fastest way); any object with __cuda_array_interface__ (Numba, JAX, ...); any object
with __dlpack__ (DLPack capsules are read, not consumed: the producer keeps the
memory). Arrays must be C-contiguous (row-major, no gaps): the core's tensors are.

Element types follow gnuradio.blade.tensor: complex64 is cf32, complex128 cf64,
float16/32/64 real f16/f32/f64; the complex integer types have a trailing axis of 2
(real, imaginary): ci8 is int8 [..., 2], ci16 int16 [..., 2], and cf16 float16
[..., 2] when asked for by name (otherwise float16 is real f16); ci4 is one uint8 per
sample (real part in the high nibble).
"""

import ctypes
import sys

import numpy

from . import _core

CPU, CUDA = _core.DEVICE_CPU, _core.DEVICE_CUDA

# numpy type -> blade type (the types that need no trailing axis)
_PLAIN = {
    numpy.dtype(numpy.complex64): "cf32",
    numpy.dtype(numpy.complex128): "cf64",
    numpy.dtype(numpy.float16): "f16",
    numpy.dtype(numpy.float32): "f32",
    numpy.dtype(numpy.float64): "f64",
    numpy.dtype(numpy.uint8): "ci4",
}
# numpy type with a trailing axis of 2 -> blade type
_PAIRED = {numpy.dtype(numpy.int8): "ci8", numpy.dtype(numpy.int16): "ci16", numpy.dtype(numpy.float16): "cf16"}
# blade type -> (numpy type, trailing axis)
LAYOUT = {
    "ci4": (numpy.dtype(numpy.uint8), False),
    "ci8": (numpy.dtype(numpy.int8), True),
    "ci16": (numpy.dtype(numpy.int16), True),
    "cf16": (numpy.dtype(numpy.float16), True),
    "cf32": (numpy.dtype(numpy.complex64), False),
    "cf64": (numpy.dtype(numpy.complex128), False),
    "f16": (numpy.dtype(numpy.float16), False),
    "f32": (numpy.dtype(numpy.float32), False),
    "f64": (numpy.dtype(numpy.float64), False),
}


class Place:
    """Where arrays live and which library makes them, without an array: a plan's
    device for allocating outputs and finding the current stream."""

    __slots__ = ("family", "kind", "index", "array")

    def __init__(self, family, kind, index):
        self.family, self.kind, self.index, self.array = family, kind, index, None


class View:
    """One array as the core sees it. `family` says how to allocate alike:
    "numpy", "cupy", "torch" (torch CPU tensors too), or "other"."""

    __slots__ = ("array", "family", "kind", "index", "ptr", "shape", "dtype", "keep")

    def __init__(self, array, family, kind, index, ptr, shape, dtype, keep=None):
        self.array = array
        self.family = family
        self.kind = kind  # CPU or CUDA
        self.index = index  # CUDA ordinal
        self.ptr = ptr
        self.shape = shape  # numpy-style shape (with any trailing pair axis)
        self.dtype = dtype  # numpy dtype
        self.keep = keep  # what must live as long as the call (a DLPack capsule)

    def where(self):
        return "cpu" if self.kind == CPU else f"cuda:{self.index}"


def blade_type(dtype, shape, asked=None, what="array"):
    """The blade type and tensor shape of an array of numpy `dtype` and `shape`
    (`asked`: a type name the caller gave, to pick cf16 over f16, say)."""
    if asked is not None:
        asked = asked.lower()
        if asked not in LAYOUT:
            raise ValueError(f"{what}: unknown element type {asked!r}; expected one of {', '.join(LAYOUT)}")
        scalar, paired = LAYOUT[asked]
        if dtype != scalar or (paired and (len(shape) < 2 or shape[-1] != 2)):
            layout = f"{scalar} with a trailing axis of 2" if paired else str(scalar)
            raise TypeError(f"{what}: {asked} is held as {layout}; got {dtype} of shape {tuple(shape)}")
        return asked, tuple(shape[:-1]) if paired else tuple(shape)
    name = _PLAIN.get(dtype)
    if dtype in _PAIRED and dtype != numpy.float16:
        if len(shape) < 2 or shape[-1] != 2:
            raise TypeError(
                f"{what}: {dtype} holds {_PAIRED[dtype]} as (real, imaginary) pairs and needs a trailing axis of 2; "
                f"got shape {tuple(shape)}"
            )
        return _PAIRED[dtype], tuple(shape[:-1])
    if name is None:
        raise TypeError(
            f"{what}: element type {dtype} has no gr-blade equivalent (complex64, complex128, float16/32/64, "
            "int8 or int16 pairs, uint8 for ci4)"
        )
    return name, tuple(shape)


def array_shape(name, shape):
    """numpy dtype and shape of an array holding a blade tensor of `shape`."""
    scalar, paired = LAYOUT[name]
    return scalar, (tuple(shape) + (2,)) if paired else tuple(shape)


# --- recognising arrays -------------------------------------------------------------


def _data_offset():
    """Offset of the data pointer in numpy's array object (PyArrayObject_fields: the
    first field after the object header), read directly because
    __array_interface__ builds a dict per call (2 us of a 10 us call); checked here
    against __array_interface__, else None (then that is used)."""
    probe = numpy.arange(3.0)
    expected = probe.__array_interface__["data"][0]
    for offset in (object.__basicsize__, 16):
        if ctypes.c_void_p.from_address(id(probe) + offset).value == expected:
            return offset
    return None


_DATA_OFFSET = _data_offset()
_pointer_at = ctypes.c_void_p.from_address


def numpy_pointer(array):
    """Address of a numpy array's first element."""
    if _DATA_OFFSET is None:
        return array.__array_interface__["data"][0]
    return _pointer_at(id(array) + _DATA_OFFSET).value or 0


_torch_types = None


def _torch_dtypes():
    global _torch_types
    if _torch_types is None:
        import torch

        pairs = [
            (torch.complex64, numpy.complex64),
            (torch.complex128, numpy.complex128),
            (torch.float16, numpy.float16),
            (torch.float32, numpy.float32),
            (torch.float64, numpy.float64),
            (torch.int8, numpy.int8),
            (torch.int16, numpy.int16),
            (torch.uint8, numpy.uint8),
        ]
        _torch_types = ({t: numpy.dtype(n) for t, n in pairs}, {numpy.dtype(n): t for t, n in pairs})
    return _torch_types


def _contiguous_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _not_contiguous(what):
    return ValueError(
        f"{what}: the array is not C-contiguous; the core's tensors are dense and row-major (copy it first)"
    )


def view(array, what="array"):
    """Describe `array` (see the module description) without copying it."""
    cls = type(array)
    family = FAMILIES[cls]
    if family is not None:
        got = family.read(array)
        if got is not None:
            ptr, shape, dtype, where = got
            return View(array, family.name, where[0], where[1], ptr, shape, dtype)
    # not a plain numpy/CuPy/PyTorch array, or one the fast reader declined: the
    # full checks below, which also say what is wrong
    if cls is numpy.ndarray:
        if not array.flags.c_contiguous:
            raise _not_contiguous(what)
        return View(array, "numpy", CPU, 0, numpy_pointer(array), array.shape, array.dtype)
    module = cls.__module__
    if module.startswith("cupy"):
        if not array.flags.c_contiguous:
            raise _not_contiguous(what)
        return View(array, "cupy", CUDA, array.device.id, array.data.ptr, array.shape, array.dtype)
    if module.startswith("torch"):
        to_numpy = _torch_dtypes()[0]
        dtype = to_numpy.get(array.dtype)
        if dtype is None:
            raise TypeError(f"{what}: torch type {array.dtype} has no gr-blade equivalent")
        if not array.is_contiguous():
            raise _not_contiguous(what)
        if array.is_conj() or array.is_neg():  # lazy views: the memory holds the unconjugated values
            raise ValueError(f"{what}: a lazily conjugated or negated tensor; call .resolve_conj() / .resolve_neg()")
        device = array.device
        if device.type == "cuda":
            return View(array, "torch", CUDA, device.index or 0, array.data_ptr(), tuple(array.shape), dtype)
        if device.type == "cpu":
            return View(array, "torch", CPU, 0, array.data_ptr(), tuple(array.shape), dtype)
        raise TypeError(f"{what}: torch device {device} is neither the CPU nor a CUDA GPU")
    # A producer that computes asynchronously (JAX dispatches device_put and every
    # operation without waiting) must have finished writing before the core reads.
    ready = getattr(array, "block_until_ready", None)
    if callable(ready):
        ready()
    try:  # some producers raise other errors than AttributeError for host arrays
        interface = getattr(array, "__cuda_array_interface__", None)
    except Exception:
        interface = None
    if interface is not None:
        return _from_cuda_interface(array, interface, what)
    if hasattr(array, "__dlpack__"):
        return _from_dlpack(array, what)
    if isinstance(array, numpy.ndarray):  # a subclass
        return view(numpy.asarray(array), what)
    raise TypeError(
        f"{what}: expected a numpy, CuPy or PyTorch array (or one with __cuda_array_interface__ or DLPack); "
        f"got {cls.__name__}"
    )


def _device_index(array):
    device = getattr(array, "device", None)
    for attribute in ("id", "index"):
        value = getattr(device, attribute, None)
        if isinstance(value, int):
            return value
    return 0  # the interface does not say: the current device


def _from_cuda_interface(array, interface, what):
    # Version 3 of the interface: "stream" is the producer's stream, on which the data
    # may still be being written; the consumer waits for it (None: nothing to wait for).
    stream = interface.get("stream")
    if stream:
        _core.check(
            _core.library().blade_stream_synchronize(_core.Device(CUDA, _device_index(array)), stream),
            f"{what}: waiting for the producer's stream",
        )
    shape = tuple(interface["shape"])
    dtype = numpy.dtype(interface["typestr"])
    strides = interface.get("strides")
    if strides is not None and tuple(strides) != _contiguous_strides(shape, dtype.itemsize):
        raise _not_contiguous(what)
    return View(array, "other", CUDA, _device_index(array), interface["data"][0], shape, dtype)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_DL_CODES = {0: "i", 1: "u", 2: "f", 5: "c"}  # kDLInt, kDLUInt, kDLFloat, kDLComplex
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _from_dlpack(array, what):
    device_type, device_id = array.__dlpack_device__()
    if device_type in (1, 3):  # kDLCPU, kDLCUDAHost: numpy reads it without a copy
        host = numpy.from_dlpack(array)
        result = view(host, what)
        result.array, result.family = array, "other"
        return result
    if device_type != 2:  # kDLCUDA
        raise TypeError(f"{what}: DLPack device type {device_type} is neither the CPU nor a CUDA GPU")
    capsule = array.__dlpack__()
    # the capsule is read, not consumed: unrenamed, its destructor returns it to the producer
    tensor = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if tensor.dtype.lanes != 1 or tensor.dtype.code not in _DL_CODES:
        raise TypeError(f"{what}: DLPack type code {tensor.dtype.code} has no gr-blade equivalent")
    dtype = numpy.dtype(f"{_DL_CODES[tensor.dtype.code]}{tensor.dtype.bits // 8}")
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    if tensor.strides:
        strides = tuple(tensor.strides[i] * dtype.itemsize for i in range(tensor.ndim))
        if strides != _contiguous_strides(shape, dtype.itemsize):
            raise _not_contiguous(what)
    ptr = (tensor.data or 0) + tensor.byte_offset
    return View(array, "other", CUDA, device_id, ptr, shape, dtype, keep=capsule)


# --- outputs and streams ------------------------------------------------------------


def empty_like(like, shape, dtype):
    """An uninitialised array of `shape` and numpy `dtype` on `like`'s device, of
    `like`'s library (numpy for numpy; CuPy for CuPy; PyTorch for PyTorch; CuPy, else
    PyTorch, for other GPU arrays)."""
    family = like.family
    if family == "numpy" or (family == "other" and like.kind == CPU):
        return numpy.empty(shape, dtype)
    if family == "torch":
        import torch

        device = torch.device("cuda", like.index) if like.kind == CUDA else torch.device("cpu")
        return _torch_empty(shape, dtype, device)
    if family == "cupy" or "cupy" in sys.modules or _importable("cupy"):
        import cupy

        with cupy.cuda.Device(like.index):
            return cupy.empty(shape, dtype)
    if "torch" in sys.modules or _importable("torch"):
        import torch

        return _torch_empty(shape, dtype, torch.device("cuda", like.index))
    raise TypeError("no library to allocate a GPU output with (install CuPy or PyTorch, or pass out=)")


def _torch_empty(shape, dtype, device):
    import torch

    return torch.empty(shape, dtype=_torch_dtypes()[1][numpy.dtype(dtype)], device=device)


def _importable(name):
    import importlib.util

    return importlib.util.find_spec(name) is not None


def stream_handle(stream, like):
    """The cudaStream_t to queue work on, as an int: `stream` when given (an int, a
    CuPy stream, a PyTorch stream or any object with __cuda_stream__), else the
    current stream of the array's library (CuPy, PyTorch), else 0 (the default
    stream). None for host arrays (the CPU backend runs synchronously)."""
    if like.kind == CPU:
        return None
    if stream is None:
        family = FAMILY_NAMED.get(like.family)
        return 0 if family is None else family.current_stream(like.index)
    return given_stream(stream)


def given_stream(stream):
    """A stream given by the caller as an int cudaStream_t."""
    if type(stream) is int:
        return stream
    if isinstance(stream, int):
        return int(stream)
    for attribute in ("ptr", "cuda_stream", "handle"):
        value = getattr(stream, attribute, None)
        if isinstance(value, int):
            return value
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    raise TypeError(f"stream: expected an int (cudaStream_t), a CuPy or PyTorch stream; got {type(stream).__name__}")


_stream_arguments = {}


def stream_argument(handle):
    """`handle` as the core's stream argument (None stays None: the CPU's), one
    ctypes object per stream kept for reuse (a call passes it as it is)."""
    if handle is None:
        return None
    argument = _stream_arguments.get(handle)
    if argument is None:
        if len(_stream_arguments) >= 64:  # a bound: streams come and go
            _stream_arguments.clear()
        argument = _stream_arguments[handle] = ctypes.c_void_p(handle)
    return argument


# --- the fast readers: numpy, CuPy and PyTorch arrays ---------------------------------
#
# A call on a known kind of array reads it through a Family: read() gives
# (pointer, shape, numpy dtype, (kind, index)) for an array the core can take as it is
# (C-contiguous, a type with a gr-blade equivalent, on the CPU or a CUDA GPU), and None
# for anything else, which then goes through view()'s full checks (and their
# messages). The families are found once per Python class (FAMILIES[type(x)]).

_CPU_WHERE = (CPU, 0)


class Family:
    """How one array library's arrays are read, allocated and streamed."""

    name = "other"

    def read(self, array):
        return None

    def empty(self, shape, dtype, where):
        """(array, pointer) of a new uninitialised array of this library at `where`."""
        raise NotImplementedError

    def current_stream(self, index):
        return 0

    def read_out(self, array):
        """read() for an output: None also when the array is read-only."""
        return self.read(array)

    def stream(self, stream, where):
        """The core's stream argument for a call at `where` (see stream_handle)."""
        if where[0] == CPU:
            return None
        return stream_argument(self.current_stream(where[1]) if stream is None else given_stream(stream))


class NumpyFamily(Family):
    name = "numpy"

    def stream(self, stream, where):
        return None

    if _DATA_OFFSET is not None:  # the data pointer read from the array object (numpy_pointer), inlined

        def read(self, array, _offset=_DATA_OFFSET, _at=_pointer_at, _cpu=_CPU_WHERE):
            if array.flags.c_contiguous:
                return (_at(id(array) + _offset).value or 0, array.shape, array.dtype, _cpu)
            return None

        def read_out(self, array, _offset=_DATA_OFFSET, _at=_pointer_at, _cpu=_CPU_WHERE):
            flags = array.flags
            if flags.c_contiguous and flags.writeable:
                return (_at(id(array) + _offset).value or 0, array.shape, array.dtype, _cpu)
            return None

        def empty(self, shape, dtype, where, _empty=numpy.empty, _offset=_DATA_OFFSET, _at=_pointer_at):
            array = _empty(shape, dtype)
            return array, _at(id(array) + _offset).value or 0

    else:

        def read(self, array):
            if array.flags.c_contiguous:
                return (numpy_pointer(array), array.shape, array.dtype, _CPU_WHERE)
            return None

        def read_out(self, array):
            flags = array.flags
            if flags.c_contiguous and flags.writeable:
                return (numpy_pointer(array), array.shape, array.dtype, _CPU_WHERE)
            return None

        def empty(self, shape, dtype, where):
            array = numpy.empty(shape, dtype)
            return array, numpy_pointer(array)


class CupyFamily(Family):
    name = "cupy"

    def __init__(self, cupy):
        self._ndarray = cupy.ndarray
        self._device = cupy.cuda.Device
        self._current_device = cupy.cuda.runtime.getDevice
        self._current_stream = cupy.cuda.get_current_stream
        # CuPy 9 to 13 have both attributes (a CuPy without them: the public ones)
        pointer = getattr(cupy.cuda, "MemoryPointer", None)
        if not (hasattr(cupy.ndarray, "_c_contiguous") and hasattr(pointer, "device_id")):
            self.read = self._read_public
        self.read_out = self.read  # CuPy arrays are writable

    def read(self, array):
        if array._c_contiguous:  # what .flags.c_contiguous reports, without making a flags object
            memory = array.data
            return (memory.ptr, array.shape, array.dtype, (CUDA, memory.device_id))
        return None

    def _read_public(self, array):
        if array.flags.c_contiguous:
            return (array.data.ptr, array.shape, array.dtype, (CUDA, array.device.id))
        return None

    def empty(self, shape, dtype, where):
        index = where[1]
        if self._current_device() == index:  # the usual case: no device switch
            array = self._ndarray(shape, dtype)
        else:
            with self._device(index):
                array = self._ndarray(shape, dtype)
        return array, array.data.ptr

    def current_stream(self, index):
        return self._current_stream(index).ptr

    def stream(self, stream, where):  # Family.stream written out: CuPy arrays are on a GPU
        handle = self._current_stream(where[1]).ptr if stream is None else given_stream(stream)
        argument = _stream_arguments.get(handle)
        return stream_argument(handle) if argument is None else argument


class TorchFamily(Family):
    name = "torch"

    def __init__(self, torch):
        self._torch = torch
        self._to_numpy, self._to_torch = _torch_dtypes()
        self._devices = {}
        # the raw cudaStream_t of the current stream, without making a Stream object
        # (several us in torch.cuda.current_stream); the public call where it is absent
        self._raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.read_out = self.read  # tensors are writable

    def read(self, array):
        dtype = self._to_numpy.get(array.dtype)
        if dtype is None or not array.is_contiguous() or array.is_conj() or array.is_neg():
            return None
        if array.is_cuda:
            where = (CUDA, array.get_device())
        elif array.device.type == "cpu":
            where = _CPU_WHERE
        else:
            return None
        return (array.data_ptr(), array.shape, dtype, where)

    def empty(self, shape, dtype, where):
        device = self._devices.get(where)
        if device is None:
            torch = self._torch
            device = torch.device("cuda", where[1]) if where[0] == CUDA else torch.device("cpu")
            self._devices[where] = device
        array = self._torch.empty(shape, dtype=self._to_torch[dtype], device=device)
        return array, array.data_ptr()

    def current_stream(self, index):
        if self._raw_stream is not None:
            return self._raw_stream(index)
        return self._torch.cuda.current_stream(index).cuda_stream


class _Families(dict):
    """Python class -> its Family (None: read through view()'s full path), decided
    on first sight of the class."""

    def __missing__(self, cls):
        family = None
        module = getattr(cls, "__module__", "") or ""
        if cls is numpy.ndarray:
            family = NUMPY
        elif module.startswith("cupy"):
            cupy = sys.modules.get("cupy")
            if cupy is not None and isinstance(getattr(cupy, "ndarray", None), type) and issubclass(cls, cupy.ndarray):
                family = FAMILY_NAMED.get("cupy") or CupyFamily(cupy)
        elif module.startswith("torch"):
            torch = sys.modules.get("torch")
            if torch is not None and issubclass(cls, torch.Tensor):
                family = FAMILY_NAMED.get("torch") or TorchFamily(torch)
        if family is not None:
            FAMILY_NAMED[family.name] = family
        self[cls] = family
        return family


NUMPY = NumpyFamily()
FAMILY_NAMED = {"numpy": NUMPY}  # family name (View.family, Place.family) -> Family
FAMILIES = _Families()
