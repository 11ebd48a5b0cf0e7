#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The dedoppler search on CUDA against the CPU, through what users touch:
dedoppler_search (the CLI's and the block's path) gives identical hits (channel,
drift index, SNR bit for bit) on qa_search's injected spectrogram and on noise with
many hits, both normalisations, T = 16 and a padded T = 12; blade-cli search
--device cuda writes the same .dat as --device cpu; blade-cli mode-b --search (beamform
and search) on CUDA finds the CPU's hits (same channels and drifts; SNRs within 1e-4,
the GPU beamformer's float32 sums being close to, not equal to, the CPU's).
"""

import os
import tempfile

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing
from qa_search import FOFF_HZ, NFPC, TSAMP_S, injected, write_fil


class qa_search_gpu(gr_unittest.TestCase):
    def hits(self, device, data, normalization, snr=10.0):
        o = blade.dedoppler_options()
        o.foff_hz, o.tsamp_s, o.nfpc, o.snr = FOFF_HZ, TSAMP_S, NFPC, snr
        o.normalization, o.blank_dc = normalization, True
        plan = blade.dedoppler_search(1, data.shape[0], data.shape[1], o, device)
        return [(h.channel, h.drift_index, h.snr, h.path_sum) for h in plan.search(data)]

    def test_cuda_hits_equal_cpu_hits(self):
        for data in (injected(), injected()[:12], numpy.random.default_rng(3).exponential(1, (16, 4 * NFPC))):
            for normalization in ("turbo_seti", "MAD"):
                for snr in (10.0, 4.0):
                    cpu = self.hits("cpu", numpy.ascontiguousarray(data, numpy.float32), normalization, snr)
                    cuda = self.hits("cuda", numpy.ascontiguousarray(data, numpy.float32), normalization, snr)
                    self.assertEqual(cpu, cuda, f"{data.shape} {normalization} snr {snr}")

    def test_cli_on_cuda_writes_the_cpu_table(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "injected.fil")
            write_fil(path, injected())
            tables = {}
            for device in ("cpu", "cuda"):
                out = os.path.join(folder, device)
                code, text, err = blade_testing.run_cli_main(
                    "search", path, "--nfpc", NFPC, "--device", device, "--output", out
                )
                self.assertEqual(code, 0, text + err)
                with open(os.path.join(out, "injected.dat")) as f:
                    tables[device] = f.read()
            self.assertEqual(tables["cpu"], tables["cuda"])

    def test_beamform_and_search_on_cuda(self):
        from gnuradio.blade import synth
        from gnuradio.blade.formats import hits as hit_tables

        with tempfile.TemporaryDirectory() as folder:
            files = synth.SyntheticObservation(blocks=16, block_samples=8192).write(folder, "obs")
            rows = {}
            for device in ("cpu", "cuda"):
                out = os.path.join(folder, device)
                code, text, err = blade_testing.run_cli_main(
                    "mode-b",
                    "--input",
                    files["stem"],
                    "--recipe",
                    files["recipe"],
                    "--output",
                    out,
                    "--channelizer-rate",
                    64,
                    "--integration",
                    16,
                    "--search",
                    "--device",
                    device,
                    "--no-progress",
                )
                self.assertEqual(code, 0, text + err)
                rows[device] = [
                    hit_tables.read_dat(os.path.join(out, f"obs.mode_b.beam{b:04d}.dat"))[1] for b in range(3)
                ]
            for cpu, cuda in zip(rows["cpu"], rows["cuda"]):
                self.assertEqual(
                    [(r.frequency, r.drift_rate) for r in cpu], [(r.frequency, r.drift_rate) for r in cuda]
                )
                for a, b in zip(cpu, cuda):
                    self.assertLess(abs(a.snr - b.snr), 1e-4 * abs(a.snr))


if __name__ == "__main__":
    blade_testing.require_gpu()
    gr_unittest.run(qa_search_gpu)
