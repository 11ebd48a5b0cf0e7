# SPDX-License-Identifier: MIT
"""
gr-blade: GPU beamforming, channelizing and detection for radio telescopes.

Blocks exchange tensor chunks: one GNU Radio item is one chunk, a row-major tensor
of shape [A, F, T, P] (aspects, channels, time samples, polarizations) padded to a
multiple of 4096 bytes. `item_size`, `pack` and `unpack` convert between numpy
arrays and items.
"""

# gr-blade's programs get their GPU ready while the imports below run (warm_up.py).
from . import warm_up

warm_up.start()

# import pybind11 generated symbols into the blade namespace
try:
    # this might fail if the module is python-only
    from .blade_python import *

    _bindings = True
except ModuleNotFoundError:
    # e.g. another Python than GNU Radio's (the GPU machine's, with CuPy and PyTorch):
    # gnuradio.blade.array (ctypes over libblade) and tensor still import
    _bindings = False

# import any pure python here
from .tensor import pack, unpack, numpy_dtype, DTYPES, CHUNK_TIME_DTYPE

from .formats import bfr5, filterbank
from .formats.bfr5 import write_bfr5
from . import synth

if _bindings:  # these read files through the bindings
    from .formats import guppi
    from .recording import Recording
