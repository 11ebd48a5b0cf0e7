/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DOWNLOAD_IMPL_H
#define INCLUDED_BLADE_DOWNLOAD_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/download.h>

namespace gr {
namespace blade {

class download_impl : public download, public device_block
{
public:
    download_impl(const tensor_spec& spec,
                  const std::string& requested_device,
                  const blade_device& device);
    ~download_impl() override;

    std::string device() const override { return device_name(); }
    size_t item_size() const override { return input_spec(0).item_size(); }

    bool start() override;
    bool stop() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void find_input_memory();
    void pin_output_buffer();
    void unpin_output_buffer();

    void* d_pinned = nullptr;      // the output buffer, while page-locked
    bool d_input_on_device = true; // false after a host block (see find_input_memory)
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DOWNLOAD_IMPL_H */
