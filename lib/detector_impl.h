/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DETECTOR_IMPL_H
#define INCLUDED_BLADE_DETECTOR_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/detector.h>

namespace gr {
namespace blade {

class detector_impl : public detector, public device_block
{
public:
    detector_impl(const tensor_spec& input,
                  const tensor_spec& output,
                  const blade_detector_config& config,
                  int64_t steps,
                  const std::string& requested_device,
                  const blade_device& device);
    ~detector_impl() override;

    std::string mode() const override { return blade_detector_mode_name(d_config.mode); }
    int64_t integration() const override { return d_config.integration; }
    int64_t chunks_per_output() const override { return d_steps; }

    bool start() override;
    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    void apply_sideband(uint64_t item);
    void keep_group_tags(uint64_t item);

    blade_detector_config d_config;
    int64_t d_steps;
    blade_detector* d_detector = nullptr;
    std::vector<gr::tag_t> d_group_tags; // the open group's first-chunk tags, rewritten
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DETECTOR_IMPL_H */
