/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_BH_H
#define INCLUDED_BLADE_MODE_BH_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/bundle.h>
#include <gnuradio/blade/observation.h>
#include <gnuradio/blade/recipe.h>
#include <gnuradio/hier_block2.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Mode BH: high-resolution spectra of beams.
 * \ingroup blade
 *
 * \details
 * Mode B without channelizer or detector (beamformed voltages of the coarse
 * channels) -> gather M chunks along time -> channelizer (by default the whole
 * gathered time axis, N = T*M: one spectrum of F*T*M fine channels per M chunks)
 * -> detector. Polarizer (optional) before the beamformer.
 *
 * Inputs: 0, voltage chunks [A, F, T, P]; 1, their chunk-time stream (as Mode B).
 * Output: [B(+1), F*N, T*M/(N*I) or 1, Pout] f32, one output chunk per M input
 * chunks (per M*K with an integration over K gathered groups). The incoherent
 * beam, when asked for, is power (real) before the channelizer, so its "spectrum"
 * shows the fluctuations of the total power rather than a sky spectrum.
 *
 * Device and several devices: as Mode B (one sub-band per device, merged by channel
 * into the output one device would give).
 */
class BLADE_API mode_bh : virtual public gr::hier_block2, public virtual beamforming_bundle
{
public:
    typedef std::shared_ptr<mode_bh> sptr;

    /*!
     * \brief Make a Mode BH bundle: shape, axis and recipe as mode_b::make(); in
     * options, gather (M chunks joined along time before the channelizer),
     * channelizer_rate unset or 0 for T·M (the whole gathered axis), incoherent
     * unset for off, and a detector ("none" is not allowed).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const observation& axis,
                     const recipe& recipe,
                     const beamforming_options& options = beamforming_options());
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_MODE_BH_H */
