/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_H_H
#define INCLUDED_BLADE_MODE_H_H

#include <gnuradio/blade/api.h>
#include <gnuradio/hier_block2.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Mode H: the high-resolution spectrometer bundle.
 * \ingroup blade
 *
 * \details
 * cast to cf32 -> channelizer (rate N, optionally a polyphase filterbank) ->
 * optional polarizer (linear to circular) -> detector (mode, integration I, across
 * chunks when I exceeds the chunk's fine time samples).
 *
 * Input: voltage chunks [A, F, T, P] of the input type (ci8 from a GUPPI RAW
 * recording, ci4, cf32, ...). Output: power chunks [A, F*N, T/(N*I), Pout] f32
 * (T/(N*I) is 1 when the integration spans chunks, and then one output chunk comes
 * every I*N/T input chunks). Pout is 1 for mode I, 2 for XXYY, 4 for cross and IQUV.
 * Tags: the channelizer and detector rewrite the frequency axis and sample time, so
 * a filterbank_sink downstream writes correct headers.
 *
 * Device: all blocks of the chain run on one device; on a GPU the chunk is
 * uploaded once, stays in device memory through every stage, and the spectra are
 * downloaded once.
 */
class BLADE_API mode_h : virtual public gr::hier_block2
{
public:
    typedef std::shared_ptr<mode_h> sptr;

    /*!
     * \brief Make a Mode H bundle.
     *
     * \param shape [A, F, T, P] of the input chunks.
     * \param input_type Element type of the input: ci4, ci8, ci16, cf16 or cf32.
     * \param channelizer_rate N, fine channels per coarse channel (divides T).
     * \param taps Polyphase filterbank taps per branch (1: plain FFT channelizer).
     * \param window Polyphase prototype window (hamming, hann, blackman, ...).
     * \param circular Convert linear X, Y to circular L, R before detection.
     * \param detector Detector mode: "I", "XXYY", "cross" or "IQUV".
     * \param integration Fine time samples summed per output spectrum (a divisor of
     *        T/N, or a multiple of it to integrate across chunks).
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& input_type = "ci8",
                     int64_t channelizer_rate = 1,
                     int taps = 1,
                     const std::string& window = "hamming",
                     bool circular = false,
                     const std::string& detector = "I",
                     int64_t integration = 1,
                     const std::string& device = "auto");

    /*! \brief Shape of the output chunks: [A, F*N, T/(N*I) or 1, Pout]. */
    virtual std::vector<int64_t> output_shape() const = 0;

    /*! \brief Bytes of one input item. */
    virtual size_t input_item_size() const = 0;

    /*! \brief Bytes of one output item. */
    virtual size_t output_item_size() const = 0;

    /*! \brief Input chunks per output chunk. */
    virtual int64_t chunks_per_output() const = 0;

    /*! \brief The device the chain runs on ("cpu", "cuda:0", ...). */
    virtual std::string device() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_MODE_H_H */
