# SPDX-License-Identifier: MIT
"""
blade-cli search: the dedoppler (narrowband drifting-signal) search of filterbank
files, writing turbo_seti's .dat hit table and a CSV of the same columns.

    blade-cli search FILE.fil|FILE.h5 [...] [--max-drift 4] [--snr 10] [--output DIR]

Each file's spectrogram (one IF, by default the first: Stokes I) is searched by the C
core's dedoppler module (include/blade/modules/dedoppler.h) on the CPU or a GPU, in
windows of --window spectra (default: the whole file) and, when a window does not fit
--memory, in groups of whole coarse channels. docs/dedoppler.md defines the search and
says where it differs from turbo_seti.
"""

import argparse
import math
import os
import sys
import time

import numpy


def _number(kind, low=None, strict=False):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or (low is not None and (value <= low if strict else value < low)):
            raise argparse.ArgumentTypeError(f"{text!r}: expected {kind}")
        return value

    return parse


def _whole(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


def add_arguments(parser):
    parser.add_argument("files", nargs="+", metavar="FILE", help="SIGPROC .fil or FBH5 .h5 files (32-bit samples)")
    parser.add_argument("--output", "-o", default=".", help="directory for the hit tables (default: %(default)s)")
    parser.add_argument(
        "--min-drift",
        type=_number("a drift rate >= 0 Hz/s", 0.0),
        default=0.0,
        help="smallest |drift| (Hz/s, default 0)",
    )
    parser.add_argument(
        "--max-drift",
        type=_number("a drift rate >= 0 Hz/s", 0.0),
        default=4.0,
        help="largest |drift| (Hz/s, default 4)",
    )
    parser.add_argument("--snr", type=_number("an SNR >= 0", 0.0), default=10.0, help="SNR threshold (default 10)")
    parser.add_argument(
        "--window",
        type=_whole,
        default=0,
        help="spectra per search: a longer file is searched in consecutive windows, one table each (default: all)",
    )
    parser.add_argument(
        "--nfpc",
        type=_whole,
        default=0,
        help="fine channels per coarse channel (default: the file's nfpc, else the whole band as one)",
    )
    parser.add_argument("--if", dest="if_index", type=_whole, default=0, help="the IF searched (default 0: Stokes I)")
    parser.add_argument(
        "--normalization",
        choices=("turbo_seti", "MAD"),
        default="turbo_seti",
        help="SNR convention: turbo_seti's (default; its thresholds mean the same) or MAD (the noise's sigma)",
    )
    parser.add_argument(
        "--no-blank-dc", action="store_true", help="keep each coarse channel's DC bin (turbo_seti blanks it)"
    )
    parser.add_argument(
        "--sk",
        type=_number("sigmas > 0", 0.0, strict=True),
        default=None,
        metavar="SIGMAS",
        help="flag channels by spectral kurtosis beyond SIGMAS (needs --sk-shape)",
    )
    parser.add_argument(
        "--sk-shape",
        type=_number("a count > 0", 0.0, strict=True),
        default=None,
        help="exponential powers summed per value (2 x spectra integrated, for Stokes I)",
    )
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N (default: %(default)s)")
    parser.add_argument(
        "--memory",
        type=_number("GiB > 0", 0.0, strict=True),
        default=2.0,
        help="GiB of spectrogram searched at once; larger windows are searched in groups of coarse channels "
        "(default %(default)s)",
    )
    parser.add_argument("--format", default="dat,csv", help="tables to write: dat, csv or dat,csv (default)")
    parser.add_argument("--capacity", type=_whole, default=65536, help="most hits per search (default 65536)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the summary")


def _stem(path):
    name = os.path.basename(path)
    for suffix in (".fil", ".h5"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


class _Plans:
    """dedoppler_search plans, made once per spectrogram geometry."""

    def __init__(self, args):
        self.args, self.plans = args, {}

    def get(self, spectra, channels, foff_hz, tsamp_s, nfpc):
        from gnuradio import blade

        key = (spectra, channels, foff_hz, tsamp_s, nfpc)
        if key not in self.plans:
            a = self.args
            options = blade.dedoppler_options()
            options.foff_hz, options.tsamp_s, options.nfpc = foff_hz, tsamp_s, nfpc
            options.min_drift, options.max_drift, options.snr = a.min_drift, a.max_drift, a.snr
            options.normalization = a.normalization
            options.blank_dc = not a.no_blank_dc and nfpc >= 3
            options.sk_shape, options.sk_sigmas = a.sk_shape or 0.0, a.sk or 0.0
            options.capacity = a.capacity
            self.plans[key] = blade.dedoppler_search(1, spectra, channels, options, a.device)
        return self.plans[key]


def search_file(path, args, plans, say):
    """Search one file: (tables written, hits, seconds searching, seconds observed, geometry)."""
    from gnuradio import blade

    from ..formats import filterbank, hits as hit_tables

    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    header, spectra = filterbank.open_spectra(path)
    try:
        count, nifs, nchans = spectra.shape
        if args.if_index >= nifs:
            raise ValueError(f"{path}: --if {args.if_index}, but the file has {nifs} IF(s)")
        nfpc = args.nfpc or int(header.get("nfpc", 0) or 0) or nchans
        if nchans % nfpc:
            raise ValueError(f"{path}: {nchans} channels are not whole coarse channels of {nfpc} (--nfpc)")
        coarse = nchans // nfpc
        window = args.window or count
        windows = count // window
        if windows < 1:
            raise ValueError(f"{path}: {count} spectra, fewer than --window {window}")
        bytes_per_coarse = window * nfpc * 4
        group = max(1, min(coarse, int(args.memory * 2**30 // bytes_per_coarse)))
        foff_hz, tsamp_s = float(header["foff"]) * 1e6, float(header["tsamp"])
        if header.get("partial_spectrum_bytes"):
            say(f"{path}: warning: {header['partial_spectrum_bytes']} bytes after the last whole spectrum are ignored")
        if count % window:
            say(f"{path}: warning: the last {count % window} spectra (less than a --window) are not searched")
        if nifs > 1 and args.if_index == 0:
            say(f"{path}: {nifs} IFs, searching IF 0 (--if chooses)")

        if not args.quiet:
            size = windows * window * nchans * 4 / 2**20
            say(
                f"{path}: searching {windows} window(s) of {window} spectra x {nchans} channels ({size:.0f} MiB) "
                f"on {blade.resolve_device(args.device)}"
                + (f", {-(-coarse // group)} groups of coarse channels per window" if group < coarse else "")
            )
        written, total, seconds = [], 0, 0.0
        stem = os.path.join(args.output, _stem(path))
        for w in range(windows):
            found, window_seconds = [], 0.0
            for first in range(0, coarse, group):
                last = min(coarse, first + group)
                start = time.perf_counter()
                block = numpy.ascontiguousarray(
                    spectra[w * window : (w + 1) * window, args.if_index, first * nfpc : last * nfpc],
                    dtype=numpy.float32,
                )
                plan = plans.get(window, (last - first) * nfpc, foff_hz, tsamp_s, nfpc)
                part = plan.search(block)
                window_seconds += time.perf_counter() - start
                for hit in part:
                    hit.coarse_channel += first
                    hit.channel += first * nfpc
                found += part
                if plan.dropped():
                    say(
                        f"{path}: warning: {plan.dropped()} hits beyond --capacity {args.capacity} dropped "
                        f"(coarse channels {first}-{last - 1}); raise --snr or --capacity"
                    )
                if not args.quiet and (windows > 1 or group < coarse):
                    say(
                        f"  window {w + 1}/{windows}, coarse channels {first}-{last - 1} of {coarse}: "
                        f"{len(part)} hits ({time.perf_counter() - start:.2f} s)"
                    )
            seconds += window_seconds
            total += len(found)
            observation = hit_tables.Observation.from_filterbank(header, path, window, args.max_drift, nfpc)
            observation.mjd += w * window * observation.tsamp / 86400.0
            rows = hit_tables.rows(found, observation, plan.window(), padded_spectra=plan.padded_spectra())
            name = stem if windows == 1 else f"{stem}.w{w:04d}"
            if "dat" in args.formats:
                hit_tables.write_dat(name + ".dat", observation, rows)
                written.append(name + ".dat")
            if "csv" in args.formats:
                hit_tables.write_csv(name + ".csv", observation, rows)
                written.append(name + ".csv")
        observed = windows * window * float(header["tsamp"])
        step = abs(plan.drift_step())
        return written, total, seconds, observed, (windows, window, nchans, coarse, step, plan.device())
    finally:
        if hasattr(spectra, "file"):
            spectra.file.close()


def run(args):
    args.formats = {f.strip() for f in args.format.split(",") if f.strip()}
    if not args.formats or args.formats - {"dat", "csv"}:
        raise ValueError(f"--format {args.format!r}: expected dat, csv or dat,csv")
    if args.min_drift > args.max_drift:
        raise ValueError(f"--min-drift {args.min_drift} is larger than --max-drift {args.max_drift}")
    if (args.sk is None) != (args.sk_shape is None):
        raise ValueError("--sk and --sk-shape go together (the SK estimator needs both)")
    if args.capacity < 1:
        raise ValueError("--capacity must be at least 1")
    os.makedirs(args.output, exist_ok=True)
    plans = _Plans(args)

    def say(text):
        print(text, file=sys.stderr, flush=True)

    grand = 0
    for path in args.files:
        written, count, seconds, observed, (windows, window, nchans, coarse, step, device) = search_file(
            path, args, plans, say
        )
        grand += count
        factor = observed / seconds if seconds > 0 else float("inf")
        print(
            f"{path}: {count} hits; {windows} x {window} spectra x {nchans} channels ({coarse} coarse), "
            f"{observed:.1f} s observed, searched in {seconds:.3f} s on {device} (real-time factor {factor:.0f}); "
            f"drift {args.min_drift:g}..{args.max_drift:g} Hz/s in steps of {step:.6f}, SNR > {args.snr:g} "
            f"({args.normalization})"
        )
        for name in written:
            print(f"  wrote {name}")
    if len(args.files) > 1:
        print(f"{grand} hits in {len(args.files)} files")
    return 0
