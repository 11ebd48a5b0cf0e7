# SPDX-License-Identifier: MIT
"""
The gr-blade demo: synthesize multi-antenna voltages, run them through a chain of
gr-blade blocks on the chosen device, and check the result against numpy.

(The Foundation's demo: a cast chain. The beamforming demo of the bundles replaces
it.)
"""

import os
import time

import numpy


def synthesize(rng, nchunks, shape, tone_channel):
    """ci8 voltages [nchunks, A, F, T, P, 2]: Gaussian noise plus a tone in one channel."""
    antennas, channels, samples, pols = shape
    t = numpy.arange(nchunks * samples).reshape(nchunks, 1, 1, samples, 1)
    noise = rng.normal(0, 8, size=(nchunks,) + tuple(shape)) + 1j * rng.normal(0, 8, size=(nchunks,) + tuple(shape))
    tone = numpy.zeros((nchunks,) + tuple(shape), complex)
    tone[:, :, tone_channel] = (30 * numpy.exp(2j * numpy.pi * 0.1 * t))[:, :, 0]
    voltages = noise + tone
    return numpy.clip(numpy.rint(numpy.stack([voltages.real, voltages.imag], -1)), -128, 127).astype(numpy.int8)


def run(output="blade-demo", device="auto", quiet=False):
    from gnuradio import blocks, gr

    from gnuradio import blade

    say = (lambda *a: None) if quiet else print
    shape = [8, 4, 1024, 2]
    nchunks, tone_channel = 16, 2
    rng = numpy.random.default_rng(2026)
    voltages = synthesize(rng, nchunks, shape, tone_channel)

    chain = [
        blade.cast(shape, "ci8", "cf32", device),
        blade.cast(shape, "cf32", "cf16", device),
        blade.cast(shape, "cf16", "cf32", device),
    ]
    used = chain[0].device()
    say(f"gr-blade {blade.version()} demo on device {used}")
    say(f"  synthesized {nchunks} chunks of ci8 {shape} voltages "
        f"(8 antennas, 4 channels, 1024 samples, 2 polarizations; a tone in channel {tone_channel})")
    say("  flowgraph: vector_source -> blade.cast(ci8->cf32) -> blade.cast(cf32->cf16) "
        "-> blade.cast(cf16->cf32) -> vector_sink")

    tb = gr.top_block()
    source = blocks.vector_source_b(blade.pack(voltages, "ci8").tolist(), False, blade.item_size(shape, "ci8"))
    sink = blocks.vector_sink_b(blade.item_size(shape, "cf32"))
    tb.connect(source, *chain, sink)
    blade.reset_copy_stats()
    blade.clear_failures()
    start = time.perf_counter()
    tb.run()
    elapsed = time.perf_counter() - start
    if blade.failures():
        raise RuntimeError(blade.failures()[0])

    result = blade.unpack(sink.data(), shape, "cf32")
    expected = (voltages[..., 0] + 1j * voltages[..., 1]).astype(numpy.complex64)
    if result.shape != expected.shape or not numpy.array_equal(result, expected):
        raise RuntimeError("demo output differs from numpy's conversion")
    power = numpy.mean(numpy.abs(result[:, 0, :, :, 0]) ** 2, axis=(0, 2))
    stats = blade.copy_stats()

    os.makedirs(output, exist_ok=True)
    path = os.path.join(output, "demo_voltages_cf32.npy")
    numpy.save(path, result[0])
    say(f"  output: {nchunks} chunks of cf32 {shape}, identical to numpy's conversion")
    say("  mean power per channel (antenna 0, pol 0): " + ", ".join(f"{p:.0f}" for p in power)
        + f"  <- the tone is in channel {tone_channel}")
    say(f"  host->device copies: {stats['host_to_device']}, device->host: {stats['device_to_host']}, "
        f"device->device: {stats['device_to_device']}")
    say(f"  wrote {path}")
    print(f"demo OK: {nchunks} chunks through 3 blocks on {used} in {elapsed:.2f} s")
    return 0
