/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "channel_split_impl.h"
#include "device_buffer.h"

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>

namespace gr {
namespace blade {

channel_split::sptr channel_split::make(const std::vector<int64_t>& shape,
                                        const std::string& dtype,
                                        int64_t parts,
                                        const std::vector<std::string>& devices)
{
    return gnuradio::make_block_sptr<channel_split_impl>(
        make_subband_plan(shape, dtype, parts, devices, "channel_split"));
}

// The split computes nothing: it is a host block (its device is the CPU) whose
// outputs may live on devices. With any output on a device, its input is a
// host-resident buffer (device_block::input_buffer_device() is the CPU), so each
// device fetches its sub-band from pinned memory by DMA.
channel_split_impl::channel_split_impl(const subband_plan& plan)
    : gr::sync_block("channel_split",
                     subband_signature(1, plan.whole.item_size(), {}, plan.on_devices()),
                     subband_signature(static_cast<int>(plan.parts),
                                       plan.part.item_size(),
                                       plan.devices,
                                       plan.on_devices())),
      device_block("channel_split", "cpu", blade_device_cpu()),
      d_plan(plan)
{
    set_port_specs({ plan.whole }, std::vector<tensor_spec>(plan.parts, plan.part));
    set_tag_propagation_policy(TPP_DONT);
}

bool channel_split_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    d_input_memory = buffer_read_side(detail()->input(0)->buffer());
    d_output_memory.clear();
    for (int64_t n = 0; n < d_plan.parts; n++)
        d_output_memory.push_back(buffer_write_side(detail()->output(static_cast<int>(n))));
    return gr::sync_block::start();
}

void channel_split_impl::copy_tags(int noutput_items)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_window(tags, 0, 0, noutput_items);
    // Channel width and nfpc first: they may arrive on the same chunk as freq_first.
    for (const auto& tag : tags)
        d_axis.observe(tag);
    const int64_t part_channels = output_spec(0).shape.dims[1];
    for (const auto& tag : tags)
        for (int64_t n = 0; n < d_plan.parts; n++) {
            const gr::tag_t moved = d_axis.for_subband(tag, n, part_channels);
            add_item_tag(
                static_cast<unsigned>(n), moved.offset, moved.key, moved.value, alias_pmt());
        }
}

int channel_split_impl::work(int noutput_items,
                             gr_vector_const_void_star& input_items,
                             gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        const auto* in = static_cast<const char*>(input_items[0]);
        const size_t in_size = input_item_size(), out_size = output_item_size();
        for (int i = 0; i < noutput_items; i++) {
            const blade_tensor whole = blade_tensor_make(input_spec(0).dtype,
                                                         &input_spec(0).shape,
                                                         d_input_memory,
                                                         const_cast<char*>(in + i * in_size));
            // Every sub-band's copy is queued before any is waited for, so the
            // devices fetch their channels at the same time.
            for (int64_t n = 0; n < d_plan.parts; n++) {
                auto* out = static_cast<char*>(output_items[n]) + i * out_size;
                blade_tensor part = blade_tensor_make(
                    output_spec(0).dtype, &output_spec(0).shape, d_output_memory[n], out);
                check(blade_subband_extract(
                          &whole, d_plan.parts, n, &part, d_streams.on(d_output_memory[n])),
                      "copying a sub-band");
            }
        }
        d_streams.synchronize("blade.channel_split");
        copy_tags(noutput_items);
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
