/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DUPLICATE_IMPL_H
#define INCLUDED_BLADE_DUPLICATE_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/duplicate.h>

namespace gr {
namespace blade {

class duplicate_impl : public duplicate, public device_block
{
public:
    duplicate_impl(const tensor_spec& spec,
                   int copies,
                   const std::string& requested_device,
                   const blade_device& device);
    ~duplicate_impl() override;

    std::string device() const override { return device_name(); }
    int copies() const override { return d_copies; }
    size_t item_size() const override { return input_spec(0).item_size(); }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    int d_copies;
    blade_duplicate* d_duplicate = nullptr;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DUPLICATE_IMPL_H */
