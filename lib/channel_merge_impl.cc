/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "channel_merge_impl.h"
#include "device_buffer.h"

#include <gnuradio/blade/metadata.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>

#include <cmath>
#include <map>
#include <sstream>

namespace gr {
namespace blade {

channel_merge::sptr channel_merge::make(const std::vector<int64_t>& shape,
                                        const std::string& dtype,
                                        int64_t parts,
                                        const std::vector<std::string>& devices)
{
    return gnuradio::make_block_sptr<channel_merge_impl>(
        make_subband_plan(shape, dtype, parts, devices, "channel_merge"));
}

// A host block like the split. Inputs written by GPU blocks stay in their device
// memory (the input ports have the device buffer type, so GNU Radio uses the
// writer's own buffer, and nothing is downloaded before the merge); the output is
// host-resident, and each sub-band is copied straight into it.
channel_merge_impl::channel_merge_impl(const subband_plan& plan)
    : gr::sync_block(
          "channel_merge",
          subband_signature(
              static_cast<int>(plan.parts), plan.part.item_size(), plan.devices, plan.on_devices()),
          subband_signature(1, plan.whole.item_size(), {}, plan.on_devices())),
      device_block("channel_merge", "cpu", blade_device_cpu()),
      d_plan(plan)
{
    set_port_specs(std::vector<tensor_spec>(plan.parts, plan.part), { plan.whole });
    set_tag_propagation_policy(TPP_DONT);
}

void channel_merge_impl::check_input_devices()
{
    for (int64_t n = 0; n < d_plan.parts && n < static_cast<int64_t>(d_plan.devices.size()); n++) {
        const blade_device& listed = d_plan.devices[n];
        const blade_device& found = d_input_memory[n];
        if (!blade_device_is_gpu_like(listed) || blade_device_equal(listed, found))
            continue;
        char a[32], b[32];
        throw std::runtime_error(
            "blade.channel_merge input " + std::to_string(n) + ": listed on " +
            blade_device_format(listed, a, sizeof a) + " but its chunks arrive in the memory of " +
            blade_device_format(found, b, sizeof b) + " (are the sub-chains connected in order?)");
    }
}

bool channel_merge_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    d_input_memory.clear();
    for (int64_t n = 0; n < d_plan.parts; n++)
        d_input_memory.push_back(buffer_read_side(detail()->input(static_cast<int>(n))->buffer()));
    d_output_memory = buffer_write_side(detail()->output(0));
    try {
        check_input_devices();
    } catch (const std::exception& error) {
        fail(d_logger, error.what());
    }
    return gr::sync_block::start();
}

void channel_merge_impl::copy_tags(int noutput_items)
{
    std::vector<gr::tag_t> first;
    get_tags_in_window(first, 0, 0, noutput_items);
    std::map<uint64_t, double> first_frequency;
    for (const auto& tag : first) {
        d_axis.observe(tag);
        if (pmt::symbol_to_string(tag.key) == tag::freq_first && pmt::is_number(tag.value))
            first_frequency[tag.offset] = pmt::to_double(tag.value);
        // Sub-band 0's tags stand for the whole band, but for its channel count.
        if (pmt::symbol_to_string(tag.key) == tag::nchan && pmt::is_integer(tag.value))
            add_item_tag(
                0, tag.offset, tag.key, pmt::from_long(output_spec(0).shape.dims[1]), alias_pmt());
        else
            add_item_tag(0, tag.offset, tag.key, tag.value, alias_pmt());
    }
    // A sub-band connected to the wrong input would be merged at the wrong place
    // without any error: its frequency tag says where it belongs.
    const int64_t part_channels = input_spec(0).shape.dims[1];
    const double width = d_axis.channel_width();
    for (int64_t n = 1; n < d_plan.parts; n++) {
        std::vector<gr::tag_t> tags;
        get_tags_in_window(tags, static_cast<unsigned>(n), 0, noutput_items);
        for (const auto& tag : tags) {
            if (pmt::symbol_to_string(tag.key) != tag::freq_first || !pmt::is_number(tag.value))
                continue;
            const auto reference = first_frequency.find(tag.offset);
            if (reference == first_frequency.end())
                continue;
            const double expected =
                reference->second + static_cast<double>(n * part_channels) * width;
            const double got = pmt::to_double(tag.value);
            if (std::fabs(got - expected) > 1e-6 * std::fabs(width) + 1e-9 * std::fabs(expected)) {
                std::ostringstream message;
                message.precision(12);
                message << "input " << n << " carries the sub-band starting at " << got
                        << " Hz, but sub-band " << n << " starts at " << expected
                        << " Hz (input 0's first channel + " << n * part_channels << " channels of "
                        << width << " Hz): the sub-bands are connected out of order";
                throw std::runtime_error(message.str());
            }
        }
    }
}

int channel_merge_impl::work(int noutput_items,
                             gr_vector_const_void_star& input_items,
                             gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        copy_tags(noutput_items);
        auto* out = static_cast<char*>(output_items[0]);
        const size_t in_size = input_item_size(), out_size = output_item_size();
        for (int i = 0; i < noutput_items; i++) {
            blade_tensor whole = blade_tensor_make(
                output_spec(0).dtype, &output_spec(0).shape, d_output_memory, out + i * out_size);
            for (int64_t n = 0; n < d_plan.parts; n++) {
                const auto* in = static_cast<const char*>(input_items[n]) + i * in_size;
                const blade_tensor part = blade_tensor_make(input_spec(0).dtype,
                                                            &input_spec(0).shape,
                                                            d_input_memory[n],
                                                            const_cast<char*>(in));
                check(blade_subband_insert(
                          &part, d_plan.parts, n, &whole, d_streams.on(d_input_memory[n])),
                      "copying a sub-band");
            }
        }
        d_streams.synchronize("blade.channel_merge");
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
