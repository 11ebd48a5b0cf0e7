/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_B_H
#define INCLUDED_BLADE_MODE_B_H

#include <gnuradio/blade/api.h>
#include <gnuradio/hier_block2.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Mode B: the beamformer bundle, from a recording to beams.
 * \ingroup blade
 *
 * \details
 * Voltages: cast to cf32 -> optional channelizer (rate N, optionally a polyphase
 * filterbank) -> optional polarizer -> beamformer -> detector (power) or, with
 * detector "none", a cast to the output type (beamformed voltages). Without a
 * channelizer or polarizer, ci8 voltages go straight into the beamformer, which
 * converts them as it loads them. Phasors: a phasor block computes one phasor
 * chunk per data chunk from the BFR5 recipe (array, beams, calibration) and the
 * chunk's time.
 *
 * Inputs: 0, voltage chunks [A, F, T, P] (the recording's antennas, channels,
 * samples, polarizations); 1, the chunk-time stream of the same chunks (the second
 * output of guppi_source; gr::blade::chunk_time items). Output: [B(+1), F*N,
 * T/(N*I) or 1, Pout] f32 power, or [B(+1), F*N, T/N, P] voltages. Aspect b < B is
 * recipe beam beams[b] (all recipe beams in order when beams is empty); with the
 * incoherent beam, aspect B is the incoherent sum of all antennas' power.
 *
 * The frequency axis of the recording (OBSFREQ, CHAN_BW, OBSNCHAN, SCHAN and the
 * first recorded channel of the chunks) places each (fine) channel's centre for
 * the phasors; calibration rows are looked up by absolute channel.
 *
 * Device: every block runs on one device; on a GPU the chain uploads the voltages
 * once per chunk (the phasors too, a few hundred kB), keeps every intermediate in
 * device memory, and downloads the result once.
 */
class BLADE_API mode_b : virtual public gr::hier_block2
{
public:
    typedef std::shared_ptr<mode_b> sptr;

    /*!
     * \brief Make a Mode B bundle.
     *
     * \param shape [A, F, T, P] of the voltage chunks.
     * \param recipe Path of the BFR5 beamforming recipe.
     * \param observation_frequency OBSFREQ, Hz (centre of the recorded band).
     * \param channel_width CHAN_BW, Hz (negative: descending frequencies).
     * \param observation_channels OBSNCHAN / NANTS: channels recorded per antenna.
     * \param first_channel Recorded channel of the chunks' channel 0 (a subset start).
     * \param schan SCHAN: absolute F-engine channel of recorded channel 0.
     * \param input_type Element type of the voltages: ci4, ci8, ci16, cf16 or cf32.
     * \param channelizer_rate N (1: beamform the coarse channels).
     * \param taps Polyphase filterbank taps per branch (1: plain FFT).
     * \param window Polyphase prototype window.
     * \param circular Convert to circular polarization before beamforming.
     * \param incoherent Add the incoherent beam after the coherent ones.
     * \param detector "I", "XXYY", "cross", "IQUV", or "none" for voltages.
     * \param integration Samples summed per spectrum (detector modes only).
     * \param output_type cf32 or cf16: voltage output type (detector "none").
     * \param beams Recipe beams to form, by index (empty: all).
     * \param delays "geometry", "recipe" or "recipe_rates" (see blade.phasor).
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
                     int64_t channelizer_rate = 1,
                     int taps = 1,
                     const std::string& window = "hamming",
                     bool circular = false,
                     bool incoherent = true,
                     const std::string& detector = "I",
                     int64_t integration = 1,
                     const std::string& output_type = "cf32",
                     const std::vector<int64_t>& beams = std::vector<int64_t>(),
                     const std::string& delays = "geometry",
                     const std::string& beamformer_path = "auto",
                     const std::string& device = "auto");

    /*! \brief Shape of the output chunks. */
    virtual std::vector<int64_t> output_shape() const = 0;

    /*! \brief Element type of the output ("f32" for power, else the voltage type). */
    virtual std::string output_type() const = 0;

    /*! \brief Bytes of one voltage input item. */
    virtual size_t input_item_size() const = 0;

    /*! \brief Bytes of one output item. */
    virtual size_t output_item_size() const = 0;

    /*! \brief Input chunks per output chunk. */
    virtual int64_t chunks_per_output() const = 0;

    /*! \brief Coherent beams formed (B, without the incoherent one). */
    virtual int64_t beams() const = 0;

    /*! \brief The device the chain runs on ("cpu", "cuda:0", ...). */
    virtual std::string device() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_MODE_B_H */
