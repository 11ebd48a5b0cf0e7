/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_POLARIZER_IMPL_H
#define INCLUDED_BLADE_POLARIZER_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/polarizer.h>

namespace gr {
namespace blade {

class polarizer_impl : public polarizer, public device_block
{
public:
    polarizer_impl(const tensor_spec& chunk,
                   blade_basis output_basis,
                   const std::string& requested_device,
                   const blade_device& device);
    ~polarizer_impl() override;

    std::string output_basis() const override { return blade_basis_name(d_output_basis); }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    blade_basis d_output_basis;
    blade_polarizer* d_polarizer = nullptr;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_POLARIZER_IMPL_H */
