/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "chunk_group_tags.h"
#include "gather_impl.h"

#include <gnuradio/blade/metadata.h>
#include <gnuradio/io_signature.h>

#include <limits>
#include <stdexcept>

namespace gr {
namespace blade {

gather::sptr gather::make(const std::vector<int64_t>& shape,
                          int axis,
                          int64_t multiplier,
                          const std::string& dtype,
                          const std::string& device)
{
    const blade_shape extents = parse_shape(shape, "blade.gather shape");
    const blade_gather_config config = { parse_dtype(dtype, "blade.gather dtype"),
                                         axis,
                                         multiplier };
    // Validate with the core first: the output shape and the decimation must be
    // known before the block exists.
    blade_gather* probe = nullptr;
    throw_on_error(blade_gather_create(&probe, &config, &extents, blade_device_cpu()),
                   "blade.gather");
    const tensor_spec output(config.dtype, blade_gather_output_shape(probe));
    blade_gather_destroy(probe);
    if (multiplier > std::numeric_limits<int>::max())
        throw std::invalid_argument("blade.gather: multiplier " + std::to_string(multiplier) +
                                    " is larger than GNU Radio's decimation allows");
    output.item_size(); // throws for an item GNU Radio cannot hold
    return gnuradio::make_block_sptr<gather_impl>(tensor_spec(config.dtype, extents),
                                                  output,
                                                  config,
                                                  device,
                                                  resolve_device(device, "gather"));
}

gather_impl::gather_impl(const tensor_spec& input,
                         const tensor_spec& output,
                         const blade_gather_config& config,
                         const std::string& requested_device,
                         const blade_device& device)
    : gr::sync_decimator("gather",
                         device_signature(device, 1, input.item_size()),
                         device_signature(device, 1, output.item_size()),
                         static_cast<unsigned>(config.multiplier)),
      device_block("gather", requested_device, device),
      d_config(config)
{
    set_port_specs({ input }, { output });
    check(blade_gather_create(&d_gather, &config, &input.shape, blade_device_id()),
          "configuration");
    set_tag_propagation_policy(TPP_DONT); // a group keeps only its first chunk's tags
    log_device_choice(d_logger);
}

gather_impl::~gather_impl() { blade_gather_destroy(d_gather); }

bool gather_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_decimator::start();
}

void gather_impl::forward_tags(int noutput_items)
{
    const uint64_t first = nitems_read(0);
    const uint64_t group = static_cast<uint64_t>(d_config.multiplier);
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first, first + static_cast<uint64_t>(noutput_items) * group);
    const blade_shape& shape = input_spec(0).shape;
    const bool along_time = shape.rank == 4 && d_config.axis == 2;
    const int64_t steps = d_config.multiplier;
    for (const auto& tag : first_chunk_tags(tags, group, [&](std::vector<gr::tag_t>& chunk) {
             const auto tsamp = find_double(chunk, tag::tsamp);
             if (along_time && tsamp && steps > 1)
                 shift_mid_times(chunk, (steps - 1) * shape.dims[2] * *tsamp / 2);
             rewrite_stage_tags(chunk, alias_pmt(), d_logger); // a channelizer in place
         }))
        add_item_tag(0, tag);
}

int gather_impl::work(int noutput_items,
                      gr_vector_const_void_star& input_items,
                      gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        const auto* in = static_cast<const char*>(input_items[0]);
        auto* out = static_cast<char*>(output_items[0]);
        const size_t in_size = input_item_size(), out_size = output_item_size();
        const int64_t steps = d_config.multiplier;
        for (int o = 0; o < noutput_items; o++) {
            blade_tensor output = tensor(produced_output_spec(), out + o * out_size);
            for (int64_t step = 0; step < steps; step++) {
                const blade_tensor input = tensor(input_spec(0), in + (o * steps + step) * in_size);
                check(blade_gather_process(d_gather, &input, step, &output, stream()), "gather");
            }
            run_in_place_stages(output.data); // a channelizer, in Mode BH
        }
        synchronize();
        forward_tags(noutput_items);
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
