/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "stream_chunk.h"
#include "tensor_to_stream_impl.h"

#include <gnuradio/blade/metadata.h>

#include <cmath>
#include <cstring>

namespace gr {
namespace blade {

namespace {

// Keys turned into rx_* tags, or dropped because rx_time says the same.
bool is_converted(const pmt::pmt_t& key)
{
    for (const char* name : { tag::time_start_unix,
                              tag::time_mid_unix,
                              tag::jd_start,
                              tag::jd_mid,
                              tag::tsamp,
                              tag::freq_first,
                              tag::chan_bw })
        if (pmt::eq(key, pmt::intern(name)))
            return true;
    return false;
}

} // namespace

tensor_to_stream::sptr tensor_to_stream::make(const std::vector<int64_t>& shape)
{
    return gnuradio::make_block_sptr<tensor_to_stream_impl>(
        stream_chunk_spec(shape, "blade.tensor_to_stream"));
}

tensor_to_stream_impl::tensor_to_stream_impl(const tensor_spec& chunk)
    : gr::sync_interpolator("tensor_to_stream",
                            gr::io_signature::make(1, 1, static_cast<int>(chunk.item_size())),
                            stream_signature(chunk),
                            static_cast<unsigned>(chunk.shape.dims[2])),
      device_block("tensor_to_stream", "cpu", blade_device_cpu()),
      d_nstreams(stream_count(chunk)),
      d_samples(chunk.shape.dims[2]),
      d_streams(d_nstreams)
{
    set_port_specs({ chunk }, {}); // upstream gr-blade blocks must produce this chunk
    set_tag_propagation_policy(TPP_DONT);
}

int tensor_to_stream_impl::port(int64_t a, int64_t f, int64_t p) const
{
    return static_cast<int>(blade_stream_port(&input_spec(0).shape, a, f, p));
}

bool tensor_to_stream_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_interpolator::start();
}

void tensor_to_stream_impl::tag_every_port(uint64_t sample,
                                           const pmt::pmt_t& key,
                                           const pmt::pmt_t& value)
{
    for (int s = 0; s < d_nstreams; s++)
        add_item_tag(s, sample, key, value);
}

void tensor_to_stream_impl::convert_chunk_tags(const std::vector<gr::tag_t>& tags, uint64_t chunk)
{
    const uint64_t sample = chunk * static_cast<uint64_t>(d_samples);
    for (const gr::tag_t& t : tags) {
        if (t.offset != chunk)
            continue;
        const bool number = pmt::is_real(t.value);
        if (pmt::eq(t.key, pmt::intern(tag::time_start_unix)) && number) {
            const double seconds = pmt::to_double(t.value);
            const double whole = std::floor(seconds);
            tag_every_port(sample,
                           rx_time_key(),
                           pmt::make_tuple(pmt::from_uint64(static_cast<uint64_t>(whole)),
                                           pmt::from_double(seconds - whole)));
        } else if (pmt::eq(t.key, pmt::intern(tag::tsamp)) && number) {
            const double tsamp = pmt::to_double(t.value);
            if (tsamp > 0 && tsamp != d_tsamp)
                tag_every_port(sample, rx_rate_key(), pmt::from_double(1.0 / tsamp));
            d_tsamp = tsamp;
        } else if (pmt::eq(t.key, pmt::intern(tag::freq_first)) && number) {
            d_freq_first = pmt::to_double(t.value);
            d_have_freq = true;
        } else if (pmt::eq(t.key, pmt::intern(tag::chan_bw)) && number) {
            d_chan_bw = pmt::to_double(t.value);
        } else if (!is_converted(t.key)) {
            add_item_tag(0, sample, t.key, t.value, t.srcid);
        }
    }
    // rx_freq of each port: the centre of its channel f.
    if (!d_have_freq)
        return;
    const blade_shape& shape = input_spec(0).shape;
    std::vector<double> freqs(shape.dims[1]);
    for (int64_t f = 0; f < shape.dims[1]; f++)
        freqs[f] = d_freq_first + static_cast<double>(f) * d_chan_bw;
    if (freqs == d_sent_freqs)
        return;
    for (int64_t a = 0; a < shape.dims[0]; a++)
        for (int64_t f = 0; f < shape.dims[1]; f++)
            for (int64_t p = 0; p < shape.dims[3]; p++)
                add_item_tag(port(a, f, p), sample, rx_freq_key(), pmt::from_double(freqs[f]));
    d_sent_freqs = freqs;
}

int tensor_to_stream_impl::work(int noutput_items,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        const auto* in = static_cast<const char*>(input_items[0]);
        const size_t size = item_size();
        const int chunks = noutput_items / static_cast<int>(d_samples);
        const uint64_t first_chunk = nitems_read(0);
        std::vector<gr::tag_t> tags;
        get_tags_in_range(tags, 0, first_chunk, first_chunk + chunks);
        for (int i = 0; i < chunks; i++) {
            for (int s = 0; s < d_nstreams; s++)
                d_streams[s] = static_cast<gr_complex*>(output_items[s]) + i * d_samples;
            check(blade_chunk_to_streams(
                      in + i * size, &input_spec(0).shape, d_streams.data(), d_nstreams),
                  "unpacking");
            convert_chunk_tags(tags, first_chunk + i);
        }
        return chunks * static_cast<int>(d_samples);
    });
}

} // namespace blade
} // namespace gr
