/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_BEAMFORMER_IMPL_H
#define INCLUDED_BLADE_BEAMFORMER_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/beamformer.h>

#include <memory>

namespace gr {
namespace blade {

/*! A core plan that destroys itself. */
using beamformer_plan = std::unique_ptr<blade_beamformer, decltype(&blade_beamformer_destroy)>;

class beamformer_impl : public beamformer, public device_block
{
public:
    // make() creates the plan (which validates every argument) before the block, so
    // that the io signature can be built from the plan's output shape.
    beamformer_impl(beamformer_plan plan,
                    const tensor_spec& voltages,
                    const tensor_spec& phasors,
                    const tensor_spec& beams,
                    const std::string& requested_device,
                    const blade_device& device);

    std::string path() const override;
    int64_t beams() const override { return blade_beamformer_beams(d_plan.get()); }
    size_t phasor_item_size() const override { return input_spec(1).item_size(); }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    beamformer_plan d_plan;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_BEAMFORMER_IMPL_H */
