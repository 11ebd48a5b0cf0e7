#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
gnuradio.blade.array on GPU arrays (CuPy and PyTorch; a DLPack-only and an
interface-only wrapper; JAX when present): results against the numpy references and
the CPU backend, outputs of the caller's library on the caller's device, work on the
caller's stream, and no host copy (the core's transfer counters stay at zero, `out=`
is written in place).

Needs a CUDA build of libblade, a GPU, and CuPy or PyTorch in the Python that runs it
(on the lent GPU machine: its own python3, not the GNU Radio kit's, which this file
switches to by itself; see docs/array-api.md). Exits 77 (ctest: skipped) otherwise.
"""

import math
import os
import sys
import unittest

import numpy

import channelizer_reference
import correlator_reference
import detector_reference


os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX, if imported: share the GPU


def _optional(name):
    try:
        return __import__(name)
    except Exception:
        return None


cupy = _optional("cupy")
torch = _optional("torch")


def _run_under_the_gpu_python():
    """GNU Radio's Python (which ctest runs the suites with) may have neither CuPy nor
    PyTorch while another Python on the machine does (the lent GPU machine: the kit's
    Python 3.11 and /opt/torch/.venv's 3.12): then run this file under that one,
    $BLADE_GPU_PYTHON or /opt/torch/.venv/bin/python3, without the kit's PYTHONHOME and
    its entries of PYTHONPATH (the build's package and these tests' stay)."""
    python = os.environ.get("BLADE_GPU_PYTHON") or "/opt/torch/.venv/bin/python3"
    if cupy or torch or os.environ.get("BLADE_GPU_PYTHON_RUN") or not os.path.exists(python):
        return
    env = dict(os.environ, BLADE_GPU_PYTHON_RUN="1")
    env.pop("PYTHONHOME", None)
    kept = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and not p.startswith("/opt/grkit")]
    env["PYTHONPATH"] = os.pathsep.join(kept + [os.path.dirname(os.path.abspath(__file__))])
    print(f"no CuPy or PyTorch in {sys.executable}: running under {python}", flush=True)
    os.execve(python, [python, "-B", os.path.abspath(__file__)] + sys.argv[1:], env)


_run_under_the_gpu_python()
try:
    from gnuradio.blade import array as ba
except ImportError as error:  # libblade not found
    print(f"gnuradio.blade.array cannot be imported ({error}): skipped")
    sys.exit(77)

if torch is not None and not torch.cuda.is_available():
    torch = None
if cupy is not None:
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        cupy = None
if not ba.has_cuda() or ba.gpu_count() == 0 or (cupy is None and torch is None):
    print(
        f"needs libblade with CUDA ({ba.has_cuda()}), a GPU ({ba.gpu_count()}) and CuPy ({cupy is not None}) "
        f"or PyTorch ({torch is not None}): skipped"
    )
    sys.exit(77)


def random_complex(rng, shape, scale=1.0):
    return (scale * (rng.normal(size=shape) + 1j * rng.normal(size=shape))).astype(numpy.complex64)


def relative_error(got, expected):
    rms = numpy.sqrt(numpy.mean(numpy.abs(expected) ** 2)) or 1.0
    error = numpy.abs(got - expected)
    return math.inf if numpy.isnan(error).any() else float(error.max()) / rms


class GpuArrayTests:
    """The suite, for one array library (the subclasses say which)."""

    def setUp(self):
        self.rng = numpy.random.default_rng(20261201)

    def tearDown(self):
        self.sync()

    def assert_no_transfers(self):
        self.sync()
        stats = ba.copy_stats()
        self.assertEqual(stats["host_to_device"][0] + stats["device_to_host"][0], 0, f"transfers made: {stats}")

    def planned(self, call):
        """call() once (making a plan may upload its tables: counted transfers), then
        zero the transfer counters and call again: the call proper."""
        call()
        self.sync()
        ba.copy_stats(reset=True)
        return call()

    def check_kind(self, result, like):
        self.assertIsInstance(result, type(like))
        self.assertEqual(self.device_of(result), self.device_of(like))

    # --- each module against the references, no transfers ------------------------

    def test_cast_is_bit_exact_and_in_place(self):
        x = self.rng.integers(-128, 128, (3, 5, 64, 2, 2), dtype=numpy.int8)
        gx = self.to_gpu(x)
        out = self.empty((3, 5, 64, 2), numpy.complex64)
        address = self.ptr(out)
        got, ci4 = self.planned(lambda: (ba.cast(gx, "cf32", out=out), ba.cast(gx, "ci4")))
        self.assert_no_transfers()
        self.assertIs(got, out)
        self.assertEqual(self.ptr(got), address)
        self.check_kind(ci4, gx)
        numpy.testing.assert_array_equal(self.to_host(got), ba.cast(x, "cf32"))
        numpy.testing.assert_array_equal(self.to_host(ci4), ba.cast(x, "ci4"))

    def test_channelizer_and_pfb(self):
        for rate, taps in ((8, 1), (64, 1), (5, 1), (16, 4)):
            shape = [2, 3, 4 * rate, 2]
            chunks = random_complex(self.rng, (3, *shape), 3.0)
            expected = channelizer_reference.channelize(chunks, rate, taps, "hamming")
            plan = ba.Channelizer(rate, taps, "hamming", shape=shape, device=self.device())
            gpu_chunks = [self.to_gpu(c) for c in chunks]
            self.sync()
            ba.copy_stats(reset=True)
            got = [plan(c) for c in gpu_chunks]
            self.assert_no_transfers()
            self.check_kind(got[0], gpu_chunks[0])
            for i in range(3):
                tolerance = 1e-6 * max(1.0, math.log2(rate)) * (2 if taps > 1 else 1)
                self.assertLess(relative_error(self.to_host(got[i]), expected[i]), tolerance, f"N={rate} M={taps}")

    def test_detector(self):
        for mode in ("I", "XXYY", "cross", "IQUV"):
            x = random_complex(self.rng, (3, 4, 32, 2), 10.0)
            gx = self.to_gpu(x)
            got = self.planned(lambda: ba.detect(gx, mode, 8))
            self.assert_no_transfers()
            expected, scale = detector_reference.detect(x[None], mode, 8)
            self.assertTrue(numpy.all(numpy.abs(self.to_host(got) - expected[0]) <= 1e-5 * scale[0][..., None]), mode)
        plan = ba.Detector("IQUV", 64, shape=(3, 4, 32, 2), device=self.device())
        chunks = random_complex(self.rng, (2, 3, 4, 32, 2))
        gpu_chunks = [self.to_gpu(c) for c in chunks]
        self.sync()
        ba.copy_stats(reset=True)
        outputs = [plan(c) for c in gpu_chunks]
        self.assert_no_transfers()
        self.assertIsNone(outputs[0])
        expected, scale = detector_reference.detect(chunks, "IQUV", 64)
        got = self.to_host(outputs[1])
        self.assertTrue(numpy.all(numpy.abs(got - expected[0]) <= 1e-5 * scale[0][..., None]))

    def test_beamformer_fp32(self):
        for a, f, t, p, b in ((5, 3, 64, 2, 4), (40, 2, 128, 2, 33), (1, 1, 1, 1, 1)):
            x = random_complex(self.rng, (a, f, t, p), 5.0)
            w = random_complex(self.rng, (b, a, f, 1, p))
            gx, gw = self.to_gpu(x), self.to_gpu(w)
            got = self.planned(lambda: ba.beamform(gx, gw, incoherent=True, path="fp32"))
            self.assert_no_transfers()
            got = self.to_host(got)
            x128, w128 = x.astype(numpy.complex128), w[:, :, :, 0].astype(numpy.complex128)
            beams = numpy.einsum("aftp,bafp->bftp", x128, w128)
            power = numpy.einsum("aftp,afp->ftp", abs(x128) ** 2, abs(w128[0]) ** 2)
            scale = numpy.einsum("aftp,bafp->bftp", abs(x128), abs(w128))
            self.assertLess(numpy.max(abs(got[:b] - beams) / scale), 1e-5)
            numpy.testing.assert_allclose(got[b].real, power, rtol=1e-5)

    def test_polarizer_permute_gather_duplicate(self):
        x = random_complex(self.rng, (2, 3, 8, 2), 10.0)
        gx = self.to_gpu(x)
        results = self.planned(
            lambda: (ba.polarize(gx), ba.permute(gx, (0, 2, 3, 1)), ba.gather([gx, gx], 2), ba.duplicate(gx, 2))
        )
        self.assert_no_transfers()
        circular, permuted, gathered, copies = results
        numpy.testing.assert_array_equal(self.to_host(circular), ba.polarize(x))
        numpy.testing.assert_array_equal(self.to_host(permuted), numpy.transpose(x, (0, 2, 3, 1)))
        numpy.testing.assert_array_equal(self.to_host(gathered), numpy.concatenate([x, x], 2))
        for c in copies:
            self.check_kind(c, gx)
            numpy.testing.assert_array_equal(self.to_host(c), x)
        self.assertIs(ba.polarize(gx, out=gx), gx)  # in place
        numpy.testing.assert_array_equal(self.to_host(gx), ba.polarize(x))

    def test_correlator_fp32(self):
        x = random_complex(self.rng, (4, 6, 16, 2), 2.0)
        gx = self.to_gpu(x)
        got = self.planned(lambda: ba.correlate(gx, 8, 2))
        self.assert_no_transfers()
        got = self.to_host(got)
        expected = correlator_reference.correlate(x[None], 8, 2)[0]
        scale = correlator_reference.scale(x[None], 8, 2)[0]
        self.assertTrue(numpy.all(abs(got - expected) <= 1e-5 * scale))

    def test_dedoppler_plane_equals_the_cpu(self):
        data = self.rng.normal(100.0, 1.0, (2, 16, 512)).astype(numpy.float32)
        cpu = ba.Dedoppler(2.79, 18.25, 256, max_drift=0.3, snr_threshold=6.0)
        gpu = ba.Dedoppler(2.79, 18.25, 256, max_drift=0.3, snr_threshold=6.0)
        plane = gpu.integrate(self.to_gpu(data))
        self.check_kind(plane, self.to_gpu(data))
        numpy.testing.assert_array_equal(self.to_host(plane), cpu.integrate(data))
        numpy.testing.assert_array_equal(gpu.search(self.to_gpu(data)), cpu.search(data))

    def test_phasors_go_to_the_gpu_array(self):
        times, delays = numpy.array([0.0, 10.0]), self.rng.uniform(-1e-7, 1e-7, (2, 3, 4))
        plan = ba.Phasors(freq_first=1e9, chan_bw=1e6, nchan=5, delay_table=(times, delays), device=self.device())
        like = self.to_gpu(numpy.zeros(1, numpy.complex64))
        got = plan(4.0, like=like)
        self.check_kind(got, like)
        host = ba.Phasors(freq_first=1e9, chan_bw=1e6, nchan=5, delay_table=(times, delays))
        numpy.testing.assert_array_equal(self.to_host(got), host(4.0))

    # --- streams ------------------------------------------------------------------

    def test_work_runs_on_the_callers_stream(self):
        # x is made by the library on a non-blocking stream and channelized at once:
        # on any other stream the channelizer could read x before it is written
        x = random_complex(self.rng, (4, 64, 4096, 2))
        expected = ba.channelize(x * 2, 64)
        gx = self.to_gpu(x)
        for _ in range(2):
            with self.stream_context() as stream:
                doubled = gx * 2
                got = ba.channelize(doubled, 64)
            self.sync_stream(stream)
            self.assertLess(relative_error(self.to_host(got), expected), 1e-5)
            stream = self.new_stream()
            doubled = gx * 2
            self.sync()
            got = ba.channelize(doubled, 64, stream=stream)
            self.sync_stream(stream)
            self.assertLess(relative_error(self.to_host(got), expected), 1e-5)

    def test_cached_calls_check_every_array(self):
        # repeated calls: the function finds its plan by one lookup of its arguments
        # with the array's shape, type and device, the object has its plan; both read
        # the array by the library's fast reader, and still check each array
        from gnuradio.blade.array import _arrays

        x = random_complex(self.rng, (2, 3, 16, 2))
        gx = self.to_gpu(x)
        self.assertIn(type(_arrays.FAMILIES[type(gx)]).__name__, ("CupyFamily", "TorchFamily"))
        expected = ba.channelize(x, 4)
        plan = ba.Channelizer(4)
        wide = self.to_gpu(random_complex(self.rng, (2, 3, 32, 2)))
        for name, call in (("function", lambda a, **k: ba.channelize(a, 4, **k)), ("object", plan)):
            with self.subTest(call=name):
                for _ in range(3):
                    got = call(gx)
                    self.check_kind(got, gx)
                    self.assertLess(relative_error(self.to_host(got), expected), 1e-5)
                out = self.empty((2, 12, 4, 2), numpy.complex64)
                self.assertIs(self.planned(lambda: call(gx, out=out)), out)
                self.assert_no_transfers()
                self.assertLess(relative_error(self.to_host(out), expected), 1e-5)
                with self.assertRaisesRegex(ValueError, "C-contiguous"):
                    call(wide[:, :, ::2])
                with self.assertRaisesRegex(ValueError, "output is on cpu, the plan on cuda"):
                    call(gx, out=numpy.empty((2, 12, 4, 2), numpy.complex64))
                with self.assertRaisesRegex(ValueError, r"output must be complex64 of shape \(2, 12, 4, 2\)"):
                    call(gx, out=self.empty((2, 12, 4, 1), numpy.complex64))
        y = random_complex(self.rng, (1, 2, 8, 2))
        self.assertLess(relative_error(self.to_host(ba.channelize(self.to_gpu(y), 4)), ba.channelize(y, 4)), 1e-5)
        with self.assertRaisesRegex(ValueError, r"shape \(2, 3, 16, 2\)"):
            plan(self.to_gpu(y))
        with self.assertRaisesRegex(ValueError, "is on cpu, the plan on cuda"):
            plan(x)

    def test_the_current_stream_is_the_librarys(self):
        # the fast reader's current stream (asked on every call) is the library's own
        from gnuradio.blade.array import _arrays

        family = _arrays.FAMILIES[type(self.to_gpu(numpy.zeros(2, numpy.complex64)))]
        self.assertEqual(family.current_stream(0), _arrays.given_stream(self.current_stream()))
        with self.stream_context() as stream:
            self.assertEqual(family.current_stream(0), _arrays.given_stream(stream))
            self.assertNotEqual(family.current_stream(0), 0)

    # --- other array kinds ----------------------------------------------------------

    def test_plan_device_and_errors(self):
        x = random_complex(self.rng, (2, 3, 16, 2))
        plan = ba.Channelizer(4)
        plan(self.to_gpu(x))
        self.assertEqual(plan.device, f"cuda:{self.device_of(self.to_gpu(x))}")
        with self.assertRaisesRegex(ValueError, "is on cpu, the plan on cuda"):
            plan(x)
        with self.assertRaisesRegex(ValueError, "is on cuda"):
            ba.beamform(x, self.to_gpu(numpy.ones((1, 2, 3, 1, 2), numpy.complex64)))

    def test_zz_views_inside_a_buffer(self):
        # last (alphabetically): a kernel fault here would spoil the tests after it
        flat = random_complex(self.rng, (2 * 3 * 16 * 2 + 1,), 3.0)
        x = numpy.ascontiguousarray(flat[1:].reshape(2, 3, 16, 2))
        gx = self.to_gpu(flat)[1:].reshape(2, 3, 16, 2)  # 8 bytes past a 256-byte boundary
        for name, call in (
            ("cast", lambda a: ba.cast(a, "ci16")),
            ("polarizer", ba.polarize),
            ("channelizer", lambda a: ba.channelize(a, 4)),
            ("duplicate", lambda a: ba.duplicate(a, 2)[1]),
            ("gather", lambda a: ba.gather([a, a], 2)),
            (
                "beamformer",
                lambda a: ba.beamform(
                    a,
                    numpy.ones((1, 2), numpy.complex64) if a is x else self.to_gpu(numpy.ones((1, 2), numpy.complex64)),
                ),
            ),
        ):
            with self.subTest(module=name):
                got = call(gx)
                self.sync()
                numpy.testing.assert_array_equal(self.to_host(got), call(x))
        with self.assertRaisesRegex(ValueError, "aligned"):
            ba.detect(gx, "I")


class CupyTests(GpuArrayTests, unittest.TestCase):
    def setUp(self):
        if cupy is None:
            self.skipTest("no CuPy")
        super().setUp()

    def to_gpu(self, a):
        return cupy.asarray(a)

    def to_host(self, a):
        return cupy.asnumpy(a)

    def empty(self, shape, dtype):
        return cupy.empty(shape, dtype)

    def ptr(self, a):
        return a.data.ptr

    def device_of(self, a):
        return a.device.id

    def device(self):
        return "cuda:0"

    def sync(self):
        cupy.cuda.Device().synchronize()

    def current_stream(self):
        return cupy.cuda.get_current_stream()

    def new_stream(self):
        return cupy.cuda.Stream(non_blocking=True)

    def stream_context(self):
        return self.new_stream()

    def sync_stream(self, stream):
        stream.synchronize()

    def test_dlpack_and_interface_wrappers(self):
        x = random_complex(self.rng, (2, 3, 16, 2))
        gx = cupy.asarray(x)

        class DLPackOnly:
            def __dlpack__(self, stream=None):
                return gx.__dlpack__()

            def __dlpack_device__(self):
                return gx.__dlpack_device__()

        class InterfaceOnly:
            __cuda_array_interface__ = gx.__cuda_array_interface__

        expected = ba.channelize(x, 4)
        for wrapper in (DLPackOnly(), InterfaceOnly()):
            got = self.planned(lambda: ba.channelize(wrapper, 4))
            self.assert_no_transfers()
            self.assertIsInstance(got, cupy.ndarray)
            self.assertLess(relative_error(cupy.asnumpy(got), expected), 1e-5)

    def test_jax_arrays_when_present(self):
        jax = _optional("jax")
        if jax is None or not any(d.platform == "gpu" for d in jax.devices()):
            self.skipTest("no JAX on a GPU")
        x = random_complex(self.rng, (2, 3, 16, 2))
        for _ in range(2):  # the second call: the same plan, found by its key
            got = ba.channelize(jax.device_put(x, jax.devices("gpu")[0]), 4)
            self.assertLess(relative_error(cupy.asnumpy(got), ba.channelize(x, 4)), 1e-5)


class TorchTests(GpuArrayTests, unittest.TestCase):
    def setUp(self):
        if torch is None:
            self.skipTest("no PyTorch with CUDA")
        super().setUp()

    def to_gpu(self, a):
        return torch.from_numpy(numpy.ascontiguousarray(a)).cuda()

    def to_host(self, a):
        return a.cpu().numpy()

    def empty(self, shape, dtype):
        return torch.empty(shape, dtype={numpy.complex64: torch.complex64}[dtype], device="cuda")

    def ptr(self, a):
        return a.data_ptr()

    def device_of(self, a):
        return a.device.index

    def device(self):
        return "cuda:0"

    def sync(self):
        torch.cuda.synchronize()

    def current_stream(self):
        return torch.cuda.current_stream()

    def new_stream(self):
        return torch.cuda.Stream()

    def stream_context(self):
        class Context:
            def __enter__(context):
                context.stream = torch.cuda.Stream()
                context.inner = torch.cuda.stream(context.stream)
                context.inner.__enter__()
                return context.stream

            def __exit__(context, *exc):
                context.inner.__exit__(*exc)

        return Context()

    def sync_stream(self, stream):
        stream.synchronize()

    def test_torch_cpu_tensors_run_on_the_cpu(self):
        x = random_complex(self.rng, (2, 3, 16, 2))
        for _ in range(2):  # the second call: the cached plan, the fast reader
            got = ba.channelize(torch.from_numpy(x), 4)
            self.assertIsInstance(got, torch.Tensor)
            self.assertEqual(got.device.type, "cpu")
            numpy.testing.assert_array_equal(got.numpy(), ba.channelize(x, 4))


if __name__ == "__main__":
    unittest.main()
