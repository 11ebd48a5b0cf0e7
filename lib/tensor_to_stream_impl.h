/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_TENSOR_TO_STREAM_IMPL_H
#define INCLUDED_BLADE_TENSOR_TO_STREAM_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/tensor_to_stream.h>

namespace gr {
namespace blade {

class tensor_to_stream_impl : public tensor_to_stream, public device_block
{
public:
    explicit tensor_to_stream_impl(const tensor_spec& chunk);

    int nstreams() const override { return d_nstreams; }
    size_t item_size() const override { return input_spec(0).item_size(); }
    int port(int64_t a, int64_t f, int64_t p) const override;

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void tag_every_port(uint64_t sample, const pmt::pmt_t& key, const pmt::pmt_t& value);
    void convert_chunk_tags(const std::vector<gr::tag_t>& tags, uint64_t chunk);

    int d_nstreams;
    int64_t d_samples; // T
    std::vector<void*> d_streams;
    // From the chunk tags so far, and what was last sent as rx_rate / rx_freq (sent
    // again only when they change).
    double d_tsamp = 0;
    double d_freq_first = 0, d_chan_bw = 0;
    bool d_have_freq = false;
    std::vector<double> d_sent_freqs; // per channel f; empty before the first
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_TENSOR_TO_STREAM_IMPL_H */
