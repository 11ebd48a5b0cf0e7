/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_sink_impl.h"

#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

device_sink::sptr device_sink::make(size_t item_size, const std::string& device)
{
    if (item_size == 0)
        throw std::invalid_argument("blade.device_sink item_size: 0 (give the upstream block's "
                                    "output item size in bytes)");
    return gnuradio::make_block_sptr<device_sink_impl>(
        item_size, device, resolve_device(device, "device_sink"));
}

device_sink_impl::device_sink_impl(size_t item_size,
                                   const std::string& requested_device,
                                   const blade_device& device)
    : gr::sync_block(
          "device_sink", device_signature(device, 1, item_size), gr::io_signature::make(0, 0, 0)),
      device_block("device_sink", requested_device, device)
{
    log_device_choice(d_logger);
}

bool device_sink_impl::start()
{
    d_received = 0;
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

int device_sink_impl::work(int noutput_items,
                           gr_vector_const_void_star& /*input_items*/,
                           gr_vector_void_star& /*output_items*/)
{
    // The chunks are ready: a gr-blade writer synchronizes its stream before it
    // returns its items, and an upload from a host writer is waited for by
    // guarded_work(). Nothing to copy.
    return guarded_work(d_logger, [&]() {
        d_received += static_cast<uint64_t>(noutput_items);
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
