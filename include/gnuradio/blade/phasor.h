/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_PHASOR_H
#define INCLUDED_BLADE_PHASOR_H

#include <gnuradio/blade/api.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Beamforming phasors, one chunk per data chunk, from array geometry or a
 * BFR5 recipe.
 * \ingroup blade
 *
 * \details
 * Input: a chunk-time stream (gr::blade::chunk_time items of 64 bytes, one per data
 * chunk, e.g. the second output of guppi_source). Output: for every chunk-time
 * item, one phasor chunk [B, A, F, 1, P] cf32 (beams, antennas, channels, 1,
 * polarizations), in step with the data, for a beamformer that computes
 * y[b] = sum over a of x[a] * phasor[b, a] (no conjugation).
 *
 * Maths (docs/blocks/phasor.md): for the chunk's middle time (unix_mid of the
 * item, or jd_mid when unix_mid is 0, with the item's DUT1), ERFA
 * gives each beam's and the boresight's observed hour angle and declination; the
 * projection W of each antenna's position on a direction gives
 * tau_a = (W_a - W_ref) / c; the steering delay is
 * delay[b, a] = tau_a(beam b) - tau_a(boresight) (the data are phased to the
 * boresight upstream; the reference antenna gets 0), and
 * phasor[b, a, f, 0, p] = cal[a, f, p] * exp(-2 pi i delay[b, a] nu_f), with nu_f
 * the centre frequency of channel f. With a recipe and delays "recipe" or
 * "recipe_rates", the recipe's /delayinfo/delays are interpolated to the chunk's
 * time instead (linearly, or from the nearest row with its rates) and used as
 * they are.
 *
 * Frequency axis: coarse channel c of a chunk is recorded channel first_channel +
 * c, centred at observation_frequency + (first_channel + c - (observation_channels
 * - 1) / 2) * channel_width; with a channelizer of rate N upstream of the
 * beamformer, F = channels * N and fine channel k of coarse channel c is centred
 * (k - N / 2) * channel_width / N from it (for odd N too, as the channelizer
 * defines it). Calibration rows are
 * absolute F-engine channels: coarse channel c uses row schan + first_channel + c
 * for all its fine channels.
 *
 * Run-time updates: a message on port "update", a dict with any of "beams"
 * (B (ra, dec) pairs in radians, as a flat f64 vector or a list of pairs),
 * "boresight" ((ra, dec)), "calibration" (complex vector [A, rows, P] flattened)
 * with "calibration_first_channel" (absolute channel of row 0; default 0). New
 * values apply from the next chunk; a message that does not fit is logged and
 * ignored. set_beams() and set_calibration() do the same from Python.
 *
 * Device: "auto", "cpu", "cuda", "cuda:N" or "emulated". Phasors are computed on
 * the CPU in double precision (they are small); on a GPU the output is a device
 * buffer that the block fills by one upload per chunk, so it feeds a GPU
 * beamformer without further copies.
 */
class BLADE_API phasor : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<phasor> sptr;

    /*!
     * \brief Phasors from explicit array geometry.
     *
     * \param reference Array reference position: longitude (rad, east-positive),
     *        latitude (rad), altitude (m above the WGS84 ellipsoid).
     * \param antenna_positions A rows of ECEF x, y, z in metres, in data order.
     * \param boresight Right ascension and declination (rad, ICRS) the data are
     *        phased to.
     * \param beams B rows of right ascension and declination (rad).
     * \param observation_frequency Centre of the recorded band, Hz (OBSFREQ).
     * \param channel_width Coarse channel width, Hz (CHAN_BW; negative: descending).
     * \param observation_channels Coarse channels recorded per antenna (NCHAN).
     * \param first_channel Recorded channel of a chunk's first coarse channel.
     * \param channels Coarse channels per chunk.
     * \param channelizer_rate Fine channels per coarse channel (1: no channelizer).
     * \param schan Absolute F-engine index of recorded channel 0 (SCHAN).
     * \param polarizations P.
     * \param reference_antenna Index of the antenna whose delay is 0.
     * \param calibration Complex gains [A, rows, P] flattened (row r = absolute
     *        channel calibration_first_channel + r); empty: all ones.
     * \param calibration_first_channel Absolute channel of calibration row 0.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<double>& reference,
                     const std::vector<std::vector<double>>& antenna_positions,
                     const std::vector<double>& boresight,
                     const std::vector<std::vector<double>>& beams,
                     double observation_frequency,
                     double channel_width,
                     int64_t observation_channels,
                     int64_t first_channel,
                     int64_t channels,
                     int64_t channelizer_rate = 1,
                     int64_t schan = 0,
                     int64_t polarizations = 2,
                     int64_t reference_antenna = 0,
                     const std::vector<gr_complex>& calibration = std::vector<gr_complex>(),
                     int64_t calibration_first_channel = 0,
                     const std::string& device = "auto");

    /*!
     * \brief Phasors from a BFR5 beamformer recipe.
     *
     * The array, boresight, beams and calibration (/calinfo/cal_all, rows indexed
     * by absolute channel) come from the recipe, which must match the recording:
     * antennas and polarizations equal to /diminfo, and schan + first_channel +
     * channels within /diminfo/nchan.
     *
     * \param recipe Path of the .bfr5 file.
     * \param antennas Antennas in the recording (A).
     * \param polarizations Polarizations in the recording (P).
     * \param delays "geometry" (compute from the recipe's array and beams),
     *        "recipe" (interpolate /delayinfo/delays linearly in time) or
     *        "recipe_rates" (nearest row plus /delayinfo/rates times the offset).
     * \param beams Recipe beams to form, by index in /beaminfo (empty: all, in
     *        recipe order).
     * Other parameters as in make().
     */
    static sptr make_from_recipe(const std::string& recipe,
                                 int64_t antennas,
                                 int64_t polarizations,
                                 double observation_frequency,
                                 double channel_width,
                                 int64_t observation_channels,
                                 int64_t first_channel,
                                 int64_t channels,
                                 int64_t channelizer_rate = 1,
                                 int64_t schan = 0,
                                 int64_t reference_antenna = 0,
                                 const std::string& delays = "geometry",
                                 const std::string& device = "auto",
                                 const std::vector<int64_t>& beams = {});

    /*! \brief The device actually used ("cpu", "cuda:0", "emulated"). */
    virtual std::string device() const = 0;

    /*! \brief Shape of the output chunks: [B, A, F, 1, P]. */
    virtual std::vector<int64_t> output_shape() const = 0;

    /*! \brief Bytes of one output item (the chunk padded to 4096 bytes). */
    virtual size_t output_item_size() const = 0;

    /*! \brief Delays [B * A] (seconds, beam-major) of the last chunk computed. */
    virtual std::vector<double> last_delays() const = 0;

    /*! \brief Beam directions from the next chunk on: B rows of (ra, dec) in rad. */
    virtual void set_beams(const std::vector<std::vector<double>>& beams) = 0;

    /*! \brief Boresight from the next chunk on: (ra, dec) in rad. */
    virtual void set_boresight(const std::vector<double>& boresight) = 0;

    /*!
     * \brief Calibration from the next chunk on: [A, rows, P] flattened, row r =
     * absolute channel first_channel + r; empty: all ones.
     */
    virtual void set_calibration(const std::vector<gr_complex>& calibration,
                                 int64_t first_channel = 0) = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_PHASOR_H */
