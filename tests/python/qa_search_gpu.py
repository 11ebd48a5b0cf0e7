#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The dedoppler search on CUDA against the CPU, through what users touch:
dedoppler_search (the CLI's and the block's path) gives identical hits (channel,
drift index, SNR bit for bit) on qa_search's injected spectrogram and on noise with
many hits, both normalisations, T = 16 and a padded T = 12; blade-cli search
--device cuda writes the same .dat as --device cpu.
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


if __name__ == "__main__":
    blade_testing.require_gpu()
    gr_unittest.run(qa_search_gpu)
