#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The phasor block feeding the beamformer, as in Mode B: a synthetic source in the
direction of beam 0 reaches each antenna with its steering delay (the data are phased
to the boresight); the beam pointed at it adds the antennas in phase (amplitude x A),
the others do not. On the emulated GPU the phasors pass from the phasor block to the
beamformer in device memory: the only copies are the phasor block's own upload, the
voltages' upload and the beams' download.
"""

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt

OBSFREQ, CHAN_BW, NCHAN, FIRST = 1.42e9, 0.5e6, 64, 20
A, F, T, P = 10, 6, 64, 2
JD0 = 2460400.75


class qa_phasor_beamformer(gr_unittest.TestCase):
    def test_beam_on_the_source_adds_the_antennas_in_phase(self):
        rng = numpy.random.default_rng(31)
        array = bt.ata_like_array(antennas=A)
        boresight = (array["ra"], array["dec"])
        beams = numpy.array(
            [
                (boresight[0] + 0.012, boresight[1] - 0.007),  # the source
                (boresight[0] - 0.015, boresight[1] + 0.010),
                boresight,
            ]
        )
        times = [dict(jd_mid=JD0 + 0.01 * i, dut1=0.05) for i in range(3)]
        n, B = len(times), len(beams)
        geometry = blade.array_geometry(
            reference=array["reference"], antenna_positions=array["positions"], boresight=boresight, beams=beams
        )

        # Voltages: antenna a receives s with the phase of its steering delay to the source.
        s = bt.random_complex(rng, (n, F, T, P), 10.0).astype(numpy.complex128)
        x = numpy.empty((n, A, F, T, P), numpy.complex64)
        for i, time in enumerate(times):
            delay = blade.compute_delays(geometry, time["jd_mid"], time["dut1"])[0]  # [A] seconds, beam 0
            arrival = numpy.exp(
                2j * numpy.pi * numpy.outer(delay, bt.coarse_channel_centres(OBSFREQ, CHAN_BW, NCHAN, FIRST, F))
            )  # [A, F]
            x[i] = arrival[:, :, None, None] * s[i][None]

        def phasor_block(device):
            axis = blade.Observation.band(OBSFREQ, CHAN_BW, NCHAN).channels(FIRST, F)
            return blade.phasor(axis, geometry, blade.phasor_options(polarizations=P, device=device))

        tb = gr.top_block()
        phasors = phasor_block("emulated")
        beamformer = blade.beamformer(
            [A, F, T, P], phasors.output_shape(), "cf32", "cf32", True, False, "auto", "emulated"
        )
        clock = blocks.vector_source_b(bt.chunk_time_items(times).tolist(), False, 64)
        voltages = blocks.vector_source_b(blade.pack(x, "cf32").tolist(), False, beamformer.input_item_size())
        sink = blocks.vector_sink_b(beamformer.output_item_size())
        tb.connect(clock, phasors, (beamformer, 1))
        tb.connect(voltages, (beamformer, 0))
        tb.connect(beamformer, sink)
        blade.reset_copy_stats()
        tb.run()
        stats = blade.copy_stats()
        y = blade.unpack(sink.data(), beamformer.output_shape(), "cf32")

        # Against numpy with the phasor block's own chunks (computed again on the CPU).
        ((data, _),) = bt.run_graph_chain(
            phasor_block("cpu"), [], bt.chunk_time_items(times), 64, phasors.output_item_size()
        )
        w = blade.unpack(data, phasors.output_shape(), "cf32")
        self.assertLess(bt.beamformer_error(y, x, w, incoherent=True).max(), 1e-5)

        # On the source: A times the signal (phasor precision ~1e-6); elsewhere: far less.
        numpy.testing.assert_allclose(y[:, 0], A * s, rtol=0, atol=1e-4 * A * numpy.abs(s).max())
        on_source = numpy.mean(numpy.abs(y[:, 0]) ** 2)
        for b in (1, 2):
            self.assertLess(numpy.mean(numpy.abs(y[:, b]) ** 2), 0.3 * on_source)
        # Incoherent beam: sum of |x|^2 = A |s|^2 (unit calibration).
        numpy.testing.assert_allclose(y[:, B].real, A * numpy.abs(s) ** 2, rtol=1e-5)

        # Phasors stay in (emulated) device memory between the two blocks.
        self.assertEqual((stats["host_to_device"], stats["device_to_host"], stats["device_to_device"]), (2 * n, n, 0))
        self.assertEqual(blade.failures(), [])


if __name__ == "__main__":
    gr_unittest.run(qa_phasor_beamformer)
