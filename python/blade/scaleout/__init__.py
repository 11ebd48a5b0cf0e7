# SPDX-License-Identifier: MIT
"""
One observation beamformed by several hosts: a reader flowgraph splits each chunk
of a GUPPI RAW recording by channel and pushes sub-band n over ZeroMQ to worker n,
which runs Mode B on it in its own process (on its own host and GPUs).

    python3 -m gnuradio.blade.scaleout reader RECORDING --workers 2 [--bind tcp://*:5600]
    python3 -m gnuradio.blade.scaleout worker --plan PLAN.json --subband 0 --output beams0

The reader prints the plan (one JSON line: each sub-band's endpoint, shape, first
channel and the observation's frequency axis) and writes it to --plan-file; each
worker reads it. Workers connect to the reader (PULL connects, PUSH binds), so
they can start before or after it. Transport: gr-zeromq PUSH/PULL over TCP with
tags passed, so every chunk keeps its time, frequency and block tags; the chunk-time
stream is rebuilt on the worker from the time tags (chunk_time_from_tags), which
also reports any chunk that never arrived. See docs/scaleout.md for the recipe on
real hosts (addresses, ports, high-water marks, what happens when a worker dies).
"""

import argparse
import json
import os
import sys
import time

from gnuradio import blocks, gr

try:
    from gnuradio import zeromq
except ImportError:  # gr-zeromq is a separate Debian package (libgnuradio-zeromq)
    zeromq = None

from .. import blade_python as _core
from .. import tensor as _tensor
from ..formats import guppi as _guppi

DEFAULT_TIMEOUT_MS = 100


def _require_zeromq():
    if zeromq is None:
        raise RuntimeError("gr-zeromq is not installed (Debian: gnuradio's libgnuradio-zeromq)")


def _endpoint(bind, subband):
    """Endpoint of sub-band n: tcp://HOST:PORT -> PORT + n; tcp://HOST:* -> any free port."""
    if bind.endswith(":*"):
        return bind
    head, port = bind.rsplit(":", 1)
    return f"{head}:{int(port) + subband}"


class reader(gr.top_block):
    """
    guppi_source -> channel_split -> one ZeroMQ PUSH socket per sub-band.

    Everything stays in host memory (the network, not a GPU, consumes the
    sub-bands). PUSH blocks when its high-water mark is reached: a slow worker
    slows the reader down, it loses nothing.
    """

    def __init__(
        self,
        recording,
        workers,
        bind="tcp://127.0.0.1:*",
        chunk_samples=0,
        channel_start=0,
        channel_count=0,
        hwm=2,
        timeout_ms=DEFAULT_TIMEOUT_MS,
    ):
        gr.top_block.__init__(self, "blade scale-out reader")
        _require_zeromq()
        self.source = _core.guppi_source(recording, chunk_samples, "ci8", channel_start, channel_count)
        shape = list(self.source.output_shape())
        self.split = _core.channel_split(shape, "ci8", workers)
        self.connect(self.source, self.split)
        part_size = self.split.output_item_size()
        self.sinks = []
        for n in range(workers):
            sink = zeromq.push_sink(part_size, 1, _endpoint(bind, n), timeout_ms, True, hwm)
            self.connect((self.split, n), sink)
            self.sinks.append(sink)
        recording_axis = _guppi.describe(recording)["observation"]
        part_shape = list(self.split.output_shape())
        self.plan = {
            "recording": recording,
            "chunks": self.source.chunks(),
            "chunk_shape": shape,
            "input_type": "ci8",
            "tsamp": self.source.tsamp(),
            "unix_start": recording_axis.unix_start,
            # The recording's axis as the reader computed it (blade.Observation), so
            # the workers place channels exactly where the recording's tags say.
            "observation": {
                name: getattr(recording_axis, name)
                for name in ("freq_first", "chan_bw", "nchan", "coarse_first", "unix_start", "tsamp")
            },
            "subbands": [
                {
                    "endpoint": sink.last_endpoint(),
                    "shape": part_shape,
                    "first_channel": channel_start + n * part_shape[1],
                }
                for n, sink in enumerate(self.sinks)
            ],
        }


class worker(gr.top_block):
    """
    ZeroMQ PULL -> Mode B on one sub-band -> filterbank files (or raw items).

    chunk_time_from_tags rebuilds the chunk times from the tags (it never reads
    the voltages, so the PULL source's output goes to the bundle as is) and logs
    and counts chunks that never arrived.
    """

    def __init__(
        self,
        plan,
        subband,
        recipe,
        output=None,
        raw=None,
        device="auto",
        devices=(),
        detector="I",
        integration=1,
        channelizer_rate=1,
        beams=(),
        incoherent=True,
        on_gap="report",
        hwm=2,
        timeout_ms=DEFAULT_TIMEOUT_MS,
        endpoint=None,
    ):
        gr.top_block.__init__(self, f"blade scale-out worker {subband}")
        _require_zeromq()
        part = plan["subbands"][subband]
        shape, dtype = part["shape"], plan["input_type"]
        self.subband = subband
        self.source = zeromq.pull_source(
            _core.item_size(shape, dtype), 1, endpoint or part["endpoint"], timeout_ms, True, hwm
        )
        self.times = _core.chunk_time_from_tags(shape, dtype, on_gap)
        axis = _core.Observation(**plan["observation"]).channels(part["first_channel"], shape[1])
        options = _core.beamforming_options(
            input_type=dtype,
            channelizer_rate=channelizer_rate,
            incoherent=incoherent,
            detector=detector,
            integration=integration,
            beams=list(beams),
            device=device,
            devices=list(devices),
        )
        self.bundle = _core.mode_b(shape, axis, _core.read_bfr5(recipe), options)
        self.connect(self.source, (self.bundle, 0))
        self.connect(self.source, self.times, (self.bundle, 1))
        # The chunk times with the tags of every chunk, for the report.
        self.received = blocks.vector_sink_b(_tensor.CHUNK_TIME_DTYPE.itemsize)
        self.connect(self.times, self.received)
        output_shape = list(self.bundle.output_shape())
        if raw:
            self.sink = blocks.file_sink(self.bundle.output_item_size(), raw)
            self.sink.set_unbuffered(False)
        else:
            self.sink = _core.filterbank_sink(output or f"subband{subband}", output_shape)
        self.connect(self.bundle, self.sink)
        self.expected_outputs = plan["chunks"] // self.bundle.chunks_per_output()
        self.plan = plan

    def outputs_done(self):
        return self.sink.nitems_read(0)

    def report(self):
        """What arrived: chunk count, gaps, and each chunk's step, start time and tags."""
        import numpy
        import pmt

        times = numpy.frombuffer(bytes(bytearray(self.received.data())), dtype=_tensor.CHUNK_TIME_DTYPE)
        tags = {}
        for tag in self.received.tags():
            value = pmt.to_python(tag.value)
            if isinstance(value, tuple):
                value = list(value)
            tags.setdefault(str(tag.offset), {})[pmt.symbol_to_string(tag.key)] = value
        # Account for every chunk of the plan: received, missing between two
        # received ones (gaps), or missing before the first or after the last
        # (a worker that joined late or was stopped early).
        duration = self.plan["chunk_shape"][2] * self.plan["tsamp"]
        missing_at_start = missing_at_end = 0
        if len(times) and duration > 0:
            missing_at_start = int(round((float(times["unix_start"][0]) - self.plan["unix_start"]) / duration))
            missing_at_end = max(self.plan["chunks"] - 1 - missing_at_start - int(times["step"][-1]), 0)
        return {
            "subband": self.subband,
            "chunks": self.times.chunks(),
            "gaps": self.times.gaps(),
            "missing_chunks": self.times.missing_chunks(),
            "missing_at_start": missing_at_start,
            "missing_at_end": missing_at_end,
            "outputs": self.outputs_done(),
            "steps": [int(s) for s in times["step"]],
            "unix_start": [float(t) for t in times["unix_start"]],
            "flags": [int(f) for f in times["flags"]],
            "tags": tags,
            "failures": list(_core.failures()),
        }


def run_worker_until_done(flowgraph, chunks=None, idle_seconds=None, poll=0.05):
    """
    Run a worker until it has written the outputs of `chunks` input chunks (the
    plan's count by default), or, when idle_seconds is given, until no output came
    for that long after the first one. Returns the report.
    """
    expected = flowgraph.expected_outputs if chunks is None else chunks // flowgraph.bundle.chunks_per_output()
    flowgraph.start()
    last, last_change = -1, time.monotonic()
    try:
        while True:
            done = flowgraph.outputs_done()
            if done != last:
                last, last_change = done, time.monotonic()
            if expected and done >= expected:
                break
            if _core.failures():
                break
            if idle_seconds is not None and done > 0 and time.monotonic() - last_change > idle_seconds:
                break
            time.sleep(poll)
    finally:
        flowgraph.stop()
        flowgraph.wait()
    if hasattr(flowgraph.sink, "close"):
        flowgraph.sink.close()
    return flowgraph.report()


def _reader_main(args):
    flowgraph = reader(
        args.recording, args.workers, args.bind, args.chunk_samples, args.channel_start, args.channel_count, args.hwm
    )
    line = json.dumps(flowgraph.plan)
    if args.plan_file:
        # Whole or not at all: workers may be waiting for the file to appear.
        with open(args.plan_file + ".part", "w") as out:
            out.write(line + "\n")
        os.replace(args.plan_file + ".part", args.plan_file)
    print(line, flush=True)
    flowgraph.run()
    print(json.dumps({"sent_chunks": flowgraph.source.chunks()}), flush=True)
    # Closing the sockets would drop what is still queued for a slow worker: keep
    # them open until told (stdin closed) or for --linger seconds.
    if args.linger < 0:
        sys.stdin.read()
    else:
        time.sleep(args.linger)
    return 0


def _worker_main(args):
    if args.plan_file == "-":
        plan = json.loads(sys.stdin.readline())
    else:
        with open(args.plan_file) as source:
            plan = json.loads(source.readline())
    flowgraph = worker(
        plan,
        args.subband,
        args.recipe,
        output=args.output,
        raw=args.raw,
        device=args.device,
        devices=args.devices.split(",") if args.devices else (),
        detector=args.detector,
        integration=args.integration,
        channelizer_rate=args.channelizer_rate,
        on_gap=args.on_gap,
        hwm=args.hwm,
        endpoint=args.connect,
    )
    report = run_worker_until_done(flowgraph, chunks=args.chunks, idle_seconds=args.idle)
    text = json.dumps(report)
    if args.report:
        with open(args.report, "w") as out:
            out.write(text + "\n")
    lost = report["missing_chunks"] + report["missing_at_start"] + report["missing_at_end"]
    print(
        f"worker {args.subband}: {report['chunks']} of {plan['chunks']} chunks, {report['outputs']} outputs; "
        f"missing: {report['missing_at_start']} at the start, {report['missing_chunks']} in "
        f"{report['gaps']} gaps, {report['missing_at_end']} at the end",
        file=sys.stderr,
    )
    return 1 if report["failures"] else (3 if lost else 0)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m gnuradio.blade.scaleout",
        description="One observation beamformed by several processes or hosts.",
    )
    parser.add_argument("--verbose", action="store_true", help="GNU Radio's info and debug logs too")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    r = commands.add_parser("reader", help="read a recording, push one sub-band to each worker")
    r.add_argument("recording")
    r.add_argument("--workers", type=int, default=2, help="sub-bands, one per worker (divides the channels)")
    r.add_argument(
        "--bind",
        default="tcp://127.0.0.1:*",
        help="tcp://ADDRESS:PORT (sub-band n on PORT + n) or tcp://ADDRESS:* (free ports)",
    )
    r.add_argument("--chunk-samples", type=int, default=0)
    r.add_argument("--channel-start", type=int, default=0)
    r.add_argument("--channel-count", type=int, default=0)
    r.add_argument("--hwm", type=int, default=2, help="messages queued per socket before the reader waits")
    r.add_argument("--plan-file", help="also write the plan here")
    r.add_argument(
        "--linger",
        type=float,
        default=-1,
        help="seconds to keep the sockets open after the recording (default: until stdin closes)",
    )
    r.set_defaults(handler=_reader_main)
    w = commands.add_parser("worker", help="beamform one sub-band pulled from a reader")
    w.add_argument("--plan-file", required=True, help="the reader's plan (a file, or - for stdin)")
    w.add_argument("--subband", type=int, required=True)
    w.add_argument("--recipe", required=True, help="BFR5 beamforming recipe")
    w.add_argument("--connect", help="endpoint to pull from (default: the plan's, e.g. another host name)")
    w.add_argument("--output", help="filterbank stem (default: subbandN)")
    w.add_argument("--raw", help="write the output items to this file instead of filterbanks")
    w.add_argument("--device", default="auto")
    w.add_argument("--devices", help="comma-separated devices of this worker (its own sub-bands)")
    w.add_argument("--detector", default="I")
    w.add_argument("--integration", type=int, default=1)
    w.add_argument("--channelizer-rate", type=int, default=1)
    w.add_argument("--on-gap", default="report", choices=["report", "stop"])
    w.add_argument("--hwm", type=int, default=2)
    w.add_argument(
        "--chunks",
        type=int,
        default=-1,
        help="input chunks to wait for (default: the plan's; 0: until idle or interrupted)",
    )
    w.add_argument("--idle", type=float, default=None, help="stop after this many seconds without output")
    w.add_argument("--report", help="write the JSON report here")
    w.set_defaults(handler=_worker_main)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    if not args.verbose:
        # Keep warnings (a worker's missing chunks) and errors; GNU Radio's
        # configuration may log every buffer at debug level.
        gr.logging().set_default_level(gr.log_levels.warn)
    if getattr(args, "chunks", None) == -1:
        args.chunks = None
    return args.handler(args)
