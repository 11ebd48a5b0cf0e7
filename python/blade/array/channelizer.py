# SPDX-License-Identifier: MIT
"""
Channelizer: every coarse channel into N fine channels, optionally through a
polyphase filterbank (include/blade/modules/channelizer.h, where the prototype
filter's design is given in full).

Input x: cf32 [A, F, T, P], N divides T. Output y: cf32 [A, F*N, T/N, P].
With taps M = 1 (plain FFT):

    y[a, f*N + k, s, p] = sum_{n=0}^{N-1} x[a, f, s*N + n, p] (-1)^n exp(-2 pi i k n / N)

(fine channel k centred at (k - N/2)/N of the coarse width: DC at k = N/2). With
M >= 2 a prototype low-pass h of M*N taps (window x sinc, -3 dB at the channel edges,
sum h = N) weights the M*N samples ending with block s:

    y[a, f*N + k, s, p] = sum_n (-1)^n exp(-2 pi i k n / N)
                          sum_{m=0}^{M-1} h[m*N + n] xs[a, f, (s - M + 1 + m)*N + n, p]

where xs continues across calls: the Channelizer object keeps the last (M-1)*N
samples of each (a, f, p) as history (zeros before the first call and after reset()).
The function channelize() starts from zero history every call.
"""

import ctypes

import numpy

from . import _arrays, _core
from ._plan import Operand, Plan, cached, call_cached, function, parse_device, parse_name, where_of


class _Config(ctypes.Structure):
    _fields_ = [
        ("input_type", ctypes.c_int),
        ("output_type", ctypes.c_int),
        ("rate", ctypes.c_int64),
        ("taps", ctypes.c_int),
        ("window", ctypes.c_int),
        ("kernel", ctypes.c_int),
    ]


class Channelizer(Plan):
    """A channelizer plan (stateful with taps >= 2: call it on consecutive chunks of
    one stream). `Channelizer(rate=8, taps=4, window="hamming")(x)` -> [A, F*8, T/8, P]."""

    module = "channelizer"
    _destroy_name = "blade_channelizer_destroy"

    def __init__(self, rate, taps=1, window="hamming", shape=None, device="cpu"):
        super().__init__()
        self.rate, self.taps = int(rate), int(taps)
        self.window = parse_name("blade_channelizer_window_parse", window, self.module, "window")
        self._process = function("blade_channelizer_process")
        if shape is not None:
            self._plan_for(tuple(shape), parse_device(device))

    def _plan_for(self, shape, where, family="numpy"):
        config = _Config(4, 4, self.rate, self.taps, self.window, 0)  # 4 = BLADE_CF32
        self._make("blade_channelizer_create", config, shape, where, family=family)
        self._input = Operand("input", "cf32", shape, where)
        self._output = Operand("output", "cf32", self._shape_of("blade_channelizer_output_shape"), where)

    def _plan(self, v):
        self._plan_for(_arrays.blade_type(v.dtype, v.shape, "cf32", "channelizer: input")[1], where_of(v), v.family)

    @property
    def output_shape(self):
        """[A, F*N, T/N, P] (once planned)."""
        return self._output.tensor_shape() if self.planned else None

    def __call__(self, x, out=None, stream=None):
        """Channelize the next chunk `x` (cf32 [A, F, T, P]) into `out` or a new array."""
        return self._call1(x, out, stream)

    # the function's plans: every call starts from zero history, reset on the
    # stream the call then uses
    _zero_history = False

    def _fast1(self, family, pointer, x, out, stream):
        if self._zero_history:
            self._reset_on(family.stream(stream, self._where))
        return Plan._fast1(self, family, pointer, x, out, stream)

    def _run1(self, v, out, stream):
        if self._zero_history:
            self._reset_on(self._stream(stream, v))
        return Plan._run1(self, v, out, stream)

    def _reset_on(self, handle):
        _core.check(function("blade_channelizer_reset")(self._handle, handle), self.module)

    def reset(self, stream=None):
        """Forget the polyphase history (zeros, as before the first chunk), on
        `stream` or the current stream of the library of the plan's first array."""
        if self.planned:
            handle = self._stream(stream, self._place)
            _core.check(function("blade_channelizer_reset")(self._handle, handle), self.module)


def prototype(rate, taps, window="hamming"):
    """The prototype filter h (taps*rate float64 values, sum h = rate) as the core
    computes it (rate ones for taps = 1)."""
    h = numpy.empty(int(rate) * int(taps))
    window = parse_name("blade_channelizer_window_parse", window, "channelizer", "window")
    f = function(
        "blade_channelizer_prototype", ctypes.c_int, [ctypes.c_int64, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    )
    _core.check(f(int(rate), int(taps), window, h.ctypes.data), "channelizer")
    return h


def channelize(x, rate, taps=1, window="hamming", out=None, stream=None):
    """Channelize one chunk x (cf32 [A, F, T, P]) by `rate` N (see the module
    description); with taps >= 2 the history before x is zeros. Returns [A, F*N, T/N, P]."""
    return call_cached(("channelizer", rate, taps, window), x, "channelizer: input", _plan_for, out, stream)


def _plan_for(v, rate, taps, window):
    shape = _arrays.blade_type(v.dtype, v.shape, "cf32", "channelizer: input")[1]
    where = where_of(v)
    window_code = parse_name("blade_channelizer_window_parse", window, "channelizer", "window")
    plan = cached(
        ("channelizer", int(rate), int(taps), window_code, shape, where),
        lambda: Channelizer(rate, taps, window_code, shape, where),
    )
    plan._zero_history = plan.taps > 1
    return plan
