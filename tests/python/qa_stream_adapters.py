#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade.stream_to_tensor and blade.tensor_to_stream: sample streams <-> [A, F, T, P]
chunks (port = (a*F + f)*P + p), rx_* tags <-> gr-blade chunk tags and chunk_time
items, and the configurations they refuse.
"""

import numpy
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade
import blade_testing as bt

JD_UNIX_EPOCH = 2440587.5


def rx_time(offset, whole, fraction):
    value = pmt.make_tuple(pmt.from_uint64(whole), pmt.from_double(fraction))
    return gr.tag_utils.python_to_tag((offset, pmt.intern("rx_time"), value))


def number_tag(offset, key, value):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), pmt.from_double(value)))


def tag_values(tags, key):
    """{offset: python value} of the tags with `key`."""
    out = {}
    for t in tags:
        if pmt.symbol_to_string(t.key) == key:
            value = t.value
            if pmt.is_tuple(value):
                out[t.offset] = (pmt.to_uint64(pmt.tuple_ref(value, 0)), pmt.to_double(pmt.tuple_ref(value, 1)))
            elif pmt.is_symbol(value):
                out[t.offset] = pmt.symbol_to_string(value)
            else:
                out[t.offset] = pmt.to_python(value)
    return out


class qa_stream_adapters(gr_unittest.TestCase):
    def setUp(self):
        self.rng = numpy.random.default_rng(5)

    def streams(self, count, samples):
        """Stream s, sample n = s + 1j*n plus noise: distinct per stream and per chunk."""
        noise = self.rng.standard_normal((count, samples)) * 1e-3
        return (numpy.arange(count)[:, None] + 1j * numpy.arange(samples)[None, :] + noise).astype(numpy.complex64)

    def build(self, shape, streams, stream_to_tensor, tags0=(), middle=(), times=False):
        """sources -> stream_to_tensor -> middle... -> tensor_to_stream -> sinks."""
        tb = gr.top_block()
        back = blade.tensor_to_stream(shape)
        for port, samples in enumerate(streams):
            source = blocks.vector_source_c(samples.tolist(), False, 1, list(tags0) if port == 0 else [])
            tb.connect(source, (stream_to_tensor, port))
        chunk_sink = blocks.vector_sink_b(stream_to_tensor.item_size())
        if not middle:  # (a host output cannot feed a host block and a GPU block)
            tb.connect((stream_to_tensor, 0), chunk_sink)
        tb.connect((stream_to_tensor, 0), *middle, back)
        time_sink = None
        if times:
            time_sink = blocks.vector_sink_b(64)
            tb.connect((stream_to_tensor, 1), time_sink)
        sinks = [blocks.vector_sink_c() for _ in streams]
        for port, sink in enumerate(sinks):
            tb.connect((back, port), sink)
        return tb, chunk_sink, time_sink, sinks

    def test_round_trip_is_exact_and_chunks_follow_the_port_order(self):
        shape = [2, 3, 16, 2]
        A, F, T, P = shape
        nchunks = 5
        streams = self.streams(A * F * P, T * nchunks)
        tb, chunk_sink, _, sinks = self.build(shape, streams, blade.stream_to_tensor(shape, 1e6))
        tb.run()
        for port, sink in enumerate(sinks):
            self.assertTrue(bt.same_bits(numpy.array(sink.data(), numpy.complex64), streams[port]), f"port {port}")
        chunks = blade.unpack(numpy.array(chunk_sink.data(), numpy.uint8), shape, "cf32")
        self.assertEqual(chunks.shape, (nchunks, A, F, T, P))
        for k in range(nchunks):
            for a in range(A):
                for f in range(F):
                    for p in range(P):
                        numpy.testing.assert_array_equal(
                            chunks[k, a, f, :, p], streams[(a * F + f) * P + p, k * T : (k + 1) * T]
                        )

    def test_receiver_tags_become_chunk_tags_and_chunk_times(self):
        shape = [1, 1, 10, 2]
        T = 10
        streams = self.streams(2, 60)
        tags = [
            rx_time(0, 1700000000, 0.25),
            number_tag(0, "rx_freq", 1.42e9),
            rx_time(25, 1700000100, 0.5),  # inside chunk 2: dates chunks 3 on
            gr.tag_utils.python_to_tag((37, pmt.intern("note"), pmt.intern("hello"))),
            number_tag(40, "rx_rate", 2000.0),  # from chunk 4 on
        ]
        block = blade.stream_to_tensor(shape, 1000.0, 0, 0, 0, 0.1)
        tb, chunk_sink, time_sink, sinks = self.build(shape, streams, block, tags, times=True)
        tb.run()

        # Chunk starts worked out by hand: 1 ms samples, then 0.5 ms from sample 40.
        starts = [1700000000.25, 1700000000.26, 1700000000.27, 1700000100.505, 1700000100.515, 1700000100.520]
        tsamps = [1e-3] * 4 + [5e-4] * 2
        chunk_tags = chunk_sink.tags()
        got_start = tag_values(chunk_tags, blade.tag.time_start_unix)
        got_mid = tag_values(chunk_tags, blade.tag.time_mid_unix)
        got_jd = tag_values(chunk_tags, blade.tag.jd_start)
        got_jd_mid = tag_values(chunk_tags, blade.tag.jd_mid)
        self.assertEqual(sorted(got_start), list(range(6)))
        for k in range(6):
            mid = starts[k] + T * tsamps[k] / 2
            self.assertAlmostEqual(got_start[k], starts[k], delta=1e-6)
            self.assertAlmostEqual(got_mid[k], mid, delta=1e-6)
            self.assertAlmostEqual(got_jd[k], starts[k] / 86400 + JD_UNIX_EPOCH, delta=1e-9)
            self.assertAlmostEqual(got_jd_mid[k], mid / 86400 + JD_UNIX_EPOCH, delta=1e-9)
        self.assertEqual(tag_values(chunk_tags, blade.tag.tsamp), dict(enumerate(tsamps)))
        self.assertEqual(tag_values(chunk_tags, blade.tag.chan_bw), {k: 1 / tsamps[k] for k in range(6)})
        self.assertEqual(tag_values(chunk_tags, blade.tag.freq_first), {k: 1.42e9 for k in range(6)})
        self.assertEqual(tag_values(chunk_tags, blade.tag.dut1), {k: 0.1 for k in range(6)})
        self.assertEqual(tag_values(chunk_tags, "note"), {3: "hello"})  # sample 37 is in chunk 3
        self.assertEqual(tag_values(chunk_tags, "rx_time"), {})  # converted, not copied

        times = numpy.frombuffer(bytes(time_sink.data()), dtype=blade.CHUNK_TIME_DTYPE)
        self.assertEqual(len(times), 6)
        numpy.testing.assert_array_equal(times["step"], numpy.arange(6))
        numpy.testing.assert_array_equal(times["flags"], 0)
        numpy.testing.assert_array_equal(times["dut1"], 0.1)
        numpy.testing.assert_array_equal(times["tsamp"], tsamps)
        for k in range(6):
            self.assertEqual(times["unix_start"][k], got_start[k])  # the same numbers as the tags
            self.assertEqual(times["unix_mid"][k], got_mid[k])
            self.assertEqual(times["jd_start"][k], got_jd[k])
            self.assertEqual(times["jd_mid"][k], got_jd_mid[k])

        # ... and back to rx_* tags on every output port.
        for port, sink in enumerate(sinks):
            out_tags = sink.tags()
            rx = tag_values(out_tags, "rx_time")
            self.assertEqual(sorted(rx), [k * T for k in range(6)])
            for k in range(6):
                whole, fraction = rx[k * T]
                self.assertAlmostEqual(whole + fraction, starts[k], delta=1e-6)
                self.assertTrue(0 <= fraction < 1)
            self.assertEqual(tag_values(out_tags, "rx_rate"), {0: 1000.0, 40: 2000.0})
            self.assertEqual(tag_values(out_tags, "rx_freq"), {0: 1.42e9})
            self.assertEqual(tag_values(out_tags, "note"), {30: "hello"} if port == 0 else {})
            self.assertEqual(tag_values(out_tags, blade.tag.time_start_unix), {})

    def test_each_port_gets_its_channel_frequency(self):
        shape = [2, 3, 4, 1]
        streams = self.streams(6, 8)
        block = blade.stream_to_tensor(shape, 1000.0, 1.0e9, -250.0, 1700000000.0)
        tb, chunk_sink, _, sinks = self.build(shape, streams, block)
        tb.run()
        for a in range(2):
            for f in range(3):
                port = block.port(a, f, 0)
                self.assertEqual(port, a * 3 + f)
                self.assertEqual(tag_values(sinks[port].tags(), "rx_freq"), {0: 1.0e9 - 250.0 * f})
        starts = tag_values(chunk_sink.tags(), blade.tag.time_start_unix)
        self.assertEqual(starts, {0: 1700000000.0, 1: 1700000000.004})
        self.assertEqual(tag_values(chunk_sink.tags(), blade.tag.chan_bw), {0: -250.0, 1: -250.0})

    def test_without_frequency_no_freq_tag(self):
        shape = [1, 1, 4, 1]
        block = blade.stream_to_tensor(shape, 50.0, start_time=12.5)
        tb, chunk_sink, _, sinks = self.build(shape, self.streams(1, 8), block)
        tb.run()
        self.assertEqual(tag_values(chunk_sink.tags(), blade.tag.freq_first), {})
        starts = tag_values(chunk_sink.tags(), blade.tag.time_start_unix)
        self.assertEqual(sorted(starts), [0, 1])
        self.assertEqual(starts[0], 12.5)  # start_time, no rx_time tag
        self.assertAlmostEqual(starts[1], 12.58, delta=1e-12)  # + 4 samples at 50 Hz
        self.assertEqual(tag_values(chunk_sink.tags(), blade.tag.chan_bw), {0: 50.0, 1: 50.0})
        self.assertEqual(tag_values(sinks[0].tags(), "rx_freq"), {})
        rx = tag_values(sinks[0].tags(), "rx_time")
        self.assertEqual(rx[0], (12, 0.5))
        self.assertEqual(rx[4][0], 12)
        self.assertAlmostEqual(rx[4][1], 0.58, delta=1e-12)

    def test_a_gpu_block_between_the_adapters(self):
        # stream_to_tensor is a host block: the GPU block's buffer uploads each chunk,
        # and tensor_to_stream's input is downloaded by that block's buffer.
        shape = [2, 1, 32, 2]
        nchunks = 4
        streams = self.streams(4, 32 * nchunks)
        middle = [blade.permutation(shape, [0, 1, 2, 3], "cf32", "emulated")]
        tb, _, _, sinks = self.build(shape, streams, blade.stream_to_tensor(shape, 1e3), middle=middle)
        blade.reset_copy_stats()
        tb.run()
        for port, sink in enumerate(sinks):
            self.assertTrue(bt.same_bits(numpy.array(sink.data(), numpy.complex64), streams[port]))
        # every chunk uploaded once and downloaded once (the buffers copy whole work
        # calls, so count bytes)
        stats = blade.copy_stats()
        size = blade.item_size(shape, "cf32")
        self.assertEqual(
            (stats["host_to_device_bytes"], stats["device_to_host_bytes"]), (nchunks * size, nchunks * size)
        )
        self.assertEqual(stats["device_to_device"], 0)

    def test_a_different_tensor_downstream_is_refused_at_start(self):
        # [1, 1, 16, 2] and [1, 1, 8, 4] cf32 chunks have the same item size.
        blade.clear_failures()
        tb = gr.top_block()
        front = blade.stream_to_tensor([1, 1, 16, 2], 1e3)
        back = blade.tensor_to_stream([1, 1, 8, 4])
        for port in range(2):
            tb.connect(blocks.vector_source_c([0j] * 64), (front, port))
        tb.connect(front, back)
        for port in range(4):
            tb.connect((back, port), blocks.null_sink(gr.sizeof_gr_complex))
        tb.run()
        failures = blade.failures()
        self.assertEqual(len(failures), 1)
        self.assertIn("upstream produces cf32 [1, 1, 16, 2] but this block expects cf32 [1, 1, 8, 4]", failures[0])

    def test_properties(self):
        front = blade.stream_to_tensor([2, 3, 8, 2], 1e6)
        self.assertEqual(front.nstreams(), 12)
        self.assertEqual(front.port(1, 2, 1), 11)
        self.assertEqual(front.item_size(), 4096)
        self.assertEqual(front.decimation(), 8)
        back = blade.tensor_to_stream([2, 3, 8, 2])
        self.assertEqual(back.nstreams(), 12)
        self.assertEqual(back.port(0, 1, 1), 3)
        self.assertEqual(back.interpolation(), 8)

    def test_bad_configurations_are_refused_with_reasons(self):
        for make in (lambda s: blade.stream_to_tensor(s, 1e6), blade.tensor_to_stream):
            for shape, reason in (
                ([2, 1, 0, 2], "extent 0 on axis 2"),
                ([2, 16, 2], "rank 4"),
                ([1, 2, 3, 4, 5], "rank 4"),
                ([0, 1, 4, 1], "extent 0 on axis 0"),
            ):
                with self.subTest(shape=shape):
                    with self.assertRaises(ValueError) as caught:
                        make(shape)
                    self.assertIn(reason, str(caught.exception))
        for rate in (0.0, -1e6, float("nan"), float("inf")):
            with self.assertRaises(ValueError) as caught:
                blade.stream_to_tensor([1, 1, 4, 1], rate)
            self.assertIn("sample rate must be a positive number", str(caught.exception))
        with self.assertRaises(ValueError) as caught:
            blade.stream_to_tensor([1, 1, 4, 1], 1e6, float("nan"))
        self.assertIn("must be finite", str(caught.exception))

    def test_port_count_mismatch_is_refused(self):
        tb = gr.top_block()
        front = blade.stream_to_tensor([2, 1, 4, 2], 1e3)  # wants 4 streams
        for port in range(3):
            tb.connect(blocks.vector_source_c([0j] * 8), (front, port))
        tb.connect(front, blocks.null_sink(front.item_size()))
        with self.assertRaises(RuntimeError) as caught:
            tb.run()
        self.assertIn("4", str(caught.exception))

        tb = gr.top_block()
        back = blade.tensor_to_stream([2, 1, 4, 2])  # gives 4 streams
        tb.connect(blocks.vector_source_b([0] * 4096, False, 4096), back)
        for port in range(3):
            tb.connect((back, port), blocks.null_sink(gr.sizeof_gr_complex))
        with self.assertRaises(RuntimeError) as caught:
            tb.run()
        self.assertIn("4", str(caught.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_stream_adapters)
