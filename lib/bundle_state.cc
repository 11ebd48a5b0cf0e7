/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "bundle_state.h"

#include <gnuradio/blade/runtime.h>

namespace gr {
namespace blade {

bundle::~bundle() = default;

std::vector<std::string> bundle_devices(const spectrometer_options& options,
                                        const std::vector<int64_t>& shape)
{
    return resolve_devices(options.device, options.devices, shape.size() > 1 ? shape[1] : 0);
}

} // namespace blade
} // namespace gr
