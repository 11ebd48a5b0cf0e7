/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DEVICE_SINK_IMPL_H
#define INCLUDED_BLADE_DEVICE_SINK_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/device_sink.h>

#include <atomic>

namespace gr {
namespace blade {

class device_sink_impl : public device_sink, public device_block
{
public:
    device_sink_impl(size_t item_size,
                     const std::string& requested_device,
                     const blade_device& device);

    std::string device() const override { return device_name(); }
    uint64_t chunks_received() const override { return d_received.load(); }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    std::atomic<uint64_t> d_received{ 0 };
};

} // namespace blade
} // namespace gr

#endif
