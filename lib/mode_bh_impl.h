/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_BH_IMPL_H
#define INCLUDED_BLADE_MODE_BH_IMPL_H

#include "mode_b_impl.h"
#include <gnuradio/blade/mode_bh.h>

namespace gr {
namespace blade {

class mode_bh_impl : public mode_bh
{
public:
    mode_bh_impl(const beamforming_options& options,
                 int64_t gather,
                 int64_t channelizer_rate,
                 int taps,
                 const std::string& window,
                 const std::string& detector,
                 int64_t integration,
                 const std::string& device);

    std::vector<int64_t> output_shape() const override { return d_output.shape; }
    size_t input_item_size() const override
    {
        return bundle_item_size(d_options.shape, d_options.input_type);
    }
    size_t output_item_size() const override { return bundle_item_size(d_output.shape, "f32"); }
    int64_t chunks_per_output() const override { return d_output.chunks_per_item; }
    int64_t beams() const override { return d_beams; }
    std::string device() const override { return d_device; }

private:
    beamforming_options d_options;
    std::string d_device;
    chain_end d_output;
    int64_t d_beams = 0;
};

} // namespace blade
} // namespace gr

#endif
