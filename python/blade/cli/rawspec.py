# SPDX-License-Identifier: MIT
"""
blade-rawspec: rawspec's command line on gr-blade, so that a Breakthrough Listen
reduction script switches by changing the program's name.

    blade-rawspec [-f N1[,N2...] -t I1[,I2...] -p P1[,P2...]] [-S | -i W1[,W2...]] [-a ANT]
                  [-s SCHAN -n NCHAN] [-o OUTIDX] [-d DIR] [-j] [-H] [-g GPU] STEM [STEM...]

It writes rawspec's files (STEM.rawspec.NNNN.fil, STEM-antAAA.rawspec.NNNN.fil per
antenna, STEM-ics.rawspec.NNNN.fil for the incoherent sum), with rawspec's header
values and rawspec's scaling (8- and 4-bit samples read as v/127, 16-bit as v/32767,
sums not means, Stokes U and V without the factor 2), from every product in one pass
over the recording (gnuradio.blade.pipeline: Mode H with one chain per product).
docs/user-guide.md#rawspec says where it differs from rawspec, on purpose.
"""

import argparse
import os
import sys

DEFAULT_FFTS = [1048576, 8, 1024]
DEFAULT_INTS = [51, 128, 3072]
# rawspec's -p: 1 total power, 4 the cross products, -4 full Stokes.
POL_MODES = {1: "I", 4: "cross", -4: "IQUV"}
# rawspec's Stokes U and V are Re(XY*) and Im(XY*); gr-blade's are 2 Re(XY*) and
# -2 Im(XY*) (IAU, reference.md): per-IF factors from ours to theirs.
POL_FACTORS = {1: [1.0], 4: [1.0, 1.0, 1.0, 1.0], -4: [1.0, 1.0, 0.5, -0.5]}
# SIGPROC telescope ids as rawspec assigns them (TELESCOP, any case); others -1.
TELESCOPE_IDS = {
    "FAKE": 0,
    "ARECIBO": 1,
    "OOTY": 2,
    "NANCAY": 3,
    "PARKES": 4,
    "JODRELL": 5,
    "GBT": 6,
    "GMRT": 7,
    "EFFELSBERG": 8,
    "140FT": 9,
    "ATA": 9,
    "SRT": 10,
    "LEUSCHNER": 11,
    "MEERKAT": 64,
}


def sample_scale(nbits):
    """rawspec reads 8- and 4-bit samples as v/127 and 16-bit as v/32767: power
    scales by the square."""
    if nbits in (4, 8):
        return 1.0 / 127.0**2
    if nbits == 16:
        return 1.0 / 32767.0**2
    return 1.0


def _int_list(text):
    try:
        values = [int(part, 0) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers") from None
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r} is empty")
    return values


def _float_list(text):
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of numbers") from None
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r} is empty")
    return values


def add_arguments(parser):
    """rawspec's options (and gr-blade's few of its own)."""
    parser.add_argument("stems", nargs="+", metavar="STEM", help="recording stem: STEM.0000.raw, STEM.0001.raw, ...")
    parser.add_argument("-a", "--ant", type=int, help="process (write) only this antenna, 0-based")
    parser.add_argument("-b", "--batch", type=int, help="accepted for rawspec's scripts; gr-blade needs no batching")
    parser.add_argument("-d", "--dest", help="output directory (default: beside the stem)")
    parser.add_argument("-f", "--ffts", type=_int_list, help="FFT lengths (default 1048576,8,1024)")
    parser.add_argument("-g", "--gpu", type=int, help="CUDA device index (default: the first GPU, else the CPU)")
    parser.add_argument("-H", "--hdrs", action="store_true", help="save the GUPPI headers to STEM.rawspec.headers")
    parser.add_argument(
        "-i", "--ics", type=_float_list, help="write the incoherent sum of the antennas, with one weight or one each"
    )
    parser.add_argument("-j", "--fbh5", action="store_true", help="write FBH5 (.h5) instead of SIGPROC (.fil)")
    parser.add_argument("-n", "--nchan", type=int, help="coarse channels to process (per antenna; default all)")
    parser.add_argument("-o", "--outidx", type=int, default=0, help="first output product index (default 0)")
    parser.add_argument(
        "-p", "--pols", type=_int_list, help="per product: 1 total power, 4 cross products, -4 Stokes (default 1)"
    )
    parser.add_argument("-r", "--rate", type=float, help="accepted for rawspec's scripts (network output only)")
    parser.add_argument("-s", "--schan", type=int, default=0, help="first coarse channel (per antenna; default 0)")
    parser.add_argument("-S", "--splitant", action="store_true", help="one file per antenna")
    parser.add_argument("-t", "--ints", type=_int_list, help="spectra summed per product (default 51,128,3072)")
    parser.add_argument("-z", "--debug", action="store_true", help="accepted for rawspec's scripts")
    parser.add_argument("--device", help="gr-blade device instead of -g: auto, cpu, cuda:N")
    parser.add_argument(
        "--precision",
        choices=["fp32", "fp16"],
        default="fp32",
        help="gr-blade: fp16 carries half-precision (cf16) voltages and spectra between the stages "
        "(docs/precision.md) (default: fp32)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only errors and the final lines")


class Settings:
    """rawspec's options checked and completed as rawspec completes them."""

    def __init__(self, args):
        ffts, ints = args.ffts, args.ints
        if (ffts is None) != (ints is None) or (ffts is not None and len(ffts) != len(ints)):
            raise ValueError("must specify same number of FFT and integration lengths (-f and -t)")
        if ffts is None:
            ffts, ints = list(DEFAULT_FFTS), list(DEFAULT_INTS)
        for value in ffts + ints:
            if value < 1:
                raise ValueError(f"-f and -t take whole numbers of at least 1, not {value}")
        pols = list(args.pols or [1])
        pols += [pols[-1]] * (len(ffts) - len(pols))  # a missing -p repeats the last
        for pol in pols[: len(ffts)]:
            if pol not in POL_MODES:
                raise ValueError(f"-p {pol}: number of output pols must be 1 or +/- 4")
        if args.schan and not args.nchan:
            raise ValueError("nchan must be non-zero if schan is non-zero (-s needs -n)")
        if args.dest and ":" in args.dest:
            raise ValueError(
                f"-d {args.dest}: network output (HOST:PORT) is not supported by blade-rawspec; give a " "directory"
            )
        if args.gpu is not None and args.device:
            raise ValueError("give -g or --device, not both")
        self.ffts, self.ints, self.pols = ffts, ints, pols[: len(ffts)]
        self.args = args
        self.device = args.device or (f"cuda:{args.gpu}" if args.gpu is not None else "auto")
        self.extension = "h5" if args.fbh5 else "fil"


def output_base(stem, dest):
    """rawspec's file stem: STEM, or DEST/basename(STEM)."""
    return os.path.join(dest, os.path.basename(stem)) if dest else stem


def product_file(base, index, extension, suffix=""):
    """BASE[-antAAA|-ics].rawspec.NNNN.EXT"""
    return f"{base}{suffix}.rawspec.{index:04d}.{extension}"


def header_blocks(path):
    """The raw header bytes (80-byte cards through END) of every block of a GUPPI RAW
    file, in order: what rawspec -H saves."""
    with open(path, "rb") as f:
        while True:
            start = f.tell()
            cards = []
            values = {}
            while True:
                card = f.read(80)
                if len(card) < 80:
                    return
                cards.append(card)
                key = card[:8].decode("ascii", "replace").strip()
                if key == "END":
                    break
                if card[8:10] == b"= ":
                    values[key] = card[10:].decode("ascii", "replace").split("/")[0].strip().strip("'").strip()
            yield b"".join(cards)
            header = f.tell() - start
            if int(float(values.get("DIRECTIO", "0") or 0)):
                header = -(-header // 512) * 512
            f.seek(start + header + int(float(values["BLOCSIZE"])))


def make_job(stem, settings):
    """The Mode H job of one stem with rawspec's products, files and headers."""
    from ..pipeline import Job, Options

    class RawspecJob(Job):
        def _product_stem(self, product):
            return product_file(self.rawspec_base, self.rawspec_index(product), settings.extension)

        def rawspec_index(self, product):
            return settings.args.outidx + product.index

        def _files_of(self, product):
            """(names, labels, aspect weights) of a product's files."""
            rec, a = self.recording, settings.args
            index, ext, base = self.rawspec_index(product), settings.extension, self.rawspec_base
            antennas = product.output_shape[0]
            if a.ics is not None:
                weights = a.ics if len(a.ics) > 1 else a.ics * antennas
                if len(weights) != antennas:
                    raise ValueError(
                        f"-i: {len(a.ics)} antenna-weights for the {antennas} antennas: give one for all, "
                        "or one per antenna"
                    )
                return [product_file(base, index, ext, "-ics")], ["incoherent sum"], weights
            if a.ant is not None:
                if not 0 <= a.ant < antennas:
                    raise ValueError(f"-a {a.ant}: the recording has antennas 0..{antennas - 1}")
                weights = [1.0 if b == a.ant else 0.0 for b in range(antennas)]
                suffix = f"-ant{a.ant:03d}" if rec.nants > 1 else ""
                return [product_file(base, index, ext, suffix)], [f"antenna {a.ant}"], weights
            if rec.nants > 1:  # as rawspec: -S is implied (and with one antenna, a plain name)
                names = [product_file(base, index, ext, f"-ant{b:03d}") for b in range(antennas)]
                return names, [f"antenna {b}" for b in range(antennas)], []
            return [product_file(base, index, ext)], ["total" if product.stokes == "I" else product.stokes], []

        def output_paths(self):
            return [name for product in self.products for name in self._files_of(product)[0]]

        def _labels(self, product):
            return self._files_of(product)[1]

        def _make_sink(self, product):
            from gnuradio import blade

            names, _, weights = self._files_of(product)
            rec = self.recording
            scale = sample_scale(rec.nbits)
            pol = settings.pols[product.index]
            overrides = {
                "rawdatafile": os.path.basename(rec.files[0]),
                "nbeams": 1,
                "ibeam": int(rec.header.get("BEAM_ID", -1)),
                "telescope_id": TELESCOPE_IDS.get(str(rec.header.get("TELESCOP", "")).strip().upper(), -1),
            }
            return blade.filterbank_sink(
                names[0],
                product.output_shape,
                settings.extension,
                "antenna",
                overrides,
                [{"path": name} for name in names],
                [scale * factor for factor in POL_FACTORS[pol]],
                weights,
            )

        def _output_text(self, product):
            names = self._files_of(product)[0]
            B, F, T, P = product.output_shape
            shown = names[0] + (f" .. ({len(names)} files)" if len(names) > 1 else "")
            return (
                f"rawspec product {self.rawspec_index(product):04d}: {shown}, {F} channels x {P} IF(s), "
                f"tsamp {self._output_tsamp(product):.6g} s"
            )

    a = settings.args
    channels = (a.schan, a.nchan) if a.nchan else None
    options = Options(
        input=stem,
        output=a.dest or os.path.dirname(os.path.abspath(stem)),
        device=settings.device,
        channels=channels,
        channelizer_rate=list(settings.ffts),
        integration=list(settings.ints),
        stokes=[POL_MODES[p] for p in settings.pols],
        format=settings.extension,
        precision=getattr(a, "precision", "fp32"),
    )
    RawspecJob.rawspec_base = output_base(stem, a.dest)
    return RawspecJob("h", options)


def run(args, out=None):
    """Run rawspec's job on every stem; returns the exit status."""
    from ..pipeline import report_run

    out = out or sys.stdout
    settings = Settings(args)
    totals = [0] * len(settings.ffts)
    status = 0
    for stem in args.stems:
        print(f"working stem: {stem}", file=out)
        job = make_job(stem, settings)
        summary = report_run(
            job, "blade-rawspec", stream=out, quiet=args.quiet, progress=False if args.no_progress else None
        )
        for product in job.products:
            totals[product.index] += product.sink.spectra_written()
        if args.hdrs:
            path = os.path.join(
                os.path.dirname(output_base(stem, args.dest)) or ".",
                os.path.basename(stem) + ".rawspec.headers",
            )
            with open(path, "wb") as headers:
                for raw in job.recording.files:
                    for block in header_blocks(raw):
                        headers.write(block)
            print(f"headers: {path}", file=out)
        if summary.exit_status:
            status = summary.exit_status
            break
    # rawspec's closing lines, which scripts read.
    for i, total in enumerate(totals):
        print(f"output product {args.outidx + i}: {total} spectra", file=out)
    return status


def build_parser(prog="blade-rawspec"):
    from . import _Parser

    parser = _Parser(
        prog=prog,
        description="rawspec's command line on gr-blade: every product in one pass over each recording.",
    )
    add_arguments(parser)
    parser.add_argument("--verbose", action="store_true", help="full traces and GNU Radio's log")
    return parser


def main(argv=None):
    from . import run_guarded

    parser = build_parser()
    args = parser.parse_args(argv)
    return run_guarded("blade-rawspec", args, run)
