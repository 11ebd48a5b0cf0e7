# SPDX-License-Identifier: MIT
"""
A recording through one of the bundles into files: the flowgraph that blade-cli
builds and runs, for use from Python too.

    from gnuradio.blade import pipeline
    options = pipeline.Options(input="obs", recipe="obs.bfr5", output="out",
                               channelizer_rate=64, integration=64)
    job = pipeline.Job("b", options)     # opens the recording, checks the recipe, builds
    print("\\n".join(job.plan()))        # what will run
    summary = job.run(progress=True)     # Ctrl-C stops cleanly, files stay valid
    summary.files                        # [(path, label, spectra or blocks)]

Flowgraph (Mode B and BH; Mode H has no time port and no recipe; Mode X has no time
port, its recipe gives the antenna positions, and a visibility_sink writes one UVH5
file):

    guppi_source --voltages--> [head] --> [throttle] --> mode_b --> filterbank_sink
         |                                                 ^             (or guppi_sink)
         +--------chunk time--> [head] --------------------+
"""

import dataclasses
import importlib
import math
import os
import re
import signal
import sys
import threading
import time
from typing import List, Optional, Tuple

import numpy

from .recording import angular_separation

MODES = {"b": "Mode B", "h": "Mode H", "bh": "Mode BH", "x": "Mode X"}
CHUNK_BYTES = 32 * 2**20  # Mode H reads large blocks in parts of at most this (see Job._chunk_samples)
FORMATS = ("fil", "h5", "raw")
VISIBILITY_FORMATS = {"uvh5": "uvh5", "h5": "vis.h5", "npz": "vis.npz"}  # Mode X: format -> extension
# The Python modules each visibility writer needs (formats/uvh5.py: uvw and apparent
# coordinates from ERFA; formats/visibilities.py) and the Debian package of each.
VISIBILITY_MODULES = {
    "uvh5": (("h5py", "python3-h5py"), ("erfa", "python3-erfa")),
    "h5": (("h5py", "python3-h5py"),),
    "npz": (),
}
DETECTORS = ("I", "XXYY", "cross", "IQUV", "none")


class RunError(RuntimeError):
    """A block failed while the flowgraph ran (blade.failures()); `summary` says what
    was written before the failure (a Summary, or None if the run never started)."""

    def __init__(self, message, summary=None):
        super().__init__(message)
        self.summary = summary


class Interrupted(KeyboardInterrupt):
    """A signal that asks the run to stop cleanly, as Ctrl-C does (SIGTERM from
    timeout, SLURM, systemd or docker; SIGHUP when the terminal goes)."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _chunk_megabytes(shape, dtype):
    from gnuradio import blade

    try:
        return blade.item_size(list(shape), dtype) / 1e6
    except ValueError:
        return float("nan")


@dataclasses.dataclass
class Options:
    """What to process and how; the defaults are blade-cli's."""

    input: str
    output: str = "."
    recipe: Optional[str] = None  # BFR5 (Mode B, BH)
    name: Optional[str] = None  # file stem; default RECORDING.mode_X
    device: str = "auto"
    devices: Optional[List[str]] = None  # several devices, one sub-band each
    chunk_samples: Optional[int] = None  # None: one GUPPI block
    channels: Optional[Tuple[int, Optional[int]]] = None  # (start, count); count None: to the end
    # Mode H may take lists (one product each, from one read): rate, integration, stokes.
    channelizer_rate: Optional[int] = None  # default 1 (B, H), 0 = T*M (BH); 0: the whole chunk
    pfb_taps: int = 1
    window: str = "hamming"
    circular: bool = False
    incoherent: Optional[bool] = None  # default: on for B (off with format raw), off for BH
    stokes: Optional[str] = None  # detector; default I ("none" with format raw)
    integration: int = 1  # Mode X: None = one integration per chunk
    beams: Optional[List[int]] = None  # recipe beam indices; default all
    delays: str = "geometry"
    gather: int = 8  # Mode BH
    format: str = "fil"
    raw_type: str = "cf32"  # GUPPI sample type of beam voltages
    raw_scale: float = 1.0
    max_chunks: Optional[int] = None  # None: the whole recording
    on_gap: str = "zero-fill"
    max_gap: float = 0.0  # longest gap zero-filled, s (0: the recording's length)
    pace: Optional[float] = None  # read at this multiple of real time (None: flat out)
    beamformer_path: str = "auto"
    calibration_convention: str = "blade"  # "seticore": the recipe's gains are conjugated
    single_file: bool = False
    # Search the spectra (Mode B, Mode H) instead of writing filterbanks: windows of
    # search_window spectra, hit tables per beam/antenna (blade.search_sink).
    search: bool = False
    search_window: int = 16
    min_drift: float = 0.0
    max_drift: float = 4.0
    snr: float = 10.0
    # Mode X
    channel_integration: int = 1  # adjacent (fine) channels summed per visibility
    # Mode B, H, BH: fp32, or fp16 (cf16 intermediates after the cast; auto = fp32).
    # Mode X: the correlator's path: auto, fp32, fp16 (tensor cores), fp64 (CPU).
    precision: str = "auto"
    operand_scale: float = 0.0  # fp16 with cf32 voltages: scale before rounding (0: 1)


@dataclasses.dataclass
class Summary:
    mode: str
    chunks: int  # chunks processed (whole output groups)
    chunks_total: int
    data_seconds: float  # recording time processed
    wall_seconds: float
    bytes_read: int  # recording bytes processed
    files: list  # [(path, label, spectra or blocks)]
    dropped_blocks: int
    interrupted: bool
    device: str
    stopped_at_gap: bool = False  # on_gap "stop" ended the stream early
    signal: Optional[str] = None  # the signal that interrupted the run (SIGINT, SIGTERM, SIGHUP)

    @property
    def realtime_factor(self):
        return self.data_seconds / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    @property
    def rate(self):
        """Recording bytes per second."""
        return self.bytes_read / self.wall_seconds if self.wall_seconds > 0 else float("inf")

    @property
    def exit_status(self):
        """0, or 128 + the signal's number when a signal interrupted the run (the shell's convention)."""
        if not self.interrupted:
            return 0
        return 128 + getattr(signal, self.signal or "SIGINT", signal.SIGINT)

    def lines(self, failed=False):
        """What was done and written, as blade-cli prints it."""
        what = "failed" if failed else ("interrupted" if self.interrupted else "done")
        if self.interrupted and self.signal and self.signal != "SIGINT":
            what += f" by {self.signal}"
        if self.stopped_at_gap:
            gaps = "stopped at the first gap (--on-gap stop)"
        else:
            gaps = f"{self.dropped_blocks} dropped block{'s' if self.dropped_blocks != 1 else ''} zero-filled"
        lines = [
            f"{MODES[self.mode]} {what}: {self.chunks} of {self.chunks_total} chunks, "
            f"{self.data_seconds:.3f} s of data in {self.wall_seconds:.2f} s on {self.device} = "
            f"{self.realtime_factor:.2f}x real time ({self.rate / 1e6:.1f} MB/s), {gaps}"
        ]
        if self.interrupted:
            lines.append("the files hold every chunk finished before the interruption")
        if failed:
            lines.append("the files hold every chunk written before the failure")
        raw = any(p.endswith(".raw") for p, *_ in self.files)
        visibilities = self.mode == "x"
        lines.append(f"wrote {len(self.files)} file{'s' if len(self.files) != 1 else ''}:")
        width = max((len(p) for p, *_ in self.files), default=0)
        shown = self.files
        if len(shown) > 6:  # many antennas: the first few and the last say enough
            shown = shown[:3] + [(f"... ({len(shown) - 4} more)", None, None)] + shown[-1:]
        for path, label, count in shown:
            if label is None:
                lines.append(f"  {path}")
                continue
            unit = ("block" if count == 1 else "blocks") if raw else ("spectrum" if count == 1 else "spectra")
            if visibilities:
                unit = "integration" if count == 1 else "integrations"
            lines.append(f"  {path:<{width}}  {count} {unit}  {label}")
        if not visibilities and any(p.endswith(".h5") and count < 3 for p, _, count in self.files):
            lines.append(
                "warning: blimpy refuses FBH5 files with fewer than 3 spectra (h5py and sigpyproc read "
                "them): process more chunks, integrate less, or write .fil"
            )
        return lines


def report_run(job, who, stream=None, quiet=False, progress=None):
    """Run `job`, printing its warnings (to stderr, as "who: warning: ..."), its plan
    (unless quiet) and its summary to `stream`; returns the Summary. A failure is
    raised as RunError after saying what was written before it."""
    import sys

    stream = stream or sys.stdout
    for warning in job.warnings:
        print(f"{who}: warning: {warning}", file=sys.stderr)
    if not quiet:
        for line in job.plan():
            print(line, file=stream)
        stream.flush()
    try:
        summary = job.run(progress=progress)
    except RunError as error:  # say what was saved (a full disk, a file cut short), then fail
        if error.summary is not None:
            for line in error.summary.lines(failed=True):
                print(line, file=stream)
        raise
    for line in summary.lines():
        print(line, file=stream)
    return summary


def recording_name(path):
    """obs.0003.raw, obs.raw or obs -> obs."""
    base = os.path.basename(os.fspath(path))
    return re.sub(r"(\.\d{4})?\.raw$", "", base)


def _label_names(names, count, prefix):
    names = list(names or [])
    return [names[i] if i < len(names) and names[i] else f"{prefix}{i}" for i in range(count)]


@dataclasses.dataclass
class Product:
    """One output of a Job: a chain from the voltages to its files. Mode H makes
    several from one read and one upload (lists of --channelizer-rate, --integration
    and --stokes); Mode B and BH make one."""

    index: int
    channelizer_rate: int
    integration: int
    stokes: str
    bundle: object = None
    sink: object = None
    stem: str = ""
    output_shape: list = None
    labels: list = None
    chunks_per_output: int = 1

    def chunks_done(self):
        return int(self.sink.nitems_read(0)) * self.chunks_per_output


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class Job:
    """One bundle run: made from Options, it opens the recording, checks the recipe
    against it, and builds the flowgraph; run() runs it."""

    def __init__(self, mode, options):
        from gnuradio import blade, blocks, gr

        from .recording import Recording

        if mode not in MODES:
            raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
        o = dataclasses.replace(options)
        self.mode, self.options = mode, o
        self.warnings = []
        self._check_options()
        self.recording = rec = Recording(o.input, o.channels, o.single_file, o.on_gap, o.max_gap)
        self.recipe = None
        self.warnings = list(rec.warnings) + self.warnings
        if mode == "x":
            self._load_array()
        elif mode != "h":
            if not o.recipe:
                raise ValueError(f"{MODES[mode]} needs a beamforming recipe (--recipe FILE.bfr5)")
            self.recipe = blade.read_bfr5(o.recipe, o.calibration_convention)
            problems, warnings = rec.check_recipe(self.recipe, o.beams)
            self.warnings += warnings
            if problems:
                raise ValueError(
                    f"{os.path.basename(o.recipe)} does not fit {os.path.basename(rec.files[0])}: "
                    + "; ".join(problems)
                )

        self.source = blade.guppi_source(
            rec.path,
            self._chunk_samples(),
            self._input_type(),
            rec.channel_start,
            rec.channel_count,
            o.on_gap,
            o.single_file,
            0,
            o.max_gap,
        )
        self.shape = list(self.source.output_shape())
        tb = self.tb = gr.top_block(f"blade-cli mode-{mode}")
        voltages = self._make_products()
        available = self.source.chunks()
        wanted = min(available, o.max_chunks) if o.max_chunks else available
        # One product: whole outputs only. Several: every chunk read; each product
        # writes the outputs it completes.
        group = self.products[0].chunks_per_output if len(self.products) == 1 else 1
        self.chunks_total = wanted // group * group
        for product in self.products:
            if wanted >= product.chunks_per_output:
                continue
            text = (
                f"{os.path.basename(rec.files[0])} yields {wanted} chunk(s) of {self.shape[2]} samples; one "
                f"output{f' of product {product.index}' if len(self.products) > 1 else ''} needs "
                f"{product.chunks_per_output}"
            )
            if len(self.products) == 1:
                raise ValueError(text)
            self.warnings.append(text + ": that product writes no spectra")
        self._make_output_folder()
        for product in self.products:
            product.stem = self._product_stem(product)
            product.labels = self._labels(product)
        self._check_outputs_are_not_inputs()
        for product in self.products:
            product.sink = self._make_sink(product)

        voltage_size = self.source.output_item_size()
        source = self.source
        # Stop after the chunks wanted (both outputs of the source, so the phasor
        # block sees exactly the chunks the beamformer does).
        if self.chunks_total < available:
            head = blocks.head(voltage_size, self.chunks_total)
            tb.connect((source, 0), head)
            source = head
        if o.pace:
            chunk_seconds = self.shape[2] * rec.tbin
            throttle = blocks.throttle(voltage_size, o.pace / chunk_seconds)
            tb.connect((source, 0), throttle)
            source = throttle
        for block, port in voltages:
            tb.connect((source, 0), (block, port))
        if mode in ("b", "bh"):
            times = (self.source, 1)
            if self.chunks_total < available:
                head = blocks.head(64, self.chunks_total)
                tb.connect(times, head)
                times = (head, 0)
            tb.connect(times, (self.products[0].bundle, 1))
        for product in self.products:
            tb.connect(product.bundle, product.sink)

    # --- construction -------------------------------------------------------------

    def _check_options(self):
        o = self.options
        # Zero is refused where it has no meaning, rather than read as "the default":
        # leave an option out (None) for its default.
        for name, default in (
            ("chunk_samples", "one GUPPI block"),
            ("max_chunks", "the whole recording"),
            ("pfb_taps", "1, a plain FFT"),
            ("gather", "8"),
        ):
            value = getattr(o, name)
            if value is not None and value < 1:
                raise ValueError(
                    f"{name.replace('_', '-')} {value}: expected a whole number of at least 1 "
                    f"(leave it out for {default})"
                )
        if o.pace is not None and not o.pace > 0:
            raise ValueError(
                f"pace {o.pace}: expected a positive multiple of real time (leave it out to read "
                "as fast as possible)"
            )
        if not o.max_gap >= 0:
            raise ValueError(
                f"max-gap {o.max_gap}: expected seconds >= 0 (0: as long as the recording's data, " "inf: no bound)"
            )
        if o.channels is not None and o.channels[1] is not None and o.channels[1] < 1:
            raise ValueError(
                f"channels {o.channels[0]}:{o.channels[1]}: expected at least one channel "
                f"(START: for all from START on)"
            )
        if o.beams is not None:
            repeated = sorted({b for b in o.beams if o.beams.count(b) > 1})
            if repeated:
                raise ValueError(
                    f"beams {','.join(map(str, o.beams))}: beam {repeated[0]} is listed twice "
                    "(its files would be the same)"
                )
        if self.mode == "x":
            return self._check_correlator_options()
        if o.format not in FORMATS:
            raise ValueError(f"format {o.format!r}: expected fil, h5 or raw")
        if o.precision not in ("auto", "fp32", "fp16"):
            raise ValueError(
                f"precision {o.precision!r}: expected fp32 or fp16 (half-precision intermediates) for "
                f"{MODES[self.mode]}"
            )
        if o.search:
            if self.mode == "bh" or o.format == "raw" or o.stokes == "none":
                raise ValueError("--search needs Mode B or Mode H power spectra (not mode-bh, raw or --stokes none)")
            if o.search_window < 1 or o.min_drift < 0 or o.max_drift < o.min_drift or o.snr < 0:
                raise ValueError(
                    "--search: expected --search-window >= 1, 0 <= --min-drift <= --max-drift and --snr >= 0"
                )
        rates, integrations, stokes = (_as_list(o.channelizer_rate), _as_list(o.integration), _as_list(o.stokes))
        count = max(len(rates), len(integrations), len(stokes))
        for name, values in (("channelizer-rate", rates), ("integration", integrations), ("stokes", stokes)):
            if len(values) not in (1, count):
                raise ValueError(
                    f"--{name} has {len(values)} values for {count} products: give one value for "
                    "all, or one per product"
                )
        if count > 1 and self.mode != "h":
            raise ValueError(
                f"several products in one pass (lists of --channelizer-rate, --integration, "
                f"--stokes) are for Mode H; {MODES[self.mode]} makes one"
            )
        for rate in rates:
            if rate is not None and rate < 0:
                raise ValueError(f"channelizer-rate {rate}: expected fine channels per coarse channel")
        for integration in integrations:
            if integration is None or integration < 1:
                raise ValueError(f"integration {integration}: expected a whole number of at least 1")
        for mode in stokes:
            if mode is not None and mode not in DETECTORS:
                raise ValueError(f"stokes {mode!r}: expected I, XXYY, cross, IQUV or none")
        stokes_mode = stokes[0]
        if o.format == "raw":
            if self.mode != "b":
                raise ValueError(
                    f"format raw (beamformed voltages) is for Mode B; {MODES[self.mode]} writes " "spectra (fil or h5)"
                )
            if stokes_mode not in (None, "none"):
                raise ValueError(f"format raw writes beamformed voltages: leave --stokes out (not {stokes_mode})")
            stokes = ["none"]
        elif "none" in stokes:
            raise ValueError("stokes none gives voltages: write them with --format raw")
        default_rate = 0 if self.mode == "bh" else 1
        self.products = [
            Product(
                index=k,
                channelizer_rate=default_rate if (rates[k % len(rates)] is None) else rates[k % len(rates)],
                integration=integrations[k % len(integrations)],
                stokes=stokes[k % len(stokes)] or "I",
            )
            for k in range(count)
        ]
        # The single-product view of the options, as the rest of the job reads them.
        o.channelizer_rate = self.products[0].channelizer_rate
        o.integration = self.products[0].integration
        o.stokes = self.products[0].stokes
        # The incoherent beam is a power: in a voltage recording it would be an
        # "antenna" of real parts that no channelizer can make sense of.
        if o.incoherent is None:
            o.incoherent = self.mode == "b" and o.format != "raw"
        elif o.incoherent and o.format == "raw":
            self.warnings.append(
                "the incoherent beam is a power, not a voltage: in the GUPPI RAW file it is the "
                "last 'antenna', its power in the real part and zero imaginary parts"
            )

    def _precision(self):
        """Mode B, H, BH: the chain's precision, fp32 or fp16 (auto is fp32)."""
        return "fp32" if self.options.precision == "auto" else self.options.precision

    def _input_type(self):
        """What the source emits: the recording's own integer type (the bundles cast)."""
        return {"ci4": "ci4", "ci8": "ci8", "ci16": "ci16"}.get(self.recording.sample_type, "cf32")

    def _chunk_samples(self):
        """--chunk-samples, else for Mode H:

        * when a channelizer needs more samples than a block has (BL's 2^20-point
          product from 2^19-sample blocks), the smallest multiple of every rate that
          holds a block: chunks then span blocks;
        * when blocks are large (BL's are 128 MiB), the largest part of a block of at
          most CHUNK_BYTES that every product's rate and integration fit: reading a
          block in parts keeps the copies in cache (twice the rate of whole 128 MiB
          chunks on the build machine, tools/bench-guppi-read);
        * else one block."""
        o, rec = self.options, self.recording
        if o.chunk_samples or self.mode != "h":  # Mode BH channelizes gathered chunks
            return o.chunk_samples or 0
        needed = 1
        for product in self.products:
            if product.channelizer_rate > 1:
                needed = math.lcm(needed, product.channelizer_rate)
        if needed > rec.ntime:
            chunk = -(-rec.ntime // needed) * needed
            self.warnings.append(
                f"chunks of {chunk} samples (the channelizer needs a multiple of {needed}; a block has "
                f"{rec.ntime}): each chunk spans blocks"
            )
            return chunk
        if rec.ntime % needed or any(p.channelizer_rate == 0 for p in self.products):
            return 0  # one block (a rate that does not divide it is refused by the channelizer)

        def fits(chunk):
            for product in self.products:
                spectra = chunk // max(product.channelizer_rate, 1)
                if spectra % product.integration and product.integration % spectra:
                    return False
            return True

        parts = rec.ntime // needed
        divisors = sorted({d for k in range(1, math.isqrt(parts) + 1) if parts % k == 0 for d in (k, parts // k)})
        fitting = [needed * d for d in divisors if rec.chunk_bytes(needed * d) <= CHUNK_BYTES and fits(needed * d)]
        if not fitting or max(fitting) == rec.ntime or rec.chunk_bytes(max(fitting)) < CHUNK_BYTES // 8:
            return 0
        return max(fitting)

    def _make_products(self):
        """Build each product's bundle; returns the (block, port) inputs the voltage
        stream feeds. Several Mode H products on one device share one upload and cast
        (one device buffer, several readers)."""
        from gnuradio import blade

        o = self.options
        input_type = self._input_type()
        devices = list(o.devices or [])
        feeds = []
        shared = None
        if self.mode == "h" and len(self.products) > 1 and not devices and o.device != "all":
            device = blade.resolve_device(o.device)
            working = "cf16" if self._precision() == "fp16" else "cf32"
            shared = blade.cast(self.shape, input_type, working, device)
            feeds.append((shared, 0))
            input_type, o_device = working, device
        else:
            o_device = o.device
        for product in self.products:
            common = dict(
                input_type=input_type,
                channelizer_rate=product.channelizer_rate,
                taps=o.pfb_taps,
                window=o.window,
                circular=o.circular,
                detector=product.stokes,
                integration=product.integration,
                device=o_device,
                devices=devices,
                precision=self._precision(),
            )
            if self.mode == "x":
                product.bundle = self._make_correlator(o_device, devices)
            elif self.mode == "h":
                product.bundle = blade.mode_h(self.shape, blade.spectrometer_options(**common))
            else:
                options = blade.beamforming_options(
                    **common,
                    incoherent=o.incoherent,
                    beams=list(o.beams or []),
                    delays=o.delays,
                    beamformer_path=o.beamformer_path,
                    gather=o.gather,
                )
                bundle = blade.mode_b if self.mode == "b" else blade.mode_bh
                product.bundle = bundle(self.shape, self.recording.observation, self.recipe, options)
            product.chunks_per_output = int(product.bundle.chunks_per_output())
            product.output_shape = list(product.bundle.output_shape())
            if shared is not None:
                self.tb.connect(shared, (product.bundle, 0))
            else:
                feeds.append((product.bundle, 0))
        return feeds

    def _make_output_folder(self):
        folder = self.options.output or "."
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise ValueError(f"--output {folder}: that is a file; --output names the folder for the files")
        os.makedirs(folder, exist_ok=True)

    def _product_stem(self, product):
        """Files' stem: NAME (default RECORDING.mode_X), and NAME.NNNN per product when
        there are several."""
        o = self.options
        stem = os.path.join(o.output, o.name or f"{recording_name(self.recording.files[0])}.mode_{self.mode}")
        return stem if len(self.products) == 1 else f"{stem}.{product.index:04d}"

    def output_paths(self):
        """The files the sinks will write (the first, for GUPPI RAW)."""
        o = self.options
        paths = []
        for product in self.products:
            if self.mode == "x":
                paths.append(f"{product.stem}.{VISIBILITY_FORMATS[o.format]}")
                continue
            if o.format == "raw":
                paths.append(f"{product.stem}.0000.raw")
                continue
            if o.search:
                word = "ant" if self.mode == "h" else "beam"
                paths += [f"{product.stem}.{word}{b:04d}.dat" for b in range(product.output_shape[0])]
                continue
            word = "ant" if self.mode == "h" else "beam"
            paths += [f"{product.stem}.{word}{b:04d}.{o.format}" for b in range(product.output_shape[0])]
        return paths

    def _check_outputs_are_not_inputs(self):
        """Refuse a run whose output would overwrite one of its inputs (the writers
        refuse it too, but this says so before anything runs)."""
        inputs = list(self.recording.files) + ([self.options.recipe] if self.options.recipe else [])
        for path in self.output_paths():
            for source in inputs:
                if os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
                    how = "" if os.path.abspath(path) == os.path.abspath(source) else " (another name of it)"
                    raise ValueError(
                        f"the output {path} is the input {source}{how}: writing it would destroy "
                        "the recording; choose another --output folder or --name"
                    )

    def _labels(self, product):
        """What each output aspect is: beam source names (+ incoherent) or antennas."""
        if self.mode == "x":
            B, F, T, P = product.output_shape
            return [f"{B} baselines x {F} channels x {P} product{'s' if P > 1 else ''}"]
        if self.mode == "h":
            return _label_names(self.recording.antenna_names, product.output_shape[0], "antenna")
        recipe = self.recipe
        chosen = self.options.beams or list(range(recipe.beams))
        names = _label_names(recipe.source_names, recipe.beams, "beam")
        labels = [names[b] for b in chosen]
        if self.options.incoherent:
            labels.append("incoherent")
        return labels

    def _make_sink(self, product):
        from gnuradio import blade

        o = self.options
        if self.mode == "x":
            return self._make_visibility_sink(product)
        # Each beam's name and direction reach the sinks as the blade_beams tag of
        # the bundle's phasor block (the incoherent beam at the boresight): not
        # repeated here.
        if o.format == "raw":
            header = {"OBSID": str(self.recording.header.get("OBSID", "")) or "gr-blade beams"}
            return blade.guppi_sink(product.stem, product.output_shape, "cf32", o.raw_type, o.raw_scale, header=header)
        if o.search:
            from .mode_bs import spectrum_axis

            rate = product.channelizer_rate or 1
            return blade.search_sink(
                product.stem,
                product.output_shape,
                o.search_window,
                spectrum_axis(self.recording.observation, rate),
                self._output_tsamp(product),
                min_drift=o.min_drift,
                max_drift=o.max_drift,
                snr=o.snr,
                device=product.bundle.device(),
                aspect="ant" if self.mode == "h" else "beam",
                source_names=product.labels,
                positions=self._positions(product),
            )
        aspect = "antenna" if self.mode == "h" else "beam"
        rawdatafile = os.path.basename(self.recording.files[0])
        return blade.filterbank_sink(product.stem, product.output_shape, o.format, aspect, {"rawdatafile": rawdatafile})

    def _positions(self, product):
        """(ra hours, dec degrees) of each output aspect: the recipe's beams, the
        boresight for the incoherent beam and for antennas (None where unknown)."""
        import math

        axis = self.recording.observation
        boresight = (math.degrees(axis.ra) / 15, math.degrees(axis.dec)) if axis.has_position else None
        if self.mode == "h":
            return [boresight] * product.output_shape[0]
        chosen = self.options.beams or list(range(self.recipe.beams))
        ras, decs = self.recipe.beam_ras, self.recipe.beam_decs
        positions = [(math.degrees(ras[b]) / 15, math.degrees(decs[b])) for b in chosen]
        return positions + [boresight] * (product.output_shape[0] - len(positions))

    # --- Mode X: the correlator ------------------------------------------------------

    def _check_correlator_options(self):
        """Mode X's options: one product, visibility formats, no detector or beams."""
        o = self.options
        if o.format == "fil":  # the shared default: Mode X's is UVH5
            o.format = "uvh5"
        if o.format not in VISIBILITY_FORMATS:
            raise ValueError(f"format {o.format!r}: Mode X writes visibilities as uvh5, h5 (a plain HDF5 dump) or npz")
        # The writers' Python modules, checked before any chunk is read rather than
        # when the first file is opened, after the whole recording was correlated.
        for module, package in VISIBILITY_MODULES[o.format]:
            try:
                importlib.import_module(module)
            except ImportError:
                raise ValueError(
                    f"--format {o.format} needs the Python module {module} (Debian: {package}), which this Python "
                    "cannot import: install it, or write --format npz (numpy only)"
                ) from None
        for name, value in (("channelizer-rate", o.channelizer_rate), ("integration", o.integration)):
            if isinstance(value, (list, tuple)):
                raise ValueError(f"--{name} takes one value in Mode X (lists make several Mode H products)")
        if o.stokes not in (None, "none"):
            raise ValueError(f"stokes {o.stokes!r}: Mode X correlates, it has no detector (leave --stokes out)")
        if o.circular:
            raise ValueError("circular: Mode X correlates the recorded X and Y as they are (leave --circular out)")
        if o.beams:
            raise ValueError("beams: Mode X forms no beams (leave --beams out)")
        if o.channelizer_rate is not None and o.channelizer_rate < 0:
            raise ValueError(f"channelizer-rate {o.channelizer_rate}: expected fine channels per coarse channel")
        if o.integration is not None and o.integration < 1:
            raise ValueError(
                f"integration {o.integration}: expected fine time samples per visibility, at least 1 (leave it "
                "out for one integration per chunk)"
            )
        if o.channel_integration is None or o.channel_integration < 1:
            raise ValueError(f"channel-integration {o.channel_integration}: expected a whole number of at least 1")
        if o.precision not in ("auto", "fp32", "fp16", "fp64"):
            raise ValueError(f"precision {o.precision!r}: expected auto, fp32, fp16 (tensor cores) or fp64 (CPU)")
        if not (o.operand_scale >= 0 and math.isfinite(o.operand_scale)):
            raise ValueError(f"operand-scale {o.operand_scale}: expected a finite number >= 0 (0: 1)")
        # integration 0: one per chunk, resolved once the chunk's shape is known
        rate = 1 if o.channelizer_rate is None else o.channelizer_rate  # 0: the whole chunk, resolved later
        self.products = [Product(index=0, channelizer_rate=rate, integration=o.integration or 0, stokes="none")]

    def recipe_beside_recording(self):
        """STEM.bfr5 beside the recording STEM.NNNN.raw (as blade-cli demo writes it)."""
        first = self.recording.files[0]
        return os.path.join(os.path.dirname(first), recording_name(first) + ".bfr5")

    def _load_array(self):
        """The array Mode X needs (antenna names and ITRS positions, the site, the
        phase centre): from --recipe, else the BFR5 beside the recording. A GUPPI RAW
        header carries no antenna positions."""
        from gnuradio import blade

        o, rec = self.options, self.recording
        first = os.path.basename(rec.files[0])
        path = o.recipe
        if not path:
            path = self.recipe_beside_recording()
            if not os.path.exists(path):
                raise ValueError(
                    f"Mode X needs the antenna positions: {first}'s header has none (GUPPI RAW carries no array "
                    f"geometry) and there is no {os.path.basename(path)} beside it; give a BFR5 recipe "
                    "(--recipe FILE.bfr5)"
                )
            self._recipe_found = True
            o.recipe = path
        self.recipe = recipe = blade.read_bfr5(path, o.calibration_convention)
        name = os.path.basename(path)
        if recipe.antennas != rec.nants:
            raise ValueError(
                f"{name} does not fit {first}: {name} places {recipe.antennas} antennas (/diminfo/nants), the "
                f"recording has {rec.nants} (NANTS)"
            )
        positions = numpy.asarray(recipe.antenna_positions_ecef, numpy.float64)
        if positions.shape != (rec.nants, 3) or not numpy.all(numpy.isfinite(positions)):
            raise ValueError(f"{name}: antenna positions of shape {list(positions.shape)} or not finite")
        if rec.nants > 1 and numpy.all(numpy.ptp(positions, axis=0) == 0):
            raise ValueError(f"{name}: every antenna is at the same position: the recipe gives no array geometry")
        names = [str(n) for n in (recipe.antenna_names or [])] or list(rec.antenna_names or [])
        if len(names) != rec.nants:
            names = [f"ant{a:03d}" for a in range(rec.nants)]
        if len(set(names)) != len(names):
            raise ValueError(f"{name}: antenna names repeat ({', '.join(names)}): UVH5 needs distinct names")
        if rec.antenna_names and len(rec.antenna_names) == len(names) and rec.antenna_names != names:
            a = next(i for i, (x, y) in enumerate(zip(names, rec.antenna_names)) if x != y)
            self.warnings.append(
                f"antenna {a} is {names[a]!r} in {name} but {rec.antenna_names[a]!r} in the recording (ANTNMS): "
                "the recipe must list antennas in the recording's order"
            )
        boresight = tuple(float(v) for v in recipe.boresight)
        centre = rec.pointing or boresight
        if rec.pointing is not None and angular_separation(rec.pointing, boresight) > math.radians(1 / 60):
            apart = math.degrees(angular_separation(rec.pointing, boresight)) * 60
            self.warnings.append(
                f"the recording points at RA_STR/DEC_STR {apart:.1f} arcmin from {name}'s phase centre: the "
                "visibilities are phased to the recording's pointing"
            )
        diameters = numpy.asarray(recipe.antenna_diameters, numpy.float64)
        self.array = dict(
            antenna_names=names,
            antenna_positions=positions,
            site=tuple(float(v) for v in recipe.reference),
            phase_centre=centre,
            phase_centre_name=rec.source_name or "boresight",
            telescope_name=rec.telescope or str(recipe.telescope_name or "") or "unknown",
            dut1=float(rec.header.get("DUT1", recipe.dut1) or 0.0),
            antenna_diameters=diameters if diameters.size == rec.nants and numpy.all(diameters > 0) else None,
            history=f"gr-blade Mode X of {first} (antenna positions from {name}).",
        )

    def _make_correlator(self, device, devices):
        from gnuradio import blade

        o, product = self.options, self.products[0]
        T = self.shape[2]
        if product.channelizer_rate == 0:
            product.channelizer_rate = T
        rate = product.channelizer_rate
        if T % rate:
            raise ValueError(
                f"channelizer-rate {rate} does not divide the chunk's {T} samples: give a divisor of {T} "
                "(or --chunk-samples a multiple of the rate)"
            )
        if product.integration == 0:
            product.integration = T // rate  # one integration per chunk
        options = blade.correlator_options(
            input_type=self._input_type(),
            channelizer_rate=rate,
            taps=o.pfb_taps,
            window=o.window,
            integration=product.integration,
            channel_integration=o.channel_integration,
            precision=o.precision,
            operand_scale=o.operand_scale,
            device=device,
            devices=devices,
        )
        try:
            bundle = blade.mode_x(self.shape, options)
        except ValueError as error:  # say in the job's terms what the correlator was given
            fine = f"{T // rate} fine samples x {self.shape[1] * rate} fine channels"
            raise ValueError(f"{error} (the correlator's chunks: {fine}, after --channelizer-rate {rate})") from None
        if o.precision in ("fp32", "fp16") and bundle.precision() == "fp64":
            self.warnings.append(
                f"--precision {o.precision} is for GPUs"
                + (" (fp32 on the CPU needs gr-blade built with OpenBLAS)" if o.precision == "fp32" else "")
                + ": the CPU computes the fp64 reference"
            )
        return bundle

    def visibility_axes(self, product=None):
        """(frequencies [F'] Hz, channel width Hz, integration time s) of the visibilities."""
        product = product or self.products[0]
        o, rec = self.options, self.recording
        rate, fc = product.channelizer_rate, o.channel_integration
        fine = rec.observation.channelized(rate) if rate > 1 else rec.observation
        frequencies = numpy.asarray(fine.frequencies(), numpy.float64)
        frequencies = frequencies.reshape(-1, fc).mean(axis=1)
        width = abs(rec.chan_bw) / rate * fc
        return frequencies, width, product.integration * rate * rec.tbin

    def _make_visibility_sink(self, product):
        from gnuradio import blade

        frequencies, width, seconds = self.visibility_axes(product)
        path = self.output_paths()[0]
        return blade.visibility_sink(
            path,
            product.output_shape,
            self.array,
            format=self.options.format,
            frequencies=frequencies,
            channel_width=width,
            integration_time=seconds,
            overwrite=True,
        )

    def _correlator_chain_text(self, product):
        o = self.options
        steps = [self._input_type()]
        if product.channelizer_rate != 1 or o.pfb_taps > 1:
            steps.append(
                f"channelizer x{product.channelizer_rate}" + (f" (PFB, {o.pfb_taps} taps)" if o.pfb_taps > 1 else "")
            )
        sums = f"x{product.integration}" + (f", {o.channel_integration} channels" if o.channel_integration > 1 else "")
        steps.append(f"correlator {product.bundle.precision()} {sums}")
        return " -> ".join(steps) + f" on {product.bundle.device()}"

    def _visibility_output_text(self, product):
        B, F, T, P = product.output_shape
        frequencies, width, seconds = self.visibility_axes(product)
        per = "chunk" if product.chunks_per_output == 1 else f"{product.chunks_per_output} chunks"
        what = {"uvh5": "UVH5", "h5": "HDF5 dump", "npz": "numpy dump"}[self.options.format]
        return (
            f"output: {self.output_paths()[0]} ({what}): {B} baselines of {self.recording.nants} antennas, "
            f"{F} channels of {width / 1e3:.6g} kHz, {P} product{'s' if P > 1 else ''}, {T} integration"
            f"{'s' if T != 1 else ''} of {seconds * 1e3:.6g} ms per {per}"
        )

    # --- description ----------------------------------------------------------------

    def chain_text(self, product=None):
        o = self.options
        product = product or self.products[0]
        if self.mode == "x":
            return self._correlator_chain_text(product)
        steps = [self._input_type()]
        if product.channelizer_rate != 1:
            rate = product.channelizer_rate or self.shape[2] * o.gather
            steps.append(f"channelizer x{rate}" + (f" (PFB, {o.pfb_taps} taps)" if o.pfb_taps > 1 else ""))
        if o.circular:
            steps.append("polarizer (circular)")
        if self.mode != "h":
            n = len(product.labels) - (1 if o.incoherent else 0)
            beams = f"beamformer ({n} beam{'s' if n != 1 else ''}{' + incoherent' if o.incoherent else ''})"
            steps.insert(1, beams) if self.mode == "bh" else steps.append(beams)
            if self.mode == "bh":
                steps.insert(2, f"gather x{o.gather}")
        if product.stokes != "none":
            steps.append(f"detector {product.stokes}" + (f" x{product.integration}" if product.integration > 1 else ""))
        half = " (fp16: cf16 intermediates)" if self._precision() == "fp16" else ""
        return " -> ".join(steps) + f" on {product.bundle.device()}{half}"

    def plan(self):
        """Lines that say what will run."""
        rec, o = self.recording, self.options
        chunk_seconds = self.shape[2] * rec.tbin
        lines = [rec.describe(), rec.describe_band()]
        if self.recipe is not None and self.mode == "x":
            lines.append(
                f"array from {os.path.basename(self.recipe.path)}: {self.recipe.antennas} antennas "
                f"({', '.join(self.array['antenna_names'][:4])}{', ...' if self.recipe.antennas > 4 else ''}), "
                f"phase centre {self.array['phase_centre_name']}"
                + (" (the recipe beside the recording)" if getattr(self, "_recipe_found", False) else "")
            )
        elif self.recipe is not None:
            lines.append(
                f"recipe {os.path.basename(self.recipe.path)}: {', '.join(self.products[0].labels)}; "
                f"{self.recipe.antennas} antennas, absolute channels 0..{self.recipe.channels - 1}: fits"
            )
        lines.append(
            f"chunks of {self.shape[2]} samples ({chunk_seconds * 1e3:.3f} ms), {self.chunks_total} to "
            f"process" + (f" (--max-chunks {o.max_chunks})" if o.max_chunks else "")
        )
        if len(self.products) > 1:
            lines.append(f"{len(self.products)} products from one read and one upload of each chunk:")
        for product in self.products:
            prefix = f"product {product.index}: " if len(self.products) > 1 else ""
            lines.append(f"{prefix}chain: {self.chain_text(product)}")
            lines.append(prefix + self._output_text(product))
        return lines

    def _output_text(self, product):
        """What a product writes, in one line."""
        o = self.options
        if self.mode == "x":
            return self._visibility_output_text(product)
        B, F, T, P = product.output_shape
        if o.format == "raw":
            return (
                f"output: {product.stem}.0000.raw: {B} beam{'s' if B > 1 else ''} x {F} channels, {o.raw_type} voltages"
            )
        word = "ant" if self.mode == "h" else "beam"
        if o.search:
            return (
                f"output: {product.stem}.{word}0000.dat .. ({B} hit tables, and .csv): dedoppler search of "
                f"windows of {o.search_window} spectra ({F} channels, tsamp {self._output_tsamp(product):.6g} s), "
                f"drift {o.min_drift:g}..{o.max_drift:g} Hz/s, SNR > {o.snr:g}; no filterbank written"
            )
        per = "chunk" if product.chunks_per_output == 1 else f"{product.chunks_per_output} chunks"
        return (
            f"output: {product.stem}.{word}0000.{o.format} .. ({B} files), {F} channels x {P} IF(s), "
            f"{T} spectr{'um' if T == 1 else 'a'} per {per}, tsamp {self._output_tsamp(product) * 1e3:.6g} ms"
        )

    def _output_tsamp(self, product):
        """Seconds per output spectrum (or sample, for voltages)."""
        samples = self.shape[2] * product.chunks_per_output
        return samples * self.recording.tbin / product.output_shape[2]

    # --- running --------------------------------------------------------------------

    def chunks_done(self):
        """Chunks every product has finished with."""
        return min(product.chunks_done() for product in self.products)

    def run(self, progress=None, stream=None):
        """
        Run the flowgraph to the end (or until Ctrl-C, which stops it cleanly:
        the sinks close their files) and return a Summary. progress: a tqdm bar on
        `stream` (default stderr): True, False, or None for only on a terminal. Raises RunError when a
        block failed (blade.failures()).
        """

        from gnuradio import blade

        stream = stream or sys.stderr
        bar = _progress_bar(self.chunks_total, progress, stream)
        chunk_seconds = self.shape[2] * self.recording.tbin
        chunk_bytes = self.recording.chunk_bytes(self.shape[2])
        blade.clear_failures()
        finished = threading.Event()
        stopped_by = None
        timeline_output = os.environ.get("BLADE_TIMELINE")  # timeline.py: OUTPUT.json and OUTPUT.png
        if timeline_output:
            blade.timeline_start()
        start = time.perf_counter()
        try:
            self.tb.start()
        except MemoryError as error:
            size = _chunk_megabytes(self.shape, self._input_type())
            raise RunError(
                f"out of memory while allocating the flowgraph's buffers (chunks of {size:.0f} MB, a "
                "few per connection): use fewer time samples per chunk (--chunk-samples) or fewer "
                "channels (--channels)"
            ) from error
        waiter = threading.Thread(target=lambda: (self.tb.wait(), finished.set()), daemon=True)
        waiter.start()
        first_output = _FirstOutput()
        try:
            while not finished.wait(first_output.poll_seconds):
                done = self.chunks_done()
                first_output.check(done)
                _advance(bar, done, start, chunk_seconds, chunk_bytes)
        except KeyboardInterrupt as caught:
            stopped_by = signal.Signals(caught.signum).name if isinstance(caught, Interrupted) else "SIGINT"
            self._stop(finished)
        wall = time.perf_counter() - start
        if timeline_output:
            from .timeline import write as write_timeline

            recording = os.path.basename(self.recording.files[0])
            title = f"blade-cli mode-{self.mode}: {recording} on {self.products[0].bundle.device()}"
            write_timeline(blade.timeline_stop(), timeline_output, title)
        failures = list(blade.failures())
        # A run that ended by itself processed every chunk (a product's last partial
        # integration writes nothing); an interrupted one, what every product finished.
        done = self.chunks_total if stopped_by is None and not failures else self.chunks_done()
        first_output.check(self.chunks_done())
        _advance(bar, done, start, chunk_seconds, chunk_bytes)
        if bar is not None:
            bar.close()
        files = []
        for product in self.products:
            written = self._written(product)
            if self.options.search:
                windows = product.sink.spectra_written() // self.options.search_window
                for b, (path, label) in enumerate(zip(product.sink.files(), product.labels)):
                    files.append((path, f"{label}: {product.sink.hits(b)} hits in {windows} windows", written))
                continue
            files += [(path, label, written) for path, label in zip(product.sink.files(), product.labels)]
        summary = Summary(
            mode=self.mode,
            chunks=done,
            chunks_total=self.chunks_total,
            data_seconds=done * chunk_seconds,
            wall_seconds=wall,
            bytes_read=done * chunk_bytes,
            files=files,
            dropped_blocks=int(self.source.zero_filled_blocks()),
            interrupted=stopped_by is not None,
            device=self.products[0].bundle.device(),
            signal=stopped_by,
            stopped_at_gap=(self.options.on_gap == "stop" and self.recording.gaps > 0 and stopped_by is None),
        )
        if failures:
            more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
            raise RunError(failures[0] + more, summary)
        errors = [p.sink.error for p in self.products if getattr(p.sink, "error", None)]
        if errors:
            raise RunError(errors[0], summary)
        return summary

    def _stop(self, finished):
        """Stop the flowgraph and wait for it; a second Ctrl-C (or SIGTERM, SIGHUP)
        meanwhile is ignored so the sinks finish closing their files."""
        main = threading.current_thread() is threading.main_thread()
        names = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        previous = {s: signal.signal(s, signal.SIG_IGN) for s in names} if main else {}
        try:
            self.tb.stop()
            finished.wait()
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)

    def _written(self, product):
        if self.mode == "x":
            return int(product.sink.integrations_written()) if product.sink.files() else 0
        if self.options.format == "raw":
            return int(product.sink.blocks_written())
        return int(product.sink.spectra_written())


class _FirstOutput:
    """The start-up figure of blade-bench (bench/rawspec_suite.py): when the launcher
    puts its clock (time.time()) in BLADE_LAUNCHED_AT, the run watches for the first
    output to reach the sinks (one chunk read, uploaded, computed and downloaded) every
    millisecond and prints, once, on stderr, how long after the launch that was."""

    def __init__(self):
        launched = os.environ.get("BLADE_LAUNCHED_AT")
        self.launched = float(launched) if launched else None
        self.poll_seconds = 0.001 if self.launched is not None else 0.2

    def check(self, chunks_done):
        if self.launched is None or chunks_done < 1:
            return
        print(f"first output {time.time() - self.launched:.4f} s after the launch", file=sys.stderr, flush=True)
        self.launched = None
        self.poll_seconds = 0.2


def _progress_bar(total, enabled, stream):
    if enabled is None:  # automatic: only on a terminal (no carriage-return litter in logs)
        enabled = hasattr(stream, "isatty") and stream.isatty()
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # python3-tqdm missing: run without a bar
        return None
    return tqdm(
        total=total,
        unit="chunk",
        file=stream,
        dynamic_ncols=True,
        leave=True,
        bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} chunks [{elapsed}<{remaining}{postfix}]",
    )


def _advance(bar, done, start, chunk_seconds, chunk_bytes):
    if bar is None or done <= bar.n:
        return
    elapsed = max(time.perf_counter() - start, 1e-9)
    bar.set_postfix_str(
        f"{done * chunk_bytes / elapsed / 1e6:.0f} MB/s, " f"{done * chunk_seconds / elapsed:.2f}x real time",
        refresh=False,
    )
    bar.update(done - bar.n)
