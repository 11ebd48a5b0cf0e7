/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DEVICE_SOURCE_IMPL_H
#define INCLUDED_BLADE_DEVICE_SOURCE_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/device_source.h>

#include <set>

namespace gr {
namespace blade {

class device_source_impl : public device_source, public device_block
{
public:
    device_source_impl(const tensor_spec& spec,
                       int64_t chunks,
                       std::vector<uint8_t> pattern,
                       const std::string& requested_device,
                       const blade_device& device,
                       bool refill);
    ~device_source_impl() override;

    std::string device() const override { return device_name(); }
    size_t output_item_size() const override { return output_spec(0).item_size(); }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    std::vector<uint8_t> d_pattern; // K items, host copy until start() uploads it
    int64_t d_limit;
    int64_t d_emitted = 0;
    char* d_ring = nullptr; // K items in device memory
    int64_t d_ring_items = 0;
    bool d_refill;
    std::set<char*> d_filled; // output slots already written (refill false)
};

} // namespace blade
} // namespace gr

#endif
