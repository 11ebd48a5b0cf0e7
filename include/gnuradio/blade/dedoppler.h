/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DEDOPPLER_BLOCK_H
#define INCLUDED_BLADE_DEDOPPLER_BLOCK_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/dedoppler_search.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Dedoppler search of power spectra: collects T spectra per window and emits
 * the window's hits as messages.
 * \ingroup blade
 *
 * \details
 * Input: one item per chunk, the f32 tensor [B, F, Tc, P] of a detector (as
 * filterbank_sink reads it); IF 0 (Stokes I) of each of the B beams or antennas is
 * searched. Every `spectra` spectra (chunks may hold any number Tc) the window
 * [B, spectra, F] is searched with the core's dedoppler (docs/dedoppler.md) on
 * `device` and each hit is published on the message port "hits" as a PMT dict:
 * beam, channel, coarse_channel, channel_in_coarse, drift_index (longs), drift_rate
 * (Hz/s), snr, path_sum, frequency (MHz: fch1 + channel foff), window (the window's
 * number from 0) and window_mjd (MJD of its first spectrum: tstart + window spectra
 * tsamp), then one dict {"window_done": window, "hits": count, "dropped": count}.
 * The spectrum description (options.foff_hz, tsamp_s, nfpc) and fch1 and tstart are
 * parameters. Spectra left at the end (fewer than a window) are not searched.
 */
class BLADE_API dedoppler : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<dedoppler> sptr;

    /*!
     * \param shape [B, F, Tc, P] of the input chunks (f32).
     * \param spectra T, spectra per search window.
     * \param options The search (foff_hz, tsamp_s and nfpc must be set).
     * \param fch1_mhz Frequency of channel 0 (for the messages).
     * \param tstart_mjd Time of the first spectrum (for the messages).
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<int64_t>& shape,
                     int64_t spectra,
                     const dedoppler_options& options,
                     double fch1_mhz = 0.0,
                     double tstart_mjd = 0.0,
                     const std::string& device = "auto");

    /*! \brief Windows searched so far. */
    virtual int64_t windows() const = 0;
    /*! \brief Hits emitted so far. */
    virtual int64_t hits() const = 0;
    /*! \brief Seconds spent searching so far. */
    virtual double search_seconds() const = 0;
    /*! \brief The search's drift step (Hz/s) and top-hit window N (channels). */
    virtual double drift_step() const = 0;
    virtual int64_t window() const = 0;
    /*! \brief T rounded up to a power of two. */
    virtual int64_t padded_spectra() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DEDOPPLER_BLOCK_H */
