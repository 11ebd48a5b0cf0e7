# SPDX-License-Identifier: MIT
"""
A stand-in for CuPy on a machine without a GPU, to time gr-blade's array layer on the
path that CuPy arrays take (per_call.py): host numpy memory posing as a CuPy array,
with the attributes, allocator, device and current stream that gnuradio.blade.array
reads from CuPy. Pure Python, so each of its attribute reads costs more than CuPy's
own; it times the layer, not CuPy. Never on the tests' import path.
"""

import numpy


class _Memory:
    __slots__ = ("ptr", "device_id")

    def __init__(self, ptr, device_id=0):
        self.ptr, self.device_id = ptr, device_id


class _Flags:
    __slots__ = ("c_contiguous",)

    def __init__(self, c_contiguous):
        self.c_contiguous = c_contiguous


class ndarray:
    _c_contiguous = True  # CuPy's is a read-only attribute of its array class

    def __init__(self, shape, dtype=float, memptr=None, _host=None):
        self._host = numpy.empty(shape, dtype) if _host is None else _host
        self._c_contiguous = self._host.flags.c_contiguous
        self.data = _Memory(self._host.ctypes.data, 0)
        self.dtype = self._host.dtype

    @property
    def shape(self):
        return self._host.shape

    @property
    def flags(self):
        return _Flags(self._c_contiguous)

    @property
    def device(self):
        return cuda.Device(self.data.device_id)


def empty(shape, dtype=float):
    return ndarray(shape, dtype)


def asarray(host):
    return ndarray(None, _host=numpy.ascontiguousarray(host))


class _Stream:
    def __init__(self, ptr=0):
        self.ptr = ptr

    def synchronize(self):
        pass


class _Runtime:
    @staticmethod
    def getDevice():
        return 0


class cuda:
    MemoryPointer = _Memory
    runtime = _Runtime()
    _stream = _Stream(0)

    class Device:
        def __init__(self, index=0):
            self.id = index

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    @staticmethod
    def get_current_stream(index=None):
        return cuda._stream
