#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Stages run in place inside the bundles: with one spectrum per chunk (T = N) Mode H
casts, channelizes and polarizes in one block and one device buffer. Its products
must be bit for bit those of the same stages as separate blocks (cast, channelizer,
polarizer, detector: each with its own output buffer), on the CPU and the emulated
device, in fp32 and fp16; and on the emulated device it must hold exactly the two
buffers (four chunks) less. The array API's in-place calls (`out=` the input) give
the out-of-place bits, and a partial overlap is refused.
"""

import math
import os

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt
import qa_bundles


def separate_chain(shape, rate, taps, mode, integration, device, precision):
    """The stages of Mode H as separate blocks, as the bundle had them before."""
    work = "cf16" if precision == "fp16" else "cf32"
    channelizer = blade.channelizer(shape, rate, device, taps, "hamming", work)
    scale = 1.0
    if work == "cf16":  # the bundle's range scale: 2^-k for a channelizer gain up to 2^k
        gain = float(numpy.sum(numpy.abs(channelizer.prototype())))
        scale = 2.0 ** -math.ceil(math.log2(gain)) if gain > 1 else 1.0
    fine = list(channelizer.output_shape())
    return [
        blade.cast(shape, "ci8", work, device, scale),
        channelizer,
        blade.polarizer(fine, device, "circular", work),
        blade.detector(fine, mode, integration, device, work, 1.0 / (scale * scale)),
    ]


def mode_h(shape, rate, taps, mode, integration, device, precision):
    return blade.mode_h(
        shape,
        blade.spectrometer_options(
            channelizer_rate=rate,
            taps=taps,
            circular=True,
            detector=mode,
            integration=integration,
            device=device,
            precision=precision,
        ),
    )


def held_device_memory(chain, shape):
    """Device memory the flowgraph source -> chain -> sink holds once started."""
    import gc

    gc.collect()
    blade.reset_device_memory_peak()
    baseline = blade.device_memory_stats()["bytes_in_use"]
    tb = gr.top_block()
    source = blade.device_source(shape, "ci8", 2, [], "cpu", False)
    sink = blocks.null_sink(chain[-1].output_item_size())
    tb.connect(source, *chain, sink)
    tb.start()  # the buffers are made at start
    held = blade.device_memory_stats()["peak_bytes"] - baseline
    tb.stop()
    tb.wait()
    return held


class qa_in_place(gr_unittest.TestCase):
    device = "emulated"  # where the buffers are device buffers (qa_in_place_gpu: cuda)

    def setUp(self):
        self.rng = numpy.random.default_rng(18)
        blade.clear_failures()

    def compare(self, shape, rate, taps, mode, integration, device, precision, nchunks=4):
        voltages = self.rng.integers(-60, 61, size=(nchunks, *shape, 2), dtype=numpy.int8)
        bundle = mode_h(shape, rate, taps, mode, integration, device, precision)
        out_shape = list(bundle.output_shape())
        got, _ = bt.run_chunks([bundle], voltages, shape, "ci8", out_shape, "f32")
        chain = separate_chain(shape, rate, taps, mode, integration, device, precision)
        expected, _ = bt.run_chunks(chain, voltages, shape, "ci8", out_shape, "f32")
        self.assertEqual(blade.failures(), [])
        self.assertEqual(got.shape, expected.shape)
        self.assertGreater(numpy.max(expected), 0)
        numpy.testing.assert_array_equal(got, expected)

    def test_mode_h_in_place_gives_the_separate_blocks_bits_on_the_cpu(self):
        self.compare([2, 3, 64, 2], 64, 1, "I", 1, "cpu", "fp32")
        self.compare([3, 2, 32, 2], 32, 4, "IQUV", 2, "cpu", "fp32")  # PFB history across chunks
        self.compare([2, 3, 64, 2], 64, 4, "cross", 1, "cpu", "fp16")

    def test_mode_h_in_place_on_the_device(self):
        self.compare([2, 3, 64, 2], 64, 4, "I", 1, self.device, "fp32")
        self.compare([1, 2, 128, 2], 128, 1, "XXYY", 3, self.device, "fp16")
        self.compare([2, 2, 8192, 2], 8192, 1, "I", 1, self.device, "fp32", nchunks=2)  # Mode H's N

    def test_mode_h_holds_four_chunks_less(self):
        shape, rate = [2, 4, 256, 2], 256
        for precision, work in (("fp32", "cf32"), ("fp16", "cf16")):
            bundle = mode_h(shape, rate, 1, "I", 1, self.device, precision)
            fused = held_device_memory([bundle], shape)
            del bundle
            chain = separate_chain(shape, rate, 1, "I", 1, self.device, precision)
            separate = held_device_memory(chain, shape)
            # the channelizer's and the polarizer's buffers, two chunks each
            self.assertEqual(separate - fused, 4 * blade.item_size(shape, work), precision)

    def test_chunks_with_several_spectra_keep_the_channelizer_block(self):
        # T = 2 N: the channelizer cannot run in place; only the polarizer's buffer goes
        shape, rate = [2, 3, 64, 2], 32
        bundle = mode_h(shape, rate, 1, "I", 1, self.device, "fp32")
        fused = held_device_memory([bundle], shape)
        del bundle
        separate = held_device_memory(separate_chain(shape, rate, 1, "I", 1, self.device, "fp32"), shape)
        self.assertEqual(separate - fused, 2 * blade.item_size(shape, "cf32"))


class separate_stages:
    """Within it, bundles are built with their stages as separate blocks."""

    def __enter__(self):
        os.environ["BLADE_BUNDLE_IN_PLACE"] = "0"

    def __exit__(self, *_):
        os.environ.pop("BLADE_BUNDLE_IN_PLACE")


class qa_mode_bh_in_place(qa_bundles.BundleTestCase):
    """Mode BH channelizes the whole gathered time axis (T = N) in the gather's chunk."""

    device = "emulated"

    def bundle(self, shape, gather, recipe, precision):
        return blade.mode_bh(
            shape,
            qa_bundles.chunk_axis(shape[1]),
            blade.read_bfr5(recipe),
            blade.beamforming_options(
                gather=gather, incoherent=True, detector="I", device=self.device, precision=precision
            ),
        )

    def test_same_products_and_tags_and_two_long_chunks_less(self):
        shape, gather, nchunks = [4, 2, 16, 2], 4, 8
        recipe = self.recipe(4, 2)[0]
        voltages = qa_bundles.ci8_chunks(self.rng, nchunks, shape)
        items, _ = self.chunk_times(nchunks, shape[2])
        axis = [  # the axis a guppi_source tags its chunks with, on chunks 0 and 4
            gr.tag_utils.python_to_tag((n, pmt.intern(key), pmt.from_double(value)))
            for n in (0, 4)
            for key, value in (("blade_chan_bw", -0.5e6), ("blade_freq_first", 1.42e9), ("blade_tsamp", 2e-6))
        ]
        for precision, work in (("fp32", "cf32"), ("fp16", "cf16")):
            runs = {}
            for in_place in (True, False):
                if in_place:
                    bundle = self.bundle(shape, gather, recipe, precision)
                else:
                    with separate_stages():
                        bundle = self.bundle(shape, gather, recipe, precision)
                ((data, tags),) = bt.run_graph(
                    bundle,
                    [(blade.pack(voltages, "ci8"), blade.item_size(shape, "ci8")), (items, 64)],
                    [bundle.output_item_size()],
                    [axis, []],
                )
                self.assertEqual(blade.failures(), [])
                products = blade.unpack(data, list(bundle.output_shape()), "f32")  # not the items' padding
                runs[in_place] = products, sorted((t.offset, pmt.symbol_to_string(t.key), str(t.value)) for t in tags)
            self.assertGreater(numpy.max(runs[False][0]), 0)
            numpy.testing.assert_array_equal(runs[True][0], runs[False][0])
            self.assertEqual(runs[True][1], runs[False][1])
            keys = {key for _, key, _ in runs[True][1]}
            self.assertTrue({"blade_chan_bw", "blade_nfpc", "blade_tsamp"} <= keys, keys)

            # the channelizer's buffer: two gathered chunks of 3 beams
            long_chunk = blade.item_size([3, shape[1], shape[2] * gather, shape[3]], work)
            held = {}
            for in_place in (True, False):
                if in_place:
                    held[in_place] = self.held(shape, gather, recipe, precision)
                else:
                    with separate_stages():
                        held[in_place] = self.held(shape, gather, recipe, precision)
            self.assertEqual(held[False] - held[True], 2 * long_chunk, precision)

    def held(self, shape, gather, recipe, precision):
        import gc

        from gnuradio.blade.bench.workloads import TBIN, chunk_times

        gc.collect()
        blade.reset_device_memory_peak()
        baseline = blade.device_memory_stats()["bytes_in_use"]
        bundle = self.bundle(shape, gather, recipe, precision)
        tb = gr.top_block()
        tb.connect(blade.device_source(shape, "ci8", 2, [], "cpu", False), (bundle, 0))
        times = chunk_times(2, shape[2] * TBIN)
        tb.connect(blocks.vector_source_b(times.view(numpy.uint8).tolist(), False, 64), (bundle, 1))
        tb.connect(bundle, blocks.null_sink(bundle.output_item_size()))
        tb.start()
        memory = blade.device_memory_stats()["peak_bytes"] - baseline
        tb.stop()
        tb.wait()
        return memory


class qa_array_in_place(gr_unittest.TestCase):
    def test_polarizer_and_channelizer_out_is_the_input(self):
        from gnuradio.blade import array as ba

        rng = numpy.random.default_rng(7)
        x = (rng.normal(size=(2, 3, 64, 2)) + 1j * rng.normal(size=(2, 3, 64, 2))).astype(numpy.complex64)
        expected = ba.polarize(x)
        y = x.copy()
        self.assertIs(ba.polarize(y, out=y), y)
        numpy.testing.assert_array_equal(y, expected)
        spectra = ba.channelize(x, 64)
        z = x.copy()
        ba.channelize(z, 64, out=z.reshape(spectra.shape))
        numpy.testing.assert_array_equal(z.reshape(spectra.shape), spectra)

    def test_partial_overlap_is_refused(self):
        from gnuradio.blade import array as ba

        x = numpy.zeros((1, 1, 9, 2), numpy.complex64)
        with self.assertRaisesRegex(ValueError, r"\+16 bytes .* overlaps the input \(128 bytes\) without being"):
            ba.polarize(x[:, :, :8], out=x[:, :, 1:])


if __name__ == "__main__":
    gr_unittest.main()
