# SPDX-License-Identifier: MIT
"""
Polarizer: linear (X, Y) to circular polarization (include/blade/modules/polarizer.h).

For cf32 voltages whose last axis holds X (index 0) and Y (index 1):

    out[..., 0] = X + i Y    (L)
    out[..., 1] = X - i Y    (R)

with no 1/sqrt(2): |L|^2 + |R|^2 = 2 (|X|^2 + |Y|^2). The linear basis is a copy.
`out` may be the input itself (in place).
"""

import ctypes

from . import _arrays
from ._plan import Operand, Plan, cached, call_cached, function, parse_device, parse_name, where_of


class _Config(ctypes.Structure):
    _fields_ = [("output_basis", ctypes.c_int)]


class Polarizer(Plan):
    """A polarizer plan for cf32 arrays [..., 2]: `Polarizer("circular")(x, out=None)`."""

    module = "polarizer"
    _destroy_name = "blade_polarizer_destroy"

    def __init__(self, basis="circular", shape=None, device="cpu"):
        super().__init__()
        self.basis = parse_name("blade_basis_parse", basis, self.module, "basis")
        self._process = function("blade_polarizer_process")
        if shape is not None:
            self._plan_for(tuple(shape), parse_device(device))

    def _plan_for(self, shape, where):
        self._make("blade_polarizer_create", _Config(self.basis), shape, where)
        self._input = Operand("input", "cf32", shape, where)
        self._output = Operand("output", "cf32", shape, where)

    def _plan(self, v):
        self._plan_for(_arrays.blade_type(v.dtype, v.shape, "cf32", "polarizer: input")[1], where_of(v))

    def __call__(self, x, out=None, stream=None):
        return self._call1(x, out, stream)


def polarize(x, basis="circular", out=None, stream=None):
    """Convert cf32 voltages [..., 2] (X, Y) to `basis` (see the module description)."""
    return call_cached(("polarizer", basis), x, "polarizer: input", _plan_for, out, stream)


def _plan_for(v, basis):
    shape = _arrays.blade_type(v.dtype, v.shape, "cf32", "polarizer: input")[1]
    where = where_of(v)
    return cached(("polarizer", str(basis).lower(), shape, where), lambda: Polarizer(basis, shape, where))
