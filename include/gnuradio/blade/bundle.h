/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_BUNDLE_H
#define INCLUDED_BLADE_BUNDLE_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief How a bundle turns voltages into spectra: what Mode H, Mode B and Mode BH
 * share.
 * \ingroup blade
 *
 * \details
 * A configuration value in the manner of upstream BLADE's Config structs: set what
 * differs from the defaults by name (Python: blade.spectrometer_options(
 * channelizer_rate=1024, integration=16)).
 */
struct BLADE_API spectrometer_options {
    std::string input_type = "ci8"; //!< ci4, ci8, ci16, cf16 or cf32: the voltages' type
    //! Fine channels per coarse channel; unset: 1 (no channelizer) in Mode H and B, 0
    //! (the whole gathered time axis, T·gather) in Mode BH.
    std::optional<int64_t> channelizer_rate;
    int taps = 1;                   //!< polyphase filterbank taps per branch (1: a plain FFT)
    std::string window = "hamming"; //!< the polyphase prototype's window
    bool circular = false;          //!< convert linear X, Y to circular L, R first
    std::string detector = "I";     //!< "I", "XXYY", "cross", "IQUV" (Mode B also "none")
    int64_t integration = 1;        //!< spectra summed per output spectrum; may span chunks
    std::string device = "auto";    //!< "auto", "cpu", "cuda", "cuda:N", "emulated", "all"
    //! Several devices, one sub-band each (e.g. {"cuda:0", "cuda:1"}); empty: device.
    std::vector<std::string> devices;
    //! "fp32", or "fp16": every intermediate after the cast is cf16 (half the bytes;
    //! each stage computes in float and rounds to half once), the detector sums in
    //! float (GPU) or double (CPU) and writes f32 power.
    std::string precision = "fp32";
};

/*!
 * \brief What the beamforming bundles (Mode B, Mode BH) add.
 * \ingroup blade
 */
struct BLADE_API beamforming_options : spectrometer_options {
    std::vector<int64_t> beams; //!< recipe beams to form, by index (empty: all, in order)
    //! Add the incoherent sum of the antennas' power as a last beam; unset: on in
    //! Mode B, off in Mode BH.
    std::optional<bool> incoherent;
    std::string delays = "geometry";      //!< "geometry", "recipe" or "recipe_rates"
    std::string beamformer_path = "auto"; //!< "auto", "fp32", "tf32" or "tf32x3"
    std::string output_type = "cf32";     //!< Mode B voltages (detector "none"): cf32 or cf16
    int64_t gather = 8;                   //!< Mode BH: chunks joined along time
};

/*!
 * \brief What every bundle tells about itself.
 * \ingroup blade
 */
class BLADE_API bundle : public virtual tensor_block
{
public:
    virtual ~bundle();

    /*! \brief Element type of the output ("f32" for power, else the voltage type). */
    virtual std::string output_type() const = 0;

    /*! \brief Input chunks per output chunk. */
    virtual int64_t chunks_per_output() const = 0;

    /*! \brief The devices the chain runs on, one sub-band each (one entry for one device). */
    virtual std::vector<std::string> devices() const = 0;

    /*!
     * \brief The chain's arithmetic: "fp32" or "fp16" (cf16 intermediates); Mode X
     * reports its correlator's path ("fp32", "fp16" or "fp64").
     */
    virtual std::string precision() const = 0;
};

/*!
 * \brief What the beamforming bundles tell besides.
 * \ingroup blade
 */
class BLADE_API beamforming_bundle : public virtual bundle
{
public:
    /*! \brief Coherent beams formed (B, without the incoherent one). */
    virtual int64_t beams() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_BUNDLE_H */
