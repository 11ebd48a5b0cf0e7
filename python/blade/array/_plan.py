# SPDX-License-Identifier: MIT
"""
The machinery every module object shares: a core plan made once (for one input shape,
element type and device), tensor descriptors prepared once, and per call only the
checks of the caller's arrays, their pointers written into the descriptors and one
ctypes call (no copies: the core reads and writes the caller's memory).

A plan is made either when the object is created with `shape=` (and `device=`), or
lazily on the first call, for that call's array; later calls must then bring arrays of
the same shape, type and device (a clear error says what differs).
"""

import ctypes
import threading

import numpy

from . import _arrays, _core

_CPU = (_arrays.CPU, 0)

_declared = {}


def function(name, restype=ctypes.c_int, argtypes=None):
    """A core function with its result (and optionally argument) types declared."""
    f = _declared.get(name)
    if f is None:
        f = getattr(_core.library(), name)
        f.restype = restype
        if argtypes is not None:
            f.argtypes = argtypes
        _declared[name] = f
    return f


def parse_device(device):
    """ "cpu", "cuda", "cuda:N" (or a (kind, index) pair) -> (kind, index)."""
    if isinstance(device, tuple):
        return device
    text = str(device).lower()
    if text == "cpu":
        return (_arrays.CPU, 0)
    if text == "cuda":
        return (_arrays.CUDA, 0)
    if text.startswith("cuda:") and text[5:].isdigit():
        return (_arrays.CUDA, int(text[5:]))
    raise ValueError(f"device: expected 'cpu', 'cuda' or 'cuda:N'; got {device!r}")


def device_name(where):
    return "cpu" if where[0] == _arrays.CPU else f"cuda:{where[1]}"


class Operand:
    """One tensor argument of a plan: its descriptor (filled once) and what the
    caller's array must be (numpy dtype and shape, the device)."""

    __slots__ = ("name", "tensor", "ref", "blade_type", "dtype", "shape")

    def __init__(self, name, blade_type, shape, where):
        self.name = name
        self.blade_type = blade_type
        self.dtype, self.shape = _arrays.array_shape(blade_type, shape)
        self.tensor = _core.Tensor()
        self.tensor.dtype = _core.DTYPE_CODES[blade_type]
        self.tensor.shape = _core.make_shape(shape)
        self.tensor.device.kind, self.tensor.device.index = where
        self.ref = ctypes.byref(self.tensor)

    def tensor_shape(self):
        return _core.shape_tuple(self.tensor.shape)

    def bind(self, array, where, module, writable=False):
        """Check the caller's array and point the descriptor at it; returns its View."""
        v = _arrays.view(array, f"{module}: {self.name}")
        if writable and v.family == "numpy" and not array.flags.writeable:
            raise ValueError(f"{module}: {self.name} is a read-only array")
        self.accept(v, where, module)
        return v

    def accept(self, v, where, module):
        if v.dtype != self.dtype or v.shape != self.shape:
            raise ValueError(
                f"{module}: {self.name} must be {self.dtype} of shape {self.shape} "
                f"({self.blade_type} {list(self.tensor_shape())}); got {v.dtype} of shape {tuple(v.shape)}"
            )
        if (v.kind, v.index if v.kind else 0) != where:
            raise ValueError(f"{module}: {self.name} is on {v.where()}, the plan on {device_name(where)}")
        self.tensor.data = v.ptr

    def bind_numpy(self, array):
        """The fast path of bind() for a numpy array on a CPU plan: True when it fits
        (False: let bind() say what is wrong)."""
        dtype = array.dtype
        if (dtype is self.dtype or dtype == self.dtype) and array.shape == self.shape and array.flags.c_contiguous:
            self.tensor.data = _arrays.numpy_pointer(array)
            return True
        return False

    def output(self, out, like, where, module):
        """The caller's `out` checked and bound, or a new array like `like`."""
        if out is None:
            if like.family == "numpy":  # made here as planned: no checks needed
                out = numpy.empty(self.shape, self.dtype)
                self.tensor.data = _arrays.numpy_pointer(out)
                return out
            out = _arrays.empty_like(like, self.shape, self.dtype)
        elif type(out) is numpy.ndarray and where == _CPU and out.flags.writeable and self.bind_numpy(out):
            return out
        self.bind(out, where, module, writable=True)
        return out


class Plan:
    """Base of the module objects. Subclasses set `module` (the name in messages),
    `_destroy_name`, and implement `_create(view_or_spec)`."""

    module = "module"
    _destroy_name = None

    def __init__(self):
        self._handle = ctypes.c_void_p()
        self._where = None
        self._lock = threading.Lock()

    @property
    def planned(self):
        """True once the core plan exists."""
        return bool(self._handle)

    @property
    def device(self):
        """The plan's device ("cpu", "cuda:0"), or None before it is planned."""
        return None if self._where is None else device_name(self._where)

    def _make(self, create_name, config, input_shape, where, *extra_shapes, family="numpy"):
        """Call blade_X_create(&handle, &config, &shape[, &shape2], device)."""
        device = _core.Device(where[0], where[1])
        create = function(create_name)
        shapes = [ctypes.byref(_core.make_shape(s)) for s in (input_shape,) + extra_shapes]
        _core.check(create(ctypes.byref(self._handle), ctypes.byref(config), *shapes, device), self.module)
        self._where = where
        self._place = _arrays.Place(family if where[0] == _arrays.CUDA else "numpy", where[0], where[1])

    def _shape_of(self, name):
        return _core.shape_tuple(function(name, _core.Shape, [ctypes.c_void_p])(self._handle))

    def _ensure(self, v):
        """Plan for the first call's array (subclasses: `_plan(view)`)."""
        if not self._handle:
            with self._lock:
                if not self._handle:
                    self._plan(v)

    def _call1(self, x, out, stream):
        """__call__ of the one-input, one-output modules; numpy arrays on a planned
        CPU plan take the short path (no View objects)."""
        numpy_array = numpy.ndarray
        if type(x) is numpy_array and self._where == _CPU and stream is None and self._input.bind_numpy(x):
            if out is None:
                out = numpy.empty(self._output.shape, self._output.dtype)
                self._output.tensor.data = _arrays.numpy_pointer(out)
            elif not (type(out) is numpy_array and out.flags.writeable and self._output.bind_numpy(out)):
                self._output.bind(out, self._where, self.module, writable=True)
            status = self._process(self._handle, self._input.ref, self._output.ref, None)
            if status:
                _core.check(status, self.module)
            return out
        v = _arrays.view(x, f"{self.module}: input")
        self._ensure(v)
        return self._run1(v, out, stream)

    def _run1(self, v, out, stream):
        """One input, one output: the common process(plan, &in, &out, stream) call."""
        self._input.accept(v, self._where, self.module)
        result = self._output.output(out, v, self._where, self.module)
        status = self._process(self._handle, self._input.ref, self._output.ref, self._stream(stream, v))
        if status:
            _core.check(status, self.module)
        return result

    def _stream(self, stream, like):
        handle = _arrays.stream_handle(stream, like)
        return None if handle is None else ctypes.c_void_p(handle)

    def close(self):
        """Release the core plan now (otherwise when the object is collected)."""
        if self._handle and self._destroy_name:
            function(self._destroy_name, None, [ctypes.c_void_p])(self._handle)
        self._handle = ctypes.c_void_p()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_cache = threading.local()


def cached(key, factory):
    """A plan per thread for `key` (the functional API's plans: made once per shape,
    type, device and configuration, reused by later calls with the same)."""
    plans = getattr(_cache, "plans", None)
    if plans is None:
        plans = _cache.plans = {}
    plan = plans.get(key)
    if plan is None:
        if len(plans) >= 64:  # a bound, not a policy: forget the oldest
            plans.pop(next(iter(plans))).close()
        plan = plans[key] = factory()
    return plan


def clear_cache():
    """Release the functional API's cached plans of this thread."""
    plans = getattr(_cache, "plans", {})
    for plan in plans.values():
        plan.close()
    plans.clear()


def parse_name(parse_function, text, module, what):
    """An enum from its name through the core's parser (whose error names the accepted
    names); an int is taken as the enum value itself."""
    if isinstance(text, int):
        return text
    value = ctypes.c_int()
    status = function(parse_function)(str(text).encode(), ctypes.byref(value))
    _core.check(status, f"{module}: {what}")
    return value.value


def where_of(v):
    return (v.kind, v.index if v.kind else 0)
