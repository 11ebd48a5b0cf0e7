/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "chunk_group_tags.h"
#include "detector_impl.h"

#include <gnuradio/blade/metadata.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gr {
namespace blade {

detector::sptr detector::make(const std::vector<int64_t>& shape,
                              const std::string& mode,
                              int64_t integration,
                              const std::string& device,
                              const std::string& input_type,
                              double scale)
{
    if (!(scale > 0) || !std::isfinite(scale))
        throw std::invalid_argument("blade.detector scale: " + std::to_string(scale) +
                                    " (a finite factor above 0; 1 for none)");
    if (input_type != "cf32" && input_type != "cf16")
        throw std::invalid_argument("blade.detector input_type: '" + input_type +
                                    "' (the detector reads cf32 or cf16 voltages)");
    const tensor_spec input(parse_dtype(input_type, "blade.detector input_type"),
                            parse_shape(shape, "blade.detector shape"));
    blade_detector_config config = {};
    if (blade_detector_mode_parse(mode.c_str(), &config.mode) != BLADE_OK)
        throw std::invalid_argument(std::string("blade.detector mode: ") + blade_last_error());
    config.integration = integration;
    config.scale = static_cast<float>(scale);
    const probed_decimation probed = probe_decimation(blade_detector_create,
                                                      blade_detector_destroy,
                                                      blade_detector_output_shape,
                                                      blade_detector_steps,
                                                      config,
                                                      input.shape,
                                                      BLADE_F32,
                                                      integration,
                                                      "blade.detector");
    return gnuradio::make_block_sptr<detector_impl>(input,
                                                    probed.output,
                                                    config,
                                                    probed.chunks_per_output,
                                                    device,
                                                    resolve_device(device, "detector"));
}

detector_impl::detector_impl(const tensor_spec& input,
                             const tensor_spec& output,
                             const blade_detector_config& config,
                             int64_t steps,
                             const std::string& requested_device,
                             const blade_device& device)
    : gr::block("detector",
                device_signature(device, 1, input.item_size()),
                device_signature(device, 1, output.item_size())),
      device_block("detector", requested_device, device),
      d_config(config),
      d_steps(steps)
{
    set_port_specs({ input }, { output });
    check(blade_detector_create(&d_detector, &config, &input.shape, blade_device_id()),
          "configuration");
    // Tags are forwarded by hand: tsamp changes, and a group keeps only its first
    // chunk's tags.
    set_tag_propagation_policy(TPP_DONT);
    log_device_choice(d_logger);
}

detector_impl::~detector_impl() { blade_detector_destroy(d_detector); }

bool detector_impl::start()
{
    blade_detector_reset(d_detector); // a restarted flowgraph begins a new group
    d_group_tags.clear();
    check_neighbours_at_start(*this, d_logger);
    return gr::block::start();
}

// One chunk at a time, whatever the group: no relative rate is declared either, so
// GNU Radio sizes the upstream buffer for one chunk per call (two chunks), not for
// whole groups.
void detector_impl::forecast(int /* noutput_items */, gr_vector_int& ninput_items_required)
{
    ninput_items_required[0] = 1;
}

// Which sideband the chunk at `item` is of, from its channel width: a lower
// sideband's voltages are the sky's conjugates (the sign of Im(X·Y*)).
void detector_impl::apply_sideband(uint64_t item)
{
    static const pmt::pmt_t chan_bw = pmt::intern(tag::chan_bw);
    std::vector<gr::tag_t> widths;
    get_tags_in_range(widths, 0, item, item + 1, chan_bw);
    if (const auto lower = lower_sideband_of(widths))
        blade_detector_set_lower_sideband(d_detector, *lower);
}

// A group's first chunk: its tags go to the group's output chunk, tsamp times I and,
// for K > 1, the mid-chunk times moved to the middle of the group (first_chunk_tags
// maps input item g K to output item g).
void detector_impl::keep_group_tags(uint64_t item)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, item, item + 1);
    const int64_t samples = input_spec(0).shape.dims[2];
    const double integration = static_cast<double>(d_config.integration);
    const int64_t steps = d_steps;
    d_group_tags = first_chunk_tags(tags, d_steps, [&](std::vector<gr::tag_t>& chunk) {
        const auto tsamp = find_double(chunk, tag::tsamp);
        if (tsamp && steps > 1) // the output spans K chunks: its middle moves
            shift_mid_times(chunk, (steps - 1) * samples * *tsamp / 2);
        scale_double(chunk, tag::tsamp, integration);
    });
}

int detector_impl::general_work(int noutput_items,
                                gr_vector_int& ninput_items,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        const auto* in = static_cast<const char*>(input_items[0]);
        auto* out = static_cast<char*>(output_items[0]);
        const size_t in_size = input_item_size(), out_size = output_item_size();
        // Each chunk adds to the group's sums; the group's last one writes the output
        // (blade_detector_process writes nothing before it, so every chunk of a group
        // may name the slot the output will take when the group completes).
        const auto [consumed, produced] = run_chunk_groups(
            nitems_read(0),
            d_steps,
            ninput_items[0],
            noutput_items,
            [&](uint64_t item, int chunk, int slot, bool first) {
                apply_sideband(item);
                if (first)
                    keep_group_tags(item);
                blade_tensor output = tensor(output_spec(0), out + slot * out_size);
                const blade_tensor input = tensor(input_spec(0), in + chunk * in_size);
                check(blade_detector_process(d_detector, &input, &output, stream()), "detector");
            },
            [&]() {
                for (const auto& tag : d_group_tags)
                    add_item_tag(0, tag);
                d_group_tags.clear();
            });
        synchronize();
        consume_each(consumed);
        return produced;
    });
}

} // namespace blade
} // namespace gr
