#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade.beamformer on CUDA against numpy (and so against the CPU backend) through real
device buffers, for every path with its documented tolerance, and a GPU chain that
copies only at the host edges.
"""

import numpy
from gnuradio import gr_unittest

from gnuradio import blade
import blade_testing as bt

# Errors relative to sum_a |x||w| (docs/blocks/beamformer.md).
TOLERANCE = {"fp32": 1e-5, "tf32x3": 1e-5, "tf32": 2.0**-10 + 64 * 2.0**-23, "fp16": 2.0**-10 + 64 * 2.0**-23}


class qa_beamformer_gpu(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(4242)

    def check(self, A, F, T, P, B, path, input_type="cf32", incoherent=True, meerkat=False, nchunks=2):
        if input_type == "ci8":
            raw = bt.random_chunks(self.rng, "ci8", nchunks, [A, F, T, P])
            x = bt.to_values(raw, "ci8")
        else:
            raw = x = bt.random_complex(self.rng, (nchunks, A, F, T, P), 30.0)
        w = bt.random_complex(self.rng, (nchunks, B, A) if meerkat else (nchunks, B, A, F, 1, P), 0.7)
        block = blade.beamformer(
            [A, F, T, P], [B, A] if meerkat else [B, A, F, 1, P], input_type, "cf32", incoherent, False, path, "cuda"
        )
        self.assertEqual(block.path(), path if path != "auto" else block.path())
        got, _ = bt.run_beamformer(block, raw, w, input_type=input_type)
        error = bt.beamformer_error(got, x, w, incoherent)
        tolerance = TOLERANCE[block.path()]
        print(
            f"A={A} F={F} T={T} P={P} B={B} {input_type} {block.path()}: max error {error.max():.3g}, "
            f"rms {numpy.sqrt(numpy.mean(error**2)):.3g} of sum |x||w|"
        )
        self.assertLess(error.max(), tolerance)

    def test_every_path_at_edge_shapes(self):
        shapes = [
            (1, 1, 1, 1, 1),
            (7, 3, 13, 2, 5),
            (13, 7, 29, 1, 300),
            (4, 1031, 1, 2, 3),
            (33, 3, 200, 2, 65),
            (70, 2, 129, 1, 70),
        ]
        for path in ("fp32", "tf32", "tf32x3", "fp16"):
            for A, F, T, P, B in shapes:
                with self.subTest(path=path, shape=(A, F, T, P, B)):
                    self.check(A, F, T, P, B, path)
                    self.check(A, F, T, P, B, path, input_type="ci8", meerkat=True)

    def test_auto_path_at_benchmark_like_shapes(self):
        self.check(28, 8, 1024, 2, 8, "auto", input_type="ci8", nchunks=1)
        self.check(64, 4, 1024, 2, 64, "auto", nchunks=1)
        self.assertEqual(blade.beamformer([64, 4, 1024, 2], [64, 64, 4, 1, 2], device="cuda").path(), "tf32x3")
        self.assertEqual(blade.beamformer([28, 4, 1024, 2], [8, 28, 4, 1, 2], device="cuda").path(), "fp32")
        # auto never takes the lower-precision paths, however large the shape
        self.assertEqual(blade.beamformer([64, 4, 1024, 2], [1024, 64, 4, 1, 2], device="cuda").path(), "tf32x3")

    def test_gpu_chain_copies_only_at_host_edges(self):
        A, F, T, P, B, n = 8, 4, 256, 2, 5, 6
        raw = bt.random_chunks(self.rng, "ci8", n, [A, F, T, P])
        w = bt.random_complex(self.rng, (n, B, A, F, 1, P), 0.7)
        cast = blade.cast([A, F, T, P], "ci8", "cf32", "cuda")
        block = blade.beamformer([A, F, T, P], [B, A, F, 1, P], "cf32", "cf32", True, False, "auto", "cuda")
        got, stats = bt.run_chain_into_beamformer([cast], block, raw, w, "ci8")
        self.assertLess(bt.beamformer_error(got, bt.to_values(raw, "ci8"), w, True).max(), 1e-5)
        self.assertEqual((stats["host_to_device"], stats["device_to_host"], stats["device_to_device"]), (2 * n, n, 0))


if __name__ == "__main__":
    bt.require_gpu()
    gr_unittest.run(qa_beamformer_gpu)
