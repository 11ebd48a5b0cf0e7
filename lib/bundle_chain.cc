/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "bundle_chain.h"
#include "channelizer_impl.h"
#include "device_block.h"
#include "fine_channel_tags.h"

#include <gnuradio/blade/cast.h>
#include <gnuradio/blade/channel_merge.h>
#include <gnuradio/blade/channel_split.h>
#include <gnuradio/blade/channelizer.h>
#include <gnuradio/blade/detector.h>
#include <gnuradio/blade/gather.h>
#include <gnuradio/blade/polarizer.h>
#include <gnuradio/blade/runtime.h>

#include <blade/modules/channelizer.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace gr {
namespace blade {

bundle_chain::bundle_chain(gr::hier_block2& hier,
                           const std::string& name,
                           const std::string& device)
    : d_hier(hier), d_name(name), d_device(device)
{
    const char* in_place = std::getenv("BLADE_BUNDLE_IN_PLACE");
    d_in_place = in_place == nullptr || std::string(in_place) != "0";
}

chain_end bundle_chain::input(int port, const std::vector<int64_t>& shape, const std::string& dtype)
{
    return chain_end{ d_hier.self(), port, shape, dtype, 1 };
}

void bundle_chain::connect(const chain_end& from, const gr::basic_block_sptr& block, int port)
{
    d_hier.connect(from.block, from.port, block, port);
}

void bundle_chain::output(const chain_end& from, int port)
{
    d_hier.connect(from.block, from.port, d_hier.self(), port);
}

chain_end bundle_chain::cast(const chain_end& in, const std::string& dtype, double scale)
{
    if (in.dtype == dtype && scale == 1.0)
        return in;
    auto block = gr::blade::cast::make(in.shape, in.dtype, dtype, d_device, scale);
    connect(in, block, 0);
    return chain_end{ block,
                      0,
                      in.shape,
                      dtype,
                      in.chunks_per_item,
                      in.scale * scale,
                      dynamic_cast<device_block*>(block.get()) };
}

chain_end
bundle_chain::channelize(const chain_end& in, int64_t rate, int taps, const std::string& window)
{
    if (rate == 1 && taps == 1)
        return in;
    const bool one_spectrum = in.shape.size() == 4 && in.shape[2] == rate;
    if (d_in_place && one_spectrum && in.in_place_host != nullptr &&
        in.in_place_host->rewrites_stage_tags() && (in.dtype == "cf32" || in.dtype == "cf16"))
        return channelize_in_place(in, rate, taps, window);
    auto block = gr::blade::channelizer::make(in.shape, rate, d_device, taps, window, in.dtype);
    connect(in, block, 0);
    return chain_end{ block,
                      0,
                      block->output_shape(),
                      in.dtype,
                      in.chunks_per_item,
                      in.scale,
                      dynamic_cast<device_block*>(block.get()) };
}

chain_end bundle_chain::channelize_in_place(const chain_end& in,
                                            int64_t rate,
                                            int taps,
                                            const std::string& window)
{
    // One spectrum per chunk, in a chunk the bundle's own block wrote (the gather's
    // long chunk in Mode BH): channelized where it lies, its tags rewritten there.
    device_block* host = in.in_place_host;
    const tensor_spec coarse(parse_dtype(in.dtype, "blade.channelizer dtype"),
                             parse_shape(in.shape, "blade.channelizer shape"));
    blade_channelizer_config config = {
        coarse.dtype, coarse.dtype, rate, taps, BLADE_WINDOW_HAMMING
    };
    throw_on_error(blade_channelizer_window_parse(window.c_str(), &config.window),
                   "blade.channelizer window");
    blade_channelizer* raw = nullptr;
    throw_on_error(blade_channelizer_create(&raw, &config, &coarse.shape, host->blade_device_id()),
                   "blade.channelizer");
    std::shared_ptr<blade_channelizer> plan(raw, blade_channelizer_destroy);
    const tensor_spec fine(coarse.dtype, blade_channelizer_output_shape(raw));
    auto tags = std::make_shared<fine_channel_tags>(rate);
    host->append_in_place_stage(
        "channelizer (in place)",
        fine,
        [plan, fine](const blade_tensor& x, blade_stream stream) {
            blade_tensor y = x;
            y.shape = fine.shape;
            return blade_channelizer_process(plan.get(), &x, &y, stream);
        },
        [tags](std::vector<gr::tag_t>& chunk_tags,
               const pmt::pmt_t& srcid,
               const gr::logger_ptr& logger) { tags->rewrite(chunk_tags, srcid, logger); });
    return chain_end{ in.block, in.port, shape_to_vector(fine.shape), in.dtype, in.chunks_per_item,
                      in.scale, host };
}

chain_end bundle_chain::cast_and_channelize(const chain_end& in,
                                            const std::string& dtype,
                                            double scale,
                                            int64_t rate,
                                            int taps,
                                            const std::string& window)
{
    const bool casts = in.dtype != dtype || scale != 1.0;
    const bool channelizes = rate != 1 || taps != 1;
    const bool one_spectrum = in.shape.size() == 4 && in.shape[2] == rate;
    if (!casts || !channelizes || !one_spectrum || !d_in_place)
        return channelize(cast(in, dtype, scale), rate, taps, window);
    const tensor_spec arriving(parse_dtype(in.dtype, "blade." + d_name + " input type"),
                               parse_shape(in.shape, "blade." + d_name + " shape"));
    const tensor_spec work(parse_dtype(dtype, "blade." + d_name + " working type"), arriving.shape);
    blade_channelizer_config config = { work.dtype, work.dtype, rate, taps, BLADE_WINDOW_HAMMING };
    throw_on_error(blade_channelizer_window_parse(window.c_str(), &config.window),
                   "blade.channelizer window");
    auto block = gnuradio::make_block_sptr<channelizer_impl>(
        work, config, d_device, resolve_device(d_device, "channelizer"), arriving, scale);
    connect(in, block, 0);
    return chain_end{
        block, 0, block->output_shape(), dtype, in.chunks_per_item, in.scale * scale, block.get()
    };
}

chain_end bundle_chain::polarize(const chain_end& in, bool circular)
{
    if (!circular)
        return in;
    if (d_in_place && in.in_place_host != nullptr && (in.dtype == "cf32" || in.dtype == "cf16")) {
        // The chunk is this bundle's own: polarized where its block wrote it.
        const blade_shape shape = parse_shape(in.shape, "blade.polarizer shape");
        const blade_polarizer_config config = { BLADE_BASIS_CIRCULAR };
        blade_polarizer* raw = nullptr;
        throw_on_error(
            blade_polarizer_create(&raw, &config, &shape, in.in_place_host->blade_device_id()),
            "blade.polarizer");
        std::shared_ptr<blade_polarizer> plan(raw, blade_polarizer_destroy);
        const tensor_spec chunk(parse_dtype(in.dtype, "blade.polarizer dtype"), shape);
        in.in_place_host->append_in_place_stage(
            "polarizer (in place)", chunk, [plan](const blade_tensor& x, blade_stream stream) {
                blade_tensor y = x;
                return blade_polarizer_process(plan.get(), &x, &y, stream);
            });
        return in;
    }
    auto block = gr::blade::polarizer::make(in.shape, d_device, "circular", in.dtype);
    connect(in, block, 0);
    return chain_end{ block,
                      0,
                      in.shape,
                      in.dtype,
                      in.chunks_per_item,
                      in.scale,
                      dynamic_cast<device_block*>(block.get()) };
}

chain_end bundle_chain::detect(const chain_end& in, const std::string& mode, int64_t integration)
{
    // Power of values scaled by s: 1/s^2 gives the fp32 chain's power back, exactly.
    auto block = gr::blade::detector::make(
        in.shape, mode, integration, d_device, in.dtype, 1.0 / (in.scale * in.scale));
    connect(in, block, 0);
    return chain_end{
        block, 0, block->output_shape(), "f32", in.chunks_per_item * block->chunks_per_output()
    };
}

chain_end bundle_chain::gather_time(const chain_end& in, int64_t multiplier)
{
    if (multiplier == 1)
        return in;
    auto block = gr::blade::gather::make(in.shape, 2, multiplier, in.dtype, d_device);
    connect(in, block, 0);
    return chain_end{ block,
                      0,
                      block->output_shape(),
                      in.dtype,
                      in.chunks_per_item * multiplier,
                      in.scale,
                      dynamic_cast<device_block*>(block.get()) };
}

chain_end build_across_devices(gr::hier_block2& hier,
                               const std::string& name,
                               const std::vector<std::string>& devices,
                               const std::vector<int64_t>& shape,
                               const std::string& dtype,
                               bool with_times,
                               const subchain_builder& build)
{
    if (shape.size() != 4)
        throw std::invalid_argument("blade." + name + " shape: expected [A, F, T, P], got " +
                                    std::to_string(shape.size()) + " axes");
    const int64_t parts = static_cast<int64_t>(devices.size());
    if (shape[1] % parts != 0)
        throw std::invalid_argument("blade." + name + ": " + std::to_string(shape[1]) +
                                    " channels cannot be split " + "evenly across " +
                                    std::to_string(parts) + " devices (" + join_devices(devices) +
                                    "); give a number of devices that divides the channel count");
    auto split = gr::blade::channel_split::make(shape, dtype, parts, devices);
    hier.connect(hier.self(), 0, split, 0);
    std::vector<chain_end> ends;
    for (int64_t n = 0; n < parts; n++) {
        bundle_chain chain(hier, name, devices[n]);
        const chain_end voltages{ split, static_cast<int>(n), split->output_shape(), dtype, 1 };
        const chain_end times = with_times ? chain.input(1, {}, "chunk_time") : chain_end{};
        ends.push_back(build(chain, voltages, times, n));
    }
    std::vector<int64_t> whole = ends[0].shape;
    whole[1] *= parts;
    auto merge = gr::blade::channel_merge::make(whole, ends[0].dtype, parts, devices);
    for (int64_t n = 0; n < parts; n++)
        hier.connect(ends[n].block, ends[n].port, merge, static_cast<int>(n));
    return chain_end{ merge, 0, whole, ends[0].dtype, ends[0].chunks_per_item, ends[0].scale };
}

std::string join_devices(const std::vector<std::string>& devices)
{
    std::string joined;
    for (const auto& device : devices)
        joined += (joined.empty() ? "" : ",") + device;
    return joined;
}

void check_detector_mode(const std::string& mode, bool voltages_ok, const std::string& what)
{
    if (mode == "I" || mode == "XXYY" || mode == "cross" || mode == "IQUV")
        return;
    if (voltages_ok && mode == "none")
        return;
    throw std::invalid_argument(
        what + " detector: '" + mode + "' is not one of \"I\", \"XXYY\", " + "\"cross\", \"IQUV\"" +
        (voltages_ok ? std::string(" or \"none\" (voltages)") : std::string()));
}

double channelizer_gain(int64_t rate, int taps, const std::string& window)
{
    if (rate <= 1 && taps <= 1)
        return 1.0;
    blade_channelizer_window code;
    if (blade_channelizer_window_parse(window.c_str(), &code) != BLADE_OK)
        throw std::invalid_argument(std::string("channelizer window: ") + blade_last_error());
    std::vector<double> filter(static_cast<size_t>(rate * taps));
    if (blade_channelizer_prototype(rate, taps, code, filter.data()) != BLADE_OK)
        throw std::invalid_argument(std::string("channelizer: ") + blade_last_error());
    double gain = 0;
    for (double h : filter)
        gain += std::abs(h);
    return gain;
}

double half_range_scale(double gain)
{
    return gain > 1.0 ? std::ldexp(1.0, -static_cast<int>(std::ceil(std::log2(gain)))) : 1.0;
}

size_t bundle_item_size(const std::vector<int64_t>& shape, const std::string& dtype)
{
    return gr::blade::item_size(shape, dtype);
}

} // namespace blade
} // namespace gr
