#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
channel_split and channel_merge: each output is the numpy slice of the channel
axis, split-then-merge gives every chunk back bit for bit for every count of parts
that divides F (others rejected), the frequency tags of each sub-band, the device
placement (emulated devices: one upload per sub-band straight from the input, one
download into the output, nothing else), and the misconnections reported at start.
"""

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt

CHAN_BW = -0.25e6
FREQ0 = 1.5e9


def frequency_tags(offset, freq_first=FREQ0, coarse_first=40, nfpc=1, **more):
    return bt.blade_tags(offset, freq_first=freq_first, chan_bw=CHAN_BW, coarse_first=coarse_first, nfpc=nfpc, **more)


class qa_channel_split(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(77)
        blade.clear_failures()

    def split(self, chunks, shape, dtype, parts, devices=(), tags=()):
        block = blade.channel_split(shape, dtype, parts, list(devices))
        outputs = bt.run_graph(
            block,
            [(blade.pack(chunks, dtype), blade.item_size(shape, dtype))],
            [block.output_item_size()] * parts,
            [list(tags)],
        )
        self.assertEqual(blade.failures(), [])
        part_shape = list(block.output_shape())
        return [(blade.unpack(data, part_shape, dtype), found) for data, found in outputs]

    def test_each_output_is_the_slice_of_the_channel_axis(self):
        shape = [3, 12, 5, 2]
        for dtype in ("ci8", "cf32", "ci4", "f64"):
            chunks = bt.random_chunks(self.rng, dtype, 3, shape)
            for parts in (1, 2, 3, 4, 6, 12):
                width = 12 // parts
                got = self.split(chunks, shape, dtype, parts)
                for n, (part, _) in enumerate(got):
                    expected = chunks[:, :, n * width : (n + 1) * width]
                    self.assertTrue(bt.same_bits(part, expected), f"{dtype} part {n} of {parts}")

    def test_split_then_merge_is_exact_for_every_divisor(self):
        shape = [2, 12, 7, 3]
        for dtype in ("ci8", "cf16", "ci16", "cf32"):
            chunks = bt.random_chunks(self.rng, dtype, 4, shape)
            for parts in (1, 2, 3, 4, 6, 12):
                merged, _ = bt.run_split_merge(chunks, shape, dtype, parts)
                self.assertTrue(bt.same_bits(merged, chunks), f"{dtype} in {parts} parts")

    def test_parts_that_do_not_divide_the_channels_are_rejected(self):
        for parts in (5, 7, 8, 24):
            with self.assertRaisesRegex(ValueError, f"12 channels .* into {parts} equal parts"):
                blade.channel_split([2, 12, 4, 2], "ci8", parts)
            with self.assertRaisesRegex(ValueError, f"12 channels .* into {parts} equal parts"):
                blade.channel_merge([2, 12, 4, 2], "f32", parts)
        with self.assertRaisesRegex(ValueError, "equal parts"):
            blade.channel_split([2, 12, 4, 2], "ci8", 0)
        with self.assertRaisesRegex(ValueError, "3 given for 2 sub-bands"):
            blade.channel_split([2, 12, 4, 2], "ci8", 2, ["cpu", "cpu", "cpu"])
        with self.assertRaisesRegex(ValueError, "unknown device 'gpu7'"):
            blade.channel_split([2, 12, 4, 2], "ci8", 2, ["cpu", "gpu7"])

    def test_frequency_tags_move_to_each_sub_band(self):
        shape = [2, 12, 4, 2]
        chunks = bt.random_chunks(self.rng, "ci8", 3, shape)
        tags = frequency_tags(0, tsamp=4e-6, source_name="J1234", nchan=12) + frequency_tags(
            2, freq_first=FREQ0 + 1e6, coarse_first=44
        )
        got = self.split(chunks, shape, "ci8", 3, tags=tags)
        for n, (_, found) in enumerate(got):
            by_offset = bt.tags_by_offset(found)
            self.assertEqual(sorted(by_offset), [0, 2])
            first = by_offset[0]
            self.assertEqual(first["blade_freq_first"], FREQ0 + n * 4 * CHAN_BW)
            self.assertEqual(first["blade_coarse_first"], 40 + 4 * n)
            self.assertEqual(first["blade_chan_bw"], CHAN_BW)
            self.assertEqual(first["blade_tsamp"], 4e-6)
            self.assertEqual(first["blade_source_name"], "J1234")
            self.assertEqual(first["blade_nchan"], 4)  # each sub-band's own channel count
            self.assertEqual(by_offset[2]["blade_freq_first"], FREQ0 + 1e6 + n * 4 * CHAN_BW)
            self.assertEqual(by_offset[2]["blade_coarse_first"], 44 + 4 * n)

    def test_fine_channels_move_coarse_first_by_whole_coarse_channels(self):
        shape = [1, 16, 2, 1]
        chunks = bt.random_chunks(self.rng, "cf32", 1, shape)
        got = self.split(chunks, shape, "cf32", 2, tags=frequency_tags(0, nfpc=4, coarse_first=10))
        self.assertEqual(bt.tags_by_offset(got[1][1])[0]["blade_coarse_first"], 12)
        # Sub-bands of 2 fine channels would cut coarse channels of 4.
        block = blade.channel_split(shape, "cf32", 8)
        bt.run_graph(
            block,
            [(blade.pack(chunks, "cf32"), blade.item_size(shape, "cf32"))],
            [block.output_item_size()] * 8,
            [frequency_tags(0, nfpc=4)],
        )
        self.assertRegex("\n".join(blade.failures()), "split coarse channels of 4 fine channels")

    def test_merge_keeps_the_first_sub_band_tags(self):
        shape = [2, 8, 3, 1]
        chunks = bt.random_chunks(self.rng, "f32", 2, shape)
        parts = [chunks[:, :, :4], chunks[:, :, 4:]]
        merge = blade.channel_merge(shape, "f32", 2)
        size = blade.item_size([2, 4, 3, 1], "f32")
        tags = [
            frequency_tags(0, tsamp=1e-3, nchan=4),
            frequency_tags(0, freq_first=FREQ0 + 4 * CHAN_BW, tsamp=1e-3, nchan=4),
        ]
        ((data, found),) = bt.run_graph(
            merge, [(blade.pack(p, "f32"), size) for p in parts], [merge.output_item_size()], tags
        )
        self.assertEqual(blade.failures(), [])
        self.assertTrue(bt.same_bits(blade.unpack(data, shape, "f32"), chunks))
        first = bt.tags_by_offset(found)[0]
        self.assertEqual(first["blade_freq_first"], FREQ0)
        self.assertEqual(first["blade_coarse_first"], 40)
        self.assertEqual(first["blade_nchan"], 8)  # the whole band again
        self.assertEqual(len([t for t in found if pmt.symbol_to_string(t.key) == "blade_freq_first"]), 1)

    def test_merge_reports_sub_bands_out_of_order(self):
        shape = [1, 4, 2, 1]
        merge = blade.channel_merge(shape, "f32", 2)
        size = blade.item_size([1, 2, 2, 1], "f32")
        zeros = numpy.zeros(size, numpy.uint8)
        # Input 1 carries sub-band 0's frequency: the inputs are swapped.
        tags = [frequency_tags(0, freq_first=FREQ0 + 2 * CHAN_BW), frequency_tags(0)]
        bt.run_graph(merge, [(zeros, size), (zeros, size)], [merge.output_item_size()], tags)
        self.assertRegex("\n".join(blade.failures()), "input 1 carries the sub-band starting at .* out of order")

    def test_on_emulated_devices_each_sub_band_is_copied_once_each_way(self):
        shape = [3, 6, 8, 2]
        chunks = bt.random_chunks(self.rng, "ci8", 4, shape)
        devices = ["emulated:0", "emulated:1", "emulated:2"]
        self.assertEqual(
            list(blade.channel_split(shape, "ci8", 3, devices).devices()), ["emulated", "emulated:1", "emulated:2"]
        )
        merged, stats = bt.run_split_merge(chunks, shape, "ci8", 3, devices)
        self.assertEqual(blade.failures(), [])
        self.assertTrue(bt.same_bits(merged, chunks))
        chunk_bytes = chunks[0].nbytes
        # The source writes the split's pinned input in place and the sink reads the
        # merge's pinned output in place: only the sub-band copies move data.
        self.assertEqual((stats["host_to_device"], stats["host_to_device_bytes"]), (12, 4 * chunk_bytes))
        self.assertEqual((stats["device_to_host"], stats["device_to_host_bytes"]), (12, 4 * chunk_bytes))
        self.assertEqual((stats["device_to_device"], stats["host_to_host"]), (0, 0))

    def test_sub_bands_feed_gpu_blocks_on_their_devices(self):
        # split -> cast on each sub-band's device -> merge: the casts read device
        # memory the split filled, the merge reads what the casts wrote.
        shape = [2, 4, 16, 2]
        chunks = bt.random_chunks(self.rng, "ci8", 3, shape)
        devices = ["emulated:0", "emulated:1"]
        part = [2, 2, 16, 2]
        tb = gr.top_block()
        source = blocks.vector_source_b(blade.pack(chunks, "ci8").tolist(), False, blade.item_size(shape, "ci8"))
        split = blade.channel_split(shape, "ci8", 2, devices)
        casts = [blade.cast(part, "ci8", "cf32", d) for d in devices]
        merge = blade.channel_merge(shape, "cf32", 2, devices)
        sink = blocks.vector_sink_b(blade.item_size(shape, "cf32"))
        tb.connect(source, split)
        for n in range(2):
            tb.connect((split, n), casts[n], (merge, n))
        tb.connect(merge, sink)
        blade.reset_copy_stats()
        tb.run()
        stats = blade.copy_stats()
        self.assertEqual(blade.failures(), [])
        got = blade.unpack(numpy.array(sink.data(), numpy.uint8), shape, "cf32")
        self.assertTrue(numpy.array_equal(got, bt.to_values(chunks, "ci8").astype(numpy.complex64)))
        self.assertEqual((stats["host_to_device"], stats["device_to_host"], stats["device_to_device"]), (6, 6, 0))

    def test_a_sub_band_on_the_wrong_device_is_reported(self):
        shape = [1, 4, 8, 1]
        tb = gr.top_block()
        source = blocks.vector_source_b([0] * blade.item_size(shape, "ci8"), False, blade.item_size(shape, "ci8"))
        split = blade.channel_split(shape, "ci8", 2, ["emulated:0", "emulated:1"])
        wrong = blade.cast([1, 2, 8, 1], "ci8", "cf32", "emulated:1")  # reads output 0 (emulated:0)
        right = blade.cast([1, 2, 8, 1], "ci8", "cf32", "emulated:1")
        tb.connect(source, split)
        tb.connect((split, 0), wrong, blocks.null_sink(blade.item_size([1, 2, 8, 1], "cf32")))
        tb.connect((split, 1), right, blocks.null_sink(blade.item_size([1, 2, 8, 1], "cf32")))
        tb.run()
        self.assertRegex("\n".join(blade.failures()), "upstream runs on emulated and this block on emulated:1")

    def test_merge_output_into_a_gpu_block_is_reported(self):
        shape = [1, 4, 8, 1]
        size = blade.item_size([1, 2, 8, 1], "ci8")
        tb = gr.top_block()
        merge = blade.channel_merge(shape, "ci8", 2, ["emulated:0", "emulated:1"])
        for n in range(2):
            tb.connect(blocks.vector_source_b([0] * size, False, size), (merge, n))
        cast = blade.cast(shape, "ci8", "cf32", "emulated")
        tb.connect(merge, cast, blocks.null_sink(blade.item_size(shape, "cf32")))
        tb.run()
        self.assertRegex("\n".join(blade.failures()), "writes host memory .* put a host block between them")


if __name__ == "__main__":
    gr_unittest.run(qa_channel_split)
