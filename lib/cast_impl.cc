/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "cast_impl.h"
#include <gnuradio/io_signature.h>

#include <cmath>
#include <stdexcept>

namespace gr {
namespace blade {

cast::sptr cast::make(const std::vector<int64_t>& shape,
                      const std::string& input_type,
                      const std::string& output_type,
                      const std::string& device,
                      double scale)
{
    if (!(scale > 0) || !std::isfinite(scale))
        throw std::invalid_argument("blade.cast scale: " + std::to_string(scale) +
                                    " (a finite factor above 0; 1 for none)");
    const blade_shape extents = parse_shape(shape, "blade.cast shape");
    const tensor_spec input(parse_dtype(input_type, "blade.cast input_type"), extents);
    const tensor_spec output(parse_dtype(output_type, "blade.cast output_type"), extents);
    return gnuradio::make_block_sptr<cast_impl>(
        input, output, device, resolve_device(device, "cast"), static_cast<float>(scale));
}

cast_impl::cast_impl(const tensor_spec& input,
                     const tensor_spec& output,
                     const std::string& requested_device,
                     const blade_device& device,
                     float scale)
    : gr::sync_block("cast",
                     device_signature(device, 1, input.item_size()),
                     device_signature(device, 1, output.item_size())),
      device_block("cast", requested_device, device)
{
    set_port_specs({ input }, { output });
    const blade_cast_config config = { input.dtype, output.dtype, scale };
    check(blade_cast_create(&d_cast, &config, &input.shape, blade_device_id()), "configuration");
    log_device_choice(d_logger);
}

cast_impl::~cast_impl() { blade_cast_destroy(d_cast); }

bool cast_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

int cast_impl::work(int noutput_items,
                    gr_vector_const_void_star& input_items,
                    gr_vector_void_star& output_items)
{
    return process_chunks(d_logger,
                          noutput_items,
                          input_items,
                          output_items,
                          "cast",
                          [this](const blade_tensor& in, blade_tensor& out) {
                              return blade_cast_process(d_cast, &in, &out, stream());
                          });
}

} // namespace blade
} // namespace gr
