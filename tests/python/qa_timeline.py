#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The flowgraph timeline (runtime.h timeline_start/stop, python/blade/timeline.py):
a host source feeding cast -> channelizer on the emulated GPU (device memory on the
host, host-clock events) records, per block, one work span per work call whose
chunk counts add up to the chunks sent, one device span per chunk for the blocks that
process chunk by chunk, and one upload per copy into the device buffer, with the
bytes sent; spans lie inside the run and in order per row; nothing is recorded when
the timeline is off; the Chrome trace and picture are written, and blade-cli writes
them with BLADE_TIMELINE set. The same on the CPU (no device or upload spans).
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy
from gnuradio import blade, blocks, gr, gr_unittest

from gnuradio.blade import timeline

import blade_testing

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHAPE, RATE, CHUNKS = [2, 3, 64, 2], 8, 7


def run_chain(device):
    """Record the timeline of CHUNKS chunks through cast -> channelizer on `device`."""
    rng = numpy.random.default_rng(3)
    chunks = blade_testing.random_chunks(rng, "ci8", CHUNKS, SHAPE)
    tb = gr.top_block()
    size = blade.item_size(SHAPE, "ci8")
    source = blocks.vector_source_b(blade.pack(chunks, "ci8").tolist(), False, size)
    cast = blade.cast(SHAPE, "ci8", "cf32", device)
    channelizer = blade.channelizer(SHAPE, RATE, device)
    sink = blocks.null_sink(channelizer.output_item_size())
    tb.connect(source, cast, channelizer, sink)
    blade.timeline_start()
    begin = time.perf_counter()
    tb.run()
    wall_us = (time.perf_counter() - begin) * 1e6
    events = timeline.spans(blade.timeline_stop())
    return events, wall_us, size


class qa_timeline(gr_unittest.TestCase):
    def check_rows(self, events, wall_us):
        rows = {}
        for e in events:
            self.assertGreaterEqual(e["start_us"], 0.0)
            self.assertGreaterEqual(e["duration_us"], 0.0)
            self.assertLessEqual(e["start_us"] + e["duration_us"], wall_us + 1e5)
            rows.setdefault((e["track"], e["what"]), []).append(e)
        for (track, what), row in rows.items():
            if what == "device":
                # Device spans are placed back from the end of each wait: they do not
                # overlap within a block (one stream, chunk after chunk).
                row.sort(key=lambda e: e["start_us"])
                for a, b in zip(row, row[1:]):
                    self.assertLessEqual(a["start_us"] + a["duration_us"], b["start_us"] + 1.0, track)
        return rows

    def test_emulated_gpu_rows(self):
        events, wall_us, size = run_chain("emulated")
        rows = self.check_rows(events, wall_us)
        tracks = {track for track, _ in rows}
        cast = [t for t in tracks if t.startswith("cast") and t.endswith("on emulated")]
        chan = [t for t in tracks if t.startswith("channelizer") and t.endswith("on emulated")]
        self.assertEqual(len(cast), 1, tracks)
        self.assertEqual(len(chan), 1, tracks)
        for track in cast + chan:
            self.assertEqual(sum(e["count"] for e in rows[(track, "work")]), CHUNKS)
            self.assertEqual(len(rows[(track, "device")]), CHUNKS)
        uploads = [e for (t, what), row in rows.items() if what == "upload" for e in row]
        self.assertGreater(len(uploads), 0)
        self.assertEqual(sum(e["count"] for e in uploads), CHUNKS * size)
        self.assertFalse(blade.timeline_recording())

    def test_cpu_rows_and_off(self):
        events, wall_us, _ = run_chain("cpu")
        rows = self.check_rows(events, wall_us)
        self.assertEqual({what for _, what in rows}, {"work"})
        self.assertEqual(sum(e["count"] for (t, w), row in rows.items() if t.startswith("cast") for e in row), CHUNKS)
        # Off: a run records nothing.
        tb = gr.top_block()
        size = blade.item_size(SHAPE, "ci8")
        source = blocks.vector_source_b([0] * size * 2, False, size)
        cast = blade.cast(SHAPE, "ci8", "cf32", "cpu")
        tb.connect(source, cast, blocks.null_sink(cast.output_item_size()))
        tb.run()
        blade.timeline_start()
        self.assertEqual(len(blade.timeline_stop()), 0)

    def test_files(self):
        events, _, _ = run_chain("emulated")
        with tempfile.TemporaryDirectory() as folder:
            output = os.path.join(folder, "sub", "tl")
            json_path, png_path = timeline.write(events, output, "test")
            with open(json_path) as f:
                trace = json.load(f)["traceEvents"]
            complete = [e for e in trace if e["ph"] == "X"]
            self.assertEqual(len(complete), len(events))
            names = {e["args"]["name"] for e in trace if e["ph"] == "M"}
            self.assertEqual(names, {e["track"] for e in events})
            with open(png_path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        summary = timeline.busy_summary(events)
        for row in summary:
            self.assertGreater(row["busy"], 0.0)
            self.assertLessEqual(row["busy"], 1.0 + 1e-9)

    def test_blade_cli_writes_it(self):
        from gnuradio.blade.formats import guppi

        with tempfile.TemporaryDirectory() as folder:
            stem = os.path.join(folder, "rec")
            rng = numpy.random.default_rng(9)
            shape = (2, 1, 2, 256, 2)
            guppi.write_raw(
                stem, rng.integers(-50, 50, size=shape) + 0j, {"OBSFREQ": 1420.0, "OBSBW": 2.0, "TBIN": 1e-6}
            )
            output = os.path.join(folder, "timeline")
            command = [sys.executable, os.path.join(ROOT, "apps", "blade-cli"), "mode-h", "--input", stem + ".0000.raw"]
            command += ["--output", folder, "--channelizer-rate", "16", "--device", "emulated", "--no-progress"]
            done = subprocess.run(command, env={**os.environ, "BLADE_TIMELINE": output}, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr + done.stdout)
            with open(output + ".json") as f:
                trace = json.load(f)["traceEvents"]
            self.assertTrue(any(e["ph"] == "X" and e["name"] == "device" for e in trace))
            self.assertTrue(os.path.exists(output + ".png"))

    def test_blade_bench_timeline(self):
        with tempfile.TemporaryDirectory() as folder:
            output = os.path.join(folder, "mode-b")
            command = [sys.executable, "-m", "gnuradio.blade.bench", "timeline", "--device", "emulated"]
            command += ["--channels", "2", "--chunks", "4", "--output", output]
            done = subprocess.run(command, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr + done.stdout)
            self.assertIn("beamformer0 on emulated: work: 4 spans", done.stdout)
            with open(output + ".json") as f:
                self.assertGreater(len(json.load(f)["traceEvents"]), 8)
            done = subprocess.run(command[:4] + ["--case", "no such case"], capture_output=True, text=True)
            self.assertEqual(done.returncode, 1)
            self.assertIn("matches none of", done.stderr)


if __name__ == "__main__":
    gr_unittest.run(qa_timeline)
