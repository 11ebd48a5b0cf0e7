# SPDX-License-Identifier: MIT
"""
blade-bench timeline: the timeline of one of the benchmark flowgraphs.

    blade-bench timeline [--case "Mode B ATA node"] [--feed host|device] [--device cuda:0]
                         [--chunks 32] [--output docs/images/timeline-mode-b]

runs the flowgraph (bench/flowgraphs.py) with the runtime's timeline recording on
and writes OUTPUT.json (a Chrome trace) and OUTPUT.png (timeline.py), and prints how
busy each block was. No Nsight Systems is needed, nor installed on the GPU machine.
"""

import os

from ..timeline import print_summary, write


def run(args):
    """blade-bench timeline: record one benchmark flowgraph and write its timeline."""
    import tempfile

    from gnuradio import blade

    from .flowgraphs import BUNDLE_CASES, SEARCH_CASES, build_bundle, time_flowgraph
    from .workloads import make_recipe

    cases = BUNDLE_CASES + SEARCH_CASES
    matches = [case for case in cases if args.case.lower() in case[0].lower()]
    if not matches:
        names = "; ".join(case[0] for case in cases)
        raise ValueError(f"--case {args.case!r} matches none of: {names}")
    name, mode, shape, dtype, options = matches[0][:5]
    shape = list(shape)
    if args.channels:
        shape[1] = args.channels
    device = blade.resolve_device(args.device)
    source_device = "cpu" if args.feed == "host" else device
    with tempfile.TemporaryDirectory() as scratch:
        recipe = os.path.join(scratch, "recipe.bfr5")
        if mode != "h":
            make_recipe(recipe, shape[0], options["beams"], shape[1])
        bundle = build_bundle(mode, shape, dtype, options, device, recipe)
        warmup = max(1, args.chunks // 4)
        blade.timeline_start()
        try:
            per_chunk, _ = time_flowgraph(bundle, shape, dtype, source_device, args.chunks, warmup, mode != "h")
        finally:
            events = blade.timeline_stop()
    title = f"{name} [{args.feed} input] on {device}: {per_chunk * 1e3:.3f} ms per chunk"
    paths = write(events, args.output, title)
    print(title)
    print_summary(events)
    print("wrote " + ", ".join(paths))
    return 0


def add_parser(commands):
    parser = commands.add_parser("timeline", help="record a flowgraph's timeline: Chrome trace and picture")
    parser.add_argument("--case", default="Mode B ATA node", help="a benchmark flowgraph (part of its name)")
    parser.add_argument("--feed", choices=("host", "device"), default="host", help="input from host or device")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--chunks", type=int, default=32)
    parser.add_argument("--channels", type=int, help="fewer channels than the case's (a quick look)")
    parser.add_argument("--output", default="timeline", help="OUTPUT.json and OUTPUT.png")
    parser.set_defaults(handler=run)
    return parser
