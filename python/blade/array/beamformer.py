# SPDX-License-Identifier: MIT
"""
Beamformer: weighted sums of antenna voltages (include/blade/modules/beamformer.h).

For voltages x [A, F, T, P] (cf32; cf16 as float16 [A, F, T, P, 2]; ci8 as int8
[A, F, T, P, 2]) and phasors
w [B, A, F, 1, P] (cf32; or [B, A]: one weight per beam and antenna):

    y[b, f, t, p] = sum_a x[a, f, t, p] w[b, a, f, 0, p]          (no conjugation)

summed over a in increasing order in float32, into y [B, F, T, P] (cf32, or cf16 as
float16 [..., 2]). With incoherent=True a beam B is appended:
sum_a |w[0, a, f, 0, p]|^2 |x[a, f, t, p]|^2 in the real part (its square root with
incoherent_sqrt=True). On a GPU `path` picks fp32 CUDA cores, tf32 or tf32x3 tensor
cores, or fp16 tensor cores (operands rounded to half, float32 sums; ~2^-11 of
sum |x||w|) ("auto": tf32x3 for A, B >= 32 and T >= 64, else fp32; never fp16); the
CPU computes fp32, and emulates fp16 (operands rounded to half) when asked.
"""

import ctypes

import numpy

from . import _arrays, _core
from ._plan import Operand, Plan, cached, function, parse_device, parse_name, remember, remembered, where_of


class _Config(ctypes.Structure):
    _fields_ = [
        ("input_type", ctypes.c_int),
        ("output_type", ctypes.c_int),
        ("incoherent", ctypes.c_bool),
        ("incoherent_sqrt", ctypes.c_bool),
        ("path", ctypes.c_int),
        ("kernel", ctypes.c_int),
    ]


def _voltage_type(v):
    """Blade type and shape of a voltage array: float16 pairs are cf16 (voltages are never real)."""
    asked = "cf16" if v.dtype == numpy.float16 else None
    return _arrays.blade_type(v.dtype, v.shape, asked, "beamformer: voltages")


class Beamformer(Plan):
    """A beamformer plan: `Beamformer()(x, phasors)` -> beams [B (+1), F, T, P]."""

    module = "beamformer"
    _destroy_name = "blade_beamformer_destroy"

    def __init__(
        self,
        incoherent=False,
        incoherent_sqrt=False,
        output_type="cf32",
        path="auto",
        kernel="default",
        shape=None,
        phasor_shape=None,
        input_type="cf32",
        device="cpu",
    ):
        super().__init__()
        self.incoherent, self.incoherent_sqrt = bool(incoherent), bool(incoherent_sqrt)
        self.output_type = str(output_type).lower()
        if self.output_type not in ("cf32", "cf16"):
            raise ValueError(f"beamformer: output_type must be cf32 or cf16; got {output_type!r}")
        self.path = parse_name("blade_beamformer_path_parse", path, self.module, "path")
        self.kernel = parse_name("blade_beamformer_kernel_parse", kernel, self.module, "kernel")
        self._process = function("blade_beamformer_process")
        if shape is not None:
            if phasor_shape is None:
                raise ValueError("beamformer: planning with shape= needs phasor_shape=")
            self._plan_for(str(input_type).lower(), tuple(shape), tuple(phasor_shape), parse_device(device))

    def _plan_for(self, input_type, shape, phasor_shape, where):
        if input_type not in ("cf32", "cf16", "ci8"):
            raise TypeError(
                "beamformer: voltages must be cf32 (complex64), cf16 (float16 pairs) or ci8 (int8 pairs); "
                f"got {input_type}"
            )
        config = _Config(
            _core.DTYPE_CODES[input_type],
            _core.DTYPE_CODES[self.output_type],
            self.incoherent,
            self.incoherent_sqrt,
            self.path,
            self.kernel,
        )
        self._make("blade_beamformer_create", config, shape, where, phasor_shape)
        self._input = Operand("voltages", input_type, shape, where)
        self._phasors = Operand("phasors", "cf32", phasor_shape, where)
        self._output = Operand("output", self.output_type, self._shape_of("blade_beamformer_output_shape"), where)

    @property
    def output_shape(self):
        return self._output.tensor_shape() if self.planned else None

    @property
    def path_used(self):
        """The path the plan computes with ("fp32" on the CPU, or "fp16" emulated)."""
        code = function("blade_beamformer_path_used", ctypes.c_int, [ctypes.c_void_p])(self._handle)
        return function("blade_beamformer_path_name", ctypes.c_char_p, [ctypes.c_int])(code).decode()

    def __call__(self, x, phasors, out=None, stream=None):
        """Beamform chunk `x` with `phasors` (same device, same library)."""
        known = self._known_input(x)
        if known is not None:
            return self._fast2(known[0], known[1], x, phasors, out, stream)
        return self._full(x, phasors, out, stream)

    def _fast2(self, family, pointer, x, phasors, out, stream, got=None):
        """The call on voltages already checked (at `pointer`, of `family`): the
        phasors (`got`: as their fast reader gave them) and output through their
        fast readers, else the full path."""
        where = self._where
        if got is None:
            kind = _arrays.FAMILIES[type(phasors)]
            got = None if kind is None else kind.read(phasors)
        operand = self._phasors
        if got is None or got[1:] != operand.signature:
            return self._full(x, phasors, out, stream)
        operand.tensor.data = got[0]
        self._input.tensor.data = pointer
        result = self._output.fill(out, family, where)
        if result is None:
            return self._full(x, phasors, out, stream)
        status = self._process(
            self._handle, self._input.ref, operand.ref, self._output.ref, family.stream(stream, where)
        )
        if status:
            _core.check(status, self.module)
        return result

    def _full(self, x, phasors, out, stream):
        v = _arrays.view(x, "beamformer: voltages")
        w = _arrays.view(phasors, "beamformer: phasors")
        if not self._handle:
            with self._lock:
                if not self._handle:
                    input_type, shape = _voltage_type(v)
                    phasor_shape = _arrays.blade_type(w.dtype, w.shape, "cf32", "beamformer: phasors")[1]
                    self._plan_for(input_type, shape, phasor_shape, where_of(v))
        self._phasors.accept(w, self._where, self.module)
        self._input.accept(v, self._where, self.module)
        result = self._output.output(out, v, self._where, self.module)
        status = self._process(
            self._handle, self._input.ref, self._phasors.ref, self._output.ref, self._stream(stream, v)
        )
        if status:
            _core.check(status, self.module)
        return result


def beamform(
    x, phasors, incoherent=False, incoherent_sqrt=False, output_type="cf32", path="auto", out=None, stream=None
):
    """Beams of chunk x (see the module description): y[b, f, t, p] = sum_a x[a, f, t, p] w[b, a, f, 0, p]."""
    # the cached plan for these arguments and both arrays' shapes, types and devices,
    # found with one lookup (see _plan.call_cached); on a miss, every check
    family, kind = _arrays.FAMILIES[type(x)], _arrays.FAMILIES[type(phasors)]
    got = None if family is None else family.read(x)
    weights = None if kind is None else kind.read(phasors)
    if got is not None and weights is not None:
        key = ("beamformer", incoherent, incoherent_sqrt, output_type, path) + got[1:] + weights[1:]
        plan = remembered(key)
        if plan is None:
            plan = _plan_for(x, phasors, incoherent, incoherent_sqrt, output_type, path)
            remember(key, plan)
        return plan._fast2(family, got[0], x, phasors, out, stream, weights)
    plan = _plan_for(x, phasors, incoherent, incoherent_sqrt, output_type, path)
    return plan._full(x, phasors, out, stream)


def _plan_for(x, phasors, incoherent, incoherent_sqrt, output_type, path):
    v = _arrays.view(x, "beamformer: voltages")
    w = _arrays.view(phasors, "beamformer: phasors")
    input_type, shape = _voltage_type(v)
    phasor_shape = _arrays.blade_type(w.dtype, w.shape, "cf32", "beamformer: phasors")[1]
    where = where_of(v)
    path_code = parse_name("blade_beamformer_path_parse", path, "beamformer", "path")
    key = (
        "beamformer",
        input_type,
        shape,
        phasor_shape,
        bool(incoherent),
        bool(incoherent_sqrt),
        str(output_type).lower(),
        path_code,
        where,
    )
    return cached(
        key,
        lambda: Beamformer(
            incoherent, incoherent_sqrt, output_type, path_code, "default", shape, phasor_shape, input_type, where
        ),
    )
