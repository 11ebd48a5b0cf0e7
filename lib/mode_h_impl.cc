/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "mode_h_impl.h"

#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

mode_h::sptr mode_h::make(const std::vector<int64_t>& shape, const spectrometer_options& options)
{
    check_detector_mode(options.detector, false, "blade.mode_h");
    working_type(options.precision, "blade.mode_h");
    return gnuradio::make_block_sptr<mode_h_impl>(shape, options, bundle_devices(options, shape));
}

mode_h_impl::mode_h_impl(const std::vector<int64_t>& shape,
                         const spectrometer_options& options,
                         const std::vector<std::string>& devices)
    : gr::hier_block2("mode_h",
                      gr::io_signature::make(
                          1, 1, static_cast<int>(bundle_item_size(shape, options.input_type))),
                      gr::io_signature::make(1, 1, sizeof(float))), // item size set once built
      bundle_impl(shape, options.input_type, devices)
{
    const int64_t rate = options.channelizer_rate.value_or(1);
    d_precision = options.precision;
    const std::string work = working_type(options.precision, "blade.mode_h");
    // Half precision: the voltages scaled by 2^-k ahead of a channelizer of gain up
    // to 2^k, so that its spectra stay within half's range; the detector undoes it.
    const double scale =
        work == "cf16" ? half_range_scale(channelizer_gain(rate, options.taps, options.window))
                       : 1.0;
    auto spectrometer = [&](bundle_chain& chain, const chain_end& voltages) {
        // With T = N the channelizer runs in place on the cast's chunk and the
        // polarizer in place after it: one block and one device buffer for the three.
        chain_end end =
            chain.cast_and_channelize(voltages, work, scale, rate, options.taps, options.window);
        end = chain.polarize(end, options.circular);
        return chain.detect(end, options.detector, options.integration);
    };
    chain_end end;
    if (devices.size() == 1) {
        bundle_chain chain(*this, "mode_h", devices[0]);
        end = spectrometer(chain, chain.input(0, shape, options.input_type));
    } else {
        end = build_across_devices(
            *this,
            "mode_h",
            devices,
            shape,
            options.input_type,
            false,
            [&](bundle_chain& chain, const chain_end& voltages, const chain_end&, int64_t) {
                return spectrometer(chain, voltages);
            });
    }
    finish(end);
}

} // namespace blade
} // namespace gr
