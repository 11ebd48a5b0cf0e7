/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "bundle_state.h"

#include <gnuradio/blade/runtime.h>

#include <stdexcept>

namespace gr {
namespace blade {

bundle::~bundle() = default;

std::string working_type(const std::string& precision, const std::string& what)
{
    if (precision == "fp32")
        return "cf32";
    if (precision == "fp16")
        return "cf16";
    throw std::invalid_argument(what + " precision: '" + precision +
                                "' is not \"fp32\" or \"fp16\" (half-precision intermediates)");
}

std::vector<std::string> bundle_devices(const spectrometer_options& options,
                                        const std::vector<int64_t>& shape)
{
    return resolve_devices(options.device, options.devices, shape.size() > 1 ? shape[1] : 0);
}

} // namespace blade
} // namespace gr
