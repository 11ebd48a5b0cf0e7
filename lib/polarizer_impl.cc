/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "polarizer_impl.h"
#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

polarizer::sptr polarizer::make(const std::vector<int64_t>& shape,
                                const std::string& device,
                                const std::string& output_basis,
                                const std::string& dtype)
{
    if (dtype != "cf32" && dtype != "cf16")
        throw std::invalid_argument("blade.polarizer dtype: '" + dtype +
                                    "' (the polarizer reads and writes cf32 or cf16)");
    const tensor_spec chunk(parse_dtype(dtype, "blade.polarizer dtype"),
                            parse_shape(shape, "blade.polarizer shape"));
    blade_basis basis;
    if (blade_basis_parse(output_basis.c_str(), &basis) != BLADE_OK)
        throw std::invalid_argument(std::string("blade.polarizer output_basis: ") +
                                    blade_last_error());
    return gnuradio::make_block_sptr<polarizer_impl>(
        chunk, basis, device, resolve_device(device, "polarizer"));
}

polarizer_impl::polarizer_impl(const tensor_spec& chunk,
                               blade_basis output_basis,
                               const std::string& requested_device,
                               const blade_device& device)
    : gr::sync_block("polarizer",
                     device_signature(device, 1, chunk.item_size()),
                     device_signature(device, 1, chunk.item_size())),
      device_block("polarizer", requested_device, device),
      d_output_basis(output_basis)
{
    set_port_specs({ chunk }, { chunk });
    const blade_polarizer_config config = { output_basis };
    check(blade_polarizer_create(&d_polarizer, &config, &chunk.shape, blade_device_id()),
          "configuration");
    log_device_choice(d_logger);
}

polarizer_impl::~polarizer_impl() { blade_polarizer_destroy(d_polarizer); }

bool polarizer_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

int polarizer_impl::work(int noutput_items,
                         gr_vector_const_void_star& input_items,
                         gr_vector_void_star& output_items)
{
    return process_chunks(d_logger,
                          noutput_items,
                          input_items,
                          output_items,
                          "polarizer",
                          [this](const blade_tensor& in, blade_tensor& out) {
                              return blade_polarizer_process(d_polarizer, &in, &out, stream());
                          });
}

} // namespace blade
} // namespace gr
