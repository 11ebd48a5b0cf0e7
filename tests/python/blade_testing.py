# SPDX-License-Identifier: MIT
"""
Helpers for the gr-blade block tests: numpy references of element types written
from the spec, random chunk generators, and flowgraph runners.
"""

import os
import sys

import numpy
from gnuradio import blocks, gr

from gnuradio import blade

COMPLEX_TYPES = ["ci4", "ci8", "ci16", "cf16", "cf32"]
REAL_TYPES = ["f16", "f32", "f64"]


def require_gpu():
    """Exit with 77 (ctest: skipped) when no CUDA GPU is present."""
    if not blade.gpus():
        print("no CUDA GPU: skipped")
        sys.exit(77)


# --- element types as numpy values -------------------------------------------


def _sign_extend_nibble(nibble):
    nibble = nibble.astype(numpy.int16)
    return numpy.where(nibble >= 8, nibble - 16, nibble)


def to_values(array, dtype):
    """A packed gr-blade array (see blade.unpack) as complex128 or float64 values."""
    if dtype == "ci4":
        return _sign_extend_nibble(array >> 4) + 1j * _sign_extend_nibble(array & 0xF)
    if dtype in ("ci8", "ci16", "cf16"):
        values = numpy.empty(array.shape[:-1], numpy.complex128)
        values.real = array[..., 0]
        values.imag = array[..., 1]  # (x + 1j*nan would spoil the real part)
        return values
    if dtype in ("cf32", "cf64"):
        return array.astype(numpy.complex128)
    return array.astype(numpy.float64)


def _round_saturate(values, low, high):
    out = numpy.rint(numpy.nan_to_num(values, nan=0.0, posinf=high, neginf=low))
    return numpy.clip(out, low, high)


CANONICAL_NAN = {numpy.float16: 0x7E00, numpy.float32: 0x7FC00000, numpy.float64: 0x7FF8000000000000}


def _float(values, scalar):
    """values.astype(scalar) with every NaN the canonical quiet NaN (the spec's rule)."""
    out = numpy.asarray(values).astype(scalar)
    bits = out.view({numpy.float16: numpy.uint16, numpy.float32: numpy.uint32, numpy.float64: numpy.uint64}[scalar])
    bits[numpy.isnan(out)] = CANONICAL_NAN[scalar]
    return out


def from_values(values, dtype):
    """Values -> packed array of `dtype`: round to nearest even, saturate integers."""
    if dtype == "ci4":
        re = _round_saturate(values.real, -8, 7).astype(numpy.int16)
        im = _round_saturate(values.imag, -8, 7).astype(numpy.int16)
        return (((re & 0xF) << 4) | (im & 0xF)).astype(numpy.uint8)
    if dtype == "ci8":
        return numpy.stack(
            [_round_saturate(values.real, -128, 127), _round_saturate(values.imag, -128, 127)], -1
        ).astype(numpy.int8)
    if dtype == "ci16":
        return numpy.stack(
            [_round_saturate(values.real, -32768, 32767), _round_saturate(values.imag, -32768, 32767)],
            -1,
        ).astype(numpy.int16)
    if dtype == "cf16":
        return numpy.stack([_float(values.real, numpy.float16), _float(values.imag, numpy.float16)], -1)
    if dtype == "cf32":
        out = numpy.empty(values.shape, numpy.complex64)
        out.real = _float(values.real, numpy.float32)
        out.imag = _float(values.imag, numpy.float32)
        return out
    return _float(values, {"f16": numpy.float16, "f32": numpy.float32, "f64": numpy.float64}[dtype])


SPECIAL_FLOATS = numpy.array(
    [0.5, 1.5, 2.5, -0.5, -2.5, 127.5, -128.5, 300.0, -1e5, 7.5, -8.5, 65504.0, 70000.0,
     6e-8, 1e-6, -0.0, 0.0, numpy.nan, numpy.inf, -numpy.inf]
)


def random_chunks(rng, dtype, nchunks, shape):
    """Random packed chunks [nchunks, *shape(, 2)] covering the type's edge values."""
    full = (nchunks,) + tuple(shape)
    if dtype == "ci4":
        return rng.integers(0, 256, size=full, dtype=numpy.uint8)
    if dtype == "ci8":
        return rng.integers(-128, 128, size=full + (2,), dtype=numpy.int8)
    if dtype == "ci16":
        return rng.integers(-32768, 32768, size=full + (2,), dtype=numpy.int16)
    if dtype in ("cf16", "f16"):
        bits = rng.integers(0, 65536, size=full + ((2,) if dtype == "cf16" else ()), dtype=numpy.uint16)
        return bits.view(numpy.float16)
    values = rng.uniform(-200, 200, size=full) + (1j * rng.uniform(-200, 200, size=full) if dtype.startswith("c") else 0)
    flat = values.reshape(-1)
    picks = rng.integers(0, len(SPECIAL_FLOATS), size=flat.size // 5 + 1)
    flat[::5] = SPECIAL_FLOATS[picks[: len(flat[::5])]] * (1 + 1j if dtype.startswith("c") else 1)
    return from_values(values, dtype)


def same_bits(a, b):
    """Exact equality of two arrays' bytes (NaN payloads included)."""
    return a.shape == b.shape and a.tobytes() == b.tobytes()


# --- flowgraphs ----------------------------------------------------------------


def run_blocks(chain, items, in_item_size, out_item_size, tags=()):
    """Feed `items` (bytes) through connected `chain` blocks; return (bytes, tags)."""
    tb = gr.top_block()
    source = blocks.vector_source_b(numpy.asarray(items, numpy.uint8).tolist(), False, in_item_size, list(tags))
    sink = blocks.vector_sink_b(out_item_size)
    tb.connect(source, *chain, sink)
    tb.run()
    return numpy.array(sink.data(), dtype=numpy.uint8), sink.tags()


def run_chunks(chain, chunks, shape_in, dtype_in, shape_out, dtype_out, tags=()):
    """Pack numpy chunks, run them through `chain`, unpack the output chunks."""
    data, out_tags = run_blocks(
        chain,
        blade.pack(chunks, dtype_in),
        blade.item_size(list(shape_in), dtype_in),
        blade.item_size(list(shape_out), dtype_out),
        tags,
    )
    return blade.unpack(data, shape_out, dtype_out), out_tags


def run_graph(block, inputs, output_item_sizes, tags=None):
    """
    Run one block with several input ports and output ports.

    `inputs` is a list of (bytes, item_size) per input port; `tags` an optional
    list (per input port) of tag lists. Returns [(bytes, tags)] per output port.
    """
    tb = gr.top_block()
    for port, (data, item_size) in enumerate(inputs):
        port_tags = list(tags[port]) if tags else []
        source = blocks.vector_source_b(numpy.asarray(data, numpy.uint8).tolist(), False, item_size, port_tags)
        tb.connect(source, (block, port))
    sinks = []
    for port, item_size in enumerate(output_item_sizes):
        sink = blocks.vector_sink_b(item_size)
        tb.connect((block, port), sink)
        sinks.append(sink)
    tb.run()
    return [(numpy.array(sink.data(), dtype=numpy.uint8), sink.tags()) for sink in sinks]


def chunk_time_items(times):
    """Bytes of chunk_time items from a list of dicts (missing fields are zero)."""
    items = numpy.zeros(len(times), dtype=blade.CHUNK_TIME_DTYPE)
    for i, fields in enumerate(times):
        for name, value in fields.items():
            items[i][name] = value
    return items.view(numpy.uint8)


def run_chain_files(chain, data, in_item_size, out_item_size, ports=(0,)):
    """
    Like run_blocks, through files rather than Python lists, for chunks of hundreds
    of MB: source -> chain... -> one file sink per entry of `ports` (output ports of
    the last block; repeat a port to give it several host readers). Returns one
    uint8 array per sink.
    """
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        source_path = os.path.join(folder, "in.bin")
        numpy.asarray(data, numpy.uint8).tofile(source_path)
        tb = gr.top_block()
        source = blocks.file_source(in_item_size, source_path, False)
        tb.connect(source, *chain)
        sinks = []
        for i, port in enumerate(ports):
            path = os.path.join(folder, f"out{i}.bin")
            sink = blocks.file_sink(out_item_size, path, False)
            sink.set_unbuffered(False)
            tb.connect((chain[-1], port), sink)
            sinks.append((sink, path))
        tb.run()
        outputs = []
        for sink, path in sinks:
            sink.close()
            outputs.append(numpy.fromfile(path, numpy.uint8))
        return outputs
