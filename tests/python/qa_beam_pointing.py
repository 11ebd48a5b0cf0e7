#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end: the phasor block, fed a BFR5 recipe, points beams where the recipe
says. Voltages of a synthetic source are made here from the geometry of
astrometry.md with directions from astropy (qa_delays_astropy.astropy_delays, not
our code): each antenna sees the source with its steering delay applied as a phase
at each channel centre, times its own complex gain per absolute channel, plus
independent noise. The recipe's calibration is the inverse of those gains. The
beam is y = sum_a x * w (modules.md, no conjugation), computed with numpy from the
block's phasor chunks.

Expected: the beam on the source adds the antennas' signals coherently (power x A^2)
and their noise incoherently (x A), a signal-to-noise gain of A over one antenna;
a beam pointed elsewhere gains nothing like it.
"""

import os
import tempfile

import numpy
from gnuradio import gr_unittest

from gnuradio import blade

import blade_testing
from qa_delays_astropy import astropy_delays

OBSFREQ, CHAN_BW, NCHAN = 1.42e9, 0.5e6, 64
SCHAN, FIRST, COARSE = 10, 20, 8
A, P, T = 10, 2, 512


def channel_centres():
    return OBSFREQ + (FIRST + numpy.arange(COARSE) - (NCHAN - 1) / 2) * CHAN_BW


class qa_beam_pointing(gr_unittest.TestCase):
    def test_a_beam_on_the_source_gains_A_and_one_elsewhere_does_not(self):
        rng = numpy.random.default_rng(2024)
        array = blade_testing.ata_like_array(antennas=A)
        boresight = (array["ra"], array["dec"])
        source = (boresight[0] + 0.012, boresight[1] - 0.007)
        beams = numpy.array([source, (boresight[0] - 0.015, boresight[1] + 0.01), boresight])

        # Antenna gains per absolute channel; the recipe calibrates them away.
        gains = rng.uniform(0.5, 1.5, (SCHAN + NCHAN, P, A)) * numpy.exp(
            2j * numpy.pi * rng.uniform(size=(SCHAN + NCHAN, P, A))
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "pointing.bfr5")
            blade.write_bfr5(
                path,
                reference=array["reference"],
                antenna_positions=array["enu"],
                frame="enu",
                boresight=boresight,
                beams=beams,
                cal_all=1 / gains,
            )
            axis = blade.Observation.band(OBSFREQ, CHAN_BW, NCHAN, coarse_first=SCHAN).channels(FIRST, COARSE)
            block = blade.phasor.make_from_recipe(axis, blade.read_bfr5(path), blade.phasor_options(device="cpu"))
            times = [dict(jd_mid=2460400.75 + 0.01 * i, dut1=0.05) for i in range(2)]
            ((data, _),) = blade_testing.run_graph_chain(
                block, [], blade_testing.chunk_time_items(times), 64, block.output_item_size()
            )
        phasors = blade.unpack(data, block.output_shape(), "cf32")  # [chunk, B, A, F, 1, P]

        nu = channel_centres()
        rows = SCHAN + FIRST + numpy.arange(COARSE)
        for chunk, time in enumerate(times):
            # Where the source really is, for this chunk's time.
            delay = astropy_delays(
                array["reference"], array["positions"], boresight, [source], time["jd_mid"], time["dut1"]
            )[
                0
            ]  # [A]
            s = (rng.normal(size=(COARSE, T, P)) + 1j * rng.normal(size=(COARSE, T, P))) / numpy.sqrt(2)
            g = numpy.transpose(gains[rows], (2, 0, 1))  # [A, F, P]
            # Phased to the boresight upstream: antenna a leads by its steering delay.
            arrival = numpy.exp(2j * numpy.pi * delay[:, None] * nu[None, :])  # [A, F]
            signal = g[:, :, None, :] * arrival[:, :, None, None] * s[None]  # [A, F, T, P]
            noise = (rng.normal(size=signal.shape) + 1j * rng.normal(size=signal.shape)) / numpy.sqrt(2)
            # Noise is referred to the calibrated antenna: it enters after the gains.
            noise = noise * g[:, :, None, :]

            w = phasors[chunk][:, :, :, 0, :]  # [B, A, F, P]
            beam_signal = numpy.einsum("aftp,bafp->bftp", signal, w)
            beam_noise = numpy.einsum("aftp,bafp->bftp", noise, w)
            single_signal = numpy.mean(numpy.abs(signal[0] / g[0][:, None, :]) ** 2)
            single_noise = numpy.mean(numpy.abs(noise[0] / g[0][:, None, :]) ** 2)
            snr_single = single_signal / single_noise
            snr_gain = [
                (numpy.mean(numpy.abs(beam_signal[b]) ** 2) / numpy.mean(numpy.abs(beam_noise[b]) ** 2)) / snr_single
                for b in range(len(beams))
            ]
            signal_gain = numpy.mean(numpy.abs(beam_signal[0]) ** 2) / numpy.mean(numpy.abs(s) ** 2)

            with self.subTest(chunk=chunk):
                self.assertGreater(signal_gain, 0.99 * A**2)  # coherent: every antenna in phase
                self.assertGreater(snr_gain[0], 0.85 * A)
                self.assertLess(snr_gain[0], 1.15 * A)
                self.assertLess(snr_gain[1], 0.3 * A)  # pointed elsewhere
                self.assertLess(snr_gain[2], 0.3 * A)  # the boresight is not the source either


if __name__ == "__main__":
    gr_unittest.run(qa_beam_pointing)
