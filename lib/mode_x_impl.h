/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_X_IMPL_H
#define INCLUDED_BLADE_MODE_X_IMPL_H

#include "bundle_state.h"
#include <gnuradio/blade/correlator.h>
#include <gnuradio/blade/mode_x.h>

namespace gr {
namespace blade {

class mode_x_impl : public bundle_impl<mode_x>
{
public:
    mode_x_impl(const std::vector<int64_t>& shape,
                const correlator_options& options,
                const std::vector<std::string>& devices);

    std::string precision() const override { return d_correlator->path(); }

private:
    correlator::sptr d_correlator; // the first sub-band's (all compute alike)
};

} // namespace blade
} // namespace gr

#endif
