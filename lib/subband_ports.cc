/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_block.h"
#include "device_buffer.h"
#include "subband_ports.h"

#include <gnuradio/blade/metadata.h>

#include <stdexcept>

namespace gr {
namespace blade {

bool subband_plan::on_devices() const { return any_gpu_like(devices); }

subband_plan make_subband_plan(const std::vector<int64_t>& shape,
                               const std::string& dtype,
                               int64_t parts,
                               const std::vector<std::string>& devices,
                               const std::string& block)
{
    subband_plan plan;
    const blade_shape whole = parse_shape(shape, "blade." + block + " shape");
    const blade_dtype type = parse_dtype(dtype, "blade." + block + " dtype");
    blade_shape part;
    throw_on_error(blade_subband_shape(&whole, parts, &part), "blade." + block);
    plan.whole = tensor_spec(type, whole);
    plan.part = tensor_spec(type, part);
    plan.parts = parts;
    plan.devices = parse_port_devices(devices, parts, block);
    return plan;
}

std::vector<blade_device>
parse_port_devices(const std::vector<std::string>& names, int64_t parts, const std::string& block)
{
    std::vector<blade_device> devices;
    if (names.empty())
        return devices;
    if (static_cast<int64_t>(names.size()) != parts)
        throw std::invalid_argument("blade." + block + " devices: " + std::to_string(names.size()) +
                                    " given for " + std::to_string(parts) +
                                    " sub-bands (one per sub-band, or none for host memory)");
    for (const auto& name : names)
        devices.push_back(resolve_device(name, block));
    return devices;
}

bool any_gpu_like(const std::vector<blade_device>& devices)
{
    for (const auto& device : devices)
        if (blade_device_is_gpu_like(device))
            return true;
    return false;
}

gr::io_signature::sptr subband_signature(int nports,
                                         size_t item_size,
                                         const std::vector<blade_device>& placements,
                                         bool on_devices)
{
    const std::vector<int> sizes(nports, static_cast<int>(item_size));
    if (!on_devices)
        return gr::io_signature::makev(nports, nports, sizes);
    gr::gr_vector_buffer_type types;
    for (int port = 0; port < nports; port++) {
        const blade_device placement =
            port < static_cast<int>(placements.size()) && blade_device_is_gpu_like(placements[port])
                ? placements[port]
                : blade_device_cpu();
        types.push_back(std::cref(device_buffer::type_on(placement)));
    }
    return gr::io_signature::makev(nports, nports, sizes, types);
}

std::vector<std::string> device_names(const std::vector<blade_device>& devices, int64_t parts)
{
    std::vector<std::string> names;
    char text[32];
    for (int64_t port = 0; port < parts; port++)
        names.push_back(port < static_cast<int64_t>(devices.size())
                            ? blade_device_format(devices[port], text, sizeof text)
                            : "cpu");
    return names;
}

device_streams::~device_streams()
{
    for (auto& entry : d_streams)
        blade_stream_destroy(entry.second.first, entry.second.second);
}

blade_stream device_streams::on(const blade_device& device)
{
    const auto key = std::make_pair(static_cast<int>(device.kind), device.index);
    auto found = d_streams.find(key);
    if (found != d_streams.end())
        return found->second.second;
    blade_stream stream = nullptr;
    char text[32];
    throw_on_error(blade_stream_create(device, &stream),
                   std::string("a stream on ") + blade_device_format(device, text, sizeof text));
    d_streams[key] = std::make_pair(device, stream);
    return stream;
}

void device_streams::synchronize(const std::string& context)
{
    for (auto& entry : d_streams)
        throw_on_error(blade_stream_synchronize(entry.second.first, entry.second.second),
                       context + ": waiting for the copies");
}

void subband_axis::observe(const gr::tag_t& tag)
{
    const std::string key = pmt::symbol_to_string(tag.key);
    if (key == tag::chan_bw && pmt::is_number(tag.value)) {
        d_chan_bw = pmt::to_double(tag.value);
        d_have_chan_bw = true;
    } else if (key == tag::nfpc && pmt::is_integer(tag.value)) {
        d_nfpc = pmt::to_long(tag.value);
    }
}

gr::tag_t
subband_axis::for_subband(const gr::tag_t& tag, int64_t index, int64_t part_channels) const
{
    const std::string key = pmt::symbol_to_string(tag.key);
    gr::tag_t moved = tag;
    // Every sub-band, the first included, holds part_channels of the chunk's channels.
    if (key == tag::nchan && pmt::is_integer(tag.value)) {
        moved.value = pmt::from_long(part_channels);
        return moved;
    }
    if (index == 0)
        return tag;
    if (key == tag::freq_first && pmt::is_number(tag.value)) {
        if (!d_have_chan_bw)
            throw std::runtime_error("a " + key + " tag came before any " + tag::chan_bw +
                                     " tag: the sub-bands' first frequencies are unknown");
        moved.value = pmt::from_double(pmt::to_double(tag.value) +
                                       static_cast<double>(index * part_channels) * d_chan_bw);
    } else if (key == tag::coarse_first && pmt::is_integer(tag.value)) {
        if (d_nfpc < 1 || part_channels % d_nfpc != 0)
            throw std::runtime_error("sub-bands of " + std::to_string(part_channels) +
                                     " channels split coarse channels of " +
                                     std::to_string(d_nfpc) +
                                     " fine channels (nfpc): coarse_first has no value for them");
        moved.value = pmt::from_long(pmt::to_long(tag.value) + index * (part_channels / d_nfpc));
    }
    return moved;
}

} // namespace blade
} // namespace gr
