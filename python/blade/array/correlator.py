# SPDX-License-Identifier: MIT
"""
Correlator, the X of an FX correlator (include/blade/modules/correlator.h).

Input x [A, F, T, P] (cf32, or ci8 as int8 [..., 2]), output cf32 [B, F/Fc, T/I, P*P]
with B = A(A+1)/2 baselines (i <= j, row by row of the upper triangle: (0,0), (0,1),
..., (0,A-1), (1,1), ...):

    V[b(i, j), g, tau, p*P + q] = sum_{c<Fc} sum_{t=tau*I}^{tau*I+I-1} x[i, g*Fc + c, t, p] conj(x[j, g*Fc + c, t, q])

products XX, XY, YX, YY for P = 2; conjugated with lower_sideband. When I is a
multiple K of T, K consecutive calls of a Correlator make one output [B, F/Fc, 1, P*P]
(the first K-1 return None). The CPU sums in double precision; on a GPU `path`
"fp32" (auto) or "fp16" (tensor cores, operands scaled by operand_scale).
"""

import ctypes

from . import _arrays, _core
from ._plan import Operand, Plan, cached, call_cached, function, parse_device, parse_name, where_of


class _Config(ctypes.Structure):
    _fields_ = [
        ("input_type", ctypes.c_int),
        ("integration", ctypes.c_int64),
        ("channel_integration", ctypes.c_int64),
        ("path", ctypes.c_int),
        ("operand_scale", ctypes.c_float),
        ("lower_sideband", ctypes.c_bool),
    ]


def baseline_index(antennas, i, j):
    """Index of baseline (i, j), i <= j, in the output (-1 outside)."""
    f = function("blade_correlator_baseline_index", ctypes.c_int64, [ctypes.c_int64] * 3)
    return int(f(antennas, i, j))


class Correlator(Plan):
    """A correlator plan, stateful when the integration spans chunks."""

    module = "correlator"
    _destroy_name = "blade_correlator_destroy"

    def __init__(
        self,
        integration=1,
        channel_integration=1,
        path="auto",
        operand_scale=0.0,
        lower_sideband=False,
        shape=None,
        input_type="cf32",
        device="cpu",
    ):
        super().__init__()
        self.integration, self.channel_integration = int(integration), int(channel_integration)
        self.path = parse_name("blade_correlator_path_parse", path, self.module, "path")
        self.operand_scale, self.lower_sideband = float(operand_scale), bool(lower_sideband)
        self._process = function("blade_correlator_process")
        if shape is not None:
            self._plan_for(str(input_type).lower(), tuple(shape), parse_device(device))

    def _plan_for(self, input_type, shape, where):
        if input_type not in ("cf32", "ci8"):
            raise TypeError(f"correlator: voltages must be cf32 (complex64) or ci8 (int8 pairs); got {input_type}")
        config = _Config(
            _core.DTYPE_CODES[input_type],
            self.integration,
            self.channel_integration,
            self.path,
            self.operand_scale,
            self.lower_sideband,
        )
        self._make("blade_correlator_create", config, shape, where)
        self._input = Operand("voltages", input_type, shape, where)
        self._output = Operand("output", "cf32", self._shape_of("blade_correlator_output_shape"), where)
        self.steps = int(function("blade_correlator_steps", ctypes.c_int64, [ctypes.c_void_p])(self._handle))

    def _plan(self, v):
        input_type, shape = _arrays.blade_type(v.dtype, v.shape, None, "correlator: voltages")
        self._plan_for(input_type, shape, where_of(v))

    @property
    def position(self):
        """Step (0 ... K-1) of the next call in its group."""
        return int(function("blade_correlator_position", ctypes.c_int64, [ctypes.c_void_p])(self._handle))

    def reset(self):
        """Start a new group: the next call is step 0."""
        self._pending = None
        if self.planned:
            function("blade_correlator_reset", None, [ctypes.c_void_p])(self._handle)

    _pending = None

    def _run_bound(self, v, stream):
        last = self.position == self.steps - 1
        self._input.accept(v, self._where, self.module)
        _core.check(
            self._process(self._handle, self._input.ref, self._output.ref, self._stream(stream, v)), self.module
        )
        if not last:
            return None
        result, self._pending = self._pending, None
        return result

    def __call__(self, x, out=None, stream=None):
        """Correlate chunk `x`; returns the visibilities, or None on a step that ends no group."""
        if self._handle and self.steps == 1:
            return self._call1(x, out, stream)
        v = _arrays.view(x, "correlator: voltages")
        self._ensure(v)
        if self.steps == 1:
            return self._run1(v, out, stream)
        # the group's output is bound on its first step (the core writes it on the last)
        if out is not None or self._pending is None:
            self._pending = self._output.output(out, v, self._where, self.module)
        else:
            self._output.bind(self._pending, self._where, self.module)
        return self._run_bound(v, stream)


def correlate(x, integration=1, channel_integration=1, path="auto", lower_sideband=False, out=None, stream=None):
    """Visibilities of one chunk (see the module description); the integration must
    divide T (a Correlator object integrates across chunks)."""
    config = ("correlator", integration, channel_integration, path, lower_sideband)
    return call_cached(config, x, "correlator: voltages", _plan_for, out, stream)


def _plan_for(v, integration, channel_integration, path, lower_sideband):
    input_type, shape = _arrays.blade_type(v.dtype, v.shape, None, "correlator: voltages")
    if len(shape) == 4 and int(integration) > shape[2]:
        raise ValueError(
            f"correlator: integration {integration} is longer than the chunk's T = {shape[2]}: "
            "integrate across chunks with a Correlator object"
        )
    where = where_of(v)
    path_code = parse_name("blade_correlator_path_parse", path, "correlator", "path")
    key = (
        "correlator",
        input_type,
        shape,
        int(integration),
        int(channel_integration),
        path_code,
        bool(lower_sideband),
        where,
    )
    return cached(
        key,
        lambda: Correlator(integration, channel_integration, path_code, 0.0, lower_sideband, shape, input_type, where),
    )
