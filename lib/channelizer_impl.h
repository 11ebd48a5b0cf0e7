/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CHANNELIZER_IMPL_H
#define INCLUDED_BLADE_CHANNELIZER_IMPL_H

#include "device_block.h"
#include "fine_channel_tags.h"
#include <gnuradio/blade/channelizer.h>

#include <optional>

namespace gr {
namespace blade {

class channelizer_impl : public channelizer, public device_block
{
public:
    /*!
     * `input`: the chunks channelized. With `arriving` (a bundle's cast folded in:
     * ci8 chunks of the same shape, say), the block receives those instead, casts
     * each to `input`'s type times `scale` into its own output chunk and channelizes
     * it there in place: cast and channelizer in one block and one device buffer
     * instead of two. That needs one spectrum per chunk (T = N), the channelizer's
     * in-place condition (include/blade/modules/channelizer.h).
     */
    channelizer_impl(const tensor_spec& input,
                     const blade_channelizer_config& config,
                     const std::string& requested_device,
                     const blade_device& device,
                     const std::optional<tensor_spec>& arriving = std::nullopt,
                     double scale = 1.0);
    ~channelizer_impl() override;

    int64_t rate() const override { return d_config.rate; }
    int taps() const override { return d_config.taps; }
    std::string window() const override { return blade_channelizer_window_name(d_config.window); }
    std::vector<double> prototype() const override;

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    // Copy the tags of the items just consumed to the items produced, with the
    // frequency and time axis rewritten for the fine channels.
    void forward_tags(int nitems);

    blade_channelizer_config d_config;
    blade_channelizer* d_channelizer = nullptr;
    blade_cast* d_cast = nullptr; // the cast folded in front, or none
    tensor_spec d_coarse;         // a chunk before channelizing (the cast's output)
    fine_channel_tags d_fine_tags;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CHANNELIZER_IMPL_H */
