# SPDX-License-Identifier: MIT
"""
Flowgraph benchmarks for blade-bench: the bundles through real GNU Radio
flowgraphs, and the spectrometer from a GUPPI RAW file.

Suites:
  bundles       Mode B, Mode H and Mode BH at performance.md's shapes, fed
                (a) from pinned host memory: every chunk crosses PCIe, the source
                    itself costs nothing (device_source on the CPU, refill off),
                (b) from device memory (device_source on the GPU, refill off),
                each to a host null sink (the result is downloaded every chunk),
                and (c) from device memory to a blade.device_sink (the chain
                alone). With the figures, the link's floor measured in the same
                run: the chunk's upload and its products' download at once.
  cpu-bundles   Mode B at the ATA node and Mode H through the CPU backend, host
                input, at the backend's thread count (blade-bench --threads N).
  search        the bundles suite's beamform-and-search case (Mode BS) alone.
  overhead      the per-chunk cost of the scheduler and the device buffers: a chain
                of blocks on 4096-byte chunks, where the arithmetic is nothing.
  spectrometer  Mode H from a GUPPI RAW recording in the page cache to filterbank
                files (guppi_source -> mode_h -> filterbank_sink), against `cat`.

Every figure comes with the limit it is measured against in the same run: the
pinned upload bandwidth (host input), the real-time factor, the `cat` rate.
"""

import gc
import os
import shutil
import subprocess
import tempfile
import time

import numpy

from .modules import limits
from .workloads import TBIN, band, chunk_times, make_recipe

# performance.md: upstream BLADE v1.0.5 on the H200 (ms per chunk or per group) and our targets.
BUNDLE_CASES = [
    # name, mode, shape, type, options, upstream_ms, target (host) ms
    (
        "Mode B ATA ci8 [20, 192, 8192, 2] -> 8 beams + incoherent, Stokes I",
        "b",
        [20, 192, 8192, 2],
        "ci8",
        {"beams": 8, "incoherent": True, "detector": "I"},
        5.22,
        None,
    ),
    (
        "Mode B ATA node ci8 [28, 192, 8192, 2] -> 8 beams + incoherent, Stokes I",
        "b",
        [28, 192, 8192, 2],
        "ci8",
        {"beams": 8, "incoherent": True, "detector": "I"},
        None,
        None,
    ),
    (
        "Mode H cf32 [8, 192, 8192, 2], circular, N = 8192",
        "h",
        [8, 192, 8192, 2],
        "cf32",
        {"rate": 8192, "circular": True, "detector": "I", "integration": 1},
        4.01,
        4.0,
    ),
    (
        "Mode H ci8 [8, 192, 8192, 2], circular, N = 8192",
        "h",
        [8, 192, 8192, 2],
        "ci8",
        {"rate": 8192, "circular": True, "detector": "I", "integration": 1},
        None,
        1.2,
    ),
    (
        "Mode BH ci8 [20, 192, 8192, 2] -> 2 beams + incoherent, gather x8 (per 8 chunks)",
        "bh",
        [20, 192, 8192, 2],
        "ci8",
        {"beams": 2, "incoherent": True, "detector": "I", "gather": 8},
        30.1,
        15.0,
    ),
]

# The same bundles with precision="fp16" (cf16 intermediates after the cast): their
# time and device memory beside the fp32 chain's (issue 18: Mode H fp16 >= 1.6x fp32).
BUNDLE_CASES += [
    (
        name.replace(" -> ", " fp16 -> ", 1) if " -> " in name else name + ", fp16",
        mode,
        shape,
        dtype,
        dict(options, precision="fp16"),
        None,
        None,
    )
    for name, mode, shape, dtype, options, _, _ in BUNDLE_CASES
    if name.startswith(("Mode B ATA node", "Mode H ci8", "Mode BH"))
]


# Beamform and search at the ATA node (issue 19: >= 5x real time on one H200): Mode B's
# beams channelized by 1024 (488 Hz channels), Stokes I integrated by 8 (one spectrum
# per chunk), searched by the dedoppler every 16 spectra. No products leave the GPU
# but the hits, so it runs from host memory and from device memory only.
SEARCH_CASES = [
    (
        "Mode BS ATA node ci8 [28, 192, 8192, 2] -> 8 beams + incoherent, x1024, I x8, search of 16 spectra",
        "bs",
        [28, 192, 8192, 2],
        "ci8",
        {"beams": 8, "incoherent": True, "detector": "I", "rate": 1024, "integration": 8, "spectra": 16},
        None,
        None,
    ),
]


def build_bundle(mode, shape, dtype, options, device, recipe):
    from gnuradio import blade

    if mode == "bs":
        beamforming = blade.beamforming_options(
            input_type=dtype,
            incoherent=options["incoherent"],
            detector=options["detector"],
            channelizer_rate=options["rate"],
            integration=options["integration"],
            device=device,
        )
        return blade.mode_bs(shape, band(shape[1]), blade.read_bfr5(recipe), beamforming, spectra=options["spectra"])

    if mode == "h":
        return blade.mode_h(
            shape,
            blade.spectrometer_options(
                input_type=dtype,
                channelizer_rate=options["rate"],
                circular=options["circular"],
                detector=options["detector"],
                integration=options["integration"],
                precision=options.get("precision", "fp32"),
                device=device,
            ),
        )
    beamforming = blade.beamforming_options(
        input_type=dtype,
        incoherent=options["incoherent"],
        detector=options["detector"],
        precision=options.get("precision", "fp32"),
        device=device,
        gather=options.get("gather", 8),
    )
    bundle = blade.mode_b if mode == "b" else blade.mode_bh
    return bundle(shape, band(shape[1]), blade.read_bfr5(recipe), beamforming)


def time_flowgraph(bundle, shape, dtype, source_device, chunks, warmup, two_inputs, sink_device=None):
    """Seconds per input chunk once warm, and the device memory held while running.
    The products go to a host null sink (downloaded every chunk), or with
    `sink_device` to a blade.device_sink there (they stay in device memory)."""
    from gnuradio import blade, blocks, gr

    tb = gr.top_block()
    source = blade.device_source(shape, dtype, chunks, [], source_device, False)
    searching = not hasattr(bundle, "output_item_size")  # mode_bs: hits only, by message
    if searching:
        sink = None
    elif sink_device:
        sink = blade.device_sink(bundle.output_item_size(), sink_device)
    else:
        sink = blocks.null_sink(bundle.output_item_size())
    tb.connect(source, (bundle, 0))
    if two_inputs:
        times = chunk_times(chunks, shape[2] * TBIN)
        tb.connect(blocks.vector_source_b(times.view(numpy.uint8).tolist(), False, 64), (bundle, 1))
    if sink is not None:
        tb.connect(bundle, sink)
    # Progress: the sink's outputs; for a search, the chunks the source has emitted
    # (it runs at most a buffer ahead), and the end when the flowgraph has finished.
    per_output = 1 if searching else bundle.chunks_per_output()

    def progress():
        return source.nitems_written(0) if searching else sink.nitems_read(0)

    blade.clear_failures()
    blade.reset_device_memory_peak()
    # Earlier flowgraphs' memory may not be released yet (Python holds their blocks
    # until collected): count only what this one adds.
    baseline = blade.device_memory_stats()["bytes_in_use"]
    started = time.perf_counter()
    tb.start()
    marks = []
    target = max(1, warmup // per_output)
    while True:  # outputs (or chunks) since start
        done = progress()
        now = time.perf_counter()
        if not marks and done >= target:
            marks.append((done, now))
        if done >= chunks // per_output:
            if not searching:
                marks.append((done, now))
            break
        if blade.failures():
            break
        time.sleep(0.0005)
    tb.wait()
    if searching:
        marks.append((chunks, time.perf_counter()))
    if blade.failures():
        raise RuntimeError(blade.failures()[0])
    (first, t0), (last, t1) = marks[0], marks[-1]
    if last <= first:
        # One poll saw both the warm-up's end and the run's (a short --quick run on a
        # loaded machine): time the whole run rather than divide nothing by nothing.
        first, t0 = 0, started
    seconds_per_chunk = (t1 - t0) / max(1, (last - first) * per_output)
    return seconds_per_chunk, blade.device_memory_stats()["peak_bytes"] - baseline


# feed name, where the input chunks are, where the products go ("gpu": the device benchmarked)
FEEDS = (
    ("host", "cpu", "host"),  # every chunk crosses PCIe both ways
    ("device", "gpu", "host"),  # input in device memory, products downloaded
    ("device input and output", "gpu", "gpu"),  # the chain alone: nothing crosses PCIe
)


def duplex_floor(device, chunk_bytes, output_bytes, group):
    """Seconds per input chunk to upload `chunk_bytes` of it (0: device-resident
    input) while downloading its share of the products, both at once (None without a
    GPU): the floor PCIe sets for a bundle whose products go to the host."""
    from gnuradio import blade

    if not device.startswith("cuda") or not blade.gpus():
        return None
    rounds = blade.measure_duplex_transfer(device, chunk_bytes * group, output_bytes, 5)
    return rounds / group


def case_inputs(mode, shape, options, quick, scratch):
    """A bundle case's shape and options (shrunk with --quick) and its recipe in `scratch`
    (made once per antenna and beam count; Mode H needs none)."""
    shape = list(shape)
    if quick:
        shape[1], shape[2] = 4, 512
        if mode == "h":
            options = dict(options, rate=512)
    recipe = os.path.join(scratch, f"recipe{shape[0]}x{options.get('beams', 1)}.bfr5")
    if mode != "h" and not os.path.exists(recipe):
        make_recipe(recipe, shape[0], options["beams"], shape[1])
    return shape, options, recipe


def run_bundles(device, quick, cases=None):
    from gnuradio import blade

    found = limits(device)
    upload = found["upload_bandwidth"]
    figures = []
    with tempfile.TemporaryDirectory() as scratch:
        for name, mode, shape, dtype, options, upstream_ms, target_ms in cases or BUNDLE_CASES + SEARCH_CASES:
            shape, options, recipe = case_inputs(mode, shape, options, quick, scratch)
            chunk_bytes = blade.item_size(shape, dtype)
            chunk_seconds = shape[2] * TBIN
            chunks = 24 if not quick else 16
            warmup = 8 if not quick else 4
            if mode == "bh":
                chunks, warmup = options["gather"] * (4 if not quick else 2), options["gather"]
            if mode == "bs":  # whole searches: one per `spectra` chunks
                chunks, warmup = options["spectra"] * (4 if not quick else 2), options["spectra"]
                if quick:
                    options = dict(options, rate=64)
            for feed, source_device, sink_device in FEEDS:
                if feed != "host" and not blade.gpus():
                    continue
                if mode == "bs" and sink_device == "host" and feed != "host":
                    continue  # no products to download: "device input" is device to device
                bundle = build_bundle(mode, shape, dtype, options, device, recipe)
                # per output (per group for Mode BH); a search's hits are next to nothing
                output_bytes = bundle.output_item_size() if mode != "bs" else 0
                per_chunk, memory = time_flowgraph(
                    bundle,
                    shape,
                    dtype,
                    device if source_device == "gpu" else source_device,
                    chunks + warmup,
                    warmup,
                    mode != "h",
                    device if sink_device == "gpu" else None,
                )
                group = options.get("gather", 1) if mode == "bh" else 1
                compared = feed == "host" and not quick and device.startswith("cuda")
                time_ms = per_chunk * group * 1e3
                # the link's floor: the input's upload (host feed) with the products' download
                duplex = None
                if sink_device != "gpu":
                    duplex = duplex_floor(device, chunk_bytes if feed == "host" else 0, output_bytes, group)
                label = feed if " " in feed else feed + " input"
                figure = {
                    "benchmark": f"flowgraph{'-quick' if quick else ''}/{name} [{label}]",
                    "time_ms": time_ms,
                    "real_time_factor": chunk_seconds / per_chunk,
                    "bytes_per_s": chunk_bytes / per_chunk,
                    "device_memory_bytes": memory,
                    "bound": "pcie" if feed == "host" and upload else "real-time",
                    "fraction_of_bound": (chunk_bytes / per_chunk) / upload if feed == "host" and upload else None,
                    # per chunk: the input's upload (host feed) and the products' download at once
                    "link_floor_ms": duplex * 1e3 if duplex else None,
                    "fraction_of_link_floor": duplex / per_chunk if duplex else None,
                    # upstream's times and the targets are H200 figures: GPU runs only
                    "upstream_ms": upstream_ms if compared else None,
                    "target_ms": target_ms if compared else None,
                }
                if mode == "bs":
                    # the search's own share: the dedoppler block's time in its searches
                    # (upload, statistics, tree, hits), against the chunks' real time
                    windows = bundle.search.windows()
                    search_ms = 1e3 * bundle.search.search_seconds() / max(1, windows)
                    figure["search_windows"] = windows
                    figure["search_ms_per_window"] = search_ms
                    figure["search_hits"] = bundle.search.hits()
                del bundle
                gc.collect()  # release this flowgraph's device memory before the next
                figures.append(figure)
                fraction = f"{100 * figure['fraction_of_bound']:.1f} % of PCIe" if figure["fraction_of_bound"] else ""
                if duplex:
                    fraction += (
                        f"{', ' if fraction else ''}{100 * figure['fraction_of_link_floor']:.1f} % of the link's floor"
                        f" ({duplex * 1e3:.2f} ms: {'upload and ' if feed == 'host' else ''}download)"
                    )
                print(
                    f"{figure['benchmark']}: {time_ms:.3f} ms, {figure['real_time_factor']:.1f}x real time, "
                    f"{figure['bytes_per_s'] / 1e9:.1f} GB/s {fraction}, device memory {memory / 2**20:.0f} MiB"
                )
                if mode == "bs":
                    spectra = options["spectra"]
                    print(
                        f"  search: {figure['search_windows']} windows of {spectra} spectra, "
                        f"{figure['search_ms_per_window']:.2f} ms each in the dedoppler block "
                        f"({figure['search_ms_per_window'] / spectra:.3f} ms per chunk), "
                        f"{figure['search_hits']} hits"
                    )
    return figures, {"upload_bandwidth": upload, "copy_bandwidth": found["copy_bandwidth"]}


# The bundles on the CPU backend (issue 22: Mode H and Mode B at the ATA shape on the
# host's cores, real-time factor reported). Few chunks, fed from host memory to a
# null sink: a CPU chunk takes 10-100x a GPU's, and the run must stay short (under
# a minute on the 2-core CI machine). The threads are the backend's (OMP_NUM_THREADS,
# which `blade-bench run --threads N` sets), used by each block in turn as GNU Radio
# runs it.
CPU_BUNDLE_NAMES = (
    "Mode B ATA node ci8 [28, 192, 8192, 2] -> 8 beams + incoherent, Stokes I",
    "Mode H ci8 [8, 192, 8192, 2], circular, N = 8192",
    "Mode B ATA node ci8 [28, 192, 8192, 2] fp16 -> 8 beams + incoherent, Stokes I",
    "Mode H ci8 [8, 192, 8192, 2], circular, N = 8192, fp16",
)
# Chunks timed and chunks of warm-up on the CPU. The first chunks through a flowgraph
# fault in the pages of GNU Radio's buffers (hundreds of MB at these shapes): with 2
# chunks of warm-up and 6 timed, Mode H measured 106-134 ms per chunk on the CI
# machine where 30 after 10 measured 77-80.
CPU_BUNDLE_CHUNKS, CPU_BUNDLE_WARMUP = 24, 8


def cpu_threads():
    """The CPU backend's thread count as blade-bench set it (OMP_NUM_THREADS), else every core."""
    chosen = os.environ.get("OMP_NUM_THREADS", "")
    return int(chosen) if chosen.isdigit() and int(chosen) > 0 else os.cpu_count()


def run_cpu_bundles(device, quick):
    from gnuradio import blade

    threads = cpu_threads()
    figures = []
    cases = [case for case in BUNDLE_CASES if case[0] in CPU_BUNDLE_NAMES]
    with tempfile.TemporaryDirectory() as scratch:
        for name, mode, shape, dtype, options, _, _ in cases:
            shape, options, recipe = case_inputs(mode, shape, options, quick, scratch)
            chunks, warmup = (CPU_BUNDLE_CHUNKS, CPU_BUNDLE_WARMUP) if not quick else (3, 1)
            bundle = build_bundle(mode, shape, dtype, options, "cpu", recipe)
            per_chunk, _ = time_flowgraph(bundle, shape, dtype, "cpu", chunks + warmup, warmup, mode != "h")
            del bundle
            gc.collect()
            chunk_bytes = blade.item_size(shape, dtype)
            chunk_seconds = shape[2] * TBIN
            figure = {
                "benchmark": f"flowgraph-cpu{'-quick' if quick else ''}-{threads}t/{name} [host input]",
                "time_ms": per_chunk * 1e3,
                "real_time_factor": chunk_seconds / per_chunk,
                "bytes_per_s": chunk_bytes / per_chunk,
                "bound": "real-time",
                "fraction_of_bound": None,
                "threads": threads,
                "chunks": chunks,
                "upstream_ms": None,
                "target_ms": None,
            }
            figures.append(figure)
            print(
                f"{figure['benchmark']}: {per_chunk * 1e3:.1f} ms per {chunk_seconds * 1e3:.3f} ms chunk, "
                f"{figure['real_time_factor']:.3f}x real time, {chunk_bytes / per_chunk / 1e9:.2f} GB/s in, "
                f"{threads} threads, {chunks} chunks timed"
            )
    return figures, {"cpu_threads": threads}


def run_overhead(device, quick):
    """Per-chunk cost of a 4-block chain on tiny chunks: scheduler plus buffers."""
    from gnuradio import blade, blocks, gr

    shape = [1, 1, 256, 2]  # 4 KiB of cf32: the arithmetic is nothing
    chunks = 400 if not quick else 100
    tb = gr.top_block()
    source = blade.device_source(shape, "cf32", chunks, [], device, False)
    chain = [blade.cast(shape, "cf32", "cf32", device) for _ in range(4)]
    sink = blocks.null_sink(blade.item_size(shape, "cf32"))
    tb.connect(source, *chain, sink)
    start = time.perf_counter()
    tb.run()
    per_chunk = (time.perf_counter() - start) / chunks
    figure = {
        "benchmark": f"flowgraph{'-quick' if quick else ''}/scheduler overhead per chunk (4 blocks, 4 KiB chunks)",
        "time_ms": per_chunk * 1e3,
        "bound": "overhead",
        "fraction_of_bound": None,
    }
    print(
        f"{figure['benchmark']}: {per_chunk * 1e6:.1f} us per chunk "
        f"({100 * per_chunk / (8192 * TBIN):.2f} % of a 16.384 ms ATA chunk)"
    )
    figure["fraction_of_ata_chunk"] = per_chunk / (8192 * TBIN)
    return [figure], {}


def run_spectrometer(device, quick):
    """Mode H from a GUPPI RAW file in the page cache, against `cat` of the file."""
    from gnuradio import blade, gr

    from ..formats import guppi

    nchan, ntime, blocks_count = 64, 8192, 64 if not quick else 4  # 64 x 64 MiB blocks = 4 GiB
    scratch = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        stem = os.path.join(scratch, "spectrometer")
        rng = numpy.random.default_rng(3)
        block = guppi.random_blocks(rng, 1, 1, nchan, ntime, 2)
        header = {
            "TELESCOP": "ATA",
            "OBSFREQ": 1500.0,
            "OBSBW": 187.5,
            "CHAN_BW": 187.5 / nchan,
            "TBIN": nchan / 187.5e6,
            "SYNCTIME": 1700000000,
            "SRC_NAME": "BENCH",
        }
        guppi.write_raw(stem, numpy.repeat(block, blocks_count, axis=0), header)
        files = sorted(os.path.join(scratch, f) for f in os.listdir(scratch) if f.endswith(".raw"))
        total = sum(os.path.getsize(f) for f in files)
        subprocess.run(["cat", *files], stdout=subprocess.DEVNULL, check=True)  # into the page cache
        start = time.perf_counter()
        subprocess.run(["cat", *files], stdout=subprocess.DEVNULL, check=True)
        cat_rate = total / (time.perf_counter() - start)

        source = blade.guppi_source(files[0], ntime, "ci8")
        shape = list(source.output_shape())
        spectrometer = blade.mode_h(
            shape, blade.spectrometer_options(channelizer_rate=1024, integration=16, device=device)
        )
        sink = blade.filterbank_sink(os.path.join(scratch, "out"), list(spectrometer.output_shape()), "fil")
        tb = gr.top_block()
        tb.connect((source, 0), spectrometer, sink)
        from gnuradio import blocks

        tb.connect((source, 1), blocks.null_sink(64))
        start = time.perf_counter()
        tb.run()
        rate = total / (time.perf_counter() - start)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figure = {
        "benchmark": f"flowgraph{'-quick' if quick else ''}/spectrometer GUPPI RAW -> Mode H (N = 1024, I = 16)"
        " -> .fil",
        "time_ms": total / rate * 1e3,
        "bytes_per_s": rate,
        "bound": "cat",
        "fraction_of_bound": rate / cat_rate,
        "cat_bytes_per_s": cat_rate,
        "bytes": total,
    }
    print(
        f"{figure['benchmark']}: {rate / 1e9:.2f} GB/s from {total / 2**30:.2f} GiB, cat {cat_rate / 1e9:.2f} GB/s "
        f"({100 * rate / cat_rate:.1f} % of cat; rawspec: 3.5 GB/s whole run on the H200)"
    )
    return [figure], {"cat_bandwidth": cat_rate}


def run_search(device, quick):
    """The bundles suite's beamform-and-search case alone."""
    return run_bundles(device, quick, SEARCH_CASES)


SUITES = {
    "bundles": run_bundles,
    "cpu-bundles": run_cpu_bundles,
    "search": run_search,
    "overhead": run_overhead,
    "spectrometer": run_spectrometer,
}


def run_suite(suite, device, quick):
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r} (modules, {', '.join(SUITES)}, multigpu, numpy)")
    return SUITES[suite](device, quick)
