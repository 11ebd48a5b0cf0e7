#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Beamform and search: blade-cli mode-b --search (blade.search_sink after Mode B) and
the blade.mode_bs bundle, on a synthetic recording whose tone comes from one beam's
direction (gnuradio.blade.synth: 8 antennas, 4 channels, channelizer x64, 16
spectra per window, 8 windows).

* The beam on the source has a hit in every window at the tone's fine channel
  (synth.tone_fine_channel) with zero drift; the beam elsewhere has none.
* The same as beamforming to filterbank files and searching those with blade-cli
  search: the same rows (frequency, drift, SNR to the printed digits) for every
  beam and window: the search on the bundle's output is the search of the files.
* blade.mode_bs in a flowgraph gives the CLI's hits; mode-h --search finds the tone in
  every antenna (a louder tone); Mode B's FBH5 files are searched with the nfpc they carry; bad
  combinations are refused.
"""

import os

import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing
from gnuradio.blade import synth
from gnuradio.blade.formats import hits as hit_tables

RATE, INTEGRATION, WINDOW = 64, 16, 16


def seconds(angle):
    """'12h34m56.78s' or '-30d15m00.5s' in seconds (of time or arc)."""
    sign = -1 if angle.startswith("-") else 1
    whole, rest = angle.lstrip("-").replace("h", "d").split("d")
    minutes, secs = rest.rstrip("s").split("m")
    return sign * (int(whole) * 3600 + int(minutes) * 60 + float(secs))


class qa_mode_bs(blade_testing.FileTestCase, gr_unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.obs = synth.SyntheticObservation(blocks=16, block_samples=8192)
        files = self.obs.write(self.dir, "obs")
        self.stem, self.recipe = files["stem"], files["recipe"]

    def mode_b(self, output, *extra):
        code, out, err = blade_testing.run_cli_main(
            "mode-b",
            "--input",
            self.stem,
            "--recipe",
            self.recipe,
            "--output",
            output,
            "--channelizer-rate",
            RATE,
            "--integration",
            INTEGRATION,
            "--device",
            "cpu",
            "--no-progress",
            *extra,
        )
        self.assertEqual(code, 0, out + err)
        return out

    def test_search_finds_the_tone_in_its_beam_as_searching_the_files_does(self):
        out = self.mode_b(self.path("bs"), "--search", "--search-window", WINDOW)
        self.assertIn("no filterbank written", out)
        self.assertIn("tone-source: 8 hits in 8 windows", out)
        self.assertIn("off-source: 0 hits in 8 windows", out)
        self.assertEqual(sorted(n for n in os.listdir(self.path("bs")) if n.endswith(".fil")), [])
        _, source = hit_tables.read_dat(self.path("bs/obs.mode_b.beam0000.dat"))
        tone = self.obs.tone_fine_channel(RATE)
        self.assertEqual([(r.coarse_channel * RATE + r.index, r.drift_rate) for r in source], [(tone, 0.0)] * 8)
        _, off = hit_tables.read_dat(self.path("bs/obs.mode_b.beam0001.dat"))
        self.assertEqual(off, [])

        self.mode_b(self.path("b"))
        for beam in range(3):
            fil = self.path(f"b/obs.mode_b.beam{beam:04d}.fil")
            code, text, err = blade_testing.run_cli_main(
                "search", fil, "--nfpc", RATE, "--window", WINDOW, "--output", self.path("s"), "--device", "cpu"
            )
            self.assertEqual(code, 0, text + err)
            separate = []
            for w in range(8):
                _, rows = hit_tables.read_dat(self.path(f"s/obs.mode_b.beam{beam:04d}.w{w:04d}.dat"))
                separate += rows
            bs_obs, together = hit_tables.read_dat(self.path(f"bs/obs.mode_b.beam{beam:04d}.dat"))

            def key(r):
                return (r.frequency, r.drift_rate, r.snr, r.index, r.coarse_channel, r.freq_start, r.freq_end)

            self.assertEqual([key(r) for r in together], [key(r) for r in separate], f"beam {beam}")
            fil_obs, _ = hit_tables.read_dat(self.path(f"s/obs.mode_b.beam{beam:04d}.w0000.dat"))
            for field in ("source", "mjd", "tsamp", "foff_hz", "obs_length"):
                self.assertEqual(getattr(bs_obs, field), getattr(fil_obs, field), field)
            # the .fil holds ddmmss.s in a double: equal to a few microarcseconds
            for field in ("ra", "dec"):
                self.assertAlmostEqual(seconds(getattr(bs_obs, field)), seconds(getattr(fil_obs, field)), places=5)

    def test_mode_h_search_and_fbh5_files_with_their_nfpc(self):
        loud = synth.SyntheticObservation(blocks=16, block_samples=8192, tone_amplitude=3.0)
        stem = loud.write(self.path("loud"), "loud")["stem"]
        code, out, err = blade_testing.run_cli_main(
            "mode-h",
            "--input",
            stem,
            "--output",
            self.path("h"),
            "--channelizer-rate",
            RATE,
            "--integration",
            INTEGRATION,
            "--device",
            "cpu",
            "--no-progress",
            "--search",
        )
        self.assertEqual(code, 0, out + err)
        self.assertIn("ant00: 8 hits in 8 windows", out)  # every antenna sees a loud tone
        _, rows = hit_tables.read_dat(self.path("h/loud.mode_h.ant0007.dat"))
        self.assertEqual({r.coarse_channel * RATE + r.index for r in rows}, {self.obs.tone_fine_channel(RATE)})
        # Mode B's FBH5 files carry nfpc: blade-cli search needs no --nfpc for them
        self.mode_b(self.path("b5"), "--format", "h5")
        h5 = self.path("b5/obs.mode_b.beam0000.h5")
        for args, folder in (((), "auto"), (("--nfpc", RATE), "given")):
            code, text, err = blade_testing.run_cli_main(
                "search", h5, "--window", WINDOW, "--output", self.path(folder), "--device", "cpu", *args
            )
            self.assertEqual(code, 0, text + err)
            self.assertIn("(4 coarse)", text)
        with open(self.path("auto/obs.mode_b.beam0000.w0003.dat")) as a, open(
            self.path("given/obs.mode_b.beam0000.w0003.dat")
        ) as b:
            self.assertEqual(a.read(), b.read())

    def test_mode_bs_bundle_in_a_flowgraph(self):
        recording = blade.Recording(self.stem)
        recipe = blade.read_bfr5(self.recipe)
        source = blade.guppi_source(self.stem, 8192, "ci8")
        options = blade.beamforming_options(
            input_type="ci8", channelizer_rate=RATE, integration=INTEGRATION, device="cpu"
        )
        shape = list(source.output_shape())
        bundle = blade.mode_bs(shape, recording.observation, recipe, options, spectra=WINDOW)
        self.assertEqual(bundle.output_shape(), [3, 4 * RATE, 8, 1])
        self.assertAlmostEqual(bundle.tsamp(), RATE * INTEGRATION * recording.tbin)
        store = blocks.message_debug()
        tb = gr.top_block()
        tb.connect((source, 0), (bundle, 0))
        tb.connect((source, 1), (bundle, 1))
        tb.msg_connect(bundle, "hits", store, "store")
        tb.run()
        messages = [pmt.to_python(store.get_message(i)) for i in range(store.num_messages())]
        hits = [m for m in messages if "beam" in m and m["beam"] == 0]
        self.assertEqual(len(hits), 8)
        self.assertEqual({m["channel"] for m in hits}, {self.obs.tone_fine_channel(RATE)})
        expected_mhz = self.obs.tone_frequency / 1e6
        for m in hits:
            self.assertLess(abs(m["frequency"] - expected_mhz), abs(self.obs.chan_bw) / RATE / 1e6)

    def test_refusals(self):
        code, out, err = blade_testing.run_cli_main(
            "mode-b",
            "--input",
            self.stem,
            "--recipe",
            self.recipe,
            "--output",
            self.path("x"),
            "--format",
            "raw",
            "--search",
            "--device",
            "cpu",
        )
        self.assertEqual(code, 1)
        self.assertIn("--search needs Mode B or Mode H power spectra", err)


if __name__ == "__main__":
    gr_unittest.run(qa_mode_bs)
