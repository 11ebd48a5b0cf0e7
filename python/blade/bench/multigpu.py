# SPDX-License-Identifier: MIT
"""
Mode B on one GPU and on several: the ATA shape (A = 28, F = 192, T = 8192, P = 2,
B = 8 beams + incoherent, ci8 in, Stokes I) from a host source through the GNU
Radio flowgraph, wall time per chunk after warm-up, the real-time factor (chunk
duration T TBIN = 16.384 ms at 0.5 MHz channels, over wall time per chunk), and
the speed-up of N GPUs over one. Every figure is also given against the limit it
works against: the pinned upload bandwidth of the same GPUs used at once, measured
in the same run (PCIe topology decides whether two GPUs double it).

    python3 -m gnuradio.blade.bench.multigpu [--devices cuda:0,cuda:1] [--chunks 128]
                                             [--warmup 16] [--json FILE] [--quick]
    blade-bench run --suite multigpu [--device cuda:0] [--quick]

The source writes real data into the first chunks of its buffers and then only
hands chunks over, so it costs nothing and the chain (uploads, kernels,
downloads, the scheduler) is what is measured. Target: two GPUs >= 1.8 x one GPU's
real-time factor.
"""

import argparse
import json
import os
import sys
import tempfile
import time

import numpy

from .workloads import band, chunk_times, make_recipe

ATA = dict(shape=[28, 192, 8192, 2], beams=8, tbin=2e-6, channel_width=0.5e6)
QUICK = dict(shape=[4, 8, 256, 2], beams=2, tbin=2e-6, channel_width=0.5e6)
TARGET_SPEEDUP = 1.8


def _gr_blocks():
    from gnuradio import gr

    class chunk_source(gr.sync_block):
        """Voltage chunks (real data in the first `fill` items, then untouched) and their chunk times."""

        def __init__(self, item_size, chunks, pattern, times, fill=4):
            gr.sync_block.__init__(
                self,
                "bench_chunk_source",
                in_sig=None,
                out_sig=[(numpy.uint8, item_size), (numpy.uint8, times.itemsize)],
            )
            self.chunks, self.pattern, self.times, self.fill = chunks, pattern, times, fill
            self.produced = 0

        def work(self, input_items, output_items):
            n = min(len(output_items[0]), len(output_items[1]), self.chunks - self.produced)
            if n <= 0:
                return -1
            for i in range(n):
                if self.produced + i < self.fill:
                    output_items[0][i][: self.pattern.size] = self.pattern
            output_items[1][:n] = self.times[self.produced : self.produced + n].view(numpy.uint8).reshape(n, -1)
            self.produced += n
            return n

    class timing_sink(gr.sync_block):
        """Notes when each output chunk arrives; never reads it."""

        def __init__(self, item_size):
            gr.sync_block.__init__(self, "bench_timing_sink", in_sig=[(numpy.uint8, item_size)], out_sig=None)
            self.arrivals = []

        def work(self, input_items, output_items):
            now = time.perf_counter()
            self.arrivals.extend([now] * len(input_items[0]))
            return len(input_items[0])

    return chunk_source, timing_sink


def measure(devices, case, chunks, warmup, recipe):
    """Run Mode B over `devices`; returns the figures of one configuration."""
    from gnuradio import blade, gr

    chunk_source, timing_sink = _gr_blocks()
    shape = case["shape"]
    samples, channels = shape[2], shape[1]
    chunk_seconds = samples * case["tbin"]
    bundle = blade.mode_b(
        shape,
        band(channels, case["channel_width"]),
        blade.read_bfr5(recipe),
        blade.beamforming_options(incoherent=True, devices=list(devices)),
    )
    item_size = bundle.input_item_size()
    chunk_bytes = int(numpy.prod(shape)) * 2
    pattern = numpy.random.default_rng(1).integers(-90, 90, size=chunk_bytes, dtype=numpy.int8).view(numpy.uint8)
    total = warmup + chunks
    times = chunk_times(total, chunk_seconds, case["tbin"])

    tb = gr.top_block()
    source = chunk_source(item_size, total, pattern, times)
    sink = timing_sink(bundle.output_item_size())
    tb.connect((source, 0), (bundle, 0))
    tb.connect((source, 1), (bundle, 1))
    tb.connect(bundle, sink)
    blade.clear_failures()
    began = time.perf_counter()
    tb.run()
    elapsed = time.perf_counter() - began
    if blade.failures():
        raise RuntimeError(f"{','.join(devices)}: {blade.failures()[0]}")
    arrivals = sink.arrivals
    if len(arrivals) != total:
        raise RuntimeError(f"{','.join(devices)}: {len(arrivals)} of {total} chunks came out")
    per_chunk = (arrivals[-1] - arrivals[warmup]) / (total - 1 - warmup)
    upload = blade.measure_transfer(list(devices), chunk_bytes // len(devices), 10, "upload")
    return {
        "devices": list(devices),
        "time_ms": per_chunk * 1e3,
        "realtime_factor": chunk_seconds / per_chunk,
        "bytes_per_s": chunk_bytes / per_chunk,
        "samples_per_s": int(numpy.prod(shape)) / per_chunk,
        "upload_limit": upload,
        "fraction_of_bound": chunk_bytes / per_chunk / upload,
        "chunks": chunks,
        "warmup": warmup,
        "run_seconds": elapsed,
        "chunk_ms": chunk_seconds * 1e3,
    }


def default_configurations(device="auto", quick=False):
    """One device, then all GPUs (or two CPU sub-chains without a GPU)."""
    from gnuradio import blade

    gpus = [f"cuda:{g.index}" for g in blade.gpus()]
    first = blade.resolve_device(device)
    if len(gpus) >= 2 and not quick:
        return [[first], gpus]
    return [[first], [first, first]] if first.startswith("cpu") or first.startswith("emulated") else [[first]]


def run(configurations, quick=False, chunks=None, warmup=None, out=sys.stdout):
    case = QUICK if quick else ATA
    chunks = chunks or (8 if quick else 128)
    warmup = warmup or (2 if quick else 16)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        recipe = os.path.join(folder, "bench.bfr5")
        make_recipe(recipe, case["shape"][0], case["beams"], case["shape"][1])
        for devices in configurations:
            results.append(measure(devices, case, chunks, warmup, recipe))
    base = results[0]
    for r in results:
        r["speedup"] = r["realtime_factor"] / base["realtime_factor"]
    shape = case["shape"]
    print(
        f"Mode B ci8 {shape} -> {case['beams']} beams + incoherent, Stokes I; "
        f"{chunks} chunks after {warmup} warm-up; chunk = {results[0]['chunk_ms']:.3f} ms of data",
        file=out,
    )
    print(
        f"{'devices':<24} {'ms/chunk':>9} {'x real time':>11} {'input GB/s':>10} {'upload limit':>12} "
        f"{'of limit':>8} {'speed-up':>8}",
        file=out,
    )
    for r in results:
        print(
            f"{','.join(r['devices']):<24} {r['time_ms']:9.3f} {r['realtime_factor']:11.2f} "
            f"{r['bytes_per_s'] / 1e9:10.2f} {r['upload_limit'] / 1e9:10.2f} GB/s {100 * r['fraction_of_bound']:7.1f}% "
            f"{r['speedup']:7.2f}x",
            file=out,
        )
    for r in results[1:]:
        if len(r["devices"]) >= 2:
            verdict = "met" if r["speedup"] >= TARGET_SPEEDUP else "MISSED"
            print(
                f"{len(r['devices'])} devices: {r['speedup']:.2f}x one device (target >= {TARGET_SPEEDUP}x): {verdict}",
                file=out,
            )
    return case, results


def figures(case, results, quick):
    """Records in blade-bench's figure format."""
    out = []
    base = results[0]
    for r in results:
        several = len(r["devices"]) > 1
        out.append(
            {
                "benchmark": f"multigpu{'-quick' if quick else ''}/mode_b/{'+'.join(r['devices'])}",
                "time_ms": r["time_ms"],
                "samples_per_s": r["samples_per_s"],
                "bytes_per_s": r["bytes_per_s"],
                "macs_per_s": None,
                "bound": "pinned upload of the same devices at once",
                "fraction_of_bound": r["fraction_of_bound"],
                "upstream_ms": None,
                "target_ms": base["time_ms"] / TARGET_SPEEDUP if several else None,
                "realtime_factor": r["realtime_factor"],
                "speedup": r["speedup"],
                "devices": r["devices"],
            }
        )
    return out


def run_suite(suite, device, quick):
    """blade-bench's plug-in point: (figures, limits) of the "multigpu" suite."""
    if suite != "multigpu":
        raise ValueError(f"bench.multigpu runs the suite 'multigpu', not '{suite}'")
    case, results = run(default_configurations(device, quick), quick)
    limits = {f"upload_bandwidth[{'+'.join(r['devices'])}]": r["upload_limit"] for r in results}
    return figures(case, results, quick), limits


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m gnuradio.blade.bench.multigpu", description="Mode B on one GPU and on several."
    )
    parser.add_argument("--devices", help="the several devices, comma-separated (default: every GPU)")
    parser.add_argument("--single", default="auto", help="the one-device baseline (default: cuda:0 or cpu)")
    parser.add_argument("--chunks", type=int, help="chunks timed (default 128; quick 8)")
    parser.add_argument("--warmup", type=int, help="chunks before timing (default 16; quick 2)")
    parser.add_argument("--quick", action="store_true", help="a small shape: a seconds-long smoke run")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    from gnuradio import blade

    configurations = default_configurations(args.single, args.quick)
    if args.devices:
        configurations = [[blade.resolve_device(args.single)], args.devices.split(",")]
    try:
        case, results = run(configurations, args.quick, args.chunks, args.warmup)
    except (RuntimeError, ValueError) as error:
        print(f"bench.multigpu: error: {error}", file=sys.stderr)
        return 1
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"case": case, "results": results, "figures": figures(case, results, args.quick)}, out, indent=1)
    several = [r for r in results if len(r["devices"]) >= 2]
    return 0 if all(r["speedup"] >= TARGET_SPEEDUP for r in several) or args.quick else 2


if __name__ == "__main__":
    sys.exit(main())
