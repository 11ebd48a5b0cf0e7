# SPDX-License-Identifier: MIT
"""
Detector: voltages to power, summed over I time samples (include/blade/modules/detector.h).

Input cf32 [A, F, T, P] (X at p = 0, Y at p = 1; P = 1 for mode I). Output f32
[A, F, T/I, Pout], with sums over t = tau*I ... tau*I + I - 1:

    I      Pout 1   sum(|X|^2 + |Y|^2)
    XXYY   Pout 2   sum |X|^2, sum |Y|^2
    cross  Pout 4   sum |X|^2, sum |Y|^2, sum Re(X Y*), sum Im(X Y*)
    IQUV   Pout 4   I = XX + YY, Q = XX - YY, U = 2 Re(X Y*), V = -2 Im(X Y*)

(lower_sideband negates Im(X Y*)). When I is a multiple K of T, K consecutive calls
of a Detector object make one output [A, F, 1, Pout]: the first K-1 return None.
"""

import ctypes

from . import _arrays
from ._plan import Operand, GroupedPlan, cached, call_cached, function, parse_device, parse_name, where_of


class _Config(ctypes.Structure):
    # scale: 0 (left out here) means 1
    _fields_ = [
        ("mode", ctypes.c_int),
        ("integration", ctypes.c_int64),
        ("lower_sideband", ctypes.c_bool),
        ("scale", ctypes.c_float),
    ]


class Detector(GroupedPlan):
    """A detector plan, stateful when the integration spans chunks."""

    module = "detector"
    _input_role = "input"
    _destroy_name = "blade_detector_destroy"

    def __init__(self, mode="I", integration=1, lower_sideband=False, shape=None, device="cpu"):
        super().__init__()
        self.mode = parse_name("blade_detector_mode_parse", mode, self.module, "mode")
        self.integration, self.lower_sideband = int(integration), bool(lower_sideband)
        self._process = function("blade_detector_process")
        if shape is not None:
            self._plan_for(tuple(shape), parse_device(device))

    def _plan_for(self, shape, where):
        self._make("blade_detector_create", _Config(self.mode, self.integration, self.lower_sideband), shape, where)
        self._input = Operand("input", "cf32", shape, where)
        self._output = Operand("output", "f32", self._shape_of("blade_detector_output_shape"), where)
        self.steps = int(function("blade_detector_steps", ctypes.c_int64, [ctypes.c_void_p])(self._handle))

    def _plan(self, v):
        self._plan_for(_arrays.blade_type(v.dtype, v.shape, "cf32", "detector: input")[1], where_of(v))


def detect(x, mode="I", integration=1, lower_sideband=False, out=None, stream=None):
    """Power of one chunk (see the module description); the integration must divide T
    (use a Detector object to integrate across chunks)."""
    return call_cached(("detector", mode, integration, lower_sideband), x, "detector: input", _plan_for, out, stream)


def _plan_for(v, mode, integration, lower_sideband):
    shape = _arrays.blade_type(v.dtype, v.shape, "cf32", "detector: input")[1]
    if len(shape) == 4 and int(integration) > shape[2]:
        raise ValueError(
            f"detector: integration {integration} is longer than the chunk's T = {shape[2]}: "
            "integrate across chunks with a Detector object"
        )
    where = where_of(v)
    mode_code = parse_name("blade_detector_mode_parse", mode, "detector", "mode")
    return cached(
        ("detector", mode_code, int(integration), bool(lower_sideband), shape, where),
        lambda: Detector(mode_code, integration, lower_sideband, shape, where),
    )
