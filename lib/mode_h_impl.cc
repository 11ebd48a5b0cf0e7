/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "mode_h_impl.h"

#include <gnuradio/blade/runtime.h>
#include <gnuradio/io_signature.h>

namespace gr {
namespace blade {

mode_h::sptr mode_h::make(const std::vector<int64_t>& shape,
                          const std::string& input_type,
                          int64_t channelizer_rate,
                          int taps,
                          const std::string& window,
                          bool circular,
                          const std::string& detector,
                          int64_t integration,
                          const std::string& device,
                          const std::vector<std::string>& devices)
{
    check_detector_mode(detector, false, "blade.mode_h");
    return gnuradio::make_block_sptr<mode_h_impl>(shape,
                                                  input_type,
                                                  channelizer_rate,
                                                  taps,
                                                  window,
                                                  circular,
                                                  detector,
                                                  integration,
                                                  gr::blade::resolve_devices(
                                                      device, devices, shape.size() > 1 ? shape[1] : 0));
}

mode_h_impl::mode_h_impl(const std::vector<int64_t>& shape,
                         const std::string& input_type,
                         int64_t channelizer_rate,
                         int taps,
                         const std::string& window,
                         bool circular,
                         const std::string& detector,
                         int64_t integration,
                         const std::vector<std::string>& devices)
    : gr::hier_block2("mode_h",
                      gr::io_signature::make(1, 1, static_cast<int>(bundle_item_size(shape, input_type))),
                      gr::io_signature::make(1, 1, sizeof(float))), // item size set once built
      d_input_shape(shape),
      d_input_type(input_type),
      d_devices(devices)
{
    auto spectrometer = [&](bundle_chain& chain, const chain_end& voltages) {
        chain_end end = chain.cast(voltages, "cf32");
        end = chain.channelize(end, channelizer_rate, taps, window);
        end = chain.polarize(end, circular);
        return chain.detect(end, detector, integration);
    };
    chain_end end;
    if (devices.size() == 1) {
        bundle_chain chain(*this, "mode_h", devices[0]);
        end = spectrometer(chain, chain.input(0, shape, input_type));
    } else {
        end = build_across_devices(
            *this,
            "mode_h",
            devices,
            shape,
            input_type,
            false,
            [&](bundle_chain& chain, const chain_end& voltages, const chain_end&, int64_t) {
                return spectrometer(chain, voltages);
            });
    }
    d_output = end;
    set_output_signature(
        gr::io_signature::make(1, 1, static_cast<int>(bundle_item_size(end.shape, "f32"))));
    connect(end.block, end.port, self(), 0);
}

} // namespace blade
} // namespace gr
