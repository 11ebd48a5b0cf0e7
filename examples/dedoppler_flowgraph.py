#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
A dedoppler search in a flowgraph: spectra -> blade.dedoppler -> blade.hits_sink.

    /usr/bin/python3 examples/dedoppler_flowgraph.py [FILE.fil|FILE.h5] [--nfpc N] [--output DIR]

The spectra of a filterbank file (without one: a synthetic spectrogram of 64
spectra x 4 coarse channels x 4096 fine channels with four drifting tones) go to the
dedoppler block as detector-shaped chunks [1, F, 4, 1], as a live Mode B or Mode H
detector would deliver them; every 16 spectra a window is searched and its hits are
printed and written by the hits sink as turbo_seti .dat tables and CSV.
"""
import argparse
import math
import os
import tempfile

import numpy
import pmt
from gnuradio import blocks, gr

from gnuradio import blade

parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
parser.add_argument("file", nargs="?", help="a 32-bit .fil or .h5 file (one IF is searched)")
parser.add_argument("--nfpc", type=int, default=0, help="fine channels per coarse channel")
parser.add_argument("--window", type=int, default=16, help="spectra per search window")
parser.add_argument("--output", default=os.path.join(tempfile.gettempdir(), "gr-blade-examples"))
parser.add_argument("--device", default="auto")
args = parser.parse_args()

if args.file:
    header, data = blade.filterbank.read(args.file)
    data = data[:, 0, :]
    foff_hz, tsamp, fch1, mjd = header["foff"] * 1e6, header["tsamp"], header["fch1"], header["tstart"]
    nfpc = args.nfpc or int(header.get("nfpc", 0) or data.shape[1])
else:
    foff_hz, tsamp, fch1, mjd, nfpc = 2.7939677238464355, 18.253611008, 1400.0, 60000.0, 4096
    data = numpy.random.default_rng(1).normal(100.0, 1.0, (64, 4 * nfpc)).astype(numpy.float32)
    for channel, rate in ((1000, 0.5), (6000, -1.2), (9000, 2.5), (14000, 0.0)):
        for t in range(data.shape[0]):
            data[t, channel + round(rate * tsamp / foff_hz * (t % args.window))] += 5.0

chunk = 4
spectra = data.shape[0] // chunk * chunk
shape = [1, data.shape[1], chunk, 1]
chunks = data[:spectra].reshape(spectra // chunk, chunk, 1, data.shape[1]).transpose(0, 2, 3, 1)[..., None]

search = blade.dedoppler(shape, args.window, foff_hz, tsamp, nfpc, fch1_mhz=fch1, tstart_mjd=mjd, device=args.device)
stem = os.path.join(args.output, "dedoppler_flowgraph")
sink = blade.hits_sink(
    stem,
    foff_hz,
    tsamp,
    nfpc,
    args.window,
    fch1_mhz=fch1,
    tstart_mjd=mjd,
    window=search.window(),
    padded_spectra=search.padded_spectra(),
)
printer = blocks.message_debug()
tb = gr.top_block()
source = blocks.vector_source_b(
    blade.pack(numpy.ascontiguousarray(chunks), "f32").tolist(), False, blade.item_size(shape, "f32")
)
tb.connect(source, search)
tb.msg_connect(search, "hits", sink, "hits")
tb.msg_connect(search, "hits", printer, "store")
tb.run()

for i in range(printer.num_messages()):
    m = pmt.to_python(printer.get_message(i))
    if "beam" in m:
        print(f"window {m['window']}: {m['frequency']:.6f} MHz, {m['drift_rate']:+.4f} Hz/s, SNR {m['snr']:.1f}")
observed = search.windows() * args.window * tsamp
factor = observed / search.search_seconds() if search.search_seconds() else math.inf
print(
    f"{search.hits()} hits in {search.windows()} windows; searched in {search.search_seconds():.3f} s "
    f"(real-time factor {factor:.0f})"
)
print("tables:", ", ".join(sink.files()))
