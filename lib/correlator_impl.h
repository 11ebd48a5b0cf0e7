/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CORRELATOR_IMPL_H
#define INCLUDED_BLADE_CORRELATOR_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/correlator.h>
#include <blade/modules/correlator.h>

namespace gr {
namespace blade {

class correlator_impl : public correlator, public device_block
{
public:
    correlator_impl(const tensor_spec& input,
                    const tensor_spec& output,
                    const blade_correlator_config& config,
                    int64_t steps,
                    const std::string& requested_device,
                    const blade_device& device);
    ~correlator_impl() override;

    int64_t integration() const override { return d_config.integration; }
    int64_t channel_integration() const override { return d_config.channel_integration; }
    int64_t chunks_per_output() const override { return d_steps; }
    std::string path() const override;
    int64_t baselines() const override { return output_spec(0).shape.dims[0]; }

    bool start() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void keep_group_tags(uint64_t item);

    blade_correlator_config d_config;
    int64_t d_steps;
    blade_correlator* d_correlator = nullptr;
    std::vector<gr::tag_t> d_group_tags; // the open group's first-chunk tags, rewritten
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CORRELATOR_IMPL_H */
