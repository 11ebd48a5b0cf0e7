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
                          const std::string& device)
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
                                                  gr::blade::resolve_device(device));
}

mode_h_impl::mode_h_impl(const std::vector<int64_t>& shape,
                         const std::string& input_type,
                         int64_t channelizer_rate,
                         int taps,
                         const std::string& window,
                         bool circular,
                         const std::string& detector,
                         int64_t integration,
                         const std::string& device)
    : gr::hier_block2("mode_h",
                      gr::io_signature::make(1, 1, static_cast<int>(bundle_item_size(shape, input_type))),
                      gr::io_signature::make(1, 1, sizeof(float))), // item size set once built
      d_input_shape(shape),
      d_input_type(input_type),
      d_device(device)
{
    bundle_chain chain(*this, "mode_h", device);
    chain_end end = chain.input(0, shape, input_type);
    end = chain.cast(end, "cf32");
    end = chain.channelize(end, channelizer_rate, taps, window);
    end = chain.polarize(end, circular);
    end = chain.detect(end, detector, integration);
    d_output = end;
    set_output_signature(
        gr::io_signature::make(1, 1, static_cast<int>(bundle_item_size(end.shape, "f32"))));
    chain.output(end, 0);
}

} // namespace blade
} // namespace gr
