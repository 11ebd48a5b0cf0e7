/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CAST_IMPL_H
#define INCLUDED_BLADE_CAST_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/cast.h>

namespace gr {
namespace blade {

class cast_impl : public cast, public device_block
{
public:
    cast_impl(const tensor_spec& input,
              const tensor_spec& output,
              const std::string& requested_device,
              const blade_device& device,
              float scale);
    ~cast_impl() override;


    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    blade_cast* d_cast = nullptr;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CAST_IMPL_H */
