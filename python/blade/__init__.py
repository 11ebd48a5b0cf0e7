# SPDX-License-Identifier: MIT
"""
gr-blade: GPU beamforming, channelizing and detection for radio telescopes.

Blocks exchange tensor chunks: one GNU Radio item is one chunk, a row-major tensor
of shape [A, F, T, P] (aspects, channels, time samples, polarizations) padded to a
multiple of 4096 bytes. `item_size`, `pack` and `unpack` convert between numpy
arrays and items.
"""

# Before anything below loads OpenBLAS (libblade links it): its kernels for this CPU.
from . import openblas_kernels

openblas_kernels.prefer_wide_kernels()

# gr-blade's programs get their GPU ready while the imports below run (warm_up.py).
from . import warm_up

warm_up.start()

# import pybind11 generated symbols into the blade namespace
try:
    # this might fail if the module is python-only
    from .blade_python import *

    _bindings = True
except ImportError as _error:
    # e.g. another Python than GNU Radio's (the GPU machine's, with CuPy and PyTorch, or
    # one whose numpy the bindings were not built for): gnuradio.blade.array (ctypes
    # over libblade), tensor, bfr5, filterbank and synth still import, and using a
    # block says why it is missing
    _bindings = False
    _bindings_error = _error

    def __getattr__(name):  # an AttributeError, so that `from . import submodule` still works
        raise AttributeError(
            f"gnuradio.blade has no {name!r}: the bindings (blade_python) did not import in this "
            f"Python ({_bindings_error}); gnuradio.blade.array works without them"
        )


# import any pure python here
from .tensor import pack, unpack, numpy_dtype, DTYPES, CHUNK_TIME_DTYPE

from .formats import bfr5, filterbank
from .formats.bfr5 import write_bfr5
from . import synth
from .formats import hits

if _bindings:  # these read files through the bindings, or are GNU Radio blocks
    from .formats import guppi
    from .recording import Recording
    from .visibility_sink import visibility_sink
    from .hits_sink import hits_sink
    from .search_sink import search_sink
    from .mode_bs import mode_bs
