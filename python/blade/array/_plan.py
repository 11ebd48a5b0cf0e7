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

from . import _arrays, _core

_NUMPY = _arrays.NUMPY

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

    __slots__ = ("name", "tensor", "ref", "blade_type", "dtype", "shape", "signature")

    def __init__(self, name, blade_type, shape, where):
        self.name = name
        self.blade_type = blade_type
        self.dtype, self.shape = _arrays.array_shape(blade_type, shape)
        self.tensor = _core.Tensor()
        self.tensor.dtype = _core.DTYPE_CODES[blade_type]
        self.tensor.shape = _core.make_shape(shape)
        self.tensor.device.kind, self.tensor.device.index = where
        self.ref = ctypes.byref(self.tensor)
        # what a fast reader must give for an array to fit: (shape, dtype, where)
        self.signature = (self.shape, self.dtype, tuple(where))

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

    def fill(self, out, family, where):
        """The fast path of output() for a call at `where` on an array of `family`:
        a new array of that library, or `out` when it fits (None: let output() say
        what is wrong)."""
        if out is None:
            out, self.tensor.data = family.empty(self.shape, self.dtype, where)
            return out
        kind = _arrays.FAMILIES[type(out)]
        if kind is not None:
            got = kind.read_out(out)
            if got is not None and got[1:] == self.signature:
                self.tensor.data = got[0]
                return out
        return None

    def output(self, out, like, where, module):
        """The caller's `out` checked and bound, or a new array like `like`."""
        if out is None:
            family = _arrays.FAMILY_NAMED.get(like.family)
            if family is _arrays.NUMPY or (family is not None and (like.kind, like.index) == where):
                out, self.tensor.data = family.empty(self.shape, self.dtype, where)  # as planned: no checks
                return out
            out = _arrays.empty_like(like, self.shape, self.dtype)
        elif self.fill(out, _arrays.NUMPY, where) is not None:
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

    def _known_input(self, x):
        """(family, data pointer) of an input array the plan was made for, read by its
        library's fast reader (numpy, CuPy, PyTorch); None for anything else, which
        takes view() and the full checks."""
        if self._where is not None:
            family = _arrays.FAMILIES[type(x)]
            if family is not None:
                got = family.read(x)
                if got is not None and got[1:] == self._input.signature:
                    return family, got[0]
        return None

    def _call1(self, x, out, stream):
        """__call__ of the one-input, one-output modules: an input the plan was made for
        goes straight to the core (_known_input)."""
        known = self._known_input(x)
        if known is not None:
            family, pointer = known
            if out is not None:
                return self._fast1(family, pointer, x, out, stream)
            # _fast1 written out for the commonest call (its own output)
            where = self._where
            self._input.tensor.data = pointer
            output = self._output
            result, output.tensor.data = family.empty(output.shape, output.dtype, where)
            status = self._process(
                self._handle,
                self._input.ref,
                output.ref,
                None if family is _NUMPY else family.stream(stream, where),
            )
            if status:
                _core.check(status, self.module)
            return result
        v = _arrays.view(x, f"{self.module}: input")
        self._ensure(v)
        return self._run1(v, out, stream)

    def _fast1(self, family, pointer, x, out, stream):
        """One input (already checked: at `pointer`, of `family`), one output."""
        self._input.tensor.data = pointer
        output, where = self._output, self._where
        if out is None:
            result, output.tensor.data = family.empty(output.shape, output.dtype, where)
        else:  # Operand.fill() written out
            kind = _arrays.FAMILIES[type(out)]
            got = None if kind is None else kind.read_out(out)
            if got is None or got[1:] != output.signature:  # `out` does not fit: the full path says how
                return self._run1(_arrays.view(x, f"{self.module}: input"), out, stream)
            result, output.tensor.data = out, got[0]
        status = self._process(
            self._handle, self._input.ref, output.ref, None if family is _NUMPY else family.stream(stream, where)
        )
        if status:
            _core.check(status, self.module)
        return result

    def _run1(self, v, out, stream):
        """One input, one output: the common process(plan, &in, &out, stream) call."""
        self._input.accept(v, self._where, self.module)
        result = self._output.output(out, v, self._where, self.module)
        status = self._process(self._handle, self._input.ref, self._output.ref, self._stream(stream, v))
        if status:
            _core.check(status, self.module)
        return result

    def _stream(self, stream, like):
        return _arrays.stream_argument(_arrays.stream_handle(stream, like))

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

PLANS_KEPT = 64  # plans per thread for the functions: a bound, not a policy
KEYS_KEPT = 256  # argument keys per thread that lead to them


def _caches():
    plans = getattr(_cache, "plans", None)
    if plans is None:
        plans = _cache.plans = {}
        _cache.keys = {}
    return plans, _cache.keys


def cached(key, factory):
    """A plan per thread for `key` (the functional API's plans: made once per shape,
    type, device and configuration, reused by later calls with the same)."""
    plans, keys = _caches()
    plan = plans.get(key)
    if plan is None:
        if len(plans) >= PLANS_KEPT:  # forget the oldest, and the argument keys that lead to it
            oldest = plans.pop(next(iter(plans)))
            for stale in [k for k, p in keys.items() if p is oldest]:
                del keys[stale]
            oldest.close()
        plan = plans[key] = factory()
    return plan


def call_cached(config, x, what, plan_for, out, stream):
    """A function's call on `x` through its cached plan: the plan is found by one
    lookup of `config` (the function's name and arguments as given) with x's shape,
    numpy dtype and device, as x's library's fast reader gives them (view() for other
    arrays). On a miss, `plan_for(view, *config[1:])` makes (or finds under the
    canonical key, in cached()) the plan with every check, and the key is remembered
    for it; arguments that cannot be a key (a list) just take that path."""
    family = _arrays.FAMILIES[type(x)]
    got = None if family is None else family.read(x)
    v = None
    if got is None:
        v = _arrays.view(x, what)
        key = config + (v.shape, v.dtype, where_of(v))
    else:
        key = config + got[1:]
    plan = remembered(key)
    if plan is None:
        plan = plan_for(v if v is not None else _arrays.view(x, what), *config[1:])
        remember(key, plan)
    if got is not None:
        return plan._fast1(family, got[0], x, out, stream)
    return plan._run1(v, out, stream)


def remembered(key):
    """The plan remembered for a function's argument key, or None."""
    keys = getattr(_cache, "keys", None)
    if keys is None:
        return None
    try:
        return keys.get(key)
    except TypeError:  # an unhashable argument
        return None


def remember(key, plan):
    keys = _caches()[1]
    if len(keys) >= KEYS_KEPT:
        keys.clear()
    try:
        keys[key] = plan
    except TypeError:
        pass


def clear_cache():
    """Release the functional API's cached plans of this thread."""
    plans, keys = _caches()
    for plan in plans.values():
        plan.close()
    plans.clear()
    keys.clear()


_names = {}


def parse_name(parse_function, text, module, what):
    """An enum from its name through the core's parser (whose error names the accepted
    names); an int is taken as the enum value itself."""
    if isinstance(text, int):
        return text
    key = (parse_function, text) if isinstance(text, str) else None
    code = _names.get(key)
    if code is None:
        value = ctypes.c_int()
        status = function(parse_function)(str(text).encode(), ctypes.byref(value))
        _core.check(status, f"{module}: {what}")
        code = value.value
        if key is not None:  # only names the core accepted are kept
            if len(_names) >= 256:
                _names.clear()
            _names[key] = code
    return code


def where_of(v):
    return (v.kind, v.index if v.kind else 0)


class GroupedPlan(Plan):
    """A plan whose output can sum K consecutive calls (the detector's and the
    correlator's integration across chunks): the group's output is bound on its first
    call, the core writes it on the last, and the first K-1 calls return None.
    Subclasses set `module`, `_input_role` (for error messages) and `steps` when
    planned; their core functions are blade_<module>_position / _reset."""

    _input_role = "input"
    _pending = None

    @property
    def position(self):
        """Step (0 ... K-1) of the next call in its group."""
        name = f"blade_{self.module}_position"
        return int(function(name, ctypes.c_int64, [ctypes.c_void_p])(self._handle))

    def reset(self):
        """Start a new group: the next call is step 0."""
        self._pending = None
        if self.planned:
            function(f"blade_{self.module}_reset", None, [ctypes.c_void_p])(self._handle)

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
        """Run on chunk `x`; returns the output, or None on a step that ends no group."""
        if self._handle and self.steps == 1:
            return self._call1(x, out, stream)
        v = _arrays.view(x, f"{self.module}: {self._input_role}")
        self._ensure(v)
        if self.steps == 1:
            return self._run1(v, out, stream)
        # the group's output is bound on its first step (the core writes it on the last)
        if out is not None or self._pending is None:
            self._pending = self._output.output(out, v, self._where, self.module)
        else:
            self._output.bind(self._pending, self._where, self.module)
        return self._run_bound(v, stream)
