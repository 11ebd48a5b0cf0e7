/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_BH_H
#define INCLUDED_BLADE_MODE_BH_H

#include <gnuradio/blade/api.h>
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
 */
class BLADE_API mode_bh : virtual public gr::hier_block2
{
public:
    typedef std::shared_ptr<mode_bh> sptr;

    /*!
     * \brief Make a Mode BH bundle.
     *
     * \param shape [A, F, T, P] of the voltage chunks.
     * \param recipe Path of the BFR5 beamforming recipe.
     * \param observation_frequency OBSFREQ, Hz.
     * \param channel_width CHAN_BW, Hz.
     * \param observation_channels Channels recorded per antenna.
     * \param first_channel Recorded channel of the chunks' channel 0.
     * \param schan SCHAN.
     * \param input_type Element type of the voltages.
     * \param gather M, chunks gathered along time before the channelizer.
     * \param channelizer_rate N (0: T*M, the whole gathered time axis).
     * \param taps Polyphase filterbank taps per branch (1: plain FFT).
     * \param window Polyphase prototype window.
     * \param circular Convert to circular polarization before beamforming.
     * \param incoherent Add the incoherent beam.
     * \param detector "I", "XXYY", "cross" or "IQUV".
     * \param integration Fine samples summed per spectrum.
     * \param beams Recipe beams to form, by index (empty: all).
     * \param delays "geometry", "recipe" or "recipe_rates".
     * \param beamformer_path "auto", "fp32", "tf32" or "tf32x3".
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& recipe,
                     double observation_frequency,
                     double channel_width,
                     int64_t observation_channels,
                     int64_t first_channel = 0,
                     int64_t schan = 0,
                     const std::string& input_type = "ci8",
                     int64_t gather = 8,
                     int64_t channelizer_rate = 0,
                     int taps = 1,
                     const std::string& window = "hamming",
                     bool circular = false,
                     bool incoherent = false,
                     const std::string& detector = "I",
                     int64_t integration = 1,
                     const std::vector<int64_t>& beams = std::vector<int64_t>(),
                     const std::string& delays = "geometry",
                     const std::string& beamformer_path = "auto",
                     const std::string& device = "auto");

    /*! \brief Shape of the output chunks. */
    virtual std::vector<int64_t> output_shape() const = 0;

    /*! \brief Bytes of one voltage input item. */
    virtual size_t input_item_size() const = 0;

    /*! \brief Bytes of one output item. */
    virtual size_t output_item_size() const = 0;

    /*! \brief Input chunks per output chunk. */
    virtual int64_t chunks_per_output() const = 0;

    /*! \brief Coherent beams formed. */
    virtual int64_t beams() const = 0;

    /*! \brief The device the chain runs on. */
    virtual std::string device() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_MODE_BH_H */
