// SPDX-License-Identifier: MIT
// Uses the installed blocks from C++: a flowgraph source -> blade::cast -> sink.
#include <gnuradio/blade/cast.h>
#include <gnuradio/blade/runtime.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/top_block.h>

#include <cstdio>
#include <cstring>

int main()
{
    const std::vector<int64_t> shape{ 2, 3, 4, 2 };
    const size_t in_size = gr::blade::item_size(shape, "ci8");
    const size_t out_size = gr::blade::item_size(shape, "cf32");
    std::vector<unsigned char> data(2 * in_size, 0);
    for (size_t i = 0; i < 48; i++) // the first 24 samples of chunk 0
        data[i] = static_cast<unsigned char>(static_cast<signed char>(i - 24));
    auto tb = gr::make_top_block("consumer");
    auto source = gr::blocks::vector_source_b::make(data, false, in_size);
    auto cast = gr::blade::cast::make(shape, "ci8", "cf32", "cpu");
    auto sink = gr::blocks::vector_sink_b::make(out_size);
    tb->connect(source, 0, cast, 0);
    tb->connect(cast, 0, sink, 0);
    tb->run();
    const auto& out = sink->data();
    if (out.size() != 2 * out_size)
        return 1;
    float first[2];
    std::memcpy(first, out.data(), sizeof first);
    if (first[0] != -24.0f || first[1] != -23.0f)
        return 1;
    std::printf("gnuradio-blade %s: flowgraph OK\n", gr::blade::version().c_str());
    return 0;
}
