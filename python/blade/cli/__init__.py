# SPDX-License-Identifier: MIT
"""
blade-cli: the gr-blade command line.

    blade-cli info                      version, backends, GPUs, GNU Radio
    blade-cli header FILE               the GUPPI RAW header of a recording
    blade-cli mode-b  --input REC --recipe R.bfr5 --output DIR    beams -> filterbank files
    blade-cli mode-h  --input REC --output DIR                    high-resolution spectra per antenna
    blade-cli mode-bh --input REC --recipe R.bfr5 --output DIR    high-resolution spectra per beam
    blade-cli mode-x  --input REC [--recipe R.bfr5] --output DIR  visibilities of every baseline -> UVH5
    blade-cli demo [--output DIR]       a synthetic observation through Mode B and Mode H
    blade-cli rawspec [rawspec's options] STEM...                 rawspec's products and files (= blade-rawspec)
    blade-cli search FILE.fil|FILE.h5... [--max-drift 4 --snr 10]  drifting-signal search -> .dat/.csv hit tables

Errors are one line on stderr and a non-zero exit status (2 for bad arguments, 1
for failures, 130 after Ctrl-C, 143 after SIGTERM, 129 after SIGHUP: each stops the
run cleanly, with complete files and a summary); --verbose shows the full trace and
GNU Radio's log. The output files never depend on the terminal: a closed stdout
(`blade-cli ... | head`) only silences the messages.
"""

import argparse
import contextlib
import os
import signal
import sys
import traceback


class _Parser(argparse.ArgumentParser):
    """argparse, with errors as one line (usage is in --help)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _format_bytes(count):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if count < 1024 or unit == "TiB":
            return f"{count:.1f} {unit}" if unit != "B" else f"{count} B"
        count /= 1024.0
    return f"{count} B"


# --- info and header ------------------------------------------------------------


def command_info(args):
    from gnuradio import gr

    from gnuradio import blade

    print(f"gr-blade {blade.version()} (commit {blade.build_commit()})")
    print(f"GNU Radio {gr.version()}")
    print(f"backends: {', '.join(blade.backends())}")
    gpus = blade.gpus()
    if not gpus:
        reason = "built without CUDA" if "cuda" not in blade.backends() else "no CUDA GPU or driver found"
        print(f"GPUs: none ({reason}); blocks with device='auto' run on the CPU")
    else:
        print(f"GPUs: {len(gpus)}")
        for gpu in gpus:
            bandwidth = f", {gpu.memory_bandwidth / 1e12:.2f} TB/s" if gpu.memory_bandwidth else ""
            print(
                f"  cuda:{gpu.index}  {gpu.name}  {_format_bytes(gpu.total_memory)} "
                f"({_format_bytes(gpu.free_memory)} free), compute {gpu.compute_major}.{gpu.compute_minor}, "
                f"{gpu.multiprocessors} SMs{bandwidth}"
            )
    print(f"default device: {blade.resolve_device('auto')}")
    return 0


def _card_text(value):
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def command_header(args):
    from ..formats import guppi
    from ..recording import Recording

    try:
        header, problem = guppi.read_header(args.file, args.block, args.single_file), None
    except RuntimeError as error:
        # A recording that cannot be read as a whole (a header without data, a block
        # cut short, a later block refused) still says something: its first header.
        if args.block != 0 or not os.path.isfile(args.file):
            raise
        header, problem = guppi.read_file_header(args.file), str(error)
    for key, value in header.items():
        print(f"{key:<8}= {_card_text(value)}")
    if problem is not None:
        print(
            f"blade-cli header: warning: the first header of {args.file} is shown, but the recording cannot be "
            f"read: {problem}",
            file=sys.stderr,
        )
        return 0
    if args.summary:
        recording = Recording(args.file, single_file=args.single_file)
        print()
        print(recording.describe())
        print(recording.describe_band())
        start = recording.unix_start
        print(f"first sample at unix {start:.6f} (MJD {start / 86400 + 40587:.9f}), TBIN {recording.tbin:g} s")
        for warning in recording.warnings:
            print(f"warning: {warning}")
    return 0


# --- the bundles ------------------------------------------------------------------


def _channels(text):
    """START:COUNT, START: (to the end) or START (to the end)."""
    start, _, count = text.partition(":")
    try:
        start, count = int(start), int(count) if count else None
    except ValueError:
        raise argparse.ArgumentTypeError(f"channels {text!r}: expected START:COUNT, e.g. 16:32") from None
    if start < 0 or (count is not None and count < 1):
        raise argparse.ArgumentTypeError(
            f"channels {text!r}: expected a first channel >= 0 and a count of at "
            "least 1 (START: for all from START on)"
        )
    return start, count


def _beam_list(text):
    try:
        return [int(b) for b in text.replace(" ", "").split(",") if b]
    except ValueError:
        raise argparse.ArgumentTypeError(f"beams {text!r}: expected recipe beam indices, e.g. 0,2,3") from None


def _device_list(text):
    devices = [d for d in text.replace(" ", "").split(",") if d]
    if not devices:
        raise argparse.ArgumentTypeError(f"devices {text!r}: expected e.g. cuda:0,cuda:1 or all")
    if "all" in devices and len(devices) > 1:
        raise argparse.ArgumentTypeError(f"devices {text!r}: all stands alone")
    return devices


def _count(text):
    """A whole number >= 0 (for options where 0 has a documented meaning)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return value


def _at_least_one(text):
    """A whole number >= 1: zero is refused, not read as the default (leave the option out)."""
    value = _count(text)
    if value == 0:
        raise argparse.ArgumentTypeError(
            "0 has no meaning here: give at least 1, or leave the option out for " "its default"
        )
    return value


def _list_of(parse):
    """A comma-separated list of values of `parse` (Mode H: one per product)."""

    def parse_list(text):
        values = [parse(part) for part in text.split(",")]
        return values if len(values) > 1 else values[0]

    return parse_list


def _stokes(text):
    if text not in ("I", "XXYY", "cross", "IQUV", "none"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected I, XXYY, cross or IQUV")
    return text


def _seconds(text):
    """Seconds >= 0, or inf."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected seconds >= 0 (or inf)")
    return value


def _factor(text):
    """A positive number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive factor")
    return value


def _add_bundle_arguments(parser, mode):
    io = parser.add_argument_group("input and output")
    io.add_argument(
        "-i",
        "--input",
        required=True,
        metavar="RECORDING",
        help="GUPPI RAW recording: a .raw file, a stem, or any member of stem.NNNN.raw",
    )
    if mode == "x":
        io.add_argument(
            "-r",
            "--recipe",
            metavar="FILE.bfr5",
            help="BFR5 recipe giving the antenna positions (default: STEM.bfr5 beside the recording)",
        )
    elif mode != "h":
        io.add_argument("-r", "--recipe", required=True, metavar="FILE.bfr5", help="BFR5 beamforming recipe")
    io.add_argument("-o", "--output", default=".", metavar="DIR", help="folder for the files (default: %(default)s)")
    io.add_argument("--name", metavar="STEM", help=f"file stem in DIR (default: the recording's, plus .mode_{mode})")
    if mode == "x":
        io.add_argument(
            "--format",
            choices=["uvh5", "h5", "npz"],
            default="uvh5",
            help="one file of every integration: UVH5 (pyuvdata, CASA via pyuvdata), or the plain visibilities "
            "as HDF5 (h5) or numpy (npz) (default: uvh5)",
        )
    else:
        formats = ["fil", "h5", "raw"] if mode == "b" else ["fil", "h5"]
        io.add_argument(
            "--format",
            choices=formats,
            default="fil",
            help="SIGPROC filterbank (fil), filterbank HDF5 (h5)"
            + (", or beamformed voltages as GUPPI RAW (raw)" if mode == "b" else "")
            + " (default: fil)",
        )
    if mode == "b":
        io.add_argument(
            "--raw-type",
            choices=["cf32", "ci16", "ci8"],
            default="cf32",
            help="sample type of --format raw files (default: cf32, lossless)",
        )
        io.add_argument(
            "--raw-scale",
            type=float,
            default=1.0,
            help="multiply voltages by this before an integer --raw-type (default: 1)",
        )
    io.add_argument(
        "--chunk-samples", type=_at_least_one, metavar="T", help="time samples per chunk (default: one GUPPI block)"
    )
    io.add_argument(
        "--channels",
        type=_channels,
        metavar="START:COUNT",
        help="process only these channels of each antenna; START: or START for all from START " "on (default: all)",
    )
    io.add_argument(
        "--max-chunks", type=_at_least_one, metavar="N", help="stop after N chunks (default: the whole recording)"
    )
    io.add_argument(
        "--on-gap",
        choices=["zero-fill", "stop"],
        default="zero-fill",
        help="where blocks are missing: emit zeros, or stop (default: zero-fill)",
    )
    io.add_argument(
        "--max-gap",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="longest gap zero-filled; a longer one is refused as a corrupt PKTIDX "
        "(default: 0, as long as all the data the recording holds; inf: no bound)",
    )
    io.add_argument("--single-file", action="store_true", help="read only the file given, not its whole sequence")
    io.add_argument(
        "--pace",
        type=_factor,
        metavar="FACTOR",
        help="read at FACTOR x real time, like a live stream (default: as fast as possible)",
    )

    dsp = parser.add_argument_group("processing")
    dsp.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N (default: auto)")
    dsp.add_argument(
        "--devices",
        type=_device_list,
        metavar="LIST",
        help="spread the channels over several devices, one sub-band each: cuda:0,cuda:1, or "
        "all (every GPU); the files are the same as on one device (default: --device alone)",
    )
    rate_default = "0 = T x gather, the whole gathered time axis" if mode == "bh" else "1, no channelizer"
    several = " (a list, one value per product, makes several products in one pass)" if mode == "h" else ""
    dsp.add_argument(
        "--channelizer-rate",
        type=_list_of(_count) if mode == "h" else _count,
        metavar="N[,N...]" if mode == "h" else "N",
        help=f"fine channels per coarse channel; 0: as many as the chunk has samples{several} "
        f"(default: {rate_default})",
    )
    dsp.add_argument(
        "--pfb-taps",
        type=_at_least_one,
        default=1,
        metavar="M",
        help="polyphase filterbank taps per branch (default: 1, a plain FFT)",
    )
    dsp.add_argument(
        "--window",
        default="hamming",
        choices=["rectangular", "hamming", "hann", "blackman", "blackman-harris"],
        help="polyphase prototype window (default: hamming)",
    )
    if mode == "x":
        _add_correlator_arguments(dsp)
    else:
        dsp.add_argument("--circular", action="store_true", help="convert linear X, Y to circular L, R first")
        dsp.add_argument(
            "--precision",
            choices=["fp32", "fp16"],
            default="fp32",
            help="fp16: half-precision (cf16) intermediates after the cast, half the device memory traffic; "
            "every stage computes in float and rounds to half once, the detector sums in float "
            "(docs/precision.md gives the error against fp32) (default: fp32)",
        )
    stokes = ["I", "XXYY", "cross", "IQUV"] + (["none"] if mode == "b" else [])
    if mode == "x":
        pass
    elif mode == "h":
        dsp.add_argument(
            "--stokes",
            type=_list_of(_stokes),
            metavar="MODE[,MODE...]",
            help="detector: I (Stokes I), XXYY, cross (the four cross products) or IQUV, one per "
            "product or one for all (default: I)",
        )
    else:
        dsp.add_argument(
            "--stokes",
            choices=stokes,
            help="detector: Stokes I, XX and YY, the four cross products, or Stokes IQUV"
            + ("; none with --format raw" if mode == "b" else "")
            + " (default: I)",
        )
    if mode == "x":
        pass
    else:
        _add_integration_argument(dsp, mode)
    if mode == "bh":
        dsp.add_argument(
            "--gather",
            type=_at_least_one,
            default=8,
            metavar="M",
            help="chunks joined along time before the channelizer (default: 8)",
        )
    if mode in ("b", "bh"):
        beams = parser.add_argument_group("beams")
        beams.add_argument(
            "--beams", type=_beam_list, metavar="LIST", help="recipe beams to form, by index: 0,2,3 (default: all)"
        )
        beams.add_argument(
            "--incoherent",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="add the incoherent sum of the antennas' power as a last beam (default: "
            + ("on, but off with --format raw: it is a power, not a voltage)" if mode == "b" else "off)"),
        )
        beams.add_argument(
            "--delays",
            choices=["geometry", "recipe", "recipe_rates"],
            default="geometry",
            help="delays from the array geometry, or the recipe's delay table "
            "(interpolated, or nearest row plus rates) (default: geometry)",
        )
        beams.add_argument(
            "--beamformer-path",
            choices=["auto", "fp32", "tf32", "tf32x3", "fp16"],
            default="auto",
            help="GPU beamformer arithmetic (default: auto; fp16: tensor cores with half "
            "operands, the fastest, ~2e-4 relative error)",
        )
        beams.add_argument(
            "--calibration-convention",
            choices=["blade", "seticore"],
            default="blade",
            help="how the recipe's cal_all is meant: blade multiplies the voltages by it, "
            "seticore by its conjugate; give seticore for recipes made for seticore "
            "(default: blade)",
        )
    if mode in ("b", "h"):
        found = parser.add_argument_group("search (beamform-and-search: no filterbank written)")
        found.add_argument(
            "--search",
            action="store_true",
            help="dedoppler-search the spectra on the device and write turbo_seti .dat hit tables (and CSV) "
            "per " + ("beam" if mode == "b" else "antenna") + " instead of filterbanks (docs/dedoppler.md)",
        )
        found.add_argument("--search-window", type=_at_least_one, default=16, help="spectra per search (default 16)")
        found.add_argument("--min-drift", type=float, default=0.0, help="smallest |drift|, Hz/s (default 0)")
        found.add_argument("--max-drift", type=float, default=4.0, help="largest |drift|, Hz/s (default 4)")
        found.add_argument(
            "--snr", type=float, default=10.0, help="SNR threshold, turbo_seti's convention (default 10)"
        )
    shown = parser.add_argument_group("display")
    shown.add_argument("--no-progress", action="store_true", help="no progress bar")
    shown.add_argument("-q", "--quiet", action="store_true", help="print only errors and the final summary")


def _add_integration_argument(dsp, mode):
    dsp.add_argument(
        "--integration",
        type=_list_of(_at_least_one) if mode == "h" else _at_least_one,
        default=1,
        metavar="I[,I...]" if mode == "h" else "I",
        help="spectra summed per output spectrum; may span chunks"
        + (", one per product" if mode == "h" else "")
        + " (default: 1)",
    )


def _add_correlator_arguments(dsp):
    """Mode X: how the correlator sums and computes."""
    dsp.add_argument(
        "--integration",
        type=_at_least_one,
        metavar="I",
        help="fine time samples summed per visibility: a divisor of the chunk's fine samples, or a multiple of "
        "them to integrate across chunks (default: one integration per chunk)",
    )
    dsp.add_argument(
        "--channel-integration",
        type=_at_least_one,
        default=1,
        metavar="FC",
        help="adjacent fine channels summed per visibility, a divisor of the channel count (default: 1)",
    )
    dsp.add_argument(
        "--precision",
        choices=["auto", "fp32", "fp16", "fp64"],
        default="auto",
        help="arithmetic: fp32 (CUDA cores; on the CPU float32 sums through OpenBLAS, 5-7x faster than "
        "the reference), fp16 (tensor cores, fp16 operands and float32 sums; exact operands for 8-bit "
        "recordings), fp64 (the CPU's double-precision reference) (default: auto = fp32 on a GPU, fp64 on the "
        "CPU)",
    )
    dsp.add_argument(
        "--operand-scale",
        type=float,
        default=0.0,
        metavar="S",
        help="fp16 with float voltages (a channelizer's output): multiply them by S before rounding to fp16, "
        "so that they stay within its range (default: 0 = 1)",
    )


def options_from_args(mode, args):
    """pipeline.Options from parsed command-line arguments."""
    from ..pipeline import Options

    return Options(
        input=args.input,
        output=args.output,
        recipe=getattr(args, "recipe", None),
        name=args.name,
        device="all" if args.devices == ["all"] else args.device,
        devices=None if args.devices == ["all"] else args.devices,
        chunk_samples=args.chunk_samples,
        channels=args.channels,
        channelizer_rate=args.channelizer_rate,
        pfb_taps=args.pfb_taps,
        window=args.window,
        circular=getattr(args, "circular", False),
        incoherent=getattr(args, "incoherent", None),
        stokes=getattr(args, "stokes", None),
        integration=args.integration,
        beams=getattr(args, "beams", None),
        delays=getattr(args, "delays", "geometry"),
        gather=getattr(args, "gather", 8),
        format=args.format,
        raw_type=getattr(args, "raw_type", "cf32"),
        raw_scale=getattr(args, "raw_scale", 1.0),
        max_chunks=args.max_chunks,
        on_gap=args.on_gap,
        max_gap=args.max_gap,
        pace=args.pace,
        beamformer_path=getattr(args, "beamformer_path", "auto"),
        calibration_convention=getattr(args, "calibration_convention", "blade"),
        single_file=args.single_file,
        search=getattr(args, "search", False),
        search_window=getattr(args, "search_window", 16),
        min_drift=getattr(args, "min_drift", 0.0),
        max_drift=getattr(args, "max_drift", 4.0),
        snr=getattr(args, "snr", 10.0),
        channel_integration=getattr(args, "channel_integration", 1),
        precision=getattr(args, "precision", "auto"),
        operand_scale=getattr(args, "operand_scale", 0.0),
    )


def run_bundle(mode, args, stream=None):
    """Build and run one bundle from parsed arguments; returns (summary, exit code)."""
    from ..pipeline import Job, report_run

    job = Job(mode, options_from_args(mode, args))
    summary = report_run(
        job,
        f"blade-cli mode-{mode}",
        stream=stream or sys.stdout,
        quiet=args.quiet,
        progress=False if (args.no_progress or args.quiet) else None,
    )
    return summary, summary.exit_status


def _bundle_command(mode):
    def command(args):
        return run_bundle(mode, args)[1]

    return command


# --- the demo ---------------------------------------------------------------------


def command_demo(args):
    from . import demo

    return demo.run(output=args.output, device=args.device, quiet=args.quiet, figure=not args.no_figure)


# --- the parser -------------------------------------------------------------------


def build_parser():
    parser = _Parser(
        prog="blade-cli",
        description="gr-blade: GPU beamforming, channelizing and detection for radio telescopes.",
    )
    parser.add_argument("--version", action="version", version=f"blade-cli (gr-blade) {_version()}")
    parser.add_argument("--verbose", action="store_true", help="show full tracebacks and GNU Radio logs")
    verbose = _Parser(add_help=False)
    verbose.add_argument(
        "--verbose", action="store_true", default=argparse.SUPPRESS, help="show full tracebacks and GNU Radio logs"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    info = commands.add_parser("info", parents=[verbose], help="version, backends, GPUs and GNU Radio version")
    info.set_defaults(handler=command_info)

    header = commands.add_parser("header", parents=[verbose], help="print the GUPPI RAW header of a recording")
    header.add_argument("file", help="a .raw file, a stem, or any member of stem.NNNN.raw")
    header.add_argument("--block", type=_count, default=0, help="block whose header to print (default: 0)")
    header.add_argument("--summary", action="store_true", help="also describe the whole recording")
    header.add_argument("--single-file", action="store_true", help="only the file given, not its sequence")
    header.set_defaults(handler=command_header)

    about = {
        "b": (
            "beamform a recording into filterbank files (or beam voltages), one per beam",
            "Mode B: voltages -> [channelizer] -> [polarizer] -> beamformer (phasors from the BFR5 recipe "
            "at each chunk's time) -> detector -> one filterbank file per beam (the incoherent beam last), "
            "or beamformed voltages as GUPPI RAW.",
        ),
        "h": (
            "high-resolution spectra of every antenna (a spectrometer)",
            "Mode H: voltages -> channelizer -> [polarizer] -> detector -> one filterbank file per antenna.",
        ),
        "x": (
            "correlate every pair of antennas (an FX correlator) into a UVH5 file",
            "Mode X: voltages -> [channelizer] -> correlator (every baseline, autocorrelations included, and "
            "every polarization product, summed over --integration fine samples and --channel-integration "
            "channels) -> one UVH5 file of every integration (or a plain HDF5/numpy dump). The antenna "
            "positions come from a BFR5 recipe (--recipe, or STEM.bfr5 beside the recording).",
        ),
        "bh": (
            "high-resolution spectra of beams",
            "Mode BH: voltages -> beamformer -> gather M chunks -> channelizer -> detector -> one filterbank "
            "file per beam.",
        ),
    }
    for mode, (short, long) in about.items():
        sub = commands.add_parser(f"mode-{mode}", parents=[verbose], help=short, description=long)
        _add_bundle_arguments(sub, mode)
        sub.set_defaults(handler=_bundle_command(mode))

    demo = commands.add_parser(
        "demo",
        parents=[verbose],
        help="synthesize an observation and beamform it (Mode B and Mode H)",
        description="Synthesize an eight-antenna observation (GUPPI RAW and a BFR5 recipe) with a tone from a "
        "source 38 arcmin off the boresight, form a beam on it, one elsewhere and the incoherent sum (Mode B), "
        "channelize every antenna (Mode H), and check where the tone went: the beam on the source gains A = 8 "
        "over the incoherent sum. Writes the files and a figure (demo.png) to --output.",
    )
    demo.add_argument("--output", default="blade-demo", help="directory for the demo's files (default: %(default)s)")
    demo.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N (default: %(default)s)")
    demo.add_argument("--no-figure", action="store_true", help="skip the PNG figure (no matplotlib needed)")
    demo.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    demo.set_defaults(handler=command_demo)

    rawspec = commands.add_parser(
        "rawspec",
        parents=[verbose],
        help="rawspec's command line: its products, file names and headers (also installed as blade-rawspec)",
        description="rawspec's options and files: every product in one pass over each recording "
        "(docs/user-guide.md#rawspec).",
    )
    from . import rawspec as rawspec_command

    rawspec_command.add_arguments(rawspec)
    rawspec.set_defaults(handler=rawspec_command.run)

    search = commands.add_parser(
        "search",
        parents=[verbose],
        help="dedoppler search of filterbank files: turbo_seti's .dat hit tables (and CSV)",
        description="The narrowband drifting-signal (dedoppler) search of .fil/.h5 files on the CPU or a GPU; "
        "writes turbo_seti's .dat table and a CSV per file (docs/dedoppler.md).",
    )
    from . import search as search_command

    search_command.add_arguments(search)
    search.set_defaults(handler=search_command.run)
    return parser


def _version():
    try:
        from gnuradio import blade

        return f"{blade.version()} (commit {blade.build_commit()})"
    except Exception:  # the module cannot load: still answer --version
        return "unknown (the gnuradio.blade module does not load)"


class _Output:
    """stdout or stderr that outlives its reader (`blade-cli ... | head`): once the
    pipe is closed, what would be printed goes nowhere and the run, and its files, go
    on. (Python ignores SIGPIPE, so writes fail with BrokenPipeError.)"""

    def __init__(self, stream):
        self._stream = stream
        self._gone = False

    def write(self, text):
        if not self._gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._lose()
        return len(text)

    def flush(self):
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._lose()

    def _lose(self):
        self._gone = True
        try:  # so that the interpreter's own flush at exit does not fail either
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def _stop_signals():
    """SIGTERM (timeout, SLURM, systemd, docker) and SIGHUP (the terminal went) stop
    a run as cleanly as Ctrl-C does: complete files, a summary, exit 128 + signal."""
    from ..pipeline import Interrupted

    def interrupt(signum, frame):
        raise Interrupted(signum)

    previous = {}
    try:
        for name in (signal.SIGTERM, signal.SIGHUP):
            previous[name] = signal.signal(name, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        pass
    try:
        yield
    finally:
        for name, handler in previous.items():
            signal.signal(name, handler)


def main(argv=None):
    args = build_parser().parse_args(argv)
    return run_guarded(f"blade-cli {args.command}", args, args.handler)


def run_guarded(who, args, handler):
    """Run handler(args) as a command: broken pipes and stop signals handled, any
    error one line on stderr ("WHO: error: ...") and exit status 1 (the trace with
    --verbose), an interruption 128 + the signal's number."""
    from ..pipeline import Interrupted

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Output(sys.stdout), _Output(sys.stderr)
    verbose = getattr(args, "verbose", False)
    if not verbose:
        _quiet_gnuradio_logs()
    try:
        with _stop_signals():
            try:
                return handler(args)
            except KeyboardInterrupt as caught:
                signum = caught.signum if isinstance(caught, Interrupted) else signal.SIGINT
                print(f"{who}: interrupted ({signal.Signals(signum).name})", file=sys.stderr)
                return 128 + signum
            except MemoryError:
                if verbose:
                    traceback.print_exc()
                print(
                    f"{who}: error: out of memory: chunks this large do not fit; use fewer time samples per "
                    "chunk (--chunk-samples) or fewer channels (--channels)",
                    file=sys.stderr,
                )
                return 1
            except Exception as error:  # one clear line; the trace only when asked for
                if verbose:
                    traceback.print_exc()
                message = str(error).strip().replace("\n", " ") or type(error).__name__
                print(f"{who}: error: {message}", file=sys.stderr)
                return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = saved


def _quiet_gnuradio_logs():
    """GNU Radio's Debian configuration logs at debug level; keep the CLI readable."""
    try:
        from gnuradio import gr

        gr.logging().set_default_level(gr.log_levels.critical)
    except Exception:
        pass
