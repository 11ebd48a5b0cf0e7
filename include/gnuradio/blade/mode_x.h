/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_X_H
#define INCLUDED_BLADE_MODE_X_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/bundle.h>
#include <gnuradio/hier_block2.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief How Mode X correlates (a configuration value, set by name: Python
 * blade.correlator_options(channelizer_rate=16, integration=4096)).
 * \ingroup blade
 */
struct BLADE_API correlator_options {
    std::string input_type = "ci8"; //!< ci4, ci8, ci16, cf16 or cf32: the voltages' type
    //! Fine channels per coarse channel (a divisor of T); unset: 1, no channelizer
    std::optional<int64_t> channelizer_rate;
    int taps = 1;                   //!< polyphase filterbank taps per branch (1: a plain FFT)
    std::string window = "hamming"; //!< the polyphase prototype's window
    //! Time samples (at the fine channels' rate) summed per output: a divisor of the
    //! fine time axis T/N, or a multiple of it to integrate across chunks
    int64_t integration = 1;
    int64_t channel_integration = 1; //!< adjacent fine channels summed per output (divides F·N)
    std::string precision = "auto";  //!< "auto", "fp32", "fp16" (tensor cores) or "fp64" (CPU)
    float operand_scale = 0.0f;      //!< fp16 with cf32 voltages: scale before rounding (0: 1)
    std::string device = "auto";     //!< "auto", "cpu", "cuda", "cuda:N", "emulated", "all"
    //! Several devices, one sub-band each (e.g. {"cuda:0", "cuda:1"}); empty: device.
    std::vector<std::string> devices;
};

/*!
 * \brief Mode X: the FX correlator bundle.
 * \ingroup blade
 *
 * \details
 * cast -> channelizer (rate N, optionally a polyphase filterbank; none for N = 1)
 * -> correlator (every baseline and polarization product, integrated over I fine
 * time samples, across chunks when I exceeds them, and over Fc adjacent channels).
 * ci8 voltages go to the correlator as they are when there is no channelizer (its
 * fp16 operands are exact for them); other types are cast to cf32 first.
 *
 * Input: voltage chunks [A, F, T, P] of the input type. Output: cf32 visibility
 * chunks [B, F·N/Fc, T/(N·I), P²] (T/(N·I) is 1 when the integration spans chunks,
 * and then one output chunk comes every I·N/T input chunks), B = A(A+1)/2 baselines
 * in the correlator's order (gr::blade::correlator, docs/correlator.md).
 *
 * Device(s): as Mode H; with several devices the channels are split into one
 * sub-band per device and the visibilities merged by channel.
 */
class BLADE_API mode_x : virtual public gr::hier_block2, public virtual bundle
{
public:
    typedef std::shared_ptr<mode_x> sptr;

    /*!
     * \brief Make a Mode X bundle.
     *
     * \param shape [A, F, T, P] of the input chunks.
     * \param options The chain (correlator_options).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const correlator_options& options = correlator_options());

    /*! \brief The correlator's path ("fp64" or, asked for, "fp32" on the CPU; "fp32" or "fp16" on a GPU). */
    virtual std::string precision() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_MODE_X_H */
