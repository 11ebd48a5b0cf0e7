#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Never lose a recording, never hang (issue 15): each defect found by trying gr-blade
as a new user would, as a test that fails on the code before the fix, and one
property that would have caught the worst of them: whatever a run does and however
it fails, every input file is afterwards byte for byte what it was.

The recording is small (4 antennas x 4 channels, 4 blocks of 2048 samples in two
files) and synthesized by gnuradio.blade.synth with its BFR5 recipe.
"""

import contextlib
import hashlib
import io
import itertools
import os
import random
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
from gnuradio.blade import cli, synth

from qa_filterbank_sink import parse_fil

BLOCK = 2048


def run_cli(*argv, env=None):
    """blade-cli in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main([str(a) for a in argv])
            except SystemExit as exit:  # argparse
                code = exit.code
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return code, out.getvalue(), err.getvalue()


def cli_command(*argv):
    return [sys.executable, "-m", "gnuradio.blade.cli", *[str(a) for a in argv]]


def child_env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


def digest(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def snapshot(paths):
    """{path: (sha256, size, mode)} of the files, following links as readers do."""
    return {p: (digest(p), os.path.getsize(p), stat.S_IMODE(os.stat(p).st_mode)) for p in paths}


def guppi_block(pktidx, samples=BLOCK, extra=None):
    """One block of a 1-antenna, 2-channel, 2-pol ci8 recording, as bytes."""
    cards = {
        "BLOCSIZE": 2 * samples * 2 * 2,
        "NANTS": 1,
        "OBSNCHAN": 2,
        "NPOL": 2,
        "NBITS": 8,
        "TBIN": 1e-6,
        "CHAN_BW": 1.0,
        "OBSFREQ": 1420.0,
        "SYNCTIME": 1700000000,
        "PKTIDX": pktidx,
        "PIPERBLK": samples,
    }
    cards.update(extra or {})
    data = numpy.random.default_rng(pktidx).integers(-100, 100, cards["BLOCSIZE"], dtype=numpy.int8)
    return blade.guppi.format_header(cards) + data.tobytes()


class NeverLoseDataCase(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="qa_never_lose_data")
        cls.obs = synth.SyntheticObservation(antennas=4, channels=4, block_samples=BLOCK, blocks=4)
        cls.files = cls.obs.write(cls.dir, "obs", blocks_per_file=2)
        cls.inputs = list(cls.files["raw"]) + [cls.files["recipe"]]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self):
        blade.clear_failures()
        self.before = snapshot(self.inputs)
        self.scratch = tempfile.mkdtemp(dir=self.dir)

    def tearDown(self):
        # Whatever the test did, the recording and the recipe are as they were.
        self.assertEqual(snapshot(self.inputs), self.before)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.scratch, name)

    def assert_error(self, code, err, expected_code, *fragments):
        self.assertEqual(code, expected_code, err)
        lines = [line for line in err.splitlines() if line.strip() and "warning" not in line]
        self.assertEqual(len(lines), 1, err)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])


class qa_inputs_are_never_outputs(NeverLoseDataCase):
    def test_an_output_named_like_the_input_is_refused_and_the_input_kept(self):
        # --format raw with -o DIR --name STEM equal to the input's: the GUPPI writer
        # truncated the recording being read, and the failed run then removed it.
        stem = self.files["stem"]
        code, out, err = run_cli(
            "mode-b",
            "-i",
            stem,
            "-r",
            self.files["recipe"],
            "-o",
            self.dir,
            "--name",
            "obs",
            "--format",
            "raw",
            "--device",
            "cpu",
            "--no-progress",
        )
        self.assert_error(
            code, err, 1, f"the output {stem}.0000.raw is the input {stem}.0000.raw", "would destroy the recording"
        )

    def test_another_name_of_the_input_is_refused_too(self):
        # A symbolic link and a hard link in the output folder, named as the output
        # will be: the same file by device and inode.
        os.symlink(self.files["raw"][0], self.out("soft.0000.raw"))
        os.link(self.files["raw"][0], self.out("hard.0000.raw"))
        for name in ("soft", "hard"):
            with self.subTest(name=name):
                code, out, err = run_cli(
                    "mode-b",
                    "-i",
                    self.files["stem"],
                    "-r",
                    self.files["recipe"],
                    "-o",
                    self.scratch,
                    "--name",
                    name,
                    "--format",
                    "raw",
                    "--device",
                    "cpu",
                )
                self.assert_error(code, err, 1, "(another name of it)", "would destroy the recording")
                self.assertTrue(os.path.lexists(self.out(f"{name}.0000.raw")))

    def test_the_sink_blocks_refuse_an_input_whatever_the_flowgraph(self):
        # Not only blade-cli: a flowgraph built by hand (GRC, Python) with the sink
        # named like the source's file. The sink's writer refuses it when it would
        # create the file; the run fails with the reason and the input survives.
        stem = self.files["stem"]
        for make_sink, name in (
            (lambda: blade.guppi_sink(stem, [4, 4, BLOCK, 2], "ci8", "ci8"), "guppi_sink"),
            (lambda: blade.filterbank_sink(self.out("link"), [4, 4, BLOCK, 1], "fil", "antenna"), "filterbank_sink"),
        ):
            with self.subTest(sink=name):
                blade.clear_failures()
                if name == "filterbank_sink":
                    os.symlink(self.files["raw"][0], self.out("link.ant0000.fil"))
                source = blade.guppi_source(stem, 0, "ci8")
                tb = gr.top_block()
                if name == "guppi_sink":
                    tb.connect(source, make_sink())
                else:  # a "power" of the right size: the voltages' bytes as f32
                    sink = make_sink()
                    tb.connect(source, blocks.copy(source.output_item_size()), sink)
                tb.run()
                failures = list(blade.failures())
                self.assertEqual(len(failures), 1, failures)
                self.assertIn("which this process is reading", failures[0])
                self.assertIn(self.files["raw"][0], failures[0])
                self.assertEqual(snapshot(self.inputs), self.before)

    def test_a_writer_removes_only_files_it_created(self):
        # A file there before the run (a link to /dev/full) that the run cannot write
        # is left where it was; the run says what failed.
        os.symlink("/dev/full", self.out("full.beam0000.fil"))
        code, out, err = run_cli(
            "mode-b",
            "-i",
            self.files["stem"],
            "-r",
            self.files["recipe"],
            "-o",
            self.scratch,
            "--name",
            "full",
            "--device",
            "cpu",
            "--no-progress",
        )
        self.assertEqual(code, 1, err)
        self.assertIn("No space left on device", err)
        self.assertEqual(os.readlink(self.out("full.beam0000.fil")), "/dev/full")


class qa_bounded_gaps(NeverLoseDataCase):
    def test_one_corrupt_pktidx_is_refused_with_what_to_do(self):
        # A two-block file whose second PKTIDX jumps by 999 999 blocks was accepted
        # ("1000001 to process") and zero-filled into 27 GB.
        path = self.out("jump.raw")
        with open(path, "wb") as handle:
            handle.write(guppi_block(0) + guppi_block(1000000 * BLOCK))
        code, out, err = run_cli("mode-h", "-i", path, "-o", self.scratch, "--device", "cpu")
        self.assert_error(
            code,
            err,
            1,
            "jump.raw: block 1 (header at byte offset",
            f"from 0 to {1000000 * BLOCK}",
            "999999 missing blocks",
            "longer than all the 2 blocks",
            "--max-gap",
            "--on-gap stop",
        )
        self.assertEqual(os.listdir(self.scratch), ["jump.raw"])  # nothing written
        # Allowed explicitly, it is read (two chunks of it here); stopping needs no bound.
        code, out, err = run_cli(
            "mode-h",
            "-i",
            path,
            "-o",
            self.scratch,
            "--max-gap",
            "inf",
            "--max-chunks",
            2,
            "--device",
            "cpu",
            "--no-progress",
        )
        self.assertEqual(code, 0, err)
        self.assertIn("2 blocks, 999999 missing", out)
        code, out, err = run_cli(
            "mode-h", "-i", path, "-o", self.scratch, "--on-gap", "stop", "--device", "cpu", "--no-progress"
        )
        self.assertEqual(code, 0, err)
        self.assertIn("Mode H done: 1 of 1 chunks", out)
        self.assertIn("stopped at the first gap (--on-gap stop)", out)
        self.assertNotIn("zero-filled", out)


class qa_sizes(NeverLoseDataCase):
    def test_sizes_that_would_wrap_are_refused(self):
        # The byte count wrapped to 4096 and the cast block crashed when it ran.
        with self.assertRaisesRegex(ValueError, "more than 2\\^56 elements"):
            blade.item_size([2**20, 2**20, 2**20, 2], "ci8")
        with self.assertRaisesRegex(ValueError, "more than 2\\^56 elements"):
            blade.cast([2**20, 2**20, 2**20, 2], "ci8", "cf32", device="cpu")
        with self.assertRaisesRegex(ValueError, "GNU Radio items hold at most 2 GiB"):
            blade.item_size([1, 1, 2**30, 2], "ci8")

    def test_chunks_too_large_for_gnu_radio_say_what_to_do(self):
        code, out, err = run_cli(
            "mode-h", "-i", self.files["stem"], "-o", self.scratch, "--chunk-samples", 100000000, "--device", "cpu"
        )
        self.assert_error(code, err, 1, "GiB: GNU Radio items hold at most 2 GiB", "--chunk-samples")


class qa_signals(NeverLoseDataCase):
    def paced_run(self, name):
        # 8 chunks of 1024 samples at 1/200 of real time: about 1 chunk per 0.4 s.
        return subprocess.Popen(
            cli_command(
                "mode-h",
                "-i",
                self.files["stem"],
                "-o",
                self.scratch,
                "--name",
                name,
                "--chunk-samples",
                1024,
                "--channelizer-rate",
                64,
                "--pace",
                0.005,
                "--device",
                "cpu",
                "--no-progress",
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(),
        )

    def wait_for_spectra(self, child, path):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            if os.path.exists(path) and os.path.getsize(path) > 600:
                return
            time.sleep(0.05)

    def test_sigterm_and_sighup_stop_as_cleanly_as_ctrl_c(self):
        # timeout, SLURM, systemd and docker send SIGTERM: the run died with 143, no
        # summary, and once a .fil ended mid-spectrum.
        for sig in (signal.SIGTERM, signal.SIGHUP):
            with self.subTest(signal=sig.name):
                name = sig.name.lower()
                child = self.paced_run(name)
                path = self.out(f"{name}.ant0000.fil")
                self.wait_for_spectra(child, path)
                child.send_signal(sig)
                out, err = child.communicate(timeout=60)
                self.assertEqual(child.returncode, 128 + sig, err)
                self.assertIn(f"Mode H interrupted by {sig.name}", out)
                self.assertIn("the files hold every chunk finished before the interruption", out)
                for a in range(4):
                    header, data = parse_fil(self.out(f"{name}.ant{a:04d}.fil"))
                    size = os.path.getsize(self.out(f"{name}.ant{a:04d}.fil")) - header["header_bytes"]
                    self.assertEqual(size % (4 * header["nchans"]), 0)  # whole spectra only
                    self.assertGreater(data.shape[0], 0)


class qa_terminal_and_input_kinds(NeverLoseDataCase):
    def test_closing_stdout_does_not_abort_the_run(self):
        # `blade-cli mode-h ... | head -1`: [Errno 32] Broken pipe, exit 1, no files.
        command = " ".join(
            cli_command(
                "mode-h",
                "-i",
                self.files["stem"],
                "-o",
                self.scratch,
                "--name",
                "piped",
                "--channelizer-rate",
                64,
                "--device",
                "cpu",
            )
        )
        result = subprocess.run(
            f"set -o pipefail; {command} | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}",
            shell=True,
            executable="/bin/bash",
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=120,
        )
        self.assertEqual(result.stdout.strip(), "0", result.stderr)
        self.assertNotIn("Broken pipe", result.stderr)
        header, data = parse_fil(self.out("piped.ant0000.fil"))
        self.assertEqual(data.shape[0], 4 * BLOCK // 64)  # every spectrum

    def test_a_fifo_or_a_device_is_refused_without_waiting(self):
        # A FIFO hung in open() (Ctrl-C then printed two tracebacks); /dev/zero was
        # "empty".
        fifo = self.out("live.0000.raw")
        os.mkfifo(fifo)
        started = time.monotonic()
        result = subprocess.run(
            cli_command("mode-h", "-i", fifo, "-o", self.scratch),
            capture_output=True,
            text=True,
            env=child_env(),
            timeout=60,
        )
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"{fifo} is a FIFO (named pipe)", result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        code, out, err = run_cli("header", "/dev/zero")
        self.assert_error(code, err, 1, "/dev/zero is a character device")


class qa_arguments(NeverLoseDataCase):
    def test_zero_is_refused_where_it_means_nothing(self):
        stem, recipe = self.files["stem"], self.files["recipe"]
        for option, value in (
            ("--max-chunks", 0),
            ("--integration", 0),
            ("--chunk-samples", 0),
            ("--pfb-taps", 0),
            ("--channels", "0:0"),
            ("--pace", 0),
            ("--gather", 0),
            ("--max-gap", -1),
        ):
            with self.subTest(option=option):
                mode = ["mode-bh", "-r", recipe] if option == "--gather" else ["mode-h"]
                code, out, err = run_cli(*mode, "-i", stem, "-o", self.scratch, option, value)
                self.assert_error(code, err, 2, option)
        self.assertEqual(os.listdir(self.scratch), [])

    def test_small_refusals_say_what_is_wrong(self):
        stem, recipe = self.files["stem"], self.files["recipe"]
        code, out, err = run_cli("mode-b", "-i", stem, "-r", recipe, "-o", self.scratch, "--beams", "0,0")
        self.assert_error(code, err, 1, "beam 0 is listed twice")
        plain = self.out("plain")
        open(plain, "w").close()
        code, out, err = run_cli("mode-h", "-i", stem, "-o", plain)
        self.assert_error(code, err, 1, f"--output {plain}: that is a file")
        code, out, err = run_cli("mode-h", "-i", stem, "-o", self.scratch, "--device", "gpu")
        self.assert_error(code, err, 1, "device 'gpu' is ambiguous", "'cuda' (GPU 0)")
        if not blade.gpus():
            code, out, err = run_cli("mode-h", "-i", stem, "-o", self.scratch, "--devices", "all")
            self.assert_error(code, err, 1, "no CUDA GPU was found")
        code, out, err = run_cli(
            "mode-h",
            "-i",
            stem,
            "-o",
            self.scratch,
            "--device",
            "emulated",
            "--channelizer-rate",
            64,
            env={"BLADE_EMULATED_MEMORY_LIMIT": "abc"},
        )
        self.assert_error(code, err, 1, "BLADE_EMULATED_MEMORY_LIMIT='abc' is not a memory size")

    def test_a_missing_middle_file_is_an_error_not_half_the_data(self):
        # seq.0000 and seq.0002 without seq.0001 read "seq.0000.raw .. seq.0000.raw"
        # and exited 0.
        for n in (0, 2, 3):
            with open(self.out(f"seq.{n:04d}.raw"), "wb") as handle:
                handle.write(guppi_block(n * BLOCK))
        code, out, err = run_cli("mode-h", "-i", self.out("seq"), "-o", self.scratch, "--device", "cpu")
        self.assert_error(
            code, err, 1, "seq.0001.raw is missing from the sequence", "seq.0002.raw", "2 file(s)", "--single-file"
        )
        code, out, err = run_cli("header", self.out("seq.0000.raw"), "--single-file")
        self.assertEqual(code, 0, err)

    def test_header_values_that_mean_nothing_name_themselves(self):
        for card, fragment in (
            ({"TBIN": 0.0}, "TBIN = 0 s is not a sample time"),
            ({"TBIN": -1e-6}, "TBIN = -1e-06 s"),
            ({"OBSFREQ": -1420.0}, "OBSFREQ = -1420 MHz is not a sky frequency"),
        ):
            with self.subTest(card=card):
                path = self.out("bad.raw")
                with open(path, "wb") as handle:
                    handle.write(guppi_block(0, extra=card))
                code, out, err = run_cli("mode-h", "-i", path, "-o", self.scratch)
                self.assert_error(code, err, 1, fragment)

    def test_voltage_output_leaves_the_incoherent_power_out_unless_asked(self):
        # The incoherent beam, a power, was written as a voltage "antenna".
        stem, recipe = self.files["stem"], self.files["recipe"]
        code, out, err = run_cli(
            "mode-b",
            "-i",
            stem,
            "-r",
            recipe,
            "-o",
            self.scratch,
            "--name",
            "v",
            "--format",
            "raw",
            "--device",
            "cpu",
            "--no-progress",
        )
        self.assertEqual(code, 0, err)
        header = blade.guppi.read_header(self.out("v.0000.raw"))
        self.assertEqual(header["NANTS"], 2)  # the two recipe beams, no incoherent sum
        self.assertEqual(header["ANTNMS00"], "tone-source,off-source")
        code, out, err = run_cli(
            "mode-b",
            "-i",
            stem,
            "-r",
            recipe,
            "-o",
            self.scratch,
            "--name",
            "w",
            "--format",
            "raw",
            "--incoherent",
            "--device",
            "cpu",
            "--no-progress",
        )
        self.assertEqual(code, 0, err)
        self.assertIn("warning: the incoherent beam is a power, not a voltage", err)
        self.assertEqual(blade.guppi.read_header(self.out("w.0000.raw"))["NANTS"], 3)

    def test_version_help_and_quiet_logs(self):
        code, out, err = run_cli("--version")
        self.assertEqual(code, 0)
        self.assertRegex(out, r"^blade-cli \(gr-blade\) \d+\.\d+\.\d+ \(commit [0-9a-f]+")
        code, out, err = run_cli("demo", "--help")
        self.assertIn("the beam on the source gains A = 8", " ".join(out.split()))
        # A flowgraph from Python prints no debug lines with Debian's GNU Radio
        # configuration (log_level = debug) for a device chosen explicitly.
        script = (
            "from gnuradio import blade, blocks, gr\n"
            "shape = [2, 2, 16, 2]\n"
            "tb = gr.top_block()\n"
            "src = blocks.vector_source_b([0] * blade.item_size(shape, 'ci8'), False, "
            "blade.item_size(shape, 'ci8'))\n"
            "tb.connect(src, blade.cast(shape, 'ci8', 'cf32', device='cpu'), "
            "blocks.null_sink(blade.item_size(shape, 'cf32')))\n"
            "tb.run()\n"
        )
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=child_env())
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn(":debug:", result.stdout + result.stderr)

    def test_unpack_takes_bytes(self):
        chunk = numpy.arange(16, dtype=numpy.int8).reshape(1, 2, 2, 2, 2)
        items = blade.pack(chunk, "ci8").tobytes()
        numpy.testing.assert_array_equal(blade.unpack(items, [2, 2, 2], "ci8"), chunk)
        numpy.testing.assert_array_equal(blade.unpack(bytearray(items), [2, 2, 2], "ci8"), chunk)

    def test_a_full_disk_says_what_was_saved(self):
        # A file size limit stands in for a full disk: the run fails with the reason
        # and lists the files and what they hold.
        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (40000, resource.RLIM_INFINITY))

        result = subprocess.run(
            cli_command(
                "mode-h",
                "-i",
                self.files["stem"],
                "-o",
                self.scratch,
                "--name",
                "fs",
                "--chunk-samples",
                512,
                "--channelizer-rate",
                16,
                "--device",
                "cpu",
            ),
            capture_output=True,
            text=True,
            env=child_env(),
            preexec_fn=limit,
            timeout=120,
        )
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("File too large", result.stderr)
        self.assertIn("Mode H failed:", result.stdout)
        self.assertIn("the files hold every chunk written before the failure", result.stdout)
        self.assertIn("fs.ant0000.fil", result.stdout)


class qa_inputs_survive_every_run(NeverLoseDataCase):
    """The property: for any run, failing or not, the inputs keep every byte. Runs
    are drawn at random (fixed seed) from options that succeed and options that
    fail: outputs aimed at the inputs or at links to them, gaps, bad recipes, full
    disks, wrong arguments."""

    def test_random_runs_leave_the_inputs_byte_for_byte(self):
        rng = random.Random(15)
        # Outputs that are other names of the inputs: of the recording (every run's
        # input) and of the recipe (an input of Mode B and BH runs).
        os.symlink(self.files["raw"][1], self.out("alias.0000.raw"))
        os.symlink(self.files["recipe"], self.out("alias.beam0001.fil"))
        os.link(self.files["raw"][0], self.out("twin.beam0000.fil"))
        bad_recipe = self.out("bad.bfr5")
        with open(bad_recipe, "wb") as handle:
            handle.write(b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
        outputs = [
            ("-o", self.dir, "--name", "obs"),
            ("-o", self.scratch, "--name", "alias"),
            ("-o", self.scratch, "--name", "twin"),
            ("-o", self.scratch, "--name", "fresh"),
            ("-o", self.files["raw"][0]),
        ]
        choices = {
            "mode": ["mode-b", "mode-h", "mode-bh"],
            "format": ["fil", "h5", "raw"],
            "recipe": [self.files["recipe"], bad_recipe, self.files["raw"][0]],
            "extra": [
                (),
                ("--max-chunks", "1"),
                ("--channels", "1:2"),
                ("--channelizer-rate", "8"),
                ("--chunk-samples", "3000"),
                ("--beams", "0,5"),
                ("--stokes", "IQUV"),
                ("--integration", "7"),
                ("--single-file",),
                ("--on-gap", "stop"),
            ],
        }
        runs = 0
        # Every mode, format and output place; the input, the recipe and one more
        # option drawn at random for each.
        for mode, fmt, output in itertools.product(choices["mode"], choices["format"], outputs):
            argv = [
                mode,
                "-i",
                rng.choice([self.files["stem"], self.files["raw"][1]]),
                *output,
                "--device",
                "cpu",
                "--no-progress",
                "-q",
                "--format",
                fmt,
                *rng.choice(choices["extra"]),
            ]
            if mode != "mode-h":
                argv += ["-r", rng.choice(choices["recipe"])]
            with self.subTest(argv=" ".join(argv)):
                code, out, err = run_cli(*argv)
                self.assertIn(code, (0, 1, 2), err)
                if code != 0:
                    self.assertTrue(err.strip(), "a failure says why")
                self.assertEqual(snapshot(self.inputs), self.before)
                self.assertEqual(os.readlink(self.out("alias.0000.raw")), self.files["raw"][1])
                runs += 1
        self.assertEqual(runs, 45)

    def test_fp16_runs_leave_the_inputs_byte_for_byte(self):
        # The fp16 chain (--precision fp16: cf16 between the stages) in every mode and
        # each format it writes: into a fresh place it writes its products; aimed at
        # the inputs' own names it is refused (raw) or writes beside them; the inputs
        # keep every byte.
        runs = 0
        for mode, formats in (("mode-b", ["fil", "h5", "raw"]), ("mode-h", ["fil", "h5"]), ("mode-bh", ["fil", "h5"])):
            for fmt in formats:
                recipe = [] if mode == "mode-h" else ["-r", self.files["recipe"]]
                gather = ["--gather", "2"] if mode == "mode-bh" else []  # the recording has 4 chunks
                argv = [mode, "-i", self.files["stem"], *recipe, *gather, "--device", "cpu", "--no-progress"]
                argv += ["--format", fmt, "--precision", "fp16"]
                with self.subTest(mode=mode, format=fmt):
                    name = f"half-{mode}-{fmt}"
                    code, out, err = run_cli(*argv, "-o", self.scratch, "--name", name)
                    self.assertEqual(code, 0, err)
                    self.assertIn("(fp16: cf16 intermediates)", out)  # the chain that ran
                    written = [f for f in os.listdir(self.scratch) if f.startswith(f"{name}.")]
                    self.assertTrue(written)
                    self.assertTrue(all(os.path.getsize(self.out(f)) > 0 for f in written), written)
                    code, out, err = run_cli(*argv, "-o", self.dir, "--name", "obs")
                    if fmt == "raw":
                        self.assert_error(code, err, 1, "would destroy the recording")
                    else:
                        self.assertEqual(code, 0, err)
                    self.assertEqual(snapshot(self.inputs), self.before)
                    runs += 1
        self.assertEqual(runs, 7)

    def test_killed_runs_leave_the_inputs_byte_for_byte(self):
        # SIGKILL cannot be caught: whatever it interrupts, no input is touched.
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=sig.name):
                child = subprocess.Popen(
                    cli_command(
                        "mode-b",
                        "-i",
                        self.files["stem"],
                        "-r",
                        self.files["recipe"],
                        "-o",
                        self.scratch,
                        "--name",
                        sig.name,
                        "--format",
                        "raw",
                        "--chunk-samples",
                        512,
                        "--pace",
                        0.01,
                        "--device",
                        "cpu",
                    ),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=child_env(),
                )
                time.sleep(3)
                child.send_signal(sig)
                child.wait(timeout=60)
                self.assertEqual(snapshot(self.inputs), self.before)


if __name__ == "__main__":
    gr_unittest.main()
