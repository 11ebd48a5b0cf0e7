# SPDX-License-Identifier: MIT
"""
blade-cli: the gr-blade command line.

    blade-cli info             version, backends, GPUs, GNU Radio
    blade-cli demo             a synthetic observation through gr-blade blocks

Errors are one line on stderr and a non-zero exit status; --verbose shows the
full trace.
"""

import argparse
import sys
import time
import traceback


def _format_bytes(count):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if count < 1024 or unit == "TiB":
            return f"{count:.1f} {unit}" if unit != "B" else f"{count} B"
        count /= 1024.0
    return f"{count} B"


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


def command_demo(args):
    """A synthetic observation through a chain of gr-blade blocks."""
    from . import demo

    return demo.run(output=args.output, device=args.device, quiet=args.quiet)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="blade-cli",
        description="gr-blade: GPU beamforming, channelizing and detection for radio telescopes.",
    )
    parser.add_argument("--verbose", action="store_true", help="show full tracebacks and GNU Radio logs")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    info = commands.add_parser("info", help="version, backends, GPUs and GNU Radio version")
    info.set_defaults(handler=command_info)

    demo = commands.add_parser("demo", help="run gr-blade on a synthetic observation")
    demo.add_argument("--output", default="blade-demo", help="directory for the demo's files (default: %(default)s)")
    demo.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N (default: %(default)s)")
    demo.add_argument("--quiet", action="store_true", help="print only the summary")
    demo.set_defaults(handler=command_demo)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.verbose:
        _quiet_gnuradio_logs()
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print("blade-cli: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # one clear line; the trace only when asked for
        if args.verbose:
            traceback.print_exc()
        print(f"blade-cli {args.command}: error: {error}", file=sys.stderr)
        return 1


def _quiet_gnuradio_logs():
    """GNU Radio's Debian configuration logs at debug level; keep the CLI readable."""
    try:
        from gnuradio import gr

        gr.logging().set_default_level(gr.log_levels.warn)
    except Exception:
        pass


if __name__ == "__main__":
    sys.exit(main())
