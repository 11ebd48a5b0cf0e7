/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CHANNEL_SPLIT_IMPL_H
#define INCLUDED_BLADE_CHANNEL_SPLIT_IMPL_H

#include "device_block.h"
#include "subband_ports.h"
#include <gnuradio/blade/channel_split.h>

namespace gr {
namespace blade {

class channel_split_impl : public channel_split, public device_block
{
public:
    explicit channel_split_impl(const subband_plan& plan);

    int64_t parts() const override { return d_plan.parts; }
    std::vector<int64_t> output_shape() const override
    {
        return shape_to_vector(output_spec(0).shape);
    }
    size_t input_item_size() const override { return input_spec(0).item_size(); }
    size_t output_item_size() const override { return output_spec(0).item_size(); }
    std::vector<std::string> devices() const override
    {
        return device_names(d_plan.devices, d_plan.parts);
    }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void copy_tags(int noutput_items);

    subband_plan d_plan;
    device_streams d_streams;
    subband_axis d_axis;
    blade_device d_input_memory = {};
    std::vector<blade_device> d_output_memory;
};

} // namespace blade
} // namespace gr

#endif
