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
    [
        0.5,
        1.5,
        2.5,
        -0.5,
        -2.5,
        127.5,
        -128.5,
        300.0,
        -1e5,
        7.5,
        -8.5,
        65504.0,
        70000.0,
        6e-8,
        1e-6,
        -0.0,
        0.0,
        numpy.nan,
        numpy.inf,
        -numpy.inf,
    ]
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
    values = rng.uniform(-200, 200, size=full) + (
        1j * rng.uniform(-200, 200, size=full) if dtype.startswith("c") else 0
    )
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


# --- array geometry (phasor, beamformer and demo tests) --------------------------

WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563


def geodetic_to_ecef(lon, lat, alt):
    """WGS84 geodetic (rad, rad, m) -> ECEF metres, the textbook formula."""
    e2 = WGS84_F * (2 - WGS84_F)
    n = WGS84_A / numpy.sqrt(1 - e2 * numpy.sin(lat) ** 2)
    return numpy.array(
        [
            (n + alt) * numpy.cos(lat) * numpy.cos(lon),
            (n + alt) * numpy.cos(lat) * numpy.sin(lon),
            (n * (1 - e2) + alt) * numpy.sin(lat),
        ]
    )


def enu_to_ecef_rotation(lon, lat):
    """Matrix whose columns are the local east, north, up unit vectors in ECEF."""
    sl, cl, sp, cp = numpy.sin(lon), numpy.cos(lon), numpy.sin(lat), numpy.cos(lat)
    return numpy.array([[-sl, -sp * cl, cp * cl], [cl, -sp * sl, cp * sl], [0.0, cp, sp]])


def _array(name, lon_deg, lat_deg, alt, enu, ra, dec):
    lon, lat = numpy.radians(lon_deg), numpy.radians(lat_deg)
    enu = numpy.asarray(enu, numpy.float64)
    positions = geodetic_to_ecef(lon, lat, alt) + enu @ enu_to_ecef_rotation(lon, lat).T
    return {"name": name, "reference": (lon, lat, alt), "enu": enu, "positions": positions, "ra": ra, "dec": dec}


def ata_like_array(antennas=12, seed=7):
    """Hat Creek-like reference, antennas within ~300 m (ECEF positions [A, 3])."""
    rng = numpy.random.default_rng(seed)
    enu = numpy.column_stack(
        [rng.uniform(-150, 150, antennas), rng.uniform(-150, 150, antennas), rng.uniform(-3, 3, antennas)]
    )
    return _array("ata", -121.4733, 40.8173, 1019.2, enu, ra=1.4596, dec=0.3842)


def meerkat_like_array(antennas=16, seed=11):
    """Karoo-like reference, a dense core plus arms out to ~8 km."""
    rng = numpy.random.default_rng(seed)
    radius = numpy.concatenate([rng.uniform(20, 500, antennas - 4), [2000.0, 4000.0, 6000.0, 8000.0]])
    angle = rng.uniform(0, 2 * numpy.pi, antennas)
    enu = numpy.column_stack([radius * numpy.cos(angle), radius * numpy.sin(angle), rng.uniform(-20, 20, antennas)])
    return _array("meerkat", 21.4430, -30.7130, 1038.0, enu, ra=4.6487, dec=-0.5059)


def run_graph_chain(first, rest, items, in_item_size, out_item_size):
    """source -> first -> *rest -> sink; returns [(bytes, tags)] like run_graph."""
    tb = gr.top_block()
    source = blocks.vector_source_b(numpy.asarray(items, numpy.uint8).tolist(), False, in_item_size)
    sink = blocks.vector_sink_b(out_item_size)
    tb.connect(source, first, *rest, sink)
    tb.run()
    return [(numpy.array(sink.data(), dtype=numpy.uint8), sink.tags())]


# --- beamformer references (spec: modules.md, Beamformer) -----------------------


def random_complex(rng, shape, scale=1.0):
    """complex64 values with normal real and imaginary parts."""
    return (scale * (rng.normal(size=shape) + 1j * rng.normal(size=shape))).astype(numpy.complex64)


def broadcast_phasors(phasors, antennas, channels, pols):
    """Phasor chunks [n, B, A, F, 1, P] or [n, B, A] (one weight per beam and antenna)
    as complex128 [n, B, A, F, P]."""
    w = numpy.asarray(phasors, numpy.complex128)
    if w.ndim == 3:
        return numpy.broadcast_to(w[:, :, :, None, None], w.shape + (channels, pols))
    return w[:, :, :, :, 0, :]


def beamform_reference(voltages, phasors, incoherent=False, incoherent_sqrt=False):
    """
    y[b, f, t, p] = sum_a x[a, f, t, p] w[b, a, f, 0, p] for chunks x [n, A, F, T, P] and
    w [n, B, A, F, 1, P] (or [n, B, A]), in complex128; with the incoherent beam
    sum_a |w[0, a, f, 0, p]|^2 |x|^2 (or its square root) appended as aspect B.
    """
    x = numpy.asarray(voltages, numpy.complex128)
    n, A, F, T, P = x.shape
    w = broadcast_phasors(phasors, A, F, P)
    beams = numpy.einsum("nafTp,nbafp->nbfTp", x, w)
    if not incoherent:
        return beams
    power = numpy.einsum("nafTp,nafp->nfTp", numpy.abs(x) ** 2, numpy.abs(w[:, 0]) ** 2)
    if incoherent_sqrt:
        power = numpy.sqrt(power)
    return numpy.concatenate([beams, power[:, None].astype(numpy.complex128)], axis=1)


def beamform_magnitude(voltages, phasors, incoherent=False):
    """sum_a |x||w| for every output element: the scale of its rounding errors (a plain
    relative tolerance fails where the coherent sum cancels)."""
    x = numpy.abs(numpy.asarray(voltages, numpy.complex128))
    n, A, F, T, P = x.shape
    w = numpy.abs(broadcast_phasors(phasors, A, F, P))
    scale = numpy.einsum("nafTp,nbafp->nbfTp", x, w)
    if incoherent:
        power = numpy.einsum("nafTp,nafp->nfTp", x**2, w[:, 0] ** 2)
        scale = numpy.concatenate([scale, power[:, None]], axis=1)
    return scale


def beamformer_error(got, voltages, phasors, incoherent=False, incoherent_sqrt=False):
    """|got - reference| / sum_a |x||w| per element (for the incoherent beam: relative
    to its own value)."""
    expected = beamform_reference(voltages, phasors, incoherent, incoherent_sqrt)
    scale = beamform_magnitude(voltages, phasors, incoherent)
    if incoherent and incoherent_sqrt:
        scale[:, -1] = numpy.sqrt(scale[:, -1])
    return numpy.abs(numpy.asarray(got, numpy.complex128) - expected) / numpy.maximum(scale, 1e-30)


def run_beamformer(block, voltages, phasors, input_type="cf32", output_type="cf32", voltage_tags=(), phasor_tags=()):
    """Run `block` (two input ports) on voltage and phasor chunks; return (beams, tags)."""
    shape = list(block.output_shape())
    ((data, tags),) = run_graph(
        block,
        [
            (blade.pack(voltages, input_type), block.input_item_size()),
            (blade.pack(phasors, "cf32"), block.phasor_item_size()),
        ],
        [block.output_item_size()],
        [list(voltage_tags), list(phasor_tags)],
    )
    return blade.unpack(data, shape, output_type), tags


def run_chain_into_beamformer(chain, block, voltages, phasors, input_type="cf32"):
    """
    voltages -> chain blocks -> block port 0, phasors (from the host) -> block port 1.
    Returns (beams as cf32 chunks, blade.copy_stats() of the run).
    """
    tb = gr.top_block()
    first = chain[0] if chain else block
    vsource = blocks.vector_source_b(blade.pack(voltages, input_type).tolist(), False, first.input_item_size())
    psource = blocks.vector_source_b(blade.pack(phasors, "cf32").tolist(), False, block.phasor_item_size())
    sink = blocks.vector_sink_b(block.output_item_size())
    tb.connect(vsource, *chain, (block, 0))
    tb.connect(psource, (block, 1))
    tb.connect(block, sink)
    blade.reset_copy_stats()
    tb.run()
    return blade.unpack(sink.data(), block.output_shape(), "cf32"), blade.copy_stats()


def coarse_channel_centres(obsfreq, chan_bw, nchan, first, count):
    """Centres (Hz) of recorded channels first .. first + count - 1 (formats.md:
    f_c = OBSFREQ + (c - (NCHAN - 1) / 2) * CHAN_BW)."""
    return obsfreq + (first + numpy.arange(count) - (nchan - 1) / 2) * chan_bw


# --- third-party readers in their own virtual environments ----------------------
# tools/make-reader-venvs creates BUILD/reader-venvs/{blimpy,sigpyproc}; tests that
# need one skip (with the reason) where it is missing.


def reader_venv_python(name):
    """The python of reader venv `name` ("blimpy" also has your), or None."""
    roots = [os.environ.get("BLADE_READER_VENVS", "")]
    roots.append(os.path.join(os.path.dirname(__file__), "..", "..", "build", "reader-venvs"))
    for root in roots:
        python = os.path.join(root, name, "bin", "python")
        if root and os.access(python, os.X_OK):
            return python
    return None


def run_in_reader_venv(testcase, name, script, *args):
    """
    Run `script` (Python source) with `args` in reader venv `name` and return what it
    printed as JSON. Skips the test when the venv is missing.
    """
    import json
    import subprocess

    python = reader_venv_python(name)
    if python is None:
        testcase.skipTest(f"reader venv '{name}' missing: run tools/make-reader-venvs")
    result = subprocess.run(
        [python, "-c", script, *[str(a) for a in args]],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH="", MPLBACKEND="Agg"),
    )
    if result.returncode != 0:
        raise AssertionError(f"{name} reader failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


# --- tests that write files ------------------------------------------------------


class FileTestCase:
    """
    Mix-in for gr_unittest.TestCase suites that write files: a fresh temporary
    folder per test (self.dir, self.path(name)), removed afterwards; a seeded
    random generator (self.rng); blade.failures() cleared.
    """

    seed = 0

    def setUp(self):
        import tempfile

        self.dir = tempfile.mkdtemp(prefix=type(self).__name__)
        self.rng = numpy.random.default_rng(self.seed)
        blade.clear_failures()

    def tearDown(self):
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)


# --- tags and large chunks (polarizer, detector, gather) ------------------------


def blade_tags(offset, **fields):
    """Stream tags on item `offset` with blade metadata keys given by short name
    (tsamp=..., time_mid_unix=...; see blade.tag_keys()); floats become doubles."""
    import pmt

    keys = blade.tag_keys()
    tags = []
    for name, value in fields.items():
        if isinstance(value, str):
            pmt_value = pmt.intern(value)
        elif isinstance(value, int):
            pmt_value = pmt.from_long(value)
        else:
            pmt_value = pmt.from_double(float(value))
        tags.append(gr.tag_utils.python_to_tag((offset, pmt.intern(keys[name]), pmt_value)))
    return tags


def tags_by_offset(tags):
    """Received tags as {offset: {key: python value}}."""
    import pmt

    out = {}
    for tag in tags:
        out.setdefault(tag.offset, {})[pmt.symbol_to_string(tag.key)] = pmt.to_python(tag.value)
    return out


def run_chunks_through_files(chain, chunks, shape_in, dtype_in, shape_out, dtype_out):
    """
    Like run_chunks, for large chunks: the items travel through temporary files
    (file_source / file_sink) instead of Python lists. No tags. `shape_in` None:
    the shape of the chunks.
    """
    import tempfile

    if shape_in is None:
        shape_in = chunks.shape[1:-1] if blade.DTYPES[dtype_in][1] > 1 else chunks.shape[1:]
    with tempfile.TemporaryDirectory() as folder:
        source_path, sink_path = os.path.join(folder, "in"), os.path.join(folder, "out")
        blade.pack(chunks, dtype_in).tofile(source_path)
        tb = gr.top_block()
        source = blocks.file_source(blade.item_size(list(shape_in), dtype_in), source_path, False)
        sink = blocks.file_sink(blade.item_size(list(shape_out), dtype_out), sink_path)
        sink.set_unbuffered(False)
        tb.connect(source, *chain, sink)
        tb.run()
        sink.close()
        return blade.unpack(numpy.fromfile(sink_path, dtype=numpy.uint8), shape_out, dtype_out)


def run_chunks_via_files(chain, chunks, dtype_in, shape_out, dtype_out):
    """run_chunks_through_files() with the input shape taken from the chunks."""
    return run_chunks_through_files(chain, chunks, None, dtype_in, shape_out, dtype_out)


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


# --- sub-bands (channel split and merge) ------------------------------------------


def run_split_merge(chunks, shape, dtype, parts, devices=()):
    """
    Chunks through blade.channel_split and blade.channel_merge (sub-band n on
    devices[n]); returns (the merged chunks, blade.copy_stats() of the run).
    """
    tb = gr.top_block()
    source = blocks.vector_source_b(blade.pack(chunks, dtype).tolist(), False, blade.item_size(shape, dtype))
    split = blade.channel_split(shape, dtype, parts, list(devices))
    merge = blade.channel_merge(shape, dtype, parts, list(devices))
    sink = blocks.vector_sink_b(blade.item_size(shape, dtype))
    tb.connect(source, split)
    for n in range(parts):
        tb.connect((split, n), (merge, n))
    tb.connect(merge, sink)
    blade.reset_copy_stats()
    tb.run()
    stats = blade.copy_stats()
    return blade.unpack(numpy.array(sink.data(), numpy.uint8), shape, dtype), stats


def run_cli_main(*argv):
    """blade-cli in this process: (exit status, stdout, stderr)."""
    import contextlib
    import io

    from gnuradio.blade import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exit:  # argparse
            code = exit.code
    return code, out.getvalue(), err.getvalue()
