# SPDX-License-Identifier: MIT
"""
Cast: element-wise type conversion (include/blade/modules/cast.h).

    y = convert(x)    real part to real part, imaginary to imaginary, no scaling

Floating-point outputs keep the value (to f16/cf16 rounded to nearest even); integer
outputs round to nearest (ties to even) and saturate (int8: -128..127, ci4: -8..7);
NaN becomes 0 in integers. Complex types cast among {ci4, ci8, ci16, cf16, cf32},
real among {f16, f32, f64}; complex to real is refused.
"""

import ctypes

from . import _arrays, _core
from ._plan import Operand, Plan, cached, call_cached, function, parse_device, where_of


class _Config(ctypes.Structure):
    # scale: 0 (left out here) means 1, no scaling
    _fields_ = [("input_type", ctypes.c_int), ("output_type", ctypes.c_int), ("scale", ctypes.c_float)]


def _type(name, what):
    name = str(name).lower()
    if name not in _core.DTYPE_CODES:
        raise ValueError(f"cast: unknown {what} {name!r}; expected one of {', '.join(_core.DTYPE_NAMES)}")
    return name


class Cast(Plan):
    """A cast plan: `Cast("cf32")(x)` converts x (its type read from the array, or
    `input_type=` for float16 pairs held as cf16) to cf32, into `out=` or a new array
    of x's library. With `shape=` the plan is made now (`input_type` then required)."""

    module = "cast"
    _destroy_name = "blade_cast_destroy"

    def __init__(self, output_type, input_type=None, shape=None, device="cpu"):
        super().__init__()
        self.output_type = _type(output_type, "output type")
        self.input_type = None if input_type is None else _type(input_type, "input type")
        self._process = function("blade_cast_process")
        if shape is not None:
            if self.input_type is None:
                raise ValueError("cast: planning with shape= needs input_type=")
            self._plan_for(self.input_type, tuple(shape), parse_device(device))

    def _plan_for(self, input_type, shape, where):
        config = _Config(_core.DTYPE_CODES[input_type], _core.DTYPE_CODES[self.output_type])
        self._make("blade_cast_create", config, shape, where)
        self.input_type = input_type
        self._input = Operand("input", input_type, shape, where)
        self._output = Operand("output", self.output_type, shape, where)

    def _plan(self, v):
        input_type, shape = _arrays.blade_type(v.dtype, v.shape, self.input_type, "cast: input")
        self._plan_for(input_type, shape, where_of(v))

    def __call__(self, x, out=None, stream=None):
        return self._call1(x, out, stream)


def cast(x, output_type, input_type=None, out=None, stream=None):
    """Convert `x` to `output_type` ("cf32", "ci8", "f16", ...); see the module
    description. Returns `out` or a new array of x's library on x's device."""
    return call_cached(("cast", output_type, input_type), x, "cast: input", _plan_for, out, stream)


def _plan_for(v, output_type, input_type):
    input_type, shape = _arrays.blade_type(v.dtype, v.shape, input_type, "cast: input")
    where = where_of(v)
    return cached(
        ("cast", input_type, str(output_type).lower(), shape, where),
        lambda: Cast(output_type, input_type, shape, where),
    )
