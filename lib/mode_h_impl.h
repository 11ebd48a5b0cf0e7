/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_H_IMPL_H
#define INCLUDED_BLADE_MODE_H_IMPL_H

#include "bundle_chain.h"
#include <gnuradio/blade/mode_h.h>

namespace gr {
namespace blade {

class mode_h_impl : public mode_h
{
public:
    mode_h_impl(const std::vector<int64_t>& shape,
                const std::string& input_type,
                int64_t channelizer_rate,
                int taps,
                const std::string& window,
                bool circular,
                const std::string& detector,
                int64_t integration,
                const std::string& device);

    std::vector<int64_t> output_shape() const override { return d_output.shape; }
    size_t input_item_size() const override { return bundle_item_size(d_input_shape, d_input_type); }
    size_t output_item_size() const override { return bundle_item_size(d_output.shape, "f32"); }
    int64_t chunks_per_output() const override { return d_output.chunks_per_item; }
    std::string device() const override { return d_device; }

private:
    std::vector<int64_t> d_input_shape;
    std::string d_input_type;
    std::string d_device;
    chain_end d_output;
};

} // namespace blade
} // namespace gr

#endif
