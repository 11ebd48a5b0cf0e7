/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "chunk_group_tags.h"
#include "correlator_impl.h"

#include <gnuradio/blade/metadata.h>
#include <gnuradio/io_signature.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gr {
namespace blade {

correlator::sptr correlator::make(const std::vector<int64_t>& shape,
                                  const std::string& input_type,
                                  int64_t integration,
                                  int64_t channel_integration,
                                  const std::string& path,
                                  const std::string& device,
                                  float operand_scale)
{
    blade_correlator_config config = blade_correlator_config_default();
    config.input_type = parse_dtype(input_type, "blade.correlator input_type");
    config.integration = integration;
    config.channel_integration = channel_integration;
    config.operand_scale = operand_scale;
    if (blade_correlator_path_parse(path.c_str(), &config.path) != BLADE_OK)
        throw std::invalid_argument(std::string("blade.correlator path: ") + blade_last_error());
    const tensor_spec input(config.input_type, parse_shape(shape, "blade.correlator shape"));
    // The probe runs on the CPU, so with the path the CPU takes (the GPU-only checks
    // come from the block's own plan).
    blade_correlator_config probe_config = config;
    probe_config.path = BLADE_CORRELATOR_AUTO;
    const probed_decimation probed = probe_decimation(blade_correlator_create,
                                                      blade_correlator_destroy,
                                                      blade_correlator_output_shape,
                                                      blade_correlator_steps,
                                                      probe_config,
                                                      input.shape,
                                                      BLADE_CF32,
                                                      integration,
                                                      "blade.correlator");
    return gnuradio::make_block_sptr<correlator_impl>(input,
                                                      probed.output,
                                                      config,
                                                      probed.chunks_per_output,
                                                      device,
                                                      resolve_device(device, "correlator"));
}

correlator_impl::correlator_impl(const tensor_spec& input,
                                 const tensor_spec& output,
                                 const blade_correlator_config& config,
                                 int64_t steps,
                                 const std::string& requested_device,
                                 const blade_device& device)
    : gr::block("correlator",
                device_signature(device, 1, input.item_size()),
                device_signature(device, 1, output.item_size())),
      device_block("correlator", requested_device, device),
      d_config(config),
      d_steps(steps)
{
    set_port_specs({ input }, { output });
    // The GPU-only refusals (fp64 on a GPU, fp16 before sm_80) come from here.
    check(blade_correlator_create(&d_correlator, &config, &input.shape, blade_device_id()),
          "configuration");
    // Tags are forwarded by hand: tsamp and the channel axis change, and a group
    // keeps only its first chunk's tags.
    set_tag_propagation_policy(TPP_DONT);
    log_device_choice(d_logger);
}

correlator_impl::~correlator_impl() { blade_correlator_destroy(d_correlator); }

std::string correlator_impl::path() const
{
    return blade_correlator_path_name(blade_correlator_path_used(d_correlator));
}

bool correlator_impl::start()
{
    blade_correlator_reset(d_correlator); // a restarted flowgraph begins a new group
    d_group_tags.clear();
    check_neighbours_at_start(*this, d_logger);
    return gr::block::start();
}

// One chunk at a time, whatever the group (no relative rate declared either): the
// buffer feeding the block holds two chunks, not two groups (chunk_group_tags.h).
void correlator_impl::forecast(int /* noutput_items */, gr_vector_int& ninput_items_required)
{
    ninput_items_required[0] = 1;
}

// A group's first chunk (input item `item`): its tags go to the group's output.
void correlator_impl::keep_group_tags(uint64_t item)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, item, item + 1);
    const int64_t samples = input_spec(0).shape.dims[2];
    const double integration = static_cast<double>(d_config.integration);
    const int64_t fc = d_config.channel_integration;
    const int64_t steps = d_steps;
    d_group_tags.clear();
    static const pmt::pmt_t chan_bw = pmt::intern(tag::chan_bw),
                            freq_first = pmt::intern(tag::freq_first),
                            nchan = pmt::intern(tag::nchan), nfpc = pmt::intern(tag::nfpc),
                            aspect = pmt::intern(tag::aspect);
    const auto number = [](const gr::tag_t& t) {
        return pmt::is_number(t.value) && !pmt::is_complex(t.value);
    };
    for (auto tag : first_chunk_tags(tags, d_steps, [&](std::vector<gr::tag_t>& chunk) {
             const auto tsamp = find_double(chunk, tag::tsamp);
             if (tsamp && steps > 1) // the output spans K chunks: its middle moves
                 shift_mid_times(chunk, (steps - 1) * samples * *tsamp / 2);
             scale_double(chunk, tag::tsamp, integration);
             if (fc == 1)
                 return;
             // Fc adjacent channels become one: its centre is the middle of the group.
             const auto width = find_double(chunk, tag::chan_bw);
             for (auto& t : chunk) {
                 if (!number(t))
                     continue;
                 if (pmt::eq(t.key, freq_first) && width)
                     t.value = pmt::from_double(pmt::to_double(t.value) + (fc - 1) * *width / 2);
                 else if (pmt::eq(t.key, chan_bw))
                     t.value = pmt::from_double(pmt::to_double(t.value) * fc);
                 else if (pmt::eq(t.key, nchan))
                     t.value = pmt::from_long(std::lround(pmt::to_double(t.value)) / fc);
                 else if (pmt::eq(t.key, nfpc) && std::lround(pmt::to_double(t.value)) % fc == 0)
                     t.value = pmt::from_long(std::lround(pmt::to_double(t.value)) / fc);
             }
         })) {
        if (pmt::eq(tag.key, aspect)) // axis 0 now holds baselines
            tag.value = pmt::string_to_symbol("baseline");
        d_group_tags.push_back(tag);
    }
}

int correlator_impl::general_work(int noutput_items,
                                  gr_vector_int& ninput_items,
                                  gr_vector_const_void_star& input_items,
                                  gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        const auto* in = static_cast<const char*>(input_items[0]);
        auto* out = static_cast<char*>(output_items[0]);
        const size_t in_size = input_item_size(), out_size = output_item_size();
        static const pmt::pmt_t chan_bw = pmt::intern(tag::chan_bw);
        // Each chunk adds to the group's sums; the last one writes the output slot.
        const auto [consumed, produced] = run_chunk_groups(
            nitems_read(0),
            d_steps,
            ninput_items[0],
            noutput_items,
            [&](uint64_t item, int chunk, int slot, bool first) {
                // A lower sideband's voltages are the sky's conjugates (chunk_group_tags.h).
                std::vector<gr::tag_t> widths;
                get_tags_in_range(widths, 0, item, item + 1, chan_bw);
                if (const auto lower = lower_sideband_of(widths))
                    blade_correlator_set_lower_sideband(d_correlator, *lower);
                if (first)
                    keep_group_tags(item);
                blade_tensor output = tensor(output_spec(0), out + slot * out_size);
                const blade_tensor input = tensor(input_spec(0), in + chunk * in_size);
                check(blade_correlator_process(d_correlator, &input, &output, stream()),
                      "correlator");
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
