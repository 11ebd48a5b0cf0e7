/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_H_IMPL_H
#define INCLUDED_BLADE_MODE_H_IMPL_H

#include "bundle_state.h"
#include <gnuradio/blade/mode_h.h>

namespace gr {
namespace blade {

class mode_h_impl : public bundle_impl<mode_h>
{
public:
    mode_h_impl(const std::vector<int64_t>& shape,
                const spectrometer_options& options,
                const std::vector<std::string>& devices);
};

} // namespace blade
} // namespace gr

#endif
