#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade-cli end to end, on synthetic observations whose antenna voltages carry a
tone from a known sky position with per-antenna steering delays computed by
astropy (qa_delays_astropy.astropy_delays: not our astrometry), written as GUPPI
RAW plus a BFR5 recipe (gnuradio.blade.synth). Filterbank files are parsed with
the test's own SIGPROC reader (qa_filterbank_sink.parse_fil).

Expected, from the signal model (astrometry.md, modules.md):
* Mode B: the beam on the source adds the A antennas' tone in phase (power x A^2)
  and their noise in power (x A), so its tone-to-noise ratio is A times the
  incoherent beam's (which is one antenna's); a beam elsewhere gains nothing like it.
* Headers: fch1 = centre of fine channel 0 = f_0 - (N/2) CHAN_BW/N, foff =
  CHAN_BW/N, tstart = MJD of the first sample, tsamp = N I TBIN, each beam's source
  name and position from the recipe, the incoherent beam at the boresight.
* Mode H: the tone in fine channel c N + N/2 + offset N of its coarse channel c.
* --max-chunks, Ctrl-C (valid files, exit 130), and one-line errors with exit
  status 2 (arguments) or 1 (recording, recipe, run-time failures).
"""

import contextlib
import io
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
from gnuradio.blade import synth

import blade_testing

from qa_delays_astropy import astropy_delays
from qa_filterbank_sink import parse_fil

A = 8
BLOCK = 8192
RATE, INTEGRATION = 64, 16


def astropy_steering(reference, positions, boresight, direction, jd, dut1):
    return astropy_delays(reference, positions, boresight, [direction], jd, dut1)[0]


def observation(**overrides):
    """A small observation: 8 antennas, 4 channels, 8 blocks of 8192 samples (0.13 s);
    the tone stronger than the demo's so that short averages measure it well."""
    kwargs = dict(
        antennas=A,
        channels=4,
        block_samples=BLOCK,
        blocks=8,
        tone_amplitude=1.0,
        start_unix=1748757600.25,
        dut1=0.12,
        schan=100,
        total_channels=256,
        delay_model=astropy_steering,
    )
    kwargs.update(overrides)
    return synth.SyntheticObservation(**kwargs)


run_cli = blade_testing.run_cli_main


def packed_angle(value, hours):
    """SIGPROC's hhmmss.s / ddmmss.s packing of an angle in radians."""
    units = math.degrees(abs(value)) / (15.0 if hours else 1.0)
    whole = int(units)
    minutes = int((units - whole) * 60)
    seconds = ((units - whole) * 60 - minutes) * 60
    return math.copysign(whole * 10000 + minutes * 100 + seconds, value)


def tone_to_noise(spectrum, channel):
    floor = numpy.median(spectrum)
    return (spectrum[channel] - floor) / floor


class CliTestCase(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="qa_cli")
        cls.obs = observation()
        cls.files = cls.obs.write(cls.dir, "obs", blocks_per_file=4)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.dir, name)

    def assert_one_line_error(self, code, err, expected_code, *fragments):
        self.assertEqual(code, expected_code, err)
        lines = [line for line in err.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^blade-cli [a-z-]+: error: ")
        for fragment in fragments:
            self.assertIn(fragment, lines[0])


class qa_cli_mode_b(CliTestCase):
    def test_beam_on_the_source_gains_A_and_headers_match_the_recording(self):
        code, out, err = run_cli(
            "mode-b",
            "--input",
            self.files["stem"],
            "--recipe",
            self.files["recipe"],
            "--output",
            self.dir,
            "--name",
            "b",
            "--channelizer-rate",
            RATE,
            "--integration",
            INTEGRATION,
            "--device",
            "cpu",
            "--no-progress",
        )
        self.assertEqual(code, 0, err)
        self.assertIn("Mode B done: 8 of 8 chunks", out)
        obs = self.obs
        names = ["tone-source", "off-source", "incoherent"]
        spectra = {}
        for b, name in enumerate(names):
            header, data = parse_fil(self.out(f"b.beam{b:04d}.fil"))
            spectra[name] = data[:, 0, :].mean(axis=0)
            with self.subTest(beam=name):
                self.assertEqual(data.shape, (8 * BLOCK // (RATE * INTEGRATION), 1, 4 * RATE))
                fine = obs.chan_bw / RATE
                fch1 = (obs.channel_centre(0) - RATE // 2 * fine) / 1e6
                self.assertAlmostEqual(header["fch1"], fch1, delta=1e-9)
                self.assertAlmostEqual(header["foff"], fine / 1e6, delta=1e-12)
                self.assertAlmostEqual(header["tstart"], obs.start_unix / 86400 + 40587, delta=1e-6 / 86400)
                self.assertAlmostEqual(header["tsamp"], RATE * INTEGRATION * obs.tbin, delta=1e-12)
                self.assertEqual(
                    (header["nchans"], header["nifs"], header["nbeams"], header["ibeam"]), (4 * RATE, 1, 3, b)
                )
                self.assertEqual(header["source_name"], name)
                self.assertEqual(header["rawdatafile"], "obs.0000.raw")
                self.assertEqual(header["telescope_id"], 9)  # ATA
                ra, dec = (obs.source, obs.off_source, obs.boresight)[b]
                self.assertAlmostEqual(header["src_raj"], packed_angle(ra, True), delta=1e-3)
                self.assertAlmostEqual(header["src_dej"], packed_angle(dec, False), delta=1e-2)

        tone = obs.tone_fine_channel(RATE)
        single = tone_to_noise(spectra["incoherent"], tone)
        on = tone_to_noise(spectra["tone-source"], tone)
        off = tone_to_noise(spectra["off-source"], tone)
        # One antenna: 64 a^2 / (2 sigma^2) = 0.5 in the tone's fine channel.
        self.assertAlmostEqual(single, RATE * obs.tone_amplitude**2 / (2 * obs.noise**2), delta=0.1)
        self.assertGreater(on / single, 0.85 * A)
        self.assertLess(on / single, 1.15 * A)
        self.assertLess(off / single, 0.3 * A)
        # Elsewhere in the band only noise: the tone's channel is the peak.
        self.assertEqual(int(numpy.argmax(spectra["tone-source"])), tone)

    def test_a_lower_sideband_recording_gains_A_too(self):
        # CHAN_BW < 0 (the band mirrored, its voltages the sky's conjugates, the
        # steering phase included): the beam on the source still adds the antennas
        # in phase, and the tone is where its sky frequency says.
        obs = observation(chan_bw=-0.5e6, blocks=4)
        files = obs.write(os.path.join(self.dir, "lsb"), "lsb")
        code, out, err = run_cli(
            "mode-b",
            "-i",
            files["stem"],
            "-r",
            files["recipe"],
            "-o",
            self.dir,
            "--name",
            "lsb",
            "--channelizer-rate",
            RATE,
            "--integration",
            INTEGRATION,
            "--device",
            "cpu",
            "--no-progress",
        )
        self.assertEqual(code, 0, err)
        spectra = [parse_fil(self.out(f"lsb.beam{b:04d}.fil")) for b in range(3)]
        header = spectra[0][0]
        frequencies = header["fch1"] + header["foff"] * numpy.arange(header["nchans"])
        self.assertLess(header["foff"], 0)
        tone = int(numpy.argmin(numpy.abs(frequencies * 1e6 - obs.tone_frequency)))
        self.assertEqual(tone, obs.tone_fine_channel(RATE))
        on, off, single = (tone_to_noise(data[:, 0, :].mean(axis=0), tone) for _, data in spectra)
        self.assertGreater(on / single, 0.8 * A)
        self.assertLess(on / single, 1.2 * A)
        self.assertLess(off / single, 0.3 * A)

    def test_max_chunks_a_beam_subset_and_fbh5(self):
        code, out, err = run_cli(
            "mode-b",
            "-i",
            self.files["raw"][1],
            "-r",
            self.files["recipe"],
            "-o",
            self.dir,
            "--name",
            "subset",
            "--beams",
            "1",
            "--no-incoherent",
            "--format",
            "h5",
            "--channelizer-rate",
            16,
            "--integration",
            8,
            "--max-chunks",
            5,
            "--device",
            "cpu",
            "--channels",
            "1:2",
        )
        self.assertEqual(code, 0, err)
        self.assertIn("5 of 5 chunks", out)
        import h5py

        with h5py.File(self.out("subset.beam0000.h5"), "r") as f:
            data = f["data"]
            self.assertEqual(data.shape, (5 * BLOCK // (16 * 8), 1, 2 * 16))
            self.assertEqual(numpy.asarray(data.attrs["source_name"]).astype(str), "off-source")
            self.assertAlmostEqual(
                data.attrs["fch1"], (self.obs.channel_centre(1) - 8 * self.obs.chan_bw / 16) / 1e6, delta=1e-9
            )
        self.assertFalse(os.path.exists(self.out("subset.beam0001.h5")))

    def test_beam_voltages_as_guppi_raw(self):
        code, out, err = run_cli(
            "mode-b",
            "-i",
            self.files["stem"],
            "-r",
            self.files["recipe"],
            "-o",
            self.dir,
            "--name",
            "voltages",
            "--format",
            "raw",
            "--beams",
            "0",
            "--no-incoherent",
            "--max-chunks",
            2,
            "--device",
            "cpu",
        )
        self.assertEqual(code, 0, err)
        header = blade.guppi.read_header(self.out("voltages.0000.raw"))
        self.assertEqual((header["NANTS"], header["OBSNCHAN"], header["NBITS"]), (1, 4, 32))
        self.assertEqual((header["SRC_NAME"], header["ANTNMS00"]), ("tone-source", "tone-source"))
        self.assertAlmostEqual(header["OBSFREQ"], self.obs.obsfreq / 1e6, delta=1e-9)
        self.assertEqual(blade.guppi.describe(self.out("voltages.0000.raw"))["blocks"], 2)


class qa_cli_mode_h(CliTestCase):
    def test_the_tone_in_its_fine_channel(self):
        rate = 256
        code, out, err = run_cli(
            "mode-h",
            "--input",
            self.files["stem"],
            "--output",
            self.dir,
            "--name",
            "h",
            "--channelizer-rate",
            rate,
            "--integration",
            32,
            "--device",
            "cpu",
        )
        self.assertEqual(code, 0, err)
        paths = sorted(p for p in os.listdir(self.dir) if p.startswith("h.ant"))
        self.assertEqual(paths, [f"h.ant{a:04d}.fil" for a in range(A)])
        tone = self.obs.tone_fine_channel(rate)  # 2 * 256 + 128 + 52
        self.assertEqual(tone, 692)
        for a in (0, A - 1):
            header, data = parse_fil(self.out(f"h.ant{a:04d}.fil"))
            spectrum = data[:, 0, :].mean(axis=0)
            self.assertEqual(int(numpy.argmax(spectrum)), tone)
            self.assertAlmostEqual(header["fch1"] + tone * header["foff"], self.obs.tone_frequency / 1e6, delta=1e-9)
            self.assertEqual(header["source_name"], "3C286")
            self.assertAlmostEqual(header["tsamp"], rate * 32 * self.obs.tbin, delta=1e-12)


class qa_cli_interrupt(CliTestCase):
    def test_ctrl_c_leaves_valid_files_and_exits_130(self):
        # 32 chunks of 2048 samples paced at 1/40 of real time: about 2.4 chunks/s.
        command = [
            sys.executable,
            "-m",
            "gnuradio.blade.cli",
            "mode-b",
            "-i",
            self.files["stem"],
            "-r",
            self.files["recipe"],
            "-o",
            self.dir,
            "--name",
            "stopped",
            "--chunk-samples",
            "2048",
            "--channelizer-rate",
            "64",
            "--integration",
            "8",
            "--pace",
            "0.025",
            "--device",
            "cpu",
        ]
        child = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        )
        path = self.out("stopped.beam0000.fil")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            if os.path.exists(path) and os.path.getsize(path) > 2000:  # a few spectra written
                break
            time.sleep(0.1)
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
        self.assertEqual(child.returncode, 130, err)
        self.assertIn("Mode B interrupted", out)
        counts = []
        for b in range(3):
            header, data = parse_fil(self.out(f"stopped.beam{b:04d}.fil"))
            size = os.path.getsize(self.out(f"stopped.beam{b:04d}.fil")) - header["header_bytes"]
            self.assertEqual(size % (4 * header["nchans"]), 0)  # whole spectra only
            self.assertTrue(numpy.all(numpy.isfinite(data)))
            self.assertGreater(data.min(), 0)
            counts.append(data.shape[0])
        self.assertEqual(len(set(counts)), 1)
        self.assertGreater(counts[0], 0)
        self.assertLess(counts[0], 32 * 2048 // (64 * 8))  # stopped before the end


class qa_cli_errors(CliTestCase):
    def mismatched_recipe(self, name, **changes):
        """The observation's recipe with some of the observation's values changed."""
        other = observation(**changes)
        return other.write_recipe(self.out(name))

    def test_bad_arguments(self):
        stem, recipe = self.files["stem"], self.files["recipe"]
        code, out, err = run_cli("mode-b", "-i", stem, "-o", self.dir)
        self.assert_one_line_error(code, err, 2, "--recipe")
        code, out, err = run_cli("mode-b", "-i", stem, "-r", recipe, "--channels", "x:y")
        self.assert_one_line_error(code, err, 2, "START:COUNT")
        code, out, err = run_cli("mode-h", "-i", stem, "--stokes", "Q")
        self.assert_one_line_error(code, err, 2, "--stokes")
        code, out, err = run_cli("mode-b", "-i", stem, "-r", recipe, "--calibration-convention", "casa")
        self.assert_one_line_error(code, err, 2, "--calibration-convention")
        code, out, err = run_cli("mode-b", "-i", stem, "-r", recipe, "-o", self.dir, "--stokes", "none")
        self.assert_one_line_error(code, err, 1, "--format raw")
        code, out, err = run_cli("mode-h", "-i", stem, "-o", self.dir, "--channelizer-rate", 3)
        self.assert_one_line_error(code, err, 1, "rate 3 does not divide T = 8192")
        code, out, err = run_cli("mode-h", "-i", stem, "-o", self.dir, "--channels", "3:4")
        self.assert_one_line_error(code, err, 1, "channels 3:4", "0..3")
        code, out, err = run_cli("mode-b", "-i", self.out("missing"), "-r", recipe, "-o", self.dir)
        self.assert_one_line_error(code, err, 1, "missing")
        code, out, err = run_cli("mode-b", "-i", stem, "-r", recipe, "-o", self.dir, "--beams", "0,2")
        self.assert_one_line_error(code, err, 1, "beam 2 selected", "beams 0..1")

    def test_recipes_that_do_not_fit_the_recording(self):
        stem = self.files["stem"]
        recipe = self.mismatched_recipe("six.bfr5", antennas=6)
        code, out, err = run_cli("mode-b", "-i", stem, "-r", recipe, "-o", self.dir)
        self.assert_one_line_error(code, err, 1, "six.bfr5 is for 6 antennas", "the recording has 8 (NANTS)")
        recipe = self.mismatched_recipe("narrow.bfr5", schan=0, total_channels=64)
        code, out, err = run_cli("mode-b", "-i", stem, "-r", recipe, "-o", self.dir)
        self.assert_one_line_error(code, err, 1, "covers absolute channels 0..63", "channels are 100..103 (SCHAN 100")
        recipe = self.mismatched_recipe("shifted.bfr5", obsfreq=1420.5e6)
        code, out, err = run_cli("mode-b", "-i", stem, "-r", recipe, "-o", self.dir)
        self.assert_one_line_error(
            code,
            err,
            1,
            "absolute channel 100 at 1419.750000 MHz",
            "the recording at 1419.250000 MHz",
            "different bands",
        )

    def test_a_block_failure_while_running_is_an_error(self):
        # Precomputed delays for an hour earlier: the phasor block fails at the
        # first chunk (blade.failures()), the flowgraph ends, the CLI says why.
        early = observation(start_unix=self.obs.start_unix - 3600)
        recipe = early.write_recipe(self.out("early.bfr5"), delay_rows=3)
        code, out, err = run_cli(
            "mode-b",
            "-i",
            self.files["stem"],
            "-r",
            recipe,
            "-o",
            self.dir,
            "--name",
            "f",
            "--delays",
            "recipe",
            "--device",
            "cpu",
        )
        self.assert_one_line_error(code, err, 1, "outside the delay table")

    def test_header_and_info(self):
        code, out, err = run_cli("header", self.files["raw"][0], "--summary")
        self.assertEqual(code, 0, err)
        self.assertIn("OBSFREQ = 1420.0\n", out)
        self.assertIn("SRC_NAME= '3C286'\n", out)
        self.assertIn("8 blocks of 8192 samples, 8 antennas x 4 channels x 2 pols", out)
        self.assertIn("band 1419.250000 .. 1420.750000 MHz", out)
        code, out, err = run_cli("header", self.files["raw"][1], "--block", 1, "--single-file")
        self.assertIn(f"PKTIDX  = {5 * BLOCK + 125000}\n", out)  # 0.25 s / 2 us = 125000 after SYNCTIME
        code, out, err = run_cli("info")
        self.assertEqual(code, 0, err)
        self.assertIn("backends: cpu", out)


class qa_synth(CliTestCase):
    def test_recording_and_recipe_describe_the_same_observation(self):
        obs = self.obs
        d = blade.guppi.describe(self.files["stem"])
        self.assertEqual((d["nants"], d["nchan"], d["npol"], d["blocks"], d["ntime"]), (A, 4, 2, 8, BLOCK))
        self.assertEqual(len(self.files["raw"]), 2)
        self.assertAlmostEqual(d["unix_start"], obs.start_unix, delta=1e-9)
        self.assertAlmostEqual(d["freq_first"], obs.obsfreq - 1.5 * obs.chan_bw, delta=1e-6)
        recipe = blade.read_bfr5(self.files["recipe"])
        self.assertEqual(list(recipe.source_names), ["tone-source", "off-source"])
        numpy.testing.assert_allclose(recipe.frequencies[100:104], obs.obsfreq + (numpy.arange(4) - 1.5) * obs.chan_bw)
        # The tone sits where the model puts it: per-antenna phase differences equal
        # 2 pi nu tau_a, with tau_a from astropy at the first block's middle.
        block = next(observation(antennas=A, noise=0.0, tone_amplitude=100.0).voltage_blocks())
        tone = block[:, obs.tone_channel, BLOCK // 2, 0]
        tau = astropy_steering(
            obs.reference,
            obs.positions_ecef,
            obs.boresight,
            obs.source,
            (obs.start_unix + BLOCK // 2 * obs.tbin) / 86400 + 2440587.5,
            obs.dut1,
        )
        expected = numpy.angle(numpy.exp(2j * numpy.pi * obs.tone_frequency * (tau - tau[0])))
        got = numpy.angle(tone * numpy.conj(tone[0]))
        numpy.testing.assert_allclose(numpy.angle(numpy.exp(1j * (got - expected))), 0, atol=0.02)

    def test_the_demo_runs_on_a_short_observation(self):
        from gnuradio.blade.cli import demo

        small = synth.SyntheticObservation(blocks=4)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = demo.run(output=self.out("demo"), device="cpu", observation=small)
        self.assertEqual(code, 0, out.getvalue())
        self.assertIn("demo OK", out.getvalue())
        self.assertGreater(os.path.getsize(self.out("demo/demo.png")), 20000)


if __name__ == "__main__":
    gr_unittest.main()
