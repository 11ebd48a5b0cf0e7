/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_B_IMPL_H
#define INCLUDED_BLADE_MODE_B_IMPL_H

#include "bundle_state.h"
#include <gnuradio/blade/mode_b.h>

#include <functional>

namespace gr {
namespace blade {

/*! The beamforming front end of Mode B and Mode BH, its defaults resolved. */
struct beamforming_setup {
    std::vector<int64_t> shape; //!< [A, F, T, P] of the (sub-band's) chunks
    observation axis;           //!< of those chunks' coarse channels
    ::gr::blade::recipe recipe;
    beamforming_options options;  //!< channelizer_rate and incoherent set
    bool incoherent_sqrt = false; //!< the incoherent beam as a voltage-like square root
    std::string voltage_type = "cf32";
};

/*!
 * Voltages and chunk times -> [cast] -> [channelizer] -> [polarizer] -> beamformer
 * fed by a phasor block (the axis channelized as the voltages are). Returns the
 * beams' end of the stream and the number of coherent beams.
 */
chain_end beamform(bundle_chain& chain,
                   const beamforming_setup& setup,
                   const chain_end& voltages,
                   const chain_end& times,
                   int64_t& beams);

/*!
 * Build `stages` (voltages, times -> end) on the bundle's one device, or across
 * several: one sub-band per device, with the setup's shape and axis those of the
 * sub-band.
 */
using beamforming_stages = std::function<chain_end(bundle_chain& chain,
                                                   const beamforming_setup& setup,
                                                   const chain_end& voltages,
                                                   const chain_end& times)>;
chain_end build_beamforming_bundle(gr::hier_block2& hier,
                                   const std::string& name,
                                   const beamforming_setup& setup,
                                   const std::vector<std::string>& devices,
                                   const beamforming_stages& stages);

/*! Check shape, axis and recipe against each other, for bundle `what`. */
void check_beamforming_inputs(const std::vector<int64_t>& shape,
                              const observation& axis,
                              const recipe& recipe,
                              const std::string& what);

/*! The io signature of a beamforming bundle's inputs: voltages and chunk times. */
gr::io_signature::sptr beamforming_inputs(const std::vector<int64_t>& shape,
                                          const std::string& input_type);

class mode_b_impl : public bundle_impl<mode_b>
{
public:
    mode_b_impl(const beamforming_setup& setup, const std::vector<std::string>& devices);

    int64_t beams() const override { return d_beams; }

private:
    int64_t d_beams = 0;
};

} // namespace blade
} // namespace gr

#endif
