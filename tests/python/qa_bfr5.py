#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
BFR5 recipes: files written with h5py (through blade.write_bfr5 and by hand) read
back exactly by the C reader, with both string kinds and both complex widths;
units and antenna frames converted; corrupted files rejected with the file and
the dataset named, and without HDF5's own error stack on stderr.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy
from gnuradio import gr_unittest

from gnuradio import blade

import blade_testing

A, P, F, B, T = 4, 2, 6, 3, 2


class qa_bfr5(gr_unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.array = blade_testing.meerkat_like_array(antennas=A)
        rng = numpy.random.default_rng(9)
        self.cal = rng.normal(size=(F, P, A)) + 1j * rng.normal(size=(F, P, A))
        self.beams = numpy.array([[1.0, -0.5], [1.01, -0.49], [0.99, -0.52]])
        self.delays = rng.uniform(-100, 100, size=(T, B, A))
        self.rates = rng.uniform(-1e-3, 1e-3, size=(T, B, A))
        self.times = numpy.array([1.7e9, 1.7e9 + 60])

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name="recipe.bfr5"):
        return os.path.join(self.tmp.name, name)

    def write(self, name="recipe.bfr5", **overrides):
        args = dict(
            reference=self.array["reference"],
            antenna_positions=self.array["positions"],
            boresight=(1.0, -0.5),
            beams=self.beams,
            cal_all=self.cal,
            frequencies=1e9 + 1e6 * numpy.arange(F),
            antenna_names=[f"m{a:03d}" for a in range(A)],
            antenna_numbers=[10, 11, 12, 13],
            antenna_diameters=[13.5] * A,
            telescope_name="MeerKAT",
            obsid="obs-1",
            instrument_name="test",
            source_names=["centre", "east", "south"],
            refant="m001",
            cal_k=numpy.ones((P, A)),
            cal_b=self.cal,
            cal_g=numpy.full((P, A), 2 - 1j),
            delays=self.delays,
            rates=self.rates,
            time_array=self.times,
            dut1=-0.125,
        )
        args.update(overrides)
        blade.write_bfr5(self.path(name), **args)
        return self.path(name)

    def assert_rejected(self, path, *fragments):
        with self.assertRaises(RuntimeError) as caught:
            blade.read_bfr5(path)
        message = str(caught.exception)
        self.assertIn(path, message)
        for fragment in fragments:
            self.assertIn(fragment, message)

    # --- reading back ------------------------------------------------------------

    def test_round_trip_with_both_string_kinds_and_complex_widths(self):
        for strings in ("variable", "fixed"):
            for complex_dtype in (numpy.complex64, numpy.complex128):
                with self.subTest(strings=strings, complex_dtype=complex_dtype):
                    path = self.write(strings=strings, complex_dtype=complex_dtype)
                    with h5py.File(path) as f:  # the writer did use the kinds asked for
                        self.assertEqual(
                            h5py.check_string_dtype(f["telinfo/antenna_names"].dtype).length is None,
                            strings == "variable",
                        )
                        stored_type = f["calinfo/cal_all"].id.get_type()  # h5py shows {r, i} as complex
                        self.assertEqual(stored_type.get_member_name(0), b"r")
                        self.assertEqual(
                            stored_type.get_member_type(0).get_size(), 4 if complex_dtype == numpy.complex64 else 8
                        )
                    r = blade.read_bfr5(path)
                    self.assertEqual((r.antennas, r.polarizations, r.channels, r.beams, r.times), (A, P, F, B, T))
                    numpy.testing.assert_array_equal(r.antenna_positions, self.array["positions"])
                    numpy.testing.assert_array_equal(r.antenna_positions_ecef, self.array["positions"])
                    self.assertEqual(r.antenna_position_frame, "ecef")
                    # Degrees in the file, radians here (to the last bit of a degree round trip).
                    self.assertAlmostEqual(r.longitude, self.array["reference"][0], delta=1e-15)
                    self.assertAlmostEqual(r.latitude, self.array["reference"][1], delta=1e-15)
                    self.assertEqual(r.altitude, self.array["reference"][2])
                    self.assertEqual(r.antenna_names, ["m000", "m001", "m002", "m003"])
                    numpy.testing.assert_array_equal(r.antenna_numbers, [10, 11, 12, 13])
                    numpy.testing.assert_array_equal(r.antenna_diameters, [13.5] * A)
                    self.assertEqual(
                        (r.telescope_name, r.obsid, r.instrument_name, r.refant), ("MeerKAT", "obs-1", "test", "m001")
                    )
                    self.assertEqual(r.boresight, [1.0, -0.5])
                    numpy.testing.assert_allclose(r.frequencies, 1e9 + 1e6 * numpy.arange(F), rtol=1e-15)
                    stored = self.cal.astype(complex_dtype).astype(numpy.complex128)
                    numpy.testing.assert_array_equal(r.cal_all, stored)
                    numpy.testing.assert_array_equal(r.cal_b, stored)
                    numpy.testing.assert_array_equal(r.cal_g, numpy.full((P, A), 2 - 1j))
                    numpy.testing.assert_array_equal(r.cal_k, numpy.ones((P, A)))
                    numpy.testing.assert_array_equal(r.beam_directions, self.beams)
                    self.assertEqual(r.source_names, ["centre", "east", "south"])
                    numpy.testing.assert_array_equal(r.delays, self.delays)
                    numpy.testing.assert_array_equal(r.rates, self.rates)
                    numpy.testing.assert_array_equal(r.time_array, self.times)
                    numpy.testing.assert_allclose(r.jds, self.times / 86400 + 2440587.5, rtol=0, atol=1e-9)
                    self.assertEqual(r.dut1, -0.125)

    def test_optional_datasets_may_be_absent(self):
        path = self.write(frequencies=None, cal_k=None, cal_b=None, cal_g=None, time_array=None)
        with h5py.File(path, "a") as f:
            for name in (
                "telinfo/antenna_names",
                "telinfo/antenna_numbers",
                "telinfo/telescope_name",
                "beaminfo/src_names",
                "calinfo/refant",
                "obsinfo/obsid",
            ):
                del f[name]
            del f["delayinfo"]
            f["diminfo/ntimes"][()] = 0
        r = blade.read_bfr5(path)
        for name in (
            "frequencies",
            "cal_k",
            "cal_b",
            "cal_g",
            "delays",
            "rates",
            "time_array",
            "jds",
            "antenna_names",
            "antenna_numbers",
            "telescope_name",
            "source_names",
            "refant",
            "obsid",
            "dut1",
        ):
            self.assertIsNone(getattr(r, name), name)
        numpy.testing.assert_array_equal(r.cal_all, self.cal)

    def test_xyz_and_enu_frames_become_ecef(self):
        origin = blade_testing.geodetic_to_ecef(*self.array["reference"])
        for frame, stored in (("xyz", self.array["positions"] - origin), ("enu", self.array["enu"])):
            with self.subTest(frame=frame):
                r = blade.read_bfr5(self.write(antenna_positions=stored, frame=frame))
                numpy.testing.assert_array_equal(r.antenna_positions, stored)
                numpy.testing.assert_allclose(r.antenna_positions_ecef, self.array["positions"], rtol=0, atol=1e-6)
        # Frame names are case-insensitive; unknown frames are not guessed.
        r = blade.read_bfr5(self.write(frame="ECEF"))
        self.assertEqual(r.antenna_position_frame, "ecef")
        self.assert_rejected(self.write(frame="galactic"), "/telinfo/antenna_position_frame", "galactic")

    def test_scalars_stored_with_shape_one_and_other_integer_widths(self):
        path = self.write()
        with h5py.File(path, "a") as f:
            del f["diminfo/nants"], f["telinfo/altitude"]
            f["diminfo/nants"] = numpy.array([A], numpy.int32)
            f["telinfo/altitude"] = numpy.array([1038], numpy.int16)  # an integer altitude still reads
        r = blade.read_bfr5(path)
        self.assertEqual((r.antennas, r.altitude), (A, 1038.0))

    # --- rejected files -----------------------------------------------------------

    def edited(self, edit, name="broken.bfr5"):
        path = self.write(name)
        with h5py.File(path, "a") as f:
            edit(f)
        return path

    def test_missing_required_dataset(self):
        for dataset in (
            "diminfo/nchan",
            "telinfo/latitude",
            "telinfo/antenna_position_frame",
            "obsinfo/phase_center_ra",
            "calinfo/cal_all",
            "beaminfo/decs",
        ):
            with self.subTest(dataset=dataset):
                path = self.edited(lambda f: f.__delitem__(dataset))
                self.assert_rejected(path, "/" + dataset, "missing")
        self.assert_rejected(self.edited(lambda f: f.__delitem__("telinfo")), "/telinfo/antenna_positions", "missing")

    def test_wrong_shape(self):
        cases = [
            ("telinfo/antenna_positions", numpy.zeros((A, 2)), "expected shape (4, 3) [nants, 3], found (4, 2)"),
            (
                "calinfo/cal_all",
                numpy.zeros((F, P, A + 1), dtype=[("r", "f4"), ("i", "f4")]),
                "expected shape (6, 2, 4) [nchan, npol, nants], found (6, 2, 5)",
            ),
            ("beaminfo/ras", numpy.zeros(B + 1), "expected shape (3,) [nbeams], found (4,)"),
            ("delayinfo/delays", numpy.zeros((T, B)), "[ntimes, nbeams, nants]"),
            ("telinfo/latitude", numpy.zeros(2), "expected shape () (a scalar)"),
            ("telinfo/antenna_names", numpy.array([b"a", b"b"]), "[nants]"),
        ]
        for dataset, value, fragment in cases:
            with self.subTest(dataset=dataset):

                def replace(f):
                    del f[dataset]
                    f[dataset] = value

                self.assert_rejected(self.edited(replace), "/" + dataset, fragment)

    def test_wrong_type(self):
        cases = [
            ("telinfo/latitude", numpy.bytes_(b"40.8"), "expected a real number"),
            ("diminfo/nants", numpy.float64(4.0), "expected an integer"),
            ("calinfo/cal_all", numpy.zeros((F, P, A)), "expected complex"),
            (
                "calinfo/cal_all",
                numpy.zeros((F, P, A), dtype=[("re", "f8"), ("im", "f8")]),
                "without float members r and i",
            ),
            (
                "calinfo/cal_all",
                numpy.zeros((F, P, A), dtype=[("r", "i4"), ("i", "i4")]),
                "without float members r and i",
            ),
            ("telinfo/antenna_position_frame", numpy.float64(1.0), "expected a string"),
        ]
        for dataset, value, fragment in cases:
            with self.subTest(dataset=dataset, value=str(value.dtype)):

                def replace(f):
                    del f[dataset]
                    f[dataset] = value

                self.assert_rejected(self.edited(replace), "/" + dataset, fragment)

    def test_bad_values(self):
        self.assert_rejected(
            self.edited(lambda f: f["diminfo/nbeams"].write_direct(numpy.array(0))),
            "/diminfo/nbeams",
            "value 0 is outside 1",
        )
        self.assert_rejected(
            self.edited(lambda f: f["telinfo/latitude"].write_direct(numpy.array(120.0))),
            "/telinfo/latitude",
            "degrees",
        )
        self.assert_rejected(
            self.edited(lambda f: f["beaminfo/decs"].write_direct(numpy.array([0, numpy.nan, 0]))),
            "/beaminfo/decs",
            "element 1 is not finite",
        )

    def test_garbage_truncated_and_missing_files(self):
        garbage = self.path("garbage.bfr5")
        with open(garbage, "wb") as f:
            f.write(numpy.random.default_rng(1).integers(0, 256, 20000, dtype=numpy.uint8).tobytes())
        self.assert_rejected(garbage, "not an HDF5 file")
        empty = self.path("empty.bfr5")
        open(empty, "wb").close()
        self.assert_rejected(empty, "not an HDF5 file")
        whole = self.write("whole.bfr5")
        data = open(whole, "rb").read()
        for fraction in (0.1, 0.5, 0.9):
            truncated = self.path(f"truncated{fraction}.bfr5")
            with open(truncated, "wb") as f:
                f.write(data[: int(len(data) * fraction)])
            with self.subTest(fraction=fraction):
                with self.assertRaises(RuntimeError) as caught:
                    blade.read_bfr5(truncated)
                self.assertIn(truncated, str(caught.exception))
        self.assert_rejected(self.path("absent.bfr5"), "cannot open")
        with self.assertRaisesRegex(RuntimeError, "is not a readable dataset"):
            blade.read_bfr5(
                self.edited(
                    lambda f: (f.__delitem__("obsinfo/phase_center_ra"), f.create_group("obsinfo/phase_center_ra"))
                )
            )

    def test_sizes_that_would_take_gigabytes_are_refused_before_reading(self):
        # A few kilobytes of HDF5 can declare chunked datasets of any size without
        # storing them: the reader used to allocate and fill whatever /diminfo and
        # the dataset shapes claimed (found by tests/fuzz/fuzz_bfr5_recipe).
        big_t, big_b = 1 << 24, 1 << 12

        def giant_delays(f):
            for name, value in (("diminfo/ntimes", big_t), ("diminfo/nbeams", big_b)):
                f[name].write_direct(numpy.array(value))
            for name in ("beaminfo/ras", "beaminfo/decs"):
                del f[name]
                f[name] = numpy.zeros(big_b)
            del f["beaminfo/src_names"]
            for name in ("delayinfo/delays", "delayinfo/rates"):
                del f[name]
                f.create_dataset(name, shape=(big_t, big_b, A), chunks=(1, 64, A), dtype="f8")
            for name in ("delayinfo/time_array", "delayinfo/jds"):
                del f[name]
            f.create_dataset("delayinfo/time_array", shape=(big_t,), chunks=(4096,), dtype="f8")

        path = self.edited(giant_delays)
        self.assertLess(os.path.getsize(path), 200_000)
        self.assert_rejected(path, "/delayinfo/delays", "larger than 1024 MiB in memory")

    def test_links_to_other_files_are_refused(self):
        # An external link makes HDF5 open any file the recipe names (a FIFO would
        # block forever): a recipe must hold its own data.
        other = self.write("other.bfr5")

        def link_out(f):
            del f["obsinfo/freq_array"]
            f["obsinfo/freq_array"] = h5py.ExternalLink(other, "/obsinfo/freq_array")

        self.assert_rejected(self.edited(link_out), "/obsinfo/freq_array", "is a link to another file")

    def test_hdf5_prints_nothing_of_its_own(self):
        path = self.edited(lambda f: f.__delitem__("calinfo/cal_all"))
        script = (
            "from gnuradio import blade\n"
            f"try:\n    blade.read_bfr5({path!r})\nexcept RuntimeError as e:\n    print('rejected:', e)\n"
        )
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ)
        self.assertIn("rejected:", result.stdout)
        self.assertIn("/calinfo/cal_all: required dataset is missing", result.stdout)
        self.assertNotIn("HDF5-DIAG", result.stderr + result.stdout)


if __name__ == "__main__":
    gr_unittest.run(qa_bfr5)
