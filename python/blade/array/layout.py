# SPDX-License-Identifier: MIT
"""
Data movement: permute (numpy.transpose), gather (numpy.concatenate of M chunks) and
duplicate (independent copies), for any element type, bit for bit
(include/blade/modules/permutation.h, gather.h, duplicate.h).

    permute(x, axes)[i0, i1, ...] = x[j] with j[axes[k]] = ik     (numpy.transpose)
    gather([c0, ..., c(M-1)], axis) = numpy.concatenate([c0, ..., c(M-1)], axis)
    duplicate(x, n) = [copy of x] * n
"""

import ctypes

from . import _arrays, _core
from ._plan import Operand, Plan, cached, call_cached, function, parse_device, where_of

MAX_RANK = _core.MAX_RANK


class _PermutationConfig(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("naxes", ctypes.c_int), ("axes", ctypes.c_int * MAX_RANK)]


class _GatherConfig(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("axis", ctypes.c_int), ("multiplier", ctypes.c_int64)]


class _DuplicateConfig(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("copies", ctypes.c_int)]


def _typed(v, dtype, what):
    return _arrays.blade_type(v.dtype, v.shape, dtype, what)


class Permutation(Plan):
    """`Permutation(axes)(x)`: numpy.transpose(x, axes) into a new C-contiguous array
    (axes of the tensor: a trailing pair axis of ci8/ci16/cf16 stays last)."""

    module = "permutation"
    _destroy_name = "blade_permutation_destroy"

    def __init__(self, axes, dtype=None, shape=None, device="cpu"):
        super().__init__()
        self.axes = tuple(int(a) for a in axes)
        self.dtype = dtype
        self._process = function("blade_permutation_process")
        if shape is not None:
            if dtype is None:
                raise ValueError("permutation: planning with shape= needs dtype=")
            self._plan_for(dtype, tuple(shape), parse_device(device))

    def _plan_for(self, dtype, shape, where):
        if len(self.axes) > MAX_RANK:
            raise ValueError(f"permutation: at most {MAX_RANK} axes; got {len(self.axes)}")
        axes = (ctypes.c_int * MAX_RANK)(*self.axes)
        config = _PermutationConfig(_core.DTYPE_CODES[dtype], len(self.axes), axes)
        self._make("blade_permutation_create", config, shape, where)
        self.dtype = dtype
        self._input = Operand("input", dtype, shape, where)
        self._output = Operand("output", dtype, self._shape_of("blade_permutation_output_shape"), where)

    def _plan(self, v):
        dtype, shape = _typed(v, self.dtype, "permutation: input")
        self._plan_for(dtype, shape, where_of(v))

    def __call__(self, x, out=None, stream=None):
        return self._call1(x, out, stream)


def permute(x, axes, dtype=None, out=None, stream=None):
    """numpy.transpose(x, axes), written densely (see the module description)."""
    if type(axes) is not tuple:
        axes = tuple(axes)
    return call_cached(("permutation", axes, dtype), x, "permutation: input", _permutation_plan, out, stream)


def _permutation_plan(v, axes, dtype):
    dtype, shape = _typed(v, dtype, "permutation: input")
    where, axes = where_of(v), tuple(int(a) for a in axes)
    return cached(("permutation", dtype, axes, shape, where), lambda: Permutation(axes, dtype, shape, where))


class Gather(Plan):
    """M consecutive chunks into one along `axis`: call it once per chunk; the call
    that completes the group returns the output (the others None)."""

    module = "gather"
    _destroy_name = "blade_gather_destroy"

    def __init__(self, axis, multiplier, dtype=None, shape=None, device="cpu"):
        super().__init__()
        self.axis, self.multiplier, self.dtype = int(axis), int(multiplier), dtype
        self.position = 0
        self._pending = None
        self._process = function("blade_gather_process")
        if shape is not None:
            if dtype is None:
                raise ValueError("gather: planning with shape= needs dtype=")
            self._plan_for(dtype, tuple(shape), parse_device(device))

    def _plan_for(self, dtype, shape, where):
        self._make(
            "blade_gather_create", _GatherConfig(_core.DTYPE_CODES[dtype], self.axis, self.multiplier), shape, where
        )
        self.dtype = dtype
        self._input = Operand("input", dtype, shape, where)
        self._output = Operand("output", dtype, self._shape_of("blade_gather_output_shape"), where)

    def _plan(self, v):
        dtype, shape = _typed(v, self.dtype, "gather: input")
        self._plan_for(dtype, shape, where_of(v))

    def reset(self):
        """Start a new group (the next chunk is step 0)."""
        self.position, self._pending = 0, None

    def __call__(self, x, out=None, stream=None):
        """Place chunk `x` at the next step; returns the output after step M-1. `out`
        (given on the group's first step, and optionally again on the later ones) is
        where the group is written."""
        v = _arrays.view(x, "gather: input")
        self._ensure(v)
        self._input.accept(v, self._where, self.module)
        if out is not None and self._pending is not None and out is not self._pending:
            raise ValueError(f"gather: out changed at step {self.position} of a group (give it on step 0, or reset())")
        if self._pending is None:
            self._pending = self._output.output(out, v, self._where, self.module)
        else:
            self._output.bind(self._pending, self._where, self.module)
        step = self.position
        status = self._process(
            self._handle, self._input.ref, ctypes.c_int64(step), self._output.ref, self._stream(stream, v)
        )
        _core.check(status, self.module)
        self.position = step + 1
        if self.position < self.multiplier:
            return None
        result, self.position, self._pending = self._pending, 0, None
        return result


def gather(chunks, axis, dtype=None, out=None, stream=None):
    """numpy.concatenate(chunks, axis) for M chunks of one shape (see the module description)."""
    chunks = list(chunks)
    if not chunks:
        raise ValueError("gather: no chunks")
    v = _arrays.view(chunks[0], "gather: input")
    dtype, shape = _typed(v, dtype, "gather: input")
    where = where_of(v)
    plan = cached(
        ("gather", dtype, int(axis), len(chunks), shape, where), lambda: Gather(axis, len(chunks), dtype, shape, where)
    )
    plan.reset()
    result = None
    for chunk in chunks:
        result = plan(chunk, out=out, stream=stream)
        out = None
    return result


class Duplicate(Plan):
    """`Duplicate(copies)(x)`: a list of `copies` independent copies of x (the input
    read once; `out=` a list of arrays to write into)."""

    module = "duplicate"
    _destroy_name = "blade_duplicate_destroy"

    def __init__(self, copies=2, dtype=None, shape=None, device="cpu"):
        super().__init__()
        self.copies, self.dtype = int(copies), dtype
        self._process = function("blade_duplicate_process")
        if shape is not None:
            if dtype is None:
                raise ValueError("duplicate: planning with shape= needs dtype=")
            self._plan_for(dtype, tuple(shape), parse_device(device))

    def _plan_for(self, dtype, shape, where):
        self._make("blade_duplicate_create", _DuplicateConfig(_core.DTYPE_CODES[dtype], self.copies), shape, where)
        self.dtype = dtype
        self._input = Operand("input", dtype, shape, where)
        self._outputs = [Operand(f"output {i}", dtype, shape, where) for i in range(self.copies)]
        self._array = (_core.Tensor * self.copies)()

    def _plan(self, v):
        dtype, shape = _typed(v, self.dtype, "duplicate: input")
        self._plan_for(dtype, shape, where_of(v))

    def __call__(self, x, out=None, stream=None):
        v = _arrays.view(x, "duplicate: input")
        self._ensure(v)
        self._input.accept(v, self._where, self.module)
        if out is not None and len(out) != self.copies:
            raise ValueError(f"duplicate: out must hold {self.copies} arrays; got {len(out)}")
        results = []
        for i, operand in enumerate(self._outputs):
            results.append(operand.output(None if out is None else out[i], v, self._where, self.module))
            self._array[i] = operand.tensor
        status = self._process(
            self._handle, self._input.ref, self._array, ctypes.c_int(self.copies), self._stream(stream, v)
        )
        _core.check(status, self.module)
        return results


def duplicate(x, copies=2, dtype=None, out=None, stream=None):
    """`copies` independent copies of x, as a list."""
    v = _arrays.view(x, "duplicate: input")
    dtype, shape = _typed(v, dtype, "duplicate: input")
    where = where_of(v)
    plan = cached(("duplicate", dtype, int(copies), shape, where), lambda: Duplicate(copies, dtype, shape, where))
    return plan(x, out=out, stream=stream)
