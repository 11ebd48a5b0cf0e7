#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Several processes over ZeroMQ on loopback: a reader process splits a GUPPI RAW
recording by channel and pushes each sub-band to its own worker process, which
beamforms it (Mode B, CPU). Every chunk must arrive at each worker once, in order,
with its tags (time, block index, and the frequency axis moved to the sub-band);
the chunk times rebuilt from the tags must equal guppi_source's own; and each
worker's beams must be exactly the single-process Mode B output for its channels.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt

A, F, T, P = 3, 4, 32, 2
BLOCKS, CHUNK = 3, 16  # 6 chunks of 16 samples
SCHAN = 96
HEADER = {
    "OBSFREQ": 1420.0,
    "CHAN_BW": -0.5,
    "TBIN": 2e-6,
    "SYNCTIME": 1700000000,
    "SCHAN": SCHAN,
    "DUT1": -0.125,
    "SRC_NAME": "J0332+5434",
    "TELESCOP": "ATA",
}
TIMEOUT = 120


class qa_zmq_scaleout(gr_unittest.TestCase):
    def setUp(self):
        blade.clear_failures()
        self.folder = tempfile.TemporaryDirectory()
        rng = numpy.random.default_rng(31)
        self.recording = self.path("obs.raw")
        blade.guppi.write_raw(self.recording, blade.guppi.random_blocks(rng, BLOCKS, A, F, T, P), HEADER)
        array = bt.ata_like_array(A)
        nchan = SCHAN + F + 2
        cal = (1 + 0.1 * rng.normal(size=(nchan, P, A))) * numpy.exp(1j * rng.uniform(-1, 1, size=(nchan, P, A)))
        self.recipe = self.path("obs.bfr5")
        blade.write_bfr5(
            self.recipe,
            reference=array["reference"],
            antenna_positions=array["positions"],
            boresight=(array["ra"], array["dec"]),
            beams=[(array["ra"] + 0.003 * b, array["dec"]) for b in range(2)],
            cal_all=cal,
            nchan=nchan,
            npol=P,
            source_names=["a", "b"],
        )

    def tearDown(self):
        self.folder.cleanup()

    def path(self, name):
        return os.path.join(self.folder.name, name)

    def single_process(self, plan):
        """Mode B over the whole band in this process: output, chunk times, tags per chunk."""
        tb = gr.top_block()
        source = blade.guppi_source(self.recording, CHUNK)
        shape = list(source.output_shape())
        axis = blade.Observation(**plan["observation"])
        bundle = blade.mode_b(shape, axis, blade.read_bfr5(self.recipe), blade.beamforming_options(device="cpu"))
        beams = blocks.vector_sink_b(bundle.output_item_size())
        times = blocks.vector_sink_b(64)
        chunks = blocks.vector_sink_b(source.output_item_size())
        tb.connect((source, 0), (bundle, 0))
        tb.connect((source, 1), (bundle, 1))
        tb.connect((source, 1), times)
        tb.connect((source, 0), chunks)
        tb.connect(bundle, beams)
        tb.run()
        output = blade.unpack(numpy.array(beams.data(), numpy.uint8), list(bundle.output_shape()), "f32")
        return (
            output,
            numpy.frombuffer(bytes(times.data()), dtype=blade.CHUNK_TIME_DTYPE),
            bt.tags_by_offset(chunks.tags()),
        )

    def test_reader_and_two_workers(self):
        python = sys.executable
        reader_log = open(self.path("reader.log"), "w")
        self.addCleanup(reader_log.close)
        reader = subprocess.Popen(
            [
                python,
                "-m",
                "gnuradio.blade.scaleout",
                "reader",
                self.recording,
                "--workers",
                "2",
                "--chunk-samples",
                str(CHUNK),
                "--plan-file",
                self.path("plan.json"),
            ],
            stdin=subprocess.PIPE,
            stdout=reader_log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        workers = []
        try:
            began = time.monotonic()
            while not os.path.exists(self.path("plan.json")):
                self.assertIsNone(reader.poll(), "the reader ended before writing its plan")
                self.assertLess(time.monotonic() - began, TIMEOUT, "no plan from the reader")
                time.sleep(0.05)
            with open(self.path("plan.json")) as source:
                plan = json.loads(source.readline())
            self.assertEqual(plan["chunks"], BLOCKS * T // CHUNK)
            self.assertEqual([s["first_channel"] for s in plan["subbands"]], [0, 2])
            for n in range(2):
                workers.append(
                    subprocess.Popen(
                        [
                            python,
                            "-m",
                            "gnuradio.blade.scaleout",
                            "worker",
                            "--plan-file",
                            self.path("plan.json"),
                            "--subband",
                            str(n),
                            "--recipe",
                            self.recipe,
                            "--raw",
                            self.path(f"beams{n}.raw"),
                            "--device",
                            "cpu",
                            "--report",
                            self.path(f"report{n}.json"),
                        ],
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                )
            for n, worker in enumerate(workers):
                _, errors = worker.communicate(timeout=TIMEOUT)
                self.assertEqual(worker.returncode, 0, f"worker {n}: {errors[-2000:]}")
        finally:
            reader.stdin.close()  # the reader may now close its sockets
            for process in workers + [reader]:
                try:
                    process.wait(timeout=TIMEOUT)
                except subprocess.TimeoutExpired:
                    process.kill()
        with open(self.path("reader.log")) as log:
            self.assertEqual(reader.returncode, 0, log.read()[-2000:])

        expected, times, chunk_tags = self.single_process(plan)
        chunks = plan["chunks"]
        self.assertEqual(len(expected), chunks)
        width = F // 2
        for n in range(2):
            with open(self.path(f"report{n}.json")) as source:
                report = json.load(source)
            # Every chunk once, in order, none missing.
            self.assertEqual((report["chunks"], report["gaps"], report["missing_chunks"]), (chunks, 0, 0))
            self.assertEqual((report["missing_at_start"], report["missing_at_end"]), (0, 0))
            self.assertEqual(report["steps"], list(range(chunks)))
            self.assertEqual(report["unix_start"], [float(t) for t in times["unix_start"]])
            self.assertEqual(report["failures"], [])
            # With its tags: those of the whole chunk, the frequency axis moved.
            received = {int(offset): tags for offset, tags in report["tags"].items()}
            self.assertEqual(sorted(received), list(range(chunks)))
            for i in range(chunks):
                sent, got = chunk_tags[i], received[i]
                self.assertEqual(sorted(got), sorted(sent), f"chunk {i}")
                for key in (
                    "blade_time_start_unix",
                    "blade_jd_mid",
                    "blade_block_index",
                    "blade_tsamp",
                    "blade_source_name",
                    "blade_chan_bw",
                    "blade_dut1",
                ):
                    self.assertEqual(got[key], sent[key], f"{key} of chunk {i}")
                self.assertEqual(got["blade_freq_first"], sent["blade_freq_first"] + n * width * sent["blade_chan_bw"])
                self.assertEqual(got["blade_coarse_first"], SCHAN + n * width)
            # And the beams of its channels, exactly.
            beams = blade.unpack(
                numpy.fromfile(self.path(f"beams{n}.raw"), numpy.uint8),
                [expected.shape[1], width, *expected.shape[3:]],
                "f32",
            )
            self.assertTrue(bt.same_bits(beams, expected[:, :, n * width : (n + 1) * width]), f"worker {n}")


if __name__ == "__main__":
    gr_unittest.run(qa_zmq_scaleout)
