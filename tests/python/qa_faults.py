#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Faults a running flowgraph meets (docs/reliability.md): device memory exhausted,
no GPU, a disk that fills up (a file size limit, a small file system, /dev/full),
an unwritable directory, an input recording cut short or deleted while it is read,
Ctrl-C and kill -9 of a GUPPI recorder, and connections GNU Radio or gr-blade must
refuse. Every case checks the message and that every file left behind is valid:
whole blocks or spectra that readers open, never a silently short file.

(qa_guppi_source, qa_filterbank_sink and qa_cast test the cases they own; this suite
adds the rest and the outputs.)
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy
from gnuradio import blocks, gr, gr_unittest

import blade_testing
from gnuradio import blade

import qa_filterbank_sink
import qa_guppi_sink

HERE = os.path.dirname(os.path.abspath(__file__))
# Written by the recorders below: 1 KiB spectra, 128 KiB GUPPI blocks.
FIL_SHAPE = [1, 256, 64, 1]
RAW_SHAPE = [2, 64, 256, 2]


def raw_chunk(index):
    """ci8 chunk `index` of the GUPPI recorder: distinct values per chunk."""
    count = int(numpy.prod(RAW_SHAPE)) * 2
    return ((numpy.arange(count) + 7 * index) % 251 - 125).astype(numpy.int8)


def record(kind, stem, chunks, repeat=False, throttle=0, stop_on_sigint=False):
    """
    Run a recorder: `chunks` chunks into a filterbank_sink ("fil", "h5": all ones)
    or a guppi_sink ("raw": raw_chunk(i)). Returns what it did, as JSON-able data.
    Runs in child processes (a file size limit, a private mount, a signal).
    """
    tb = gr.top_block()
    if kind == "raw":
        sink = blade.guppi_sink(stem, RAW_SHAPE, "ci8", "ci8")
        items = numpy.concatenate([raw_chunk(i) for i in range(chunks)]).view(numpy.uint8)
        tags = qa_guppi_sink.chunk_tags(1.7e9)
    else:
        sink = blade.filterbank_sink(stem, FIL_SHAPE, kind)
        items = blade.pack(numpy.ones([chunks] + FIL_SHAPE, numpy.float32), "f32")
        tags = qa_filterbank_sink.observation_tags()
    source = blocks.vector_source_b(items.tolist(), repeat, sink.input_item_size(), tags)
    if throttle:
        paced = blocks.throttle(sink.input_item_size(), throttle)
        tb.connect(source, paced, sink)
    else:
        tb.connect(source, sink)
    if stop_on_sigint:  # what an application does: top_block.stop() on Ctrl-C

        def stop(*_):
            tb.stop()
            tb.wait()
            sys.exit(0)

        signal.signal(signal.SIGINT, stop)
    if repeat:  # until a signal ends the process
        tb.start()
        print("running", flush=True)
        tb.wait()
    else:
        tb.run()
    written = sink.blocks_written() if kind == "raw" else sink.spectra_written()
    return {"failures": list(blade.failures()), "files": list(sink.files()), "written": written}


CHILD = """
import json, os, resource, shutil, sys
spec = json.loads(sys.argv[1])
if spec.get("file_size_limit"):
    resource.setrlimit(resource.RLIMIT_FSIZE, (spec["file_size_limit"], resource.RLIM_INFINITY))
sys.path.insert(0, spec["tests"])
import qa_faults
result = qa_faults.record(spec["kind"], spec["stem"], spec["chunks"], spec.get("repeat", False),
                          spec.get("throttle", 0), spec.get("stop_on_sigint", False))
for name in result["files"]:  # out of a private mount, for the parent to check
    if spec.get("copy_to") and os.path.exists(name):
        shutil.copy(name, spec["copy_to"])
print(json.dumps(result))
"""


def child_command(spec):
    return [sys.executable, "-c", CHILD, json.dumps(dict(spec, tests=HERE))]


def child_environment():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))


class qa_faults(blade_testing.FileTestCase, gr_unittest.TestCase):
    seed = 99

    # --- checks of files left behind ------------------------------------------------

    def assert_valid_fil(self, path, spectra):
        header, data = qa_filterbank_sink.parse_fil(path)
        size = os.path.getsize(path) - header["header_bytes"]
        self.assertEqual(size % (4 * FIL_SHAPE[1]), 0, "a torn spectrum at the end")
        self.assertEqual(data.shape[0], spectra)
        self.assertTrue(numpy.all(data == 1))

    def assert_valid_h5(self, path, spectra):
        import h5py

        with h5py.File(path, "r") as f:
            data = f["data"][...]
            self.assertEqual(data.shape, (spectra, 1, FIL_SHAPE[1]))
            self.assertTrue(numpy.all(data == 1))

    def assert_valid_raw(self, path, blocks_):
        d = blade.guppi.describe(path, single_file=True)
        self.assertEqual(d["warnings"], [], "a torn block at the end")
        self.assertEqual(d["blocks"], blocks_)
        for b, (_, data) in enumerate(qa_guppi_sink.parse_file(path)):
            numpy.testing.assert_array_equal(numpy.frombuffer(data, numpy.int8), raw_chunk(b))

    def assert_valid(self, kind, path, written):
        self.assertGreater(written, 0)
        {"fil": self.assert_valid_fil, "h5": self.assert_valid_h5, "raw": self.assert_valid_raw}[kind](path, written)

    # --- devices --------------------------------------------------------------------

    def test_device_auto_without_a_gpu_is_the_cpu_and_says_so(self):
        if blade.gpus():
            self.skipTest("a GPU is present")
        script = "from gnuradio import blade; print(blade.cast([2, 4], 'ci8', 'cf32', 'auto').device())"
        result = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=child_environment(), timeout=120
        )
        self.assertEqual(result.stdout.strip().splitlines()[-1], "cpu")
        self.assertIn("device 'auto' -> cpu (no CUDA GPU found)", result.stdout + result.stderr)
        # and "cuda" is an error, not a silent fallback (qa_cast checks the message)
        with self.assertRaises(RuntimeError):
            blade.cast([2, 4], "ci8", "cf32", "cuda")

    def test_device_memory_exhausted_when_a_plan_is_made(self):
        os.environ["BLADE_EMULATED_MEMORY_LIMIT"] = "4096"
        try:
            with self.assertRaises(RuntimeError) as caught:
                blade.detector([8, 64, 16, 2], "cross", 64, "emulated")  # a 16 KiB accumulator
        finally:
            del os.environ["BLADE_EMULATED_MEMORY_LIMIT"]
        message = str(caught.exception)
        self.assertIn("blade.detector", message)
        self.assertIn("allocating 16384 bytes", message)
        self.assertIn("BLADE_EMULATED_MEMORY_LIMIT", message)
        self.assertEqual(blade.detector([8, 64, 16, 2], "cross", 64, "emulated").device(), "emulated")

    def test_device_memory_exhausted_when_buffers_are_allocated(self):
        shape = [2, 4, 64, 2]

        def flowgraph():
            first = blade.cast(shape, "ci8", "cf32", "emulated")
            second = blade.cast(shape, "cf32", "cf16", "emulated")
            tb = gr.top_block()
            source = blocks.vector_source_b([1] * first.input_item_size() * 3, False, first.input_item_size())
            sink = blocks.vector_sink_b(second.output_item_size())
            tb.connect(source, first, second, sink)
            return tb, sink, first.output_item_size()

        tb, sink, between = flowgraph()
        # Three device buffers: ci8 in and cf16 out (two 4096-byte chunks each) and
        # cf32 between (two chunks of `between`). Less than the cf32 edge alone: some
        # allocation fails whatever order GNU Radio allocates them in.
        os.environ["BLADE_EMULATED_MEMORY_LIMIT"] = str(2 * between - 1)
        try:
            with self.assertRaises(RuntimeError) as caught:
                tb.run()
        finally:
            del os.environ["BLADE_EMULATED_MEMORY_LIMIT"]
        message = str(caught.exception)
        self.assertIn("device buffer of cast", message)
        asked = re.search(r"allocating (\d+) bytes", message)
        self.assertIsNotNone(asked, message)
        self.assertIn(int(asked.group(1)), (2 * between, 2 * 4096), message)
        self.assertIn("out of memory", message)
        self.assertEqual(len(sink.data()), 0)
        # the process is not poisoned: with memory, the same flowgraph runs
        tb, sink, _ = flowgraph()
        tb.run()
        self.assertEqual(len(sink.data()), 3 * 4096)

    # --- a disk that fills up -------------------------------------------------------------

    def test_file_size_limit_stops_recorders_with_whole_spectra_and_blocks(self):
        # RLIMIT_FSIZE: writes past 2.5 MB fail with EFBIG, as on a full disk.
        for kind in ("fil", "h5", "raw"):
            with self.subTest(kind=kind):
                stem = self.path(f"limited-{kind}")
                result = subprocess.run(
                    child_command(dict(kind=kind, stem=stem, chunks=60, file_size_limit=2_500_000)),
                    capture_output=True,
                    text=True,
                    env=child_environment(),
                    timeout=300,
                )
                self.assertEqual(result.returncode, 0, result.stderr[-2000:])
                outcome = json.loads(result.stdout.strip().splitlines()[-1])
                (path,) = outcome["files"]
                self.assertLessEqual(os.path.getsize(path), 2_500_000)
                self.assertEqual(len(outcome["failures"]), 1, outcome["failures"])
                self.assertIn(path, outcome["failures"][0])
                self.assertIn("File too large", outcome["failures"][0])
                self.assert_valid(kind, path, outcome["written"])

    def test_small_file_system_fills_up(self):
        # A 3 MiB tmpfs in a private mount namespace (root only; skipped elsewhere):
        # ENOSPC for real, statvfs sees it.
        mount_point = self.path("mnt")
        out = self.path("out")
        os.makedirs(mount_point)
        os.makedirs(out)
        for kind in ("fil", "h5", "raw"):
            with self.subTest(kind=kind):
                spec = dict(kind=kind, stem=os.path.join(mount_point, kind), chunks=60, copy_to=out)
                command = [
                    "unshare",
                    "--mount",
                    "--propagation",
                    "private",
                    "sh",
                    "-c",
                    f"mount -t tmpfs -o size=3m tmpfs '{mount_point}' && exec \"$@\"",
                    "sh",
                ]
                try:
                    result = subprocess.run(
                        command + child_command(spec),
                        capture_output=True,
                        text=True,
                        env=child_environment(),
                        timeout=300,
                    )
                except FileNotFoundError:
                    self.skipTest("no unshare")
                if result.returncode != 0 and ("mount" in result.stderr or "unshare" in result.stderr):
                    self.skipTest(f"cannot mount a small file system here: {result.stderr.strip()[:200]}")
                self.assertEqual(result.returncode, 0, result.stderr[-2000:])
                outcome = json.loads(result.stdout.strip().splitlines()[-1])
                (path,) = outcome["files"]
                self.assertEqual(len(outcome["failures"]), 1, outcome["failures"])
                self.assertIn(path, outcome["failures"][0])
                self.assertRegex(outcome["failures"][0], "No space left on device|disk full")
                self.assert_valid(kind, os.path.join(out, os.path.basename(path)), outcome["written"])

    def test_writing_to_a_device_that_is_always_full(self):
        # /dev/full fails every write with ENOSPC, and the failure names the file. The
        # name was there before the run (a link): it is left as it was, since a
        # writer removes only files it created.
        for kind, name in (("fil", "full.beam0000.fil"), ("h5", "full.beam0000.h5"), ("raw", "full.0000.raw")):
            with self.subTest(kind=kind):
                blade.clear_failures()
                link = self.path(name)
                os.symlink("/dev/full", link)
                outcome = record(kind, self.path("full"), 3)
                self.assertEqual(outcome["written"], 0)
                self.assertGreaterEqual(len(outcome["failures"]), 1)
                self.assertIn(link, outcome["failures"][0])
                if kind != "h5":  # HDF5 says only that it could not create or flush
                    self.assertIn("No space left on device", outcome["failures"][0])
                self.assertEqual(os.readlink(link), "/dev/full")

    def test_a_file_where_the_directory_should_be_is_refused_when_the_block_is_made(self):
        # (A missing directory: qa_guppi_sink and qa_filterbank_sink. Permissions
        # cannot be tested as root, which CI is.)
        open(self.path("plain"), "w").close()
        with self.assertRaises(RuntimeError) as caught:
            blade.guppi_sink(self.path("plain/rec"), RAW_SHAPE)
        self.assertIn(f"cannot write files in '{self.path('plain')}'", str(caught.exception))
        self.assertIn("Not a directory", str(caught.exception))
        with self.assertRaises(RuntimeError) as caught:
            blade.filterbank_sink(self.path("plain/rec"), FIL_SHAPE)
        self.assertIn(f"cannot write files in '{self.path('plain')}'", str(caught.exception))
        self.assertIn("Not a directory", str(caught.exception))

    # --- the input going away -----------------------------------------------------------

    def copy_recording(self, source):
        """Run source -> guppi_sink (stem "copy"); return the sink."""
        sink = blade.guppi_sink(self.path("copy"), source.output_shape())
        tb = gr.top_block()
        tb.connect(source, sink)
        tb.run()  # must end, not hang
        return sink

    def test_input_cut_short_while_it_is_read(self):
        data_blocks = blade.guppi.random_blocks(self.rng, 6, 1, 2, 64, 2)
        (path,) = blade.guppi.write_raw(self.path("in.raw"), data_blocks, qa_guppi_sink.HEADER)
        source = blade.guppi_source(path, 64, readahead_blocks=1)
        block_bytes = os.path.getsize(path) // 6
        os.truncate(path, 3 * block_bytes + block_bytes // 2)  # after open: mid block 3
        sink = self.copy_recording(source)
        failures = blade.failures()
        self.assertEqual(len(failures), 1, failures)
        self.assertIn(path, failures[0])
        self.assertIn("did the file shrink?", failures[0])
        # the copy holds exactly the three whole blocks before the cut
        self.assertEqual(sink.blocks_written(), 3)
        copy = blade.guppi.describe(self.path("copy.0000.raw"), single_file=True)
        self.assertEqual((copy["blocks"], copy["warnings"]), (3, []))
        for b, (_, data) in enumerate(qa_guppi_sink.parse_file(self.path("copy.0000.raw"))):
            values = numpy.frombuffer(data, numpy.int8).reshape(1, 2, 64, 2, 2)
            numpy.testing.assert_array_equal(values[..., 0] + 1j * values[..., 1], data_blocks[b])

    def test_input_deleted_before_it_is_read(self):
        # Deleted after the flowgraph was made (open scanned it) and before its
        # blocks are read: the read cannot open it. (A file Linux already has open
        # stays readable after deletion: the recording is then read whole.)
        data_blocks = blade.guppi.random_blocks(self.rng, 2, 1, 2, 64, 2)
        (path,) = blade.guppi.write_raw(self.path("gone.raw"), data_blocks, qa_guppi_sink.HEADER)
        source = blade.guppi_source(path, 64)
        os.remove(path)
        sink = self.copy_recording(source)
        failures = blade.failures()
        self.assertEqual(len(failures), 1, failures)
        self.assertIn(f"{path}: cannot open: No such file or directory", failures[0])
        self.assertEqual(sink.blocks_written(), 0)
        self.assertEqual(sink.files(), [])  # no empty recording left behind
        self.assertFalse(os.path.exists(self.path("copy.0000.raw")))

    # --- interrupted GUPPI recorders (qa_filterbank_sink does the filterbank ones) ---------

    def interrupt_recorder(self, how):
        stem = self.path(f"rec-{how}")
        spec = dict(kind="raw", stem=stem, chunks=8, repeat=True, throttle=20, stop_on_sigint=how == "stop")
        child = subprocess.Popen(
            child_command(spec), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_environment()
        )
        self.assertEqual(child.stdout.readline().strip(), b"running")
        time.sleep(1.0)
        child.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
        child.communicate(timeout=60)
        return stem + ".0000.raw"

    def test_ctrl_c_and_stop_leave_whole_blocks(self):
        for how in ("ctrl-c", "stop"):  # KeyboardInterrupt, or a handler calling stop()
            with self.subTest(how=how):
                path = self.interrupt_recorder(how)
                d = blade.guppi.describe(path, single_file=True)
                self.assertEqual(d["warnings"], [])
                self.assertGreater(d["blocks"], 3)
                for b, (_, data) in enumerate(qa_guppi_sink.parse_file(path)):
                    numpy.testing.assert_array_equal(numpy.frombuffer(data, numpy.int8), raw_chunk(b % 8))

    def test_kill_leaves_a_readable_recording(self):
        # kill -9 can land in the middle of a block: readers drop that one, with a
        # warning, and read the rest.
        path = self.interrupt_recorder("kill")
        d = blade.guppi.describe(path, single_file=True)
        self.assertGreater(d["blocks"], 3)
        self.assertTrue(all("truncated" in w for w in d["warnings"]), d["warnings"])

    # --- connections that cannot work -----------------------------------------------------

    def test_a_different_tensor_of_the_same_size_is_refused_at_start(self):
        # cast's cf32 [2, 4, 64, 2] and detector's cf32 [4, 4, 32, 2] are both 8 KiB
        # items: GNU Radio connects them; gr-blade refuses at start.
        cast = blade.cast([2, 4, 64, 2], "ci8", "cf32", "cpu")
        detector = blade.detector([4, 4, 32, 2], "I", 1, "cpu")
        self.assertEqual(cast.output_item_size(), detector.input_item_size())
        tb = gr.top_block()
        source = blocks.vector_source_b([0] * cast.input_item_size() * 2, True, cast.input_item_size())
        sink = blocks.vector_sink_b(detector.output_item_size())
        tb.connect(source, cast, detector, sink)
        tb.run()  # ends although the source repeats forever
        failures = blade.failures()
        self.assertEqual(len(failures), 1, failures)
        self.assertIn("blade.detector", failures[0])
        self.assertIn("[2, 4, 64, 2]", failures[0])
        self.assertIn("[4, 4, 32, 2]", failures[0])
        self.assertEqual(len(sink.data()), 0)

    def test_a_gpu_output_feeding_a_gpu_and_a_host_block_is_refused(self):
        # One device buffer cannot be both device-to-device and device-to-host;
        # GNU Radio refuses at start (blade.download is the way to fan out).
        shape = [2, 4, 64, 2]
        first = blade.cast(shape, "ci8", "cf32", "emulated")
        second = blade.cast(shape, "cf32", "cf16", "emulated")
        tb = gr.top_block()
        source = blocks.vector_source_b([0] * first.input_item_size() * 2, False, first.input_item_size())
        tb.connect(source, first, second, blocks.vector_sink_b(second.output_item_size()))
        tb.connect(first, blocks.vector_sink_b(first.output_item_size()))
        with self.assertRaises(RuntimeError) as caught:
            tb.run()
        self.assertIn("DEVICE_TO_HOST", str(caught.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_faults)
