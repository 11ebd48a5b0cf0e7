/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_PHASOR_H
#define INCLUDED_BLADE_PHASOR_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/observation.h>
#include <gnuradio/blade/recipe.h>
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
 * Frequency axis: the observation of the chunks the phasors are for (axis): channel
 * f is centred at axis.frequency(f) and calibrated with the row of F-engine channel
 * axis.coarse_channel(f). With a channelizer of rate N upstream of the beamformer,
 * that is the recording's observation channelized(N) (what Mode B passes). A
 * lower-sideband axis (chan_bw < 0) turns the geometric phase the other way: its
 * voltages are the sky's conjugates (docs/reference.md).
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
/*!
 * \brief Where the antennas are and where the beams point (explicit geometry).
 * \ingroup blade
 */
struct BLADE_API array_geometry {
    //! Array reference: longitude (rad, east-positive), latitude (rad), altitude (m
    //! above the WGS84 ellipsoid).
    std::vector<double> reference;
    std::vector<std::vector<double>>
        antenna_positions;                  //!< A rows of ECEF x, y, z (m), in data order
    std::vector<double> boresight;          //!< (ra, dec) rad (ICRS) the data are phased to
    std::vector<std::vector<double>> beams; //!< B rows of (ra, dec) rad
    int64_t reference_antenna = 0;          //!< the antenna whose delay is 0
};

/*!
 * \brief How phasors are made, besides the axis and the array.
 * \ingroup blade
 */
struct BLADE_API phasor_options {
    int64_t polarizations = 2; //!< P
    //! Complex gains [A, rows, P] flattened, row r = F-engine channel
    //! calibration_first_channel + r; empty: all ones (explicit geometry only: a
    //! recipe brings its own).
    std::vector<gr_complex> calibration;
    int64_t calibration_first_channel = 0;
    //! "geometry" (delays from the array and the beams), "recipe" (a recipe's
    //! /delayinfo/delays interpolated linearly in time) or "recipe_rates" (nearest
    //! row plus /delayinfo/rates times the offset).
    std::string delays = "geometry";
    std::vector<int64_t> beams;  //!< recipe beams to form, by index (empty: all, in order)
    std::string device = "auto"; //!< "auto", "cpu", "cuda", "cuda:N" or "emulated"
};

class BLADE_API phasor : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<phasor> sptr;

    /*!
     * \brief Phasors from explicit array geometry.
     *
     * \param axis The observation of the chunks the phasors are for (their channels:
     *        after a channelizer, its fine channels).
     * \param array Antenna positions, boresight, beams, reference antenna.
     * \param options Polarizations, calibration, device.
     */
    static sptr make(const observation& axis,
                     const array_geometry& array,
                     const phasor_options& options = phasor_options());

    /*!
     * \brief Phasors from a BFR5 beamformer recipe (read_bfr5()).
     *
     * The array, boresight, beams and calibration (/calinfo/cal_all, rows indexed by
     * F-engine channel; conjugated if the recipe was read with the seticore
     * convention) come from the recipe, which must fit: /diminfo/npol equal to the
     * polarizations and the axis's F-engine channels within /diminfo/nchan.
     * options.delays chooses geometry or the recipe's delay table, options.beams
     * the recipe beams.
     */
    static sptr make_from_recipe(const observation& axis,
                                 const recipe& recipe,
                                 const phasor_options& options = phasor_options());

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
