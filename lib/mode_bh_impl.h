/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_BH_IMPL_H
#define INCLUDED_BLADE_MODE_BH_IMPL_H

#include "mode_b_impl.h"
#include <gnuradio/blade/mode_bh.h>

namespace gr {
namespace blade {

class mode_bh_impl : public bundle_impl<mode_bh>
{
public:
    /*! setup: the beamforming front end (no channelizer); channelizer_rate and
     *  taps: the channelizer after the gather. */
    mode_bh_impl(const beamforming_setup& setup,
                 int64_t channelizer_rate,
                 int taps,
                 const std::vector<std::string>& devices);

    int64_t beams() const override { return d_beams; }

private:
    int64_t d_beams = 0;
};

} // namespace blade
} // namespace gr

#endif
