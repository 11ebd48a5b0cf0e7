#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade-cli --devices: Mode B, Mode H and Mode BH spread over two (CPU) devices write
the files one device writes, headers and data (parsed with the test's own SIGPROC
reader); bad device lists are one-line errors.
"""

import glob
import os
import shutil
import tempfile

from gnuradio import gr_unittest

from gnuradio import blade
from qa_cli import observation, run_cli
from qa_filterbank_sink import parse_fil


class qa_cli_devices(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.obs = observation(blocks=2)
        cls.files = cls.obs.write(cls.dir, "obs", blocks_per_file=4)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def setUp(self):
        blade.clear_failures()

    def run_mode(self, mode, name, *extra):
        recipe = () if mode == "mode-h" else ("--recipe", self.files["recipe"])
        code, out, err = run_cli(
            mode,
            "--input",
            self.files["stem"],
            *recipe,
            "--output",
            self.dir,
            "--name",
            name,
            "--no-progress",
            "--channelizer-rate",
            "64",
            *extra,
        )
        self.assertEqual(code, 0, err)
        paths = sorted(glob.glob(os.path.join(self.dir, name + "*.fil")))
        self.assertGreater(len(paths), 0)
        return out, [parse_fil(path) for path in paths]

    def check_same_files(self, mode, *extra):
        _, one = self.run_mode(mode, f"{mode}-one", "--device", "cpu", *extra)
        out, two = self.run_mode(mode, f"{mode}-two", "--devices", "cpu,cpu", *extra)
        self.assertIn("on cpu,cpu", out)
        self.assertEqual(len(one), len(two))
        for (header_one, data_one), (header_two, data_two) in zip(one, two):
            self.assertEqual(header_one, header_two)
            self.assertEqual(data_one.tobytes(), data_two.tobytes())

    def test_mode_b(self):
        self.check_same_files("mode-b", "--integration", "4")

    def test_mode_h(self):
        self.check_same_files("mode-h", "--integration", "4", "--stokes", "IQUV")

    def test_mode_bh(self):
        self.check_same_files("mode-bh", "--gather", "2", "--channelizer-rate", "16384")

    def test_bad_device_lists(self):
        code, _, err = run_cli("mode-h", "--input", self.files["stem"], "--output", self.dir, "--devices", "all,cpu")
        self.assertEqual(code, 2)
        self.assertIn("all stands alone", err)
        code, _, err = run_cli(
            "mode-h",
            "--input",
            self.files["stem"],
            "--output",
            self.dir,
            "--devices",
            "cpu,cpu,cpu",
            "--channelizer-rate",
            "64",
        )
        self.assertEqual(code, 1)
        self.assertIn("4 channels cannot be split evenly across 3 devices", err)


if __name__ == "__main__":
    gr_unittest.run(qa_cli_devices)
