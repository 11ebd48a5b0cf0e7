#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Several Mode H products in one pass (lists of --channelizer-rate, --integration and
--stokes) write exactly the files that one pass per product writes, header and data
byte for byte, on the CPU and on the emulated device, where each chunk is uploaded
once for all products. A channelizer longer than a GUPPI block makes chunks that
span blocks by itself, with the result of giving --chunk-samples by hand. Products
whose integrations end at different chunks each write the spectra they complete.
"""

import os
import shutil
import tempfile

from gnuradio import gr_unittest

from gnuradio import blade
from gnuradio.blade import synth
from gnuradio.blade.pipeline import Job, Options

import blade_testing

# A list-valued option per product: (rate, integration, stokes).
PRODUCTS = [(64, 4, "I"), (8, 16, "IQUV"), (256, 16, "XXYY")]


def read(path):
    with open(path, "rb") as f:
        return f.read()


class qa_products(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="qa_products")
        cls.files = synth.SyntheticObservation(
            antennas=3, channels=2, tone_channel=1, blocks=6, block_samples=1024
        ).write(cls.dir, "obs")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_job(self, name, device, **options):
        job = Job("h", Options(input=self.files["stem"], output=self.dir, name=name, device=device, **options))
        blade.reset_copy_stats()
        summary = job.run(progress=False)
        return job, summary, blade.copy_stats()

    def test_one_pass_writes_what_one_pass_per_product_writes(self):
        rates, integrations, stokes = (list(column) for column in zip(*PRODUCTS))
        for device in ("cpu", "emulated"):
            job, summary, stats = self.run_job(
                f"together-{device}", device, channelizer_rate=rates, integration=integrations, stokes=stokes
            )
            self.assertEqual(len(job.products), 3)
            self.assertEqual(summary.chunks, 6)
            self.assertEqual(len(summary.files), 3 * 3)  # 3 antennas per product
            if device == "emulated":  # one upload per chunk for all three products
                self.assertEqual((stats["host_to_device"], stats["device_to_device"]), (6, 0))
            for k, (rate, integration, mode) in enumerate(PRODUCTS):
                _, alone, _ = self.run_job(
                    f"alone{k}-{device}", device, channelizer_rate=rate, integration=integration, stokes=mode
                )
                for a in range(3):
                    together = os.path.join(self.dir, f"together-{device}.{k:04d}.ant{a:04d}.fil")
                    single = os.path.join(self.dir, f"alone{k}-{device}.ant{a:04d}.fil")
                    self.assertEqual(read(together), read(single), f"product {k} antenna {a} on {device}")
        # Product 2 sums 16 spectra of 256 channels, 4 chunks' worth: of 6 chunks, the
        # last 2 make no spectrum (24 spectra // 16 = 1 written).
        written = {path: count for path, _, count in summary.files}
        self.assertEqual(written[os.path.join(self.dir, "together-emulated.0002.ant0000.fil")], 1)
        self.assertEqual(written[os.path.join(self.dir, "together-emulated.0000.ant0000.fil")], 6 * 1024 // 64 // 4)

    def test_a_channelizer_longer_than_a_block_spans_blocks_by_itself(self):
        job, summary, _ = self.run_job("auto", "cpu", channelizer_rate=2048, integration=1)
        self.assertEqual(job.shape[2], 2048)
        self.assertTrue(any("spans blocks" in w for w in job.warnings))
        self.run_job("by-hand", "cpu", channelizer_rate=2048, integration=1, chunk_samples=2048)
        for a in range(3):
            self.assertEqual(
                read(os.path.join(self.dir, f"auto.ant{a:04d}.fil")),
                read(os.path.join(self.dir, f"by-hand.ant{a:04d}.fil")),
            )
        self.assertEqual(summary.files[0][2], 3)  # 6144 samples / 2048

    def test_lists_that_do_not_match_are_refused(self):
        with self.assertRaisesRegex(ValueError, "--integration has 2 values for 3 products"):
            self.run_job("bad", "cpu", channelizer_rate=[8, 16, 32], integration=[1, 2])
        with self.assertRaisesRegex(ValueError, "several products in one pass .* are for Mode H"):
            Job(
                "b",
                Options(
                    input=self.files["stem"],
                    recipe=self.files["recipe"],
                    output=self.dir,
                    channelizer_rate=[8, 16],
                    device="cpu",
                ),
            )

    def test_the_cli_takes_lists(self):
        code, out, err = blade_testing.run_cli_main(
            "mode-h",
            "-i",
            self.files["stem"],
            "-o",
            self.dir,
            "--name",
            "cli",
            "--device",
            "cpu",
            "--channelizer-rate",
            "64,8",
            "--integration",
            "4,16",
            "--stokes",
            "I,IQUV",
            "--no-progress",
        )
        self.assertEqual(code, 0, err)
        self.assertIn("2 products from one read and one upload of each chunk", out)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "cli.0001.ant0002.fil")))


if __name__ == "__main__":
    gr_unittest.run(qa_products)
