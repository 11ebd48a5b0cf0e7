/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DEDOPPLER_SEARCH_H
#define INCLUDED_BLADE_DEDOPPLER_SEARCH_H

#include <gnuradio/blade/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Options of a dedoppler search (the core's blade_dedoppler_config by name).
 * \ingroup blade
 *
 * \details
 * foff_hz (signed), tsamp_s and nfpc describe the spectrogram; min_drift and
 * max_drift (Hz/s, both signs searched), snr the threshold; normalization "MAD" or
 * "turbo_seti"; method "taylor" or "brute_force"; blank_dc replaces each coarse
 * channel's DC bin as turbo_seti does; sk_shape > 0 turns on spectral-kurtosis
 * flagging at sk_sigmas; capacity is the most hits one search returns.
 * docs/dedoppler.md defines every one.
 */
struct BLADE_API dedoppler_options {
    double foff_hz = 0.0;
    double tsamp_s = 0.0;
    int64_t nfpc = 0;
    double min_drift = 0.0;
    double max_drift = 4.0;
    double snr = 10.0;
    std::string normalization = "MAD";
    std::string method = "taylor";
    bool blank_dc = false;
    double sk_shape = 0.0;
    double sk_sigmas = 0.0;
    int64_t capacity = 65536;
};

/*!
 * \brief One hit: the best drifting path of a start channel that is a local maximum.
 * \ingroup blade
 */
struct BLADE_API dedoppler_hit {
    int64_t beam = 0;              /*!< beam or antenna, 0 ... B-1 */
    int64_t channel = 0;           /*!< fine channel of the path's start, 0 ... F-1 */
    int64_t coarse_channel = 0;    /*!< channel / nfpc */
    int64_t channel_in_coarse = 0; /*!< channel mod nfpc (turbo_seti's Index) */
    int64_t drift_index = 0;       /*!< channels drifted over the padded span */
    double drift_rate = 0.0;       /*!< Hz/s, signed (positive: rising frequency) */
    double snr = 0.0;              /*!< (path sum - centre) / spread */
    double path_sum = 0.0;         /*!< the path's sum */
};

/*!
 * \brief A dedoppler search of host spectrograms [B, T, F], without a flowgraph.
 * \ingroup blade
 *
 * \details
 * The C core's module (include/blade/modules/dedoppler.h) on a device: "auto" (the
 * first GPU if any, else the CPU), "cpu", "cuda", "cuda:N" or "emulated". search()
 * takes B·T·F float32 values in host memory ([beam][spectrum][channel]), copies them
 * to the device when it is not the CPU and returns the hits, ordered by beam then
 * channel. Used by blade-cli search and by the dedoppler block. Errors (bad options,
 * a spectrogram of the wrong size, a failed device call) throw std::invalid_argument
 * or std::runtime_error with the core's message.
 */
class BLADE_API dedoppler_search
{
public:
    /*!
     * \param beams B (>= 1).
     * \param spectra T (>= 1; padded to a power of two by the core).
     * \param channels F (a multiple of options.nfpc).
     * \param options The search's options.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    dedoppler_search(int64_t beams,
                     int64_t spectra,
                     int64_t channels,
                     const dedoppler_options& options,
                     const std::string& device = "auto");
    ~dedoppler_search();
    dedoppler_search(const dedoppler_search&) = delete;
    dedoppler_search& operator=(const dedoppler_search&) = delete;

    /*! \brief Search B·T·F float32 host values; the hits found (at most capacity). */
    std::vector<dedoppler_hit> search(const float* spectrogram, size_t count);

    /*! \brief Hits of the last search beyond the capacity (not returned). */
    int64_t dropped() const;
    /*! \brief The device searched on, e.g. "cpu" or "cuda:0". */
    std::string device() const;
    /*! \brief Drift step (Hz/s, signed): foff / ((T' - 1) tsamp). */
    double drift_step() const;
    /*! \brief Drifts searched (both signs). */
    int64_t drift_count() const;
    /*! \brief Half-width N of the top-hit window [f - N, f + N) in channels. */
    int64_t window() const;
    /*! \brief T rounded up to a power of two. */
    int64_t padded_spectra() const;
    /*! \brief The options the search was made with. */
    const dedoppler_options& options() const;

private:
    struct state;
    std::unique_ptr<state> d_state;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DEDOPPLER_SEARCH_H */
