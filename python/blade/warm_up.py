# SPDX-License-Identifier: MIT
"""
The start-up of gr-blade's command-line programs: the GPU's context and cuFFT are made
ready in a background thread while Python imports numpy and GNU Radio.

Measured on the H200 machine (docs/performance.md, "Start-up"): importing GNU Radio and
the bindings takes about 0.13 s, the first use of a GPU (the driver creating the
process's context) about 0.1 s, and loading cuFFT's library and making its first plan a
good part of the 0.15 s it takes to build Mode H's flowgraph. They do not depend on each
other, so they need not add up.

`start()` is the first thing the package's __init__ does. It acts only when the process
is one of gr-blade's programs (blade-cli, blade-rawspec, blade-bench) and its command
line asks for a GPU or leaves the device to `auto`: a library user, a GRC flowgraph, a
CPU run or `--help` start no thread and create no GPU context. The thread talks to the
CUDA driver through ctypes (cuInit, cuDevicePrimaryCtxRetain: the primary context, the
one the CUDA runtime inside libblade then uses, so nothing is made twice) and loads cuFFT
into the process (libblade's loader then finds it loaded). ctypes releases the GIL during
each call, so the imports go on meanwhile. Every failure is silent: this only moves work
earlier, and the real initialisation reports any problem in its own words. The thread is
not a daemon: a run that ends at once (a wrong option) waits for it rather than exit
while the driver is initialising.
"""

import os
import sys
import threading

PROGRAMS = ("blade-cli", "blade-rawspec", "blade-bench")
CUFFT_LIBRARIES = ("libcufft.so.12", "libcufft.so.11", "libcufft.so")
CUFFT_C2C = 0x29  # cufftType of a single-precision complex-to-complex transform

_started = None


def requested_gpu(argv):
    """The index of the GPU that command line `argv` will use, or None when it is not
    one of gr-blade's programs, asks for help, or names a device that is not a GPU.
    `auto` (the default) reads as GPU 0: with no GPU the thread finds none and ends."""
    if not argv:
        return None
    program = os.path.basename(argv[0])
    if argv[0].endswith(os.path.join("blade", "cli", "__main__.py")):
        program = "blade-cli"  # python3 -m gnuradio.blade.cli, as blade-bench runs it
    if program not in PROGRAMS:
        return None
    args = argv[1:]
    if not args or any(arg in ("-h", "--help", "--version") for arg in args):
        return None
    device = "auto"
    for i, arg in enumerate(args):
        following = args[i + 1] if i + 1 < len(args) else ""
        if arg in ("-g", "--gpu"):
            device = f"cuda:{following}"
        elif arg == "--device":
            device = following
        elif arg.startswith("--device="):
            device = arg.split("=", 1)[1]
    device = device.strip().lower()
    if device in ("auto", "cuda", "all"):
        return 0
    if device.startswith("cuda:"):
        index = device[5:].split(",")[0]
        return int(index) if index.isdigit() else None
    return None


def prepare_gpu(index):
    """Create GPU `index`'s primary context and load cuFFT; True when both were done."""
    import ctypes

    try:
        driver = ctypes.CDLL("libcuda.so.1")
        device = ctypes.c_int()
        context = ctypes.c_void_p()
        if driver.cuInit(0) != 0 or driver.cuDeviceGet(ctypes.byref(device), index) != 0:
            return False
        if driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) != 0:
            return False
    except (OSError, AttributeError):
        return False
    for name in CUFFT_LIBRARIES:
        try:
            cufft = ctypes.CDLL(name)
        except OSError:
            continue
        # cuFFT's first plan in a process sets up the library's own state: make (and
        # drop) a small one now, so that the channelizer's first plan costs only itself.
        plan = ctypes.c_int()
        try:
            if cufft.cufftPlan1d(ctypes.byref(plan), 1024, CUFFT_C2C, 1) == 0:
                cufft.cufftDestroy(plan)
        except AttributeError:
            pass
        return True
    return False


def start(argv=None):
    """Start preparing the GPU the command line will use (see the module's text);
    returns the thread, or None when there is nothing to prepare."""
    global _started
    if _started is not None or os.environ.get("BLADE_NO_WARM_UP"):
        return _started
    index = requested_gpu(sys.argv if argv is None else argv)
    if index is None:
        return None
    _started = threading.Thread(target=prepare_gpu, args=(index,), name="blade-gpu-warm-up")
    _started.start()
    return _started
