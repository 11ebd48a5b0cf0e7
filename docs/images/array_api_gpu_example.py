#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The GPU part of docs/array-api.md: the example's channelizer and beamformer on CuPy
and PyTorch arrays, printing what the page quotes. Run on a machine with a GPU, a
CUDA build of libblade, and CuPy and/or PyTorch (on the lent GPU machine: its own
python3, after `. .devkit/enter` for the kit's libraries):

    PYTHONPATH=build/test_modules python3 docs/images/array_api_gpu_example.py
"""

import time

import numpy as np
from gnuradio.blade import array as ba

print(f"libblade with CUDA: {ba.has_cuda()}, GPUs: {ba.gpu_count()}")
A, F, T, P, B = 8, 2, 8192, 2, 101
rng = np.random.default_rng(7)
x = (rng.standard_normal((A, F, T, P)) + 1j * rng.standard_normal((A, F, T, P))).astype(np.complex64)
w = (rng.standard_normal((B, A, F, 1, P)) + 1j * rng.standard_normal((B, A, F, 1, P))).astype(np.complex64)
host_beams = ba.beamform(x, w)
host_fine = ba.channelize(x, 64)

try:
    import cupy as cp

    gx, gw = cp.asarray(x), cp.asarray(w)
    ba.copy_stats(reset=True)
    fine = ba.channelize(gx, 64)  # a cupy.ndarray on the same GPU, on cupy's current stream
    beams = ba.beamform(gx, gw)
    out = cp.empty_like(beams)
    same = ba.beamform(gx, gw, out=out) is out
    cp.cuda.get_current_stream().synchronize()
    print("cupy:", type(fine).__name__, fine.shape, fine.device, "| out= written in place:", same)
    print(
        "cupy: host<->device copies by the core:", ba.copy_stats()["host_to_device"], ba.copy_stats()["device_to_host"]
    )
    print(
        "cupy: max |GPU - CPU| / max |CPU|: channelizer %.1e, beamformer %.1e"
        % (
            float(abs(cp.asnumpy(fine) - host_fine).max() / abs(host_fine).max()),
            float(abs(cp.asnumpy(beams) - host_beams).max() / abs(host_beams).max()),
        )
    )
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:  # work goes to the caller's stream
        y = ba.channelize(gx * 2, 64)
    stream.synchronize()
    plan = ba.Channelizer(64)
    y = plan(gx)
    cp.cuda.Device().synchronize()
    start = time.perf_counter()
    for _ in range(1000):
        plan(gx, out=y)
    per_call = (time.perf_counter() - start) / 1000 * 1e6
    cp.cuda.Device().synchronize()
    print(f"cupy: Channelizer call (queued, [8, 2, 8192, 2] N=64): {per_call:.1f} us per call on the host")
except ImportError:
    print("no CuPy")

try:
    import torch

    tx, tw = torch.from_numpy(x).cuda(), torch.from_numpy(w).cuda()
    ba.copy_stats(reset=True)
    fine = ba.channelize(tx, 64)
    beams = ba.beamform(tx, tw)
    torch.cuda.synchronize()
    print("torch:", type(fine).__name__, tuple(fine.shape), fine.dtype, fine.device)
    print(
        "torch: host<->device copies by the core:", ba.copy_stats()["host_to_device"], ba.copy_stats()["device_to_host"]
    )
    print(
        "torch: max |GPU - CPU| / max |CPU|: channelizer %.1e, beamformer %.1e"
        % (
            float(abs(fine.cpu().numpy() - host_fine).max() / abs(host_fine).max()),
            float(abs(beams.cpu().numpy() - host_beams).max() / abs(host_beams).max()),
        )
    )
except ImportError:
    print("no PyTorch")
