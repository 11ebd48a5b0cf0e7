/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_PERMUTATION_IMPL_H
#define INCLUDED_BLADE_PERMUTATION_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/permutation.h>

namespace gr {
namespace blade {

class permutation_impl : public permutation, public device_block
{
public:
    permutation_impl(const tensor_spec& input,
                     const std::vector<int>& axes,
                     const std::string& requested_device,
                     const blade_device& device,
                     blade_permutation* plan);
    ~permutation_impl() override;

    std::vector<int> axes() const override { return d_axes; }
    bool is_identity() const override { return blade_permutation_is_identity(d_plan); }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    std::vector<int> d_axes;
    blade_permutation* d_plan;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_PERMUTATION_IMPL_H */
