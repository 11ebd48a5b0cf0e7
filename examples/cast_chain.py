#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""
A Python flowgraph with gr-blade blocks: synthetic ci8 voltage chunks are cast to
cf32 and back on the best device available, and the round trip is checked.

    /usr/bin/python3 examples/cast_chain.py [--device cpu|cuda|auto]
"""
import argparse

import numpy
from gnuradio import blocks, gr

from gnuradio import blade

parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
parser.add_argument("--device", default="auto")
args = parser.parse_args()

shape = [4, 8, 256, 2]  # [antennas, channels, time samples, polarizations]
rng = numpy.random.default_rng(1)
chunks = rng.integers(-128, 128, size=(10, *shape, 2), dtype=numpy.int8)

tb = gr.top_block()
source = blocks.vector_source_b(blade.pack(chunks, "ci8").tolist(), False, blade.item_size(shape, "ci8"))
to_float = blade.cast(shape, "ci8", "cf32", args.device)
to_int = blade.cast(shape, "cf32", "ci8", args.device)
sink = blocks.vector_sink_b(blade.item_size(shape, "ci8"))
tb.connect(source, to_float, to_int, sink)
tb.run()

result = blade.unpack(sink.data(), shape, "ci8")
print(
    f"{len(result)} chunks of ci8 {shape} through 2 casts on {to_float.device()}: "
    f"{'identical' if numpy.array_equal(result, chunks) else 'DIFFERENT'}"
)
