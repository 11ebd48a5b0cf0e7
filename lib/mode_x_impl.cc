/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "mode_x_impl.h"

#include <gnuradio/blade/runtime.h>
#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

mode_x::sptr mode_x::make(const std::vector<int64_t>& shape, const correlator_options& options)
{
    if (options.precision != "auto" && options.precision != "fp32" && options.precision != "fp16" &&
        options.precision != "fp64")
        throw std::invalid_argument("blade.mode_x precision: '" + options.precision +
                                    "' is not one of \"auto\", \"fp32\", \"fp16\" (tensor "
                                    "cores) or \"fp64\" (CPU)");
    const auto devices =
        resolve_devices(options.device, options.devices, shape.size() > 1 ? shape[1] : 0);
    return gnuradio::make_block_sptr<mode_x_impl>(shape, options, devices);
}

mode_x_impl::mode_x_impl(const std::vector<int64_t>& shape,
                         const correlator_options& options,
                         const std::vector<std::string>& devices)
    : gr::hier_block2("mode_x",
                      gr::io_signature::make(
                          1, 1, static_cast<int>(bundle_item_size(shape, options.input_type))),
                      gr::io_signature::make(1, 1, sizeof(float))), // item size set once built
      bundle_impl(shape, options.input_type, devices)
{
    const int64_t rate = options.channelizer_rate.value_or(1);
    auto correlate = [&](bundle_chain& chain, const chain_end& voltages) {
        chain_end end = voltages;
        if (rate != 1 || options.taps != 1) {
            end = chain.cast_and_channelize(end, "cf32", 1.0, rate, options.taps, options.window);
        } else if (end.dtype != "ci8") { // the correlator reads ci8 as it is
            end = chain.cast(end, "cf32");
        }
        auto block = correlator::make(end.shape,
                                      end.dtype,
                                      options.integration,
                                      options.channel_integration,
                                      options.precision,
                                      chain.device(),
                                      options.operand_scale);
        chain.connect(end, block, 0);
        if (!d_correlator)
            d_correlator = block;
        return chain_end{ block,
                          0,
                          block->output_shape(),
                          "cf32",
                          end.chunks_per_item * block->chunks_per_output() };
    };
    chain_end end;
    if (devices.size() == 1) {
        bundle_chain chain(*this, "mode_x", devices[0]);
        end = correlate(chain, chain.input(0, shape, options.input_type));
    } else {
        end = build_across_devices(
            *this,
            "mode_x",
            devices,
            shape,
            options.input_type,
            false,
            [&](bundle_chain& chain, const chain_end& voltages, const chain_end&, int64_t) {
                return correlate(chain, voltages);
            });
    }
    finish(end);
}

} // namespace blade
} // namespace gr
