/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "channelizer_impl.h"
#include <gnuradio/blade/metadata.h>
#include <gnuradio/io_signature.h>

#include <cmath>
#include <map>
#include <stdexcept>

namespace gr {
namespace blade {

channelizer::sptr channelizer::make(const std::vector<int64_t>& shape,
                                    int64_t rate,
                                    const std::string& device,
                                    int taps,
                                    const std::string& window,
                                    const std::string& dtype)
{
    if (dtype != "cf32" && dtype != "cf16")
        throw std::invalid_argument("blade.channelizer dtype: '" + dtype +
                                    "' (the channelizer reads and writes cf32 or cf16)");
    const tensor_spec input(parse_dtype(dtype, "blade.channelizer dtype"),
                            parse_shape(shape, "blade.channelizer shape"));
    blade_channelizer_config config = {
        input.dtype, input.dtype, rate, taps, BLADE_WINDOW_HAMMING
    };
    throw_on_error(blade_channelizer_window_parse(window.c_str(), &config.window),
                   "blade.channelizer window");
    return gnuradio::make_block_sptr<channelizer_impl>(
        input, config, device, resolve_device(device, "channelizer"));
}

channelizer_impl::channelizer_impl(const tensor_spec& input,
                                   const blade_channelizer_config& config,
                                   const std::string& requested_device,
                                   const blade_device& device,
                                   const std::optional<tensor_spec>& arriving,
                                   double scale)
    : gr::sync_block("channelizer",
                     device_signature(device, 1, arriving.value_or(input).item_size()),
                     device_signature(device, 1, input.item_size())),
      device_block("channelizer", requested_device, device),
      d_config(config),
      d_coarse(input),
      d_fine_tags(config.rate)
{
    check(blade_channelizer_create(&d_channelizer, &d_config, &input.shape, blade_device_id()),
          "configuration");
    const tensor_spec output(input.dtype, blade_channelizer_output_shape(d_channelizer));
    if (arriving) {
        if (input.shape.rank != 4 || input.shape.dims[2] != d_config.rate)
            throw std::invalid_argument("blade.channelizer: a cast folded in needs one spectrum "
                                        "per chunk (T = N) to channelize in place; got " +
                                        input.str() + ", N = " + std::to_string(d_config.rate));
        const blade_cast_config cast = { arriving->dtype, input.dtype, static_cast<float>(scale) };
        check(blade_cast_create(&d_cast, &cast, &input.shape, blade_device_id()),
              "cast configuration");
    }
    set_port_specs({ arriving.value_or(input) }, { output });
    set_tag_propagation_policy(TPP_DONT); // forward_tags() rewrites and copies them
    log_device_choice(d_logger);
}

channelizer_impl::~channelizer_impl()
{
    blade_channelizer_destroy(d_channelizer);
    blade_cast_destroy(d_cast);
}

std::vector<double> channelizer_impl::prototype() const
{
    std::vector<double> taps(static_cast<size_t>(d_config.taps * d_config.rate));
    check(blade_channelizer_prototype(d_config.rate, d_config.taps, d_config.window, taps.data()),
          "prototype");
    return taps;
}

bool channelizer_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

int channelizer_impl::work(int noutput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    const int done =
        process_chunks(d_logger,
                       noutput_items,
                       input_items,
                       output_items,
                       "channelizer",
                       [this](const blade_tensor& in, blade_tensor& out) {
                           if (d_cast == nullptr)
                               return blade_channelizer_process(d_channelizer, &in, &out, stream());
                           // the cast into this block's own chunk, channelized there
                           blade_tensor coarse = tensor(d_coarse, out.data);
                           const blade_status cast =
                               blade_cast_process(d_cast, &in, &coarse, stream());
                           if (cast != BLADE_OK)
                               return cast;
                           return blade_channelizer_process(d_channelizer, &coarse, &out, stream());
                       });
    if (done > 0)
        forward_tags(done);
    return done;
}

void channelizer_impl::forward_tags(int nitems)
{
    const uint64_t first_in = nitems_read(0), first_out = nitems_written(0);
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first_in, first_in + static_cast<uint64_t>(nitems));
    std::map<uint64_t, std::vector<gr::tag_t>> by_chunk;
    for (auto& tag : tags) {
        tag.offset = tag.offset - first_in + first_out;
        by_chunk[tag.offset].push_back(tag);
    }
    for (auto& [offset, chunk_tags] : by_chunk) {
        d_fine_tags.rewrite(chunk_tags, alias_pmt(), d_logger);
        for (const auto& t : chunk_tags)
            add_item_tag(0, t);
    }
}

} // namespace blade
} // namespace gr
