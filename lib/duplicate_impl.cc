/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "duplicate_impl.h"
#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

duplicate::sptr duplicate::make(const std::vector<int64_t>& shape,
                                const std::string& dtype,
                                int copies,
                                const std::string& device)
{
    const tensor_spec spec(parse_dtype(dtype, "blade.duplicate dtype"),
                           parse_shape(shape, "blade.duplicate shape"));
    if (copies < 1 || copies > BLADE_DUPLICATE_MAX_COPIES)
        throw std::invalid_argument("blade.duplicate: copies must be 1 to " +
                                    std::to_string(BLADE_DUPLICATE_MAX_COPIES) + ", got " +
                                    std::to_string(copies));
    return gnuradio::make_block_sptr<duplicate_impl>(
        spec, copies, device, resolve_device(device, "duplicate"));
}

duplicate_impl::duplicate_impl(const tensor_spec& spec,
                               int copies,
                               const std::string& requested_device,
                               const blade_device& device)
    : gr::sync_block("duplicate",
                     device_signature(device, 1, spec.item_size()),
                     device_signature(device, copies, spec.item_size())),
      device_block("duplicate", requested_device, device),
      d_copies(copies)
{
    set_port_specs({ spec }, std::vector<tensor_spec>(copies, spec));
    const blade_duplicate_config config = { spec.dtype, copies };
    check(blade_duplicate_create(&d_duplicate, &config, &spec.shape, blade_device_id()),
          "configuration");
    log_device_choice(d_logger);
}

duplicate_impl::~duplicate_impl() { blade_duplicate_destroy(d_duplicate); }

bool duplicate_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

int duplicate_impl::work(int noutput_items,
                         gr_vector_const_void_star& input_items,
                         gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        const auto* in = static_cast<const char*>(input_items[0]);
        const size_t size = item_size();
        std::vector<blade_tensor> outputs(d_copies);
        for (int i = 0; i < noutput_items; i++) {
            const blade_tensor input = tensor(input_spec(0), in + i * size);
            for (int c = 0; c < d_copies; c++)
                outputs[c] = tensor(output_spec(c), static_cast<char*>(output_items[c]) + i * size);
            check(blade_duplicate_process(d_duplicate, &input, outputs.data(), d_copies, stream()),
                  "duplicate");
        }
        synchronize();
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
