#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade-cli mode-x end to end on the demo's generator (gnuradio.blade.synth: eight
antennas phased to 3C 286, a tone from a source 0.012 rad away, GUPPI RAW plus the
BFR5 recipe beside it), with the steering delays of the synthesis computed by
astropy (qa_delays_astropy: not our astrometry). The UVH5 file is read and checked
by pyuvdata in its own venv (tools/make-reader-venvs; the test skips without it):

* UVData.check(strict_uvw_antpos_check=True, check_autos=True) passes, with no
  warning about uvw or conjugation;
* the tone's visibilities have the geometric phases: the file holds conj(V_ij)
  (python/blade/formats/uvh5.py), so their phase is -2 pi nu (tau_i - tau_j) with
  tau from astropy at each integration's centre; closure phases on every triangle
  are zero; and after pyuvdata rephases the file to the source (its own astrometry)
  the phases are zero;
* the antennas, times (the centres of the chunks), frequencies (the fine channels
  of the channelizer) and integration time are the recording's.

Noise sets the tolerances: the tone is 3 in int8 units against noise 8 per
component; after a 64-point channelizer each 16 ms integration measures the tone's
phase to about 0.05 rad (RMS); the checks allow 0.3 rad worst and 0.12 RMS.
Also: --format npz holds the same visibilities unconjugated; the refusals.
"""

import math
import os
import shutil
import sys
import tempfile

import numpy
from gnuradio import gr_unittest

from gnuradio.blade import synth

import blade_testing
from qa_delays_astropy import astropy_delays

RATE = 64
PHASE_WORST, PHASE_RMS = 0.3, 0.12
run_cli = blade_testing.run_cli_main

READ = r"""
import json, sys, warnings
import numpy
from astropy.utils import iers
iers.conf.auto_download = False
from pyuvdata import UVData
path, ra, dec, channel = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    uv = UVData.from_file(path)
    uv.check(strict_uvw_antpos_check=True, check_autos=True, fix_autos=False)
rephased = uv.copy()
rephased.phase(ra=ra, dec=dec, cat_name="tone source")
tone = uv.data_array[:, channel, :]
print(json.dumps(dict(
    warnings=[str(w.message) for w in caught],
    names=list(uv.telescope.antenna_names), Nants=int(uv.Nants_data), Nbls=int(uv.Nbls), Ntimes=int(uv.Ntimes),
    ant1=uv.ant_1_array.tolist(), ant2=uv.ant_2_array.tolist(), times=uv.time_array.tolist(),
    freqs=uv.freq_array.reshape(-1).tolist(), widths=numpy.asarray(uv.channel_width).reshape(-1).tolist(),
    integration=uv.integration_time.tolist(), pols=uv.polarization_array.tolist(),
    tone_re=tone.real.tolist(), tone_im=tone.imag.tolist(),
    rephased=numpy.angle(rephased.data_array[:, channel, :]).tolist(),
    telescope=str(uv.telescope.name), object=str(uv.phase_center_catalog[0]["cat_name"]),
)))
"""


def astropy_steering(reference, positions, boresight, direction, jd, dut1):
    return astropy_delays(reference, positions, boresight, [direction], jd, dut1)[0]


def wrap(phase):
    return numpy.angle(numpy.exp(1j * numpy.asarray(phase)))


class qa_cli_mode_x(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="qa_cli_mode_x")
        cls.obs = synth.SyntheticObservation(
            block_samples=8192,
            blocks=8,
            tone_amplitude=3.0,
            start_unix=1748757600.25,
            dut1=0.12,
            delay_model=astropy_steering,
        )
        cls.files = cls.obs.write(cls.dir, "demo", blocks_per_file=4)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.dir, name)

    def assert_one_line_error(self, code, err, expected_code, *fragments):
        self.assertEqual(code, expected_code, err)
        lines = [line for line in err.splitlines() if line.strip() and "warning" not in line]
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^blade-cli mode-x: error: ")
        for fragment in fragments:
            self.assertIn(fragment, lines[0])

    def test_uvh5_read_by_pyuvdata_has_the_geometric_phases(self):
        obs, folder = self.obs, self.out("uvh5")
        code, out, err = run_cli(
            "mode-x", "--input", self.files["stem"], "--output", folder, "--channelizer-rate", RATE, "--no-progress"
        )
        self.assertEqual(code, 0, err + out)
        path = os.path.join(folder, "demo.mode_x.uvh5")
        self.assertIn(path, out)
        self.assertIn("8 integrations", out)
        self.assertIn("array from demo.bfr5: 8 antennas", out)
        self.assertIn("(the recipe beside the recording)", out)
        channel = obs.tone_fine_channel(RATE)
        read = blade_testing.run_in_reader_venv(
            self, "pyuvdata", READ, path, repr(obs.source[0]), repr(obs.source[1]), channel
        )
        bad = [w for w in read["warnings"] if "uvw" in w.lower() or "conjugat" in w.lower()]
        self.assertEqual(bad, [])
        A, B, T = obs.antennas, obs.antennas * (obs.antennas + 1) // 2, obs.blocks
        self.assertEqual((read["Nants"], read["Nbls"], read["Ntimes"]), (A, B, T))
        self.assertEqual(read["names"], obs.antenna_names)
        self.assertEqual((read["telescope"], read["object"]), ("ATA", "3C286"))
        self.assertEqual(read["pols"], [-5, -7, -8, -6])
        chunk = obs.block_samples * obs.tbin
        numpy.testing.assert_allclose(read["integration"], chunk, rtol=1e-12)
        centres = (obs.start_unix + (numpy.arange(T) + 0.5) * chunk) / 86400 + synth.UNIX_JD0
        numpy.testing.assert_allclose(read["times"], numpy.repeat(centres, B), rtol=0, atol=1e-9)  # 86 us
        fine = numpy.array([obs.channel_centre(c) for c in range(obs.channels)])
        want_freqs = (fine[:, None] + (numpy.arange(RATE) - RATE // 2) * obs.chan_bw / RATE).reshape(-1)
        numpy.testing.assert_allclose(read["freqs"], want_freqs, rtol=0, atol=1e-3)
        numpy.testing.assert_allclose(read["widths"], obs.chan_bw / RATE)
        self.assertAlmostEqual(read["freqs"][channel], obs.tone_frequency, delta=1e-3)

        ant1, ant2 = numpy.array(read["ant1"]), numpy.array(read["ant2"])
        tone = numpy.array(read["tone_re"]) + 1j * numpy.array(read["tone_im"])  # [Nblts, 4]
        cross = ant1 != ant2
        # geometric phases from astropy's delays at each integration's centre
        expected = numpy.empty(len(ant1))
        for k, jd in enumerate(centres):
            tau = astropy_steering(obs.reference, obs.positions_ecef, obs.boresight, obs.source, jd, obs.dut1)
            rows = slice(k * B, (k + 1) * B)
            expected[rows] = -2 * math.pi * obs.tone_frequency * (tau[ant1[rows]] - tau[ant2[rows]])
        for pol in (0, 3):  # XX, YY: the tone is in both, the same
            error = wrap(numpy.angle(tone[cross, pol]) - expected[cross])
            self.assertLess(numpy.max(numpy.abs(error)), PHASE_WORST, f"pol {pol}")
            self.assertLess(numpy.sqrt(numpy.mean(error**2)), PHASE_RMS, f"pol {pol}")
        self.assertGreater(numpy.ptp(wrap(expected[cross])), 3.0)  # the phases are not trivially small
        # closure phases on every triangle of every integration
        closures = []
        lookup = {(a, b): r for r, (a, b) in enumerate(zip(ant1[:B], ant2[:B]))}
        for k in range(T):
            v = tone[k * B : (k + 1) * B, 0]
            for i in range(A):
                for j in range(i + 1, A):
                    for m in range(j + 1, A):
                        closures.append(numpy.angle(v[lookup[i, j]] * v[lookup[j, m]] * numpy.conj(v[lookup[i, m]])))
        closures = numpy.array(closures)
        self.assertEqual(len(closures), T * 56)
        self.assertLess(numpy.max(numpy.abs(closures)), 2 * PHASE_WORST)
        self.assertLess(numpy.sqrt(numpy.mean(closures**2)), 2 * PHASE_RMS)
        # pyuvdata's own rephasing to the source brings the tone to zero phase
        rephased = numpy.array(read["rephased"])[cross][:, [0, 3]]
        self.assertLess(numpy.max(numpy.abs(rephased)), PHASE_WORST)
        self.assertLess(numpy.sqrt(numpy.mean(rephased**2)), PHASE_RMS)
        print(
            f"tone phases - astropy's geometric: RMS {numpy.sqrt(numpy.mean(error**2)):.3f} rad; "
            f"{len(closures)} closure phases RMS {numpy.sqrt(numpy.mean(closures**2)):.3f} rad; after pyuvdata "
            f"rephased: RMS {numpy.sqrt(numpy.mean(rephased**2)):.3f} rad; warnings {read['warnings']}"
        )

    def test_lower_sideband_band(self):
        """CHAN_BW < 0: the recorded voltages are the sky's conjugates; the correlator
        conjugates back (from the chunks' blade_chan_bw), so pyuvdata's rephasing to the
        source still gives zero phase; the frequencies descend."""
        obs = synth.SyntheticObservation(block_samples=8192, blocks=2, tone_amplitude=3.0, chan_bw=-0.5e6)
        files = obs.write(self.out("lsb"), "demo")
        code, out, err = run_cli(
            "mode-x", "--input", files["stem"], "--output", self.out("lsb"), "-q", "--channelizer-rate", RATE
        )
        self.assertEqual(code, 0, err)
        channel = obs.tone_fine_channel(RATE)
        path = self.out("lsb/demo.mode_x.uvh5")
        read = blade_testing.run_in_reader_venv(
            self, "pyuvdata", READ, path, repr(obs.source[0]), repr(obs.source[1]), channel
        )
        self.assertAlmostEqual(read["freqs"][channel], obs.tone_frequency, delta=1e-3)
        self.assertLess(read["freqs"][1], read["freqs"][0])
        cross = numpy.array(read["ant1"]) != numpy.array(read["ant2"])
        rephased = numpy.array(read["rephased"])[cross][:, [0, 3]]
        self.assertLess(numpy.max(numpy.abs(rephased)), PHASE_WORST)
        self.assertLess(numpy.sqrt(numpy.mean(rephased**2)), PHASE_RMS)

    def test_npz_holds_the_same_visibilities_unconjugated(self):
        from gnuradio.blade.formats import visibilities
        import h5py

        common = ["mode-x", "--input", self.files["stem"], "--recipe", self.files["recipe"], "--max-chunks", 2]
        common += ["--integration", 8192, "--channel-integration", 2, "--quiet", "--channelizer-rate", 2]
        for format in ("npz", "uvh5"):
            code, out, err = run_cli(*common, "--output", self.out(format), "--format", format)
            self.assertEqual(code, 0, err)
        dump = visibilities.read(self.out("npz/demo.mode_x.vis.npz"))
        with h5py.File(self.out("uvh5/demo.mode_x.uvh5"), "r") as f:
            uvh5 = f["Data/visdata"][()]
            uvh5 = uvh5["r"] + 1j * uvh5["i"] if uvh5.dtype.names else uvh5
        self.assertEqual(
            dump["visibilities"].shape, (1, 36, 4, 4)
        )  # 2 chunks of 4096 fine samples in one, 8 -> 4 channels
        self.assertTrue(numpy.array_equal(numpy.conj(dump["visibilities"]).reshape(36, 4, 4), uvh5))
        self.assertAlmostEqual(float(dump["integration_time"]), 2 * 8192 * self.obs.tbin)

    def test_refusals(self):
        stem = self.files["stem"]
        # no antenna positions: a recording without the recipe beside it
        lonely = self.out("lonely")
        os.makedirs(lonely, exist_ok=True)
        for path in self.files["raw"]:
            shutil.copy(path, lonely)
        code, out, err = run_cli("mode-x", "--input", os.path.join(lonely, "demo"), "--output", self.out("x"))
        self.assert_one_line_error(code, err, 1, "needs the antenna positions", "demo.bfr5", "--recipe")
        # a recipe of another array
        other = synth.SyntheticObservation(antennas=4, block_samples=64, blocks=1).write_recipe(self.out("four.bfr5"))
        code, out, err = run_cli("mode-x", "--input", stem, "--recipe", other, "--output", self.out("x"))
        self.assert_one_line_error(code, err, 1, "four.bfr5 places 4 antennas", "the recording has 8")
        # an integration that does not fit the chunk's 128 fine samples
        code, out, err = run_cli(
            "mode-x", "--input", stem, "--channelizer-rate", RATE, "--integration", 100, "--output", self.out("x")
        )
        self.assert_one_line_error(
            code, err, 1, "integration 100 does not divide", "128 fine samples x 256 fine channels"
        )
        code, out, err = run_cli("mode-x", "--input", stem, "--channel-integration", 3, "--output", self.out("x"))
        self.assert_one_line_error(code, err, 1, "channel")
        # arguments of the other modes
        for argv in (["--format", "fil"], ["--stokes", "I"], ["--precision", "fp8"]):
            code, out, err = run_cli("mode-x", "--input", stem, *argv)
            self.assertEqual(code, 2, err)
        # a writer's module missing (the GPU machine's kit has no erfa): refused before
        # any chunk is read, with the package to install and the format that needs none
        saved = sys.modules.get("erfa")
        sys.modules["erfa"] = None  # `import erfa` raises ImportError
        try:
            code, out, err = run_cli("mode-x", "--input", stem, "--output", self.out("x"))
        finally:
            if saved is None:
                del sys.modules["erfa"]
            else:
                sys.modules["erfa"] = saved
        self.assert_one_line_error(code, err, 1, "--format uvh5 needs the Python module erfa", "python3-erfa", "npz")
        self.assertFalse(os.path.exists(self.out("x/demo.mode_x.uvh5")))


if __name__ == "__main__":
    gr_unittest.run(qa_cli_mode_x)
