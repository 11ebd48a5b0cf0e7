#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade.dedoppler and blade.hits_sink in a flowgraph: two beams of detector-shaped
chunks [B, F, Tc, 1] (Tc = 4 spectra per chunk, windows of 16 spectra, so every
window gathers 4 chunks) carrying the injected tones of qa_search (beam 1 with the
band's tones in other places) give, per window and beam, exactly the hits of
dedoppler_search run on the same spectrogram (no flowgraph), and the sink's .dat
tables hold them; the leftover spectra of an incomplete window are not searched.
"""

import os

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing
from gnuradio.blade.formats import hits as hit_tables
from qa_search import FCH1_MHZ, FOFF_HZ, NFPC, SPECTRA, TONES, TSAMP_S, injected

CHUNK_SPECTRA = 4


def options():
    o = blade.dedoppler_options()
    o.foff_hz, o.tsamp_s, o.nfpc = FOFF_HZ, TSAMP_S, NFPC
    o.normalization, o.blank_dc = "turbo_seti", True
    return o


class qa_dedoppler_block(blade_testing.FileTestCase, gr_unittest.TestCase):
    def test_windows_of_chunks_give_the_direct_search_hits(self):
        beams = [injected(), injected(seed=5, tones=[(c, i + 200, -r, a) for c, i, r, a in TONES])]
        windows = [numpy.stack(beams), numpy.stack([injected(seed=8, tones=TONES[:3])] * 2)]
        spectrogram = numpy.concatenate(windows, axis=1)  # [B, 2 T, F]
        spectrogram = numpy.concatenate([spectrogram, spectrogram[:, :CHUNK_SPECTRA]], axis=1)  # + a partial window
        B, T, F = spectrogram.shape
        chunks = spectrogram.reshape(B, T // CHUNK_SPECTRA, CHUNK_SPECTRA, F).transpose(1, 0, 3, 2)[..., None]
        shape = [B, F, CHUNK_SPECTRA, 1]
        items = blade.pack(numpy.ascontiguousarray(chunks), "f32")

        search = blade.dedoppler(
            shape, SPECTRA, FOFF_HZ, TSAMP_S, NFPC, fch1_mhz=FCH1_MHZ, tstart_mjd=60000.0, device="cpu"
        )
        sink = blade.hits_sink(
            self.path("flow"),
            FOFF_HZ,
            TSAMP_S,
            NFPC,
            SPECTRA,
            fch1_mhz=FCH1_MHZ,
            tstart_mjd=60000.0,
            window=search.window(),
            padded_spectra=search.padded_spectra(),
        )
        debug = blocks.message_debug()
        tb = gr.top_block()
        source = blocks.vector_source_b(items.tolist(), False, blade.item_size(shape, "f32"))
        tb.connect(source, search)
        tb.msg_connect(search, "hits", sink, "hits")
        tb.msg_connect(search, "hits", debug, "store")
        tb.run()
        tb.wait()

        direct = blade.dedoppler_search(B, SPECTRA, F, options(), "cpu")
        messages = [pmt.to_python(debug.get_message(i)) for i in range(debug.num_messages())]
        self.assertEqual(search.windows(), 2)
        for w, window in enumerate(windows):
            expected = direct.search(window)
            got = [m for m in messages if m.get("window") == w and "beam" in m]
            self.assertEqual(len(got), len(expected))
            self.assertGreaterEqual(len(expected), 6)
            for message, hit in zip(got, expected):
                self.assertEqual(message["beam"], hit.beam)
                self.assertEqual(message["channel"], hit.channel)
                self.assertEqual(message["drift_index"], hit.drift_index)
                self.assertEqual(message["snr"], hit.snr)
                self.assertAlmostEqual(message["frequency"], FCH1_MHZ + hit.channel * FOFF_HZ * 1e-6, places=9)
                self.assertAlmostEqual(message["window_mjd"], 60000.0 + w * SPECTRA * TSAMP_S / 86400, places=9)
            done = [m for m in messages if m.get("window_done") == w]
            self.assertEqual(done[0]["hits"], len(expected))
            for beam in range(B):
                _, rows = hit_tables.read_dat(self.path(f"flow.beam{beam:04d}.w{w:04d}.dat"))
                mine = [h for h in expected if h.beam == beam]
                self.assertEqual([r.index for r in rows], [h.channel_in_coarse for h in mine])
                self.assertEqual([r.coarse_channel for r in rows], [h.coarse_channel for h in mine])
        self.assertFalse(os.path.exists(self.path("flow.beam0000.w0002.dat")))
        self.assertEqual(sink.hits(), search.hits())
        # Without them, the sink computes the block's grid itself (GRC gives none)
        alone = blade.hits_sink(self.path("alone"), FOFF_HZ, TSAMP_S, NFPC, SPECTRA)
        self.assertEqual((alone.window, alone.padded_spectra), (search.window(), search.padded_spectra()))
        odd = blade.dedoppler(shape, 12, FOFF_HZ, TSAMP_S, NFPC, max_drift=2.5, device="cpu")
        alone = blade.hits_sink(self.path("odd"), FOFF_HZ, TSAMP_S, NFPC, 12, max_drift=2.5)
        self.assertEqual((alone.window, alone.padded_spectra), (odd.window(), odd.padded_spectra()))
        mode = os.stat(self.path("flow.beam0000.w0000.dat")).st_mode & 0o777
        umask = os.umask(0)
        os.umask(umask)
        self.assertEqual(mode, 0o666 & ~umask)

    def test_search_on_an_emulated_device_uploads_and_finds_the_cpu_hits(self):
        # "emulated" takes dedoppler_search's device path (device memory, an upload
        # per search) without a GPU; the hits must be the CPU's, bit for bit.
        data = injected()
        found = {}
        for device in ("cpu", "emulated"):
            plan = blade.dedoppler_search(1, SPECTRA, data.shape[1], options(), device)
            self.assertEqual(plan.device(), device)
            found[device] = [(h.channel, h.drift_index, h.snr, h.path_sum) for h in plan.search(data)]
            found[device + " again"] = [(h.channel, h.drift_index, h.snr, h.path_sum) for h in plan.search(data)]
        self.assertEqual(len(found["cpu"]), len(TONES))
        self.assertEqual(found["cpu"], found["emulated"])
        self.assertEqual(found["emulated"], found["emulated again"])
        with self.assertRaisesRegex(ValueError, "expected B·T·F = 262144"):
            plan.search(data[:8])

    def test_bad_parameters(self):
        with self.assertRaisesRegex(ValueError, "shape must be"):
            blade.dedoppler([4, 16], 16, FOFF_HZ, TSAMP_S, NFPC)
        with self.assertRaisesRegex(ValueError, "nfpc"):
            blade.dedoppler([1, 1000, 4, 1], 16, FOFF_HZ, TSAMP_S, 3000, device="cpu")
        with self.assertRaisesRegex(ValueError, "normalization"):
            blade.dedoppler([1, 1024, 4, 1], 16, FOFF_HZ, TSAMP_S, 1024, normalization="x", device="cpu")


if __name__ == "__main__":
    gr_unittest.run(qa_dedoppler_block)
