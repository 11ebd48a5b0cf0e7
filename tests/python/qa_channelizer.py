#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade.channelizer against the numpy reference written from the formula of
include/blade/modules/channelizer.h (channelizer_reference.py: direct DFT for
N <= 64, numpy.fft above), on the CPU backend and the emulated device.
"""

import math

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt
from channelizer_reference import channelize, prototype


def relative_error(got, expected):
    """max |got - expected| / RMS(expected); NaN counts as infinitely wrong."""
    rms = numpy.sqrt(numpy.mean(numpy.abs(expected) ** 2)) or 1.0
    error = numpy.abs(got - expected)
    return math.inf if numpy.isnan(error).any() else float(error.max()) / rms


def tolerance(rate, taps=1):
    # float32 FFTs of length N: relative error ~1e-7 log2(N) of the RMS; M taps add ~M ulps
    return 1e-6 * max(1.0, math.log2(rate)) * (2 if taps > 1 else 1)


def output_shape(shape, rate):
    a, f, t, p = shape
    return [a, f * rate, t // rate, p]


class qa_channelizer(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(20261201)

    def voltages(self, nchunks, shape):
        size = (nchunks,) + tuple(shape) + (2,)
        return (30 * self.rng.standard_normal(size, dtype=numpy.float32)).view(numpy.complex64)[..., 0]

    def check(self, shape, rate, nchunks=3, taps=1, window="hamming", device="cpu", through_files=False):
        chunks = self.voltages(nchunks, shape)
        block = blade.channelizer(shape, rate, device, taps, window)
        out_shape = output_shape(shape, rate)
        self.assertEqual(list(block.output_shape()), out_shape)
        run = bt.run_chunks_through_files if through_files else bt.run_chunks
        got = run([block], chunks, shape, "cf32", out_shape, "cf32")
        if not through_files:
            got = got[0]
        expected = channelize(chunks, rate, taps, window if taps > 1 else "rectangular")
        error = relative_error(got, expected)
        self.assertLess(error, tolerance(rate, taps), f"{shape} N={rate} M={taps} {window}: error {error:.3g}")
        return chunks, got

    def test_rates_and_shapes(self):
        cases = [
            ([2, 3, 12, 2], 1),
            ([2, 3, 12, 2], 2),
            ([1, 5, 21, 2], 3),
            ([3, 2, 35, 1], 5),
            ([2, 3, 49, 2], 7),  # prime
            ([2, 3, 128, 2], 64),
            ([1, 3, 96, 2], 96),  # N = T
            ([3, 1, 7, 3], 7),  # N = T, odd P
            ([1, 1, 1, 1], 1),
            ([1, 2, 1024, 1], 1024),
            ([2, 1, 4096, 2], 512),
        ]
        for shape, rate in cases:
            with self.subTest(shape=shape, rate=rate):
                self.check(shape, rate)

    def test_rate_one_passes_chunks_through_exactly(self):
        shape = [2, 3, 5, 2]
        chunks, got = self.check(shape, 1, nchunks=4)
        self.assertTrue(bt.same_bits(got, chunks))

    def test_upstream_benchmark_shape(self):
        # upstream's channelizer benchmark, [16, 192, 8192, 2] with N = 8192: one chunk of
        # 201 MB, through files. The reference covers every 5th (a, f) (all antennas,
        # channels spread over the band) to keep the test short; Parseval checks all:
        # sum_k |y|^2 = N sum_n |x|^2 for every (a, f, p).
        shape, rate = [16, 192, 8192, 2], 8192
        x = self.voltages(1, shape)
        got = bt.run_chunks_through_files(
            [blade.channelizer(shape, rate, "cpu")], x, shape, "cf32", output_shape(shape, rate), "cf32"
        )
        self.assertTrue(numpy.isfinite(got).all())
        rows_in = x.reshape(16 * 192, 8192, 2)
        rows_out = got.reshape(16 * 192, 8192, 2)  # [(a, f), k, p] since T/N = 1

        def energy(rows):  # sum over t of |x|^2 per (row, p), in float64 without a complex128 copy
            parts = rows.view(numpy.float32)  # [row, t, (p, re/im)]
            return numpy.einsum("rtv,rtv->rv", parts, parts, dtype=numpy.float64).reshape(len(rows), 2, 2).sum(-1)

        energy_in, energy_out = energy(rows_in), energy(rows_out)
        numpy.testing.assert_allclose(energy_out, rate * energy_in, rtol=1e-5)
        sample = rows_in[::5].reshape(1, -1, 1, 8192, 2)
        expected = channelize(sample, rate)
        error = relative_error(rows_out[::5].reshape(expected.shape), expected)
        self.assertLess(error, tolerance(rate), f"error {error:.3g}")

    def test_a_tone_lands_in_its_fine_channel(self):
        # coarse channel f carries a tone at fine channel k0 = 5 + f: offset (k0 - N/2)/N
        n, t = 16, 64
        shape = [1, 3, t, 1]
        x = numpy.zeros([1] + shape, numpy.complex64)
        for f in range(3):
            nu = (5 + f - n / 2) / n
            x[0, 0, f, :, 0] = numpy.exp(2j * numpy.pi * nu * numpy.arange(t))
        got, _ = bt.run_chunks([blade.channelizer(shape, n, "cpu")], x, shape, "cf32", output_shape(shape, n), "cf32")
        power = numpy.abs(got[0, 0, :, :, 0]) ** 2  # [F*N, S]
        for f in range(3):
            peak = numpy.argmax(power[f * n : (f + 1) * n].sum(axis=1))
            self.assertEqual(peak, 5 + f)
            numpy.testing.assert_allclose(power[f * n + 5 + f], n * n, rtol=1e-5)

    def test_polyphase_against_numpy_across_chunks(self):
        cases = [
            ([2, 3, 32, 2], 8, 4, "hamming"),
            ([1, 2, 30, 1], 5, 3, "hann"),
            ([1, 1, 16, 2], 16, 8, "blackman-harris"),  # M*N = 8 chunks of history
            ([2, 2, 256, 2], 64, 4, "blackman"),
            ([1, 2, 64, 2], 32, 2, "rectangular"),
            ([1, 1, 2048, 2], 1024, 4, "hamming"),
        ]
        for shape, rate, taps, window in cases:
            with self.subTest(shape=shape, rate=rate, taps=taps, window=window):
                self.check(shape, rate, nchunks=4, taps=taps, window=window)

    def test_polyphase_channels_are_flat_and_do_not_leak(self):
        # Measured through the block with tones: on the edge between two fine channels
        # the plain FFT loses 3.92 dB (scalloping), the PFB 3.01 dB by design, and
        # inside a channel it is flat; 1.5 channels from a channel's centre the FFT
        # still picks up -13.5 dB (its sidelobes), the 4-tap Hamming PFB below -70 dB.
        n, t = 64, 64 * 64

        def response_db(offset, taps):
            nu = (32 + offset - n / 2) / n
            x = numpy.exp(2j * numpy.pi * nu * numpy.arange(t)).astype(numpy.complex64).reshape(1, 1, 1, t, 1)
            shape = [1, 1, t, 1]
            got, _ = bt.run_chunks(
                [blade.channelizer(shape, n, "cpu", taps, "hamming")], x, shape, "cf32", output_shape(shape, n), "cf32"
            )
            # channel 32, once the filter has filled (skip the first `taps` blocks)
            return 10 * numpy.log10(numpy.mean(numpy.abs(got[0, 0, 32, taps:, 0]) ** 2) / n**2)

        self.assertAlmostEqual(response_db(0.5, 1), 20 * numpy.log10(2 / numpy.pi), delta=0.01)  # -3.92
        self.assertAlmostEqual(response_db(0.5, 4), -3.0103, delta=0.01)
        self.assertGreater(response_db(0.25, 4), -0.5)
        self.assertAlmostEqual(response_db(1.5, 1), -13.5, delta=0.3)
        self.assertLess(response_db(1.5, 4), -70)

    def test_tags_are_rewritten_for_the_fine_channels(self):
        shape, rate = [1, 2, 16, 2], 4
        chunks = self.voltages(4, shape)

        def tag(offset, key, value):
            return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value))

        tags = [
            # chunk 0: the whole axis
            tag(0, blade.tag.chan_bw, pmt.from_double(0.5e6)),
            tag(0, blade.tag.freq_first, pmt.from_double(1000.25e6)),
            tag(0, blade.tag.tsamp, pmt.from_double(2e-6)),
            tag(0, blade.tag.nfpc, pmt.from_long(8)),
            tag(0, blade.tag.time_start_unix, pmt.from_double(1.7e9)),
            tag(0, "step", pmt.from_long(0)),
            # chunk 1: no nfpc (one channel per coarse channel so far); descending band
            tag(1, blade.tag.chan_bw, pmt.from_double(-2e6)),
            tag(1, blade.tag.freq_first, pmt.from_double(1400e6)),
            # chunk 2: freq_first alone: shifted by the last chan_bw seen
            tag(2, blade.tag.freq_first, pmt.from_double(1500e6)),
            # chunk 3: unrelated tags only
            tag(3, "step", pmt.from_long(3)),
            tag(3, blade.tag.source_name, pmt.intern("Voyager 1")),
        ]
        _, out_tags = bt.run_chunks(
            [blade.channelizer(shape, rate, "cpu")], chunks, shape, "cf32", output_shape(shape, rate), "cf32", tags
        )
        got = {}
        for t in out_tags:
            key = pmt.symbol_to_string(t.key)
            value = t.value
            got[(t.offset, key)] = (
                pmt.symbol_to_string(value)
                if pmt.is_symbol(value)
                else pmt.to_long(value)
                if pmt.is_integer(value)
                else pmt.to_double(value)
            )
        expected = {
            (0, blade.tag.chan_bw): 125e3,
            (0, blade.tag.freq_first): 1000.0e6,
            (0, blade.tag.tsamp): 8e-6,
            (0, blade.tag.nfpc): 32,
            (0, blade.tag.time_start_unix): 1.7e9,
            (0, "step"): 0,
            (1, blade.tag.chan_bw): -0.5e6,
            (1, blade.tag.freq_first): 1401e6,
            (1, blade.tag.nfpc): 4,
            (2, blade.tag.freq_first): 1501e6,
            (2, blade.tag.nfpc): 4,
            (3, "step"): 3,
            (3, blade.tag.source_name): "Voyager 1",
        }
        self.assertEqual(sorted(got), sorted(expected))
        for key, value in expected.items():
            self.assertAlmostEqual(
                got[key], value, msg=str(key), delta=abs(value) * 1e-15 if isinstance(value, float) else 0
            )

    def test_rate_one_leaves_the_axis_alone(self):
        shape = [1, 2, 4, 2]
        chunks = self.voltages(1, shape)
        tags = [
            gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.chan_bw), pmt.from_double(0.5e6))),
            gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.freq_first), pmt.from_double(1000.25e6))),
            gr.tag_utils.python_to_tag((0, pmt.intern(blade.tag.tsamp), pmt.from_double(2e-6))),
        ]
        _, out_tags = bt.run_chunks([blade.channelizer(shape, 1, "cpu")], chunks, shape, "cf32", shape, "cf32", tags)
        got = {pmt.symbol_to_string(t.key): t.value for t in out_tags}
        self.assertEqual(pmt.to_double(got[blade.tag.chan_bw]), 0.5e6)
        self.assertEqual(pmt.to_double(got[blade.tag.freq_first]), 1000.25e6)
        self.assertEqual(pmt.to_double(got[blade.tag.tsamp]), 2e-6)
        self.assertEqual(pmt.to_long(got[blade.tag.nfpc]), 1)

    def test_emulated_device_chain_copies_only_at_the_host_edges(self):
        # ci8 -> cast -> channelizer (polyphase) on the emulated GPU: one upload of the
        # ci8 chunk and one download of the channelized chunk each, nothing between.
        shape, rate, nchunks = [2, 3, 64, 2], 16, 5
        raw = bt.random_chunks(self.rng, "ci8", nchunks, shape)
        chain = [blade.cast(shape, "ci8", "cf32", "emulated"), blade.channelizer(shape, rate, "emulated", 3, "hann")]
        blade.reset_copy_stats()
        got, _ = bt.run_chunks(chain, raw, shape, "ci8", output_shape(shape, rate), "cf32")
        stats = blade.copy_stats()
        expected = channelize(bt.to_values(raw, "ci8"), rate, 3, "hann")
        self.assertLess(relative_error(got, expected), tolerance(rate, 3))
        self.assertEqual(stats["host_to_device"], nchunks)
        self.assertEqual(stats["device_to_host"], nchunks)
        self.assertEqual(stats["device_to_device"], 0)
        self.assertEqual(stats["host_to_device_bytes"], nchunks * blade.item_size(shape, "ci8"))
        self.assertEqual(stats["device_to_host_bytes"], nchunks * blade.item_size(output_shape(shape, rate), "cf32"))

    def test_properties(self):
        block = blade.channelizer([16, 192, 8192, 2], 8192, "cpu")
        self.assertEqual(block.device(), "cpu")
        self.assertEqual(list(block.output_shape()), [16, 192 * 8192, 1, 2])
        self.assertEqual(block.input_item_size(), 16 * 192 * 8192 * 2 * 8)
        self.assertEqual(block.output_item_size(), block.input_item_size())
        self.assertEqual((block.rate(), block.taps(), block.window()), (8192, 1, "hamming"))
        numpy.testing.assert_array_equal(block.prototype(), numpy.ones(8192))
        pfb = blade.channelizer([1, 4, 256, 2], 64, "cpu", 4, "Blackman_Harris")
        self.assertEqual((pfb.taps(), pfb.window()), (4, "blackman-harris"))
        numpy.testing.assert_allclose(pfb.prototype(), prototype(64, 4, "blackman-harris"), rtol=1e-12, atol=1e-15)

    def test_bad_configurations_are_refused_with_reasons(self):
        cases = [
            (([2, 4, 12, 2], 5), "rate 5 does not divide T = 12"),
            (([2, 4, 12, 2], 5), "the nearest divisors are 4 and 6"),
            (([2, 4, 12, 2], 24), "rate 24 does not divide T = 12"),
            (([2, 4, 12, 2], 0), "rate 0"),
            (([2, 4, 12, 2], -3), "rate -3"),
            (([4, 12, 2], 4), "rank 3"),
            (([2, 0, 12, 2], 4), "extent 0 on axis 1"),
            (([2, 4, 12, 2], 4, "cpu", 0), "taps 0"),
            (([2, 4, 12, 2], 4, "cpu", 65), "1 (plain FFT) to 64 taps"),
            (([2, 4, 12, 2], 1, "cpu", 4), "polyphase filter needs a rate of at least 2"),
            (([2, 4, 12, 2], 4, "cpu", 4, "kaiser"), "unknown window 'kaiser'"),
        ]
        for args, reason in cases:
            with self.subTest(args=args):
                with self.assertRaises(ValueError) as caught:
                    blade.channelizer(*args)
                self.assertIn(reason, str(caught.exception))
        with self.assertRaises(Exception) as caught:
            blade.channelizer([2, 4, 12, 2], 4, "quantum")
        self.assertIn("'quantum'", str(caught.exception))

    def test_non_cf32_upstream_is_refused_at_start(self):
        shape = [1, 1, 8, 2]  # cf16 and cf32 chunks both fit one 4096-byte item
        blade.clear_failures()
        tb = gr.top_block()
        source = blocks.vector_source_b([0] * 4096 * 3, True, 4096)
        head = blade.cast(shape, "ci8", "cf16", "cpu")
        channelizer = blade.channelizer(shape, 4, "cpu")
        sink = blocks.vector_sink_b(4096)
        tb.connect(source, head, channelizer, sink)
        tb.run()  # ends on its own although the source repeats forever
        failures = blade.failures()
        self.assertEqual(len(failures), 1)
        self.assertIn("upstream produces cf16 [1, 1, 8, 2] but this block expects cf32 [1, 1, 8, 2]", failures[0])
        self.assertEqual(len(sink.data()), 0)

    def test_cuda_without_a_gpu_is_a_clear_error(self):
        if blade.gpus():
            self.skipTest("a GPU is present")
        with self.assertRaises(RuntimeError) as caught:
            blade.channelizer([2, 4, 16, 2], 4, "cuda")
        self.assertIn("requested", str(caught.exception))
        self.assertEqual(blade.channelizer([2, 4, 16, 2], 4, "auto").device(), "cpu")


if __name__ == "__main__":
    gr_unittest.run(qa_channelizer)
