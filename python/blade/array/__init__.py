# SPDX-License-Identifier: MIT
"""
gnuradio.blade.array: the core modules on arrays, without a flowgraph.

numpy arrays run on the CPU backend; CuPy and PyTorch arrays (and any array with
__cuda_array_interface__ or DLPack) on their GPU, without copies, on the caller's
current stream (or `stream=`); outputs are new arrays of the caller's library on the
same device, or `out=`. Each module is a function (plans cached per shape, type and
device) and an object (plan once, call many; the stateful modules: the channelizer's
polyphase history, integration across chunks, phasors over time, gathering).

    from gnuradio.blade import array as ba
    y = ba.channelize(x, rate=8)                 # x: complex64 [A, F, T, P]
    beams = ba.beamform(y, phasors)

The C core (libblade) is called through ctypes; importing this package needs numpy
and libblade only (no GNU Radio). See docs/array-api.md.
"""

from ._core import BladeError, BladeUnsupportedError, BladeValueError, copy_stats, gpu_count, has_cuda
from ._plan import clear_cache
from .beamformer import Beamformer, beamform
from .cast import Cast, cast
from .channelizer import Channelizer, channelize, prototype
from .correlator import Correlator, baseline_index, correlate
from .dedoppler import HIT_DTYPE, Dedoppler, dedoppler
from .detector import Detector, detect
from .layout import Duplicate, Gather, Permutation, duplicate, gather, permute
from .phasor import Phasors
from .polarizer import Polarizer, polarize

__all__ = [
    "BladeError",
    "BladeUnsupportedError",
    "BladeValueError",
    "Beamformer",
    "Cast",
    "Channelizer",
    "Correlator",
    "Dedoppler",
    "HIT_DTYPE",
    "Phasors",
    "baseline_index",
    "correlate",
    "dedoppler",
    "Detector",
    "Duplicate",
    "Gather",
    "Permutation",
    "Polarizer",
    "beamform",
    "cast",
    "channelize",
    "clear_cache",
    "copy_stats",
    "detect",
    "duplicate",
    "gather",
    "gpu_count",
    "has_cuda",
    "permute",
    "polarize",
    "prototype",
]
