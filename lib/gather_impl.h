/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_GATHER_IMPL_H
#define INCLUDED_BLADE_GATHER_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/gather.h>

namespace gr {
namespace blade {

class gather_impl : public gather, public device_block
{
public:
    gather_impl(const tensor_spec& input,
                const tensor_spec& output,
                const blade_gather_config& config,
                const std::string& requested_device,
                const blade_device& device);
    ~gather_impl() override;

    int axis() const override { return d_config.axis; }
    int64_t multiplier() const override { return d_config.multiplier; }

    //! forward_tags() applies the in-place stages' tag rewrites (Mode BH's channelizer)
    bool rewrites_stage_tags() const override { return true; }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void forward_tags(int noutput_items);

    blade_gather_config d_config;
    blade_gather* d_gather = nullptr;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_GATHER_IMPL_H */
