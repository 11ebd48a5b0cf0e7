#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The phasor block: one phasor chunk per chunk-time item, equal to the spec's
formula phasor = cal[SCHAN + first + c] * exp(-2 pi i delay nu_f) with channel
centres written here from formats.md (exp(+2 pi i delay nu_f) in a lower-sideband
band, CHAN_BW < 0, whose voltages are the conjugates of the sky's: reference.md);
device buffers on the emulated device; run-time updates; the BFR5 recipe modes and their checks against the recording.
Delays themselves are checked against astropy in qa_delays_astropy.py.
"""

import os
import tempfile

import numpy
import pmt
from gnuradio import gr_unittest

from gnuradio import blade

import blade_testing

# The frequency axis used throughout: 16 recorded channels of 0.5 MHz around
# 1.42 GHz, steps of 3 coarse channels from recorded channel 4, SCHAN 100,
# channelizer rate 4 (so F = 12 fine channels).
AXIS = dict(
    observation_frequency=1.42e9,
    channel_width=0.5e6,
    observation_channels=16,
    first_channel=4,
    channels=3,
    channelizer_rate=4,
    schan=100,
)
POLS = 2
JD0 = 2460400.75


def observation(
    observation_frequency, channel_width, observation_channels, first_channel, channels, channelizer_rate, schan=0
):
    """The chunks' blade.Observation for the parameters of AXIS."""
    band = blade.Observation.band(observation_frequency, channel_width, observation_channels, coarse_first=schan)
    return band.channels(first_channel, channels).channelized(channelizer_rate)


def centres(
    observation_frequency, channel_width, observation_channels, first_channel, channels, channelizer_rate, schan=0
):
    """Channel centres from formats.md: coarse centre plus (k - N//2) * width / N."""
    n = channelizer_rate
    coarse = (
        observation_frequency
        + (first_channel + numpy.arange(channels) - (observation_channels - 1) / 2) * channel_width
    )
    fine = (numpy.arange(n) - n / 2) * channel_width / n if n > 1 else numpy.zeros(1)
    return (coarse[:, None] + fine[None, :]).reshape(-1)


def expected_phasors(delays, calibration_rows, first_row, axis=AXIS):
    """[B, A, F, 1, P] from delays [B, A] and calibration [A, rows, P] (row r = absolute first_row + r)."""
    nu = centres(**axis)
    coarse_rows = axis["schan"] + axis["first_channel"] + numpy.arange(axis["channels"]) - first_row
    cal = numpy.repeat(calibration_rows[:, coarse_rows, :], axis["channelizer_rate"], axis=1)  # [A, F, P]
    sense = -1 if axis["channel_width"] > 0 else 1  # a lower sideband turns the other way
    turns = numpy.exp(sense * 2j * numpy.pi * delays[:, :, None] * nu[None, None, :])  # [B, A, F]
    return (cal[None, :, :, :] * turns[:, :, :, None])[:, :, :, None, :]


def run_phasor(block, times, extra=()):
    """Run chunk-time items (dicts) through `block` (and `extra` blocks after it)."""
    shape = block.output_shape()
    ((data, _),) = blade_testing.run_graph_chain(
        block, extra, blade_testing.chunk_time_items(times), 64, block.output_item_size()
    )
    return blade.unpack(data, shape, "cf32")


class qa_phasor(gr_unittest.TestCase):
    def setUp(self):
        blade.clear_failures()
        self.array = blade_testing.ata_like_array(antennas=5)
        self.boresight = (self.array["ra"], self.array["dec"])
        self.beams = numpy.array(
            [
                self.boresight,
                (self.boresight[0] + 0.01, self.boresight[1] - 0.005),
                (self.boresight[0] - 0.02, self.boresight[1] + 0.01),
            ]
        )
        rng = numpy.random.default_rng(3)
        self.cal_first = 90  # calibration rows for absolute channels 90 .. 129
        self.cal = (rng.normal(size=(5, 40, POLS)) + 1j * rng.normal(size=(5, 40, POLS))).astype(numpy.complex64)
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def geometry(self, beams=None, **changes):
        fields = dict(
            reference=list(self.array["reference"]),
            antenna_positions=self.array["positions"].tolist(),
            boresight=list(self.boresight),
            beams=numpy.asarray(self.beams if beams is None else beams).tolist(),
            reference_antenna=1,
        )
        fields.update(changes)
        return blade.array_geometry(**fields)

    def options(self, **changes):
        fields = dict(polarizations=POLS, calibration=self.cal, calibration_first_channel=self.cal_first, device="cpu")
        fields.update(changes)
        return blade.phasor_options(**fields)

    def geometry_block(self, device="cpu", beams=None, axis=AXIS):
        return blade.phasor(observation(**axis), self.geometry(beams), self.options(device=device))

    def delays_at(self, jd, dut1, beams=None):
        return blade.compute_delays(self.geometry(beams), jd, dut1)

    def test_compute_phasors_is_the_block_without_a_flowgraph(self):
        out = run_phasor(self.geometry_block(), [dict(jd_mid=JD0, dut1=0.1)])
        direct = blade.compute_phasors(observation(**AXIS), self.geometry(), JD0, 0.1, self.options())
        numpy.testing.assert_array_equal(out[0], direct)

    # --- geometry mode ---------------------------------------------------------

    def test_one_phasor_chunk_per_chunk_time_at_that_time(self):
        block = self.geometry_block()
        self.assertEqual(block.output_shape(), [3, 5, 12, 1, POLS])
        times = [dict(jd_mid=JD0 + i / 72.0, dut1=0.1 * i, step=i) for i in range(3)]  # 20 min apart
        out = run_phasor(block, times)
        self.assertEqual(out.shape, (3, 3, 5, 12, 1, POLS))
        for i, time in enumerate(times):
            expected = expected_phasors(
                self.delays_at(time["jd_mid"], time["dut1"]), self.cal.astype(complex), self.cal_first
            )
            numpy.testing.assert_allclose(out[i], expected, rtol=0, atol=3e-6)
        # Chunks differ (the sky moved), the boresight beam is the calibration.
        self.assertGreater(numpy.abs(out[2, 1] - out[0, 1]).max(), 0.1)
        numpy.testing.assert_allclose(
            out[1, 0, :, :, 0, :], numpy.repeat(self.cal[:, 14:17, :], 4, axis=1), rtol=0, atol=1e-6
        )
        numpy.testing.assert_array_equal(block.last_delays(), self.delays_at(times[-1]["jd_mid"], 0.2))

    def test_a_lower_sideband_turns_the_phase_the_other_way(self):
        # CHAN_BW < 0: frequencies descend with the channel index and the recorded
        # voltages are the sky's conjugates; the phasors conjugate the geometric term
        # (not the calibration, measured on the voltages as recorded).
        axis = dict(AXIS, channel_width=-0.5e6)
        block = self.geometry_block(axis=axis)
        out = run_phasor(block, [dict(jd_mid=JD0, dut1=0.0, step=0)])
        delays = self.delays_at(JD0, 0.0)
        numpy.testing.assert_allclose(
            out[0], expected_phasors(delays, self.cal.astype(complex), self.cal_first, axis), rtol=0, atol=3e-6
        )
        nu = centres(**axis)
        cal = numpy.repeat(self.cal[:, 14:17, :], 4, axis=1)
        numpy.testing.assert_allclose(
            out[0, 1, 2, :, 0, 0], cal[2, :, 0] * numpy.exp(2j * numpy.pi * delays[1, 2] * nu), rtol=0, atol=3e-6
        )

    def test_unix_time_stands_in_for_a_missing_julian_date(self):
        unix = (JD0 - 2440587.5) * 86400.0
        with_jd = run_phasor(self.geometry_block(), [dict(jd_mid=JD0, dut1=0.2)])
        with_unix = run_phasor(self.geometry_block(), [dict(unix_mid=unix, dut1=0.2)])
        numpy.testing.assert_allclose(with_unix, with_jd, rtol=0, atol=1e-6)

    def test_emulated_device_uploads_each_chunk_once(self):
        times = [dict(jd_mid=JD0 + i / 100.0) for i in range(4)]
        reference = run_phasor(self.geometry_block("cpu"), times)
        block = self.geometry_block("emulated")
        self.assertEqual(block.device(), "emulated")
        blade.reset_copy_stats()
        out = run_phasor(block, times)
        stats = blade.copy_stats()
        numpy.testing.assert_array_equal(out, reference)
        self.assertEqual(stats["host_to_device"], 4)  # the block's own upload
        self.assertEqual(stats["device_to_host"], 4)  # the buffer's download to the host sink
        # Into a GPU-style consumer: device memory passes on without more copies.
        block = self.geometry_block("emulated")
        shape = block.output_shape()
        passthrough = blade.cast(shape, "cf32", "cf32", "emulated")
        blade.reset_copy_stats()
        out = run_phasor(block, times, extra=[passthrough])
        stats = blade.copy_stats()
        numpy.testing.assert_array_equal(out, reference)
        self.assertEqual((stats["host_to_device"], stats["device_to_host"]), (4, 4))
        self.assertEqual(blade.failures(), [])

    # --- run-time updates ------------------------------------------------------

    def test_update_message_sets_beams_boresight_and_calibration(self):
        block = self.geometry_block()
        new_beams = self.beams + [[0.003, -0.002]]
        new_cal = numpy.full((5, 3, POLS), 0.5 - 0.25j)
        message = pmt.make_dict()
        message = pmt.dict_add(message, pmt.intern("beams"), pmt.init_f64vector(6, new_beams.reshape(-1).tolist()))
        message = pmt.dict_add(
            message, pmt.intern("calibration"), pmt.init_c64vector(new_cal.size, new_cal.reshape(-1).tolist())
        )
        message = pmt.dict_add(message, pmt.intern("calibration_first_channel"), pmt.from_long(104))
        block._post(pmt.intern("update"), message)  # handled before the first chunk
        out = run_phasor(block, [dict(jd_mid=JD0)])
        expected = expected_phasors(self.delays_at(JD0, 0.0, new_beams), new_cal, 104)
        numpy.testing.assert_allclose(out[0], expected, rtol=0, atol=3e-6)

    def test_bad_updates_leave_the_phasors_unchanged(self):
        block = self.geometry_block()
        for key, value in [
            ("beams", pmt.init_f64vector(2, [1.0, 0.5])),  # one beam for three
            ("calibration", pmt.init_c64vector(3, [1, 2, 3])),  # not [A, rows, P]
            ("boresight", pmt.init_f64vector(2, [numpy.nan, 0.1])),
        ]:
            block._post(pmt.intern("update"), pmt.dict_add(pmt.make_dict(), pmt.intern(key), value))
        block._post(pmt.intern("update"), pmt.intern("not a dict"))
        out = run_phasor(block, [dict(jd_mid=JD0)])
        expected = expected_phasors(self.delays_at(JD0, 0.0), self.cal.astype(complex), self.cal_first)
        numpy.testing.assert_allclose(out[0], expected, rtol=0, atol=3e-6)
        with self.assertRaisesRegex(ValueError, "1 beam directions given, the plan has 3"):
            block.set_beams([[1.0, 0.5]])
        with self.assertRaisesRegex(ValueError, "covers absolute channels 0..1 but the chunks need 104..106"):
            block.set_calibration(numpy.ones((5, 2, POLS)), 0)
        block.set_calibration(None)  # all ones
        block.set_boresight(list(self.beams[2]))
        out = run_phasor(block, [dict(jd_mid=JD0)])
        numpy.testing.assert_allclose(out[0, 2, :, :, 0, :], numpy.ones((5, 12, POLS)), rtol=0, atol=1e-6)

    # --- recipes -----------------------------------------------------------------

    def write_recipe(self, name="recipe.bfr5", frame="ecef", **extra):
        path = os.path.join(self.tmp.name, name)
        positions = {
            "ecef": self.array["positions"],
            "xyz": self.array["positions"] - blade_testing.geodetic_to_ecef(*self.array["reference"]),
            "enu": self.array["enu"],
        }[frame]
        cal_all = numpy.zeros((130, POLS, 5), numpy.complex128)  # absolute channels 0 .. 129
        cal_all[self.cal_first :] = numpy.transpose(self.cal, (1, 2, 0))
        blade.write_bfr5(
            path,
            reference=self.array["reference"],
            antenna_positions=positions,
            frame=frame,
            boresight=self.boresight,
            beams=self.beams,
            cal_all=cal_all,
            **extra,
        )
        return path

    def test_recipe_geometry_matches_explicit_geometry_in_every_frame(self):
        times = [dict(jd_mid=JD0), dict(jd_mid=JD0 + 0.01)]
        explicit = run_phasor(self.geometry_block(), times)
        for frame in ("ecef", "xyz", "enu"):
            with self.subTest(frame=frame):
                # The recipe's /calinfo/refant names antenna 1, the reference of the explicit geometry.
                recipe = blade.read_bfr5(self.write_recipe(frame=frame, refant="ant001"))
                block = blade.phasor.make_from_recipe(observation(**AXIS), recipe, blade.phasor_options(device="cpu"))
                numpy.testing.assert_allclose(run_phasor(block, times), explicit, rtol=0, atol=2e-5)

    def test_a_seticore_recipe_is_calibrated_by_the_conjugate(self):
        # seticore multiplies the voltages by conj(cal_all): a recipe made for it gives
        # gr-blade's phasors from the conjugate when read with that convention.
        path = self.write_recipe(refant="ant001")
        times = [dict(jd_mid=JD0)]
        options = blade.phasor_options(device="cpu")
        blade_way = run_phasor(
            blade.phasor.make_from_recipe(observation(**AXIS), blade.read_bfr5(path), options), times
        )
        seticore = blade.read_bfr5(path, "seticore")
        self.assertEqual(seticore.calibration_convention, "seticore")
        seticore_way = run_phasor(blade.phasor.make_from_recipe(observation(**AXIS), seticore, options), times)
        delays = self.delays_at(JD0, 0.0)
        numpy.testing.assert_allclose(
            seticore_way[0],
            expected_phasors(delays, numpy.conj(self.cal).astype(complex), self.cal_first),
            rtol=0,
            atol=3e-6,
        )
        self.assertGreater(numpy.abs(seticore_way - blade_way).max(), 0.1)  # the test can see the difference
        with self.assertRaisesRegex(ValueError, "calibration_convention 'casa'"):
            blade.read_bfr5(path, "casa")

    def test_chunk_times_of_another_band_are_refused(self):
        # guppi_source tags the chunk-time stream with the recording's axis: a phasor
        # made for another recording's channels must not make beams silently.
        import pmt
        from gnuradio import blocks, gr

        block = self.geometry_block()
        items = blade_testing.chunk_time_items([dict(jd_mid=JD0)])
        for freq_first, fails in ((1.42e9 - 7.5 * 0.5e6, False), (1.43e9, True)):
            blade.clear_failures()
            tags = [
                gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.freq_first), pmt.from_double(freq_first))),
                gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.chan_bw), pmt.from_double(0.5e6))),
                gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.coarse_first), pmt.from_long(100))),
                gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.nfpc), pmt.from_long(1))),
                gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.nchan), pmt.from_long(16))),
            ]
            block = self.geometry_block()
            tb = gr.top_block()
            source = blocks.vector_source_b(numpy.asarray(items, numpy.uint8).tolist(), False, 64, tags)
            tb.connect(source, block, blocks.null_sink(block.output_item_size()))
            tb.run()
            if fails:
                self.assertRegex("\n".join(blade.failures()), "frequency axis")
            else:
                self.assertEqual(blade.failures(), [])
        blade.clear_failures()

    def test_recipe_delays_are_interpolated_to_the_chunk_time(self):
        t0 = 1.7e9
        table_times = t0 + numpy.array([0.0, 10.0, 30.0])
        rng = numpy.random.default_rng(5)
        delays_ns = rng.uniform(-50, 50, size=(3, 3, 5))
        rates = rng.uniform(-0.01, 0.01, size=(3, 3, 5))
        path = self.write_recipe(time_array=table_times, delays=delays_ns, rates=rates)
        chunk_times = t0 + numpy.array([2.5, 10.0, 22.0])
        items = [dict(unix_mid=t, jd_mid=t / 86400.0 + 2440587.5) for t in chunk_times]
        for mode in ("recipe", "recipe_rates"):
            with self.subTest(mode=mode):
                block = blade.phasor.make_from_recipe(
                    observation(**AXIS), blade.read_bfr5(path), blade.phasor_options(delays=mode, device="cpu")
                )
                out = run_phasor(block, items)
                for i, t in enumerate(chunk_times):
                    if mode == "recipe":
                        expected_ns = numpy.stack(
                            [[numpy.interp(t, table_times, delays_ns[:, b, a]) for a in range(5)] for b in range(3)]
                        )
                    else:
                        row = numpy.argmin(numpy.abs(table_times - t))
                        expected_ns = delays_ns[row] + rates[row] * (t - table_times[row])
                    expected = expected_phasors(expected_ns * 1e-9, self.cal.astype(complex), self.cal_first)
                    numpy.testing.assert_allclose(out[i], expected, rtol=0, atol=1e-5)

    def test_recipe_that_does_not_fit_the_recording_is_rejected(self):
        path = self.write_recipe()
        recipe = blade.read_bfr5(path)

        def make(axis=AXIS, **options):
            return blade.phasor.make_from_recipe(observation(**axis), recipe, blade.phasor_options(**options))

        with self.assertRaisesRegex(
            ValueError, path + ": /diminfo/npol: the recipe has 2 polarizations but the recording 1"
        ):
            make(polarizations=1)
        beyond = dict(AXIS, schan=127)
        with self.assertRaisesRegex(ValueError, path + ": /calinfo/cal_all: calibrates absolute channels 0 .. 129"):
            make(beyond)
        with self.assertRaisesRegex(ValueError, "/delayinfo/delays"):
            make(delays="recipe")
        with self.assertRaisesRegex(ValueError, "not one of geometry, recipe, recipe_rates"):
            make(delays="magic")
        with self.assertRaisesRegex(ValueError, "brings its own calibration"):
            make(calibration=self.cal)
        with self.assertRaisesRegex(RuntimeError, "cannot open"):
            blade.read_bfr5(path + ".missing")

    def test_bad_arguments_are_rejected_at_creation(self):
        axis = observation(**AXIS)

        def make(geometry=None, options=None):
            return blade.phasor(axis, geometry or self.geometry(), options or self.options())

        with self.assertRaisesRegex(ValueError, "beams: row 1 has 3 values"):
            make(
                blade.array_geometry(
                    reference=list(self.array["reference"]),
                    antenna_positions=self.array["positions"].tolist(),
                    boresight=list(self.boresight),
                    beams=[[1.0, 0.5], [1.0, 0.5, 0.1]],
                )
            )
        with self.assertRaisesRegex(ValueError, "reference must be"):
            make(self.geometry(reference=list(self.array["reference"][:2])))
        degrees = [numpy.degrees(self.array["reference"][0]), numpy.degrees(self.array["reference"][1]), 1000.0]
        with self.assertRaisesRegex(ValueError, "degrees"):
            make(self.geometry(reference=degrees))
        with self.assertRaisesRegex(ValueError, "reference antenna 5 is not one of the 5"):
            make(self.geometry(reference_antenna=5))
        with self.assertRaisesRegex(ValueError, "covers absolute channels 0..0"):
            make(options=self.options(calibration=numpy.ones((5, 1, POLS)), calibration_first_channel=0))
        with self.assertRaisesRegex(ValueError, "channels 14 .. 16 are not within the 16 channels"):
            observation(**dict(AXIS, first_channel=14))
        with self.assertRaisesRegex(ValueError, "channel"):  # an observation without a frequency axis
            blade.phasor(blade.Observation(), self.geometry(), self.options())


if __name__ == "__main__":
    gr_unittest.run(qa_phasor)
