/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_STREAM_TO_TENSOR_IMPL_H
#define INCLUDED_BLADE_STREAM_TO_TENSOR_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/metadata.h>
#include <gnuradio/blade/stream_to_tensor.h>

namespace gr {
namespace blade {

class stream_to_tensor_impl : public stream_to_tensor, public device_block
{
public:
    stream_to_tensor_impl(const tensor_spec& chunk,
                          const blade_sample_clock& clock,
                          double freq_first,
                          double chan_bw,
                          double dut1);

    int nstreams() const override { return d_nstreams; }
    size_t item_size() const override { return output_spec(0).item_size(); }
    int port(int64_t a, int64_t f, int64_t p) const override;

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    /* Apply an rx_time, rx_rate or rx_freq tag; false for any other key. */
    bool apply_receiver_tag(const gr::tag_t& tag);
    /* Apply a receiver tag, or move any other tag to the chunk holding its sample. */
    void take_tag(const gr::tag_t& tag);
    void tag_chunk(uint64_t item, const blade_chunk_times& times);

    int d_nstreams;
    int64_t d_samples; // T
    blade_sample_clock d_clock;
    double d_freq_first;
    bool d_freq_known;
    double d_chan_bw; // 0: follows the sample rate
    double d_dut1;
    std::vector<const void*> d_streams;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_STREAM_TO_TENSOR_IMPL_H */
