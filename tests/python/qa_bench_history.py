#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade-bench compare on a made-up history: a commit's suites recorded in separate
records all count, each figure meets its latest value from an earlier commit on the
same device, other devices are ignored, and only a slowdown past the threshold
fails.
"""

import argparse
import contextlib
import io
import json
import os
import tempfile
import unittest

from gnuradio.blade.bench import command as bench


def record(commit, device, figures):
    return {
        "commit": commit,
        "device": device,
        "device_name": device.upper(),
        "figures": [{"benchmark": name, "time_ms": ms} for name, ms in figures.items()],
    }


class qa_bench_history(unittest.TestCase):
    def compare(self, records):
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "history.jsonl")
            with open(path, "w") as history:
                for r in records:
                    history.write(json.dumps(r) + "\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = bench.compare(argparse.Namespace(history=path, threshold=0.10))
            return status, out.getvalue()

    def test_every_suite_of_the_newest_commit_is_compared(self):
        history = [
            record("aaa", "cuda:0", {"module/cast": 1.0}),
            record("aaa", "cuda:0", {"flowgraph/mode_b": 10.0}),
            record("bbb", "cpu", {"module/cast": 50.0}),  # another device: ignored
            record("bbb", "cuda:0", {"module/cast": 1.05}),  # 5 %: within the threshold
            record("bbb", "cuda:0", {"flowgraph/mode_b": 12.0}),  # 20 % slower
        ]
        status, text = self.compare(history)
        self.assertEqual(status, 1, text)
        self.assertIn("bbb vs aaa", text)
        self.assertIn("2 figures compared, 1 more than 10 % slower", text)
        self.assertIn("SLOWER flowgraph/mode_b: 10 ms (aaa) -> 12 ms (+20.0 %)", text)
        self.assertNotIn("module/cast", text)

    def test_the_latest_earlier_value_is_the_reference(self):
        history = [
            record("aaa", "cuda:0", {"module/cast": 2.0}),
            record("bbb", "cuda:0", {"module/cast": 1.0}),
            record("ccc", "cuda:0", {"module/cast": 1.5}),  # slower than bbb, faster than aaa
        ]
        status, text = self.compare(history)
        self.assertEqual(status, 1, text)
        self.assertIn("ccc vs bbb", text)

    def test_nothing_to_compare(self):
        status, text = self.compare(
            [record("aaa", "cuda:0", {"module/cast": 1.0}), record("aaa", "cuda:0", {"module/detector": 1.0})]
        )
        self.assertEqual(status, 0)
        self.assertIn("nothing to compare", text)


if __name__ == "__main__":
    unittest.main()
