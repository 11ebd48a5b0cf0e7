/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DELAYS_H
#define INCLUDED_BLADE_DELAYS_H

#include <gnuradio/blade/api.h>
#include <gnuradio/gr_complex.h>

#include <cstdint>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Steering delays of B beams for A antennas at one time, without a flowgraph.
 * \ingroup blade
 *
 * \details
 * The computation of the phasor block (docs/blocks/phasor.md):
 * delay[b, a] = tau_a(beam b) - tau_a(boresight), tau_a = (W_a - W_ref) / c, with
 * the observed directions from ERFA at UTC Julian date jd and DUT1 (seconds).
 * Returns B * A delays in seconds, beam-major (Python: a numpy array [B, A]).
 *
 * \param reference Longitude (rad, east-positive), latitude (rad), altitude (m).
 * \param antenna_positions A rows of ECEF (x, y, z) metres.
 * \param boresight (ra, dec) in radians the data are phased to.
 * \param beams B rows of (ra, dec) in radians.
 * \param jd UTC Julian date (the middle of the step).
 * \param dut1 UT1 - UTC in seconds.
 * \param reference_antenna Index of the antenna whose delay is 0.
 * \param absolute True: delay[b, a] = tau_a(beam b), the geometric delay relative
 *        to the reference antenna without the boresight's subtracted (for data
 *        not phased upstream, and for inspection).
 */
BLADE_API std::vector<double>
compute_delays(const std::vector<double>& reference,
               const std::vector<std::vector<double>>& antenna_positions,
               const std::vector<double>& boresight,
               const std::vector<std::vector<double>>& beams,
               double jd,
               double dut1 = 0.0,
               int64_t reference_antenna = 0,
               bool absolute = false);

/*!
 * \brief Phasors of the phasor block for one time, without a flowgraph.
 * \ingroup blade
 *
 * \details
 * phasor[b, a, f, 0, p] = cal[a, f, p] * exp(-2 pi i delay[b, a] nu_f) with the
 * delays of compute_delays() and nu_f the centre of channel f (see
 * channel_frequencies()). Returns B * A * F * P values (Python: a complex64
 * numpy array [B, A, F, 1, P]). Parameters as in phasor::make().
 */
BLADE_API std::vector<gr_complex>
compute_phasors(const std::vector<double>& reference,
                const std::vector<std::vector<double>>& antenna_positions,
                const std::vector<double>& boresight,
                const std::vector<std::vector<double>>& beams,
                double observation_frequency,
                double channel_width,
                int64_t observation_channels,
                int64_t first_channel,
                int64_t channels,
                double jd,
                double dut1 = 0.0,
                int64_t channelizer_rate = 1,
                int64_t schan = 0,
                int64_t polarizations = 2,
                int64_t reference_antenna = 0,
                const std::vector<gr_complex>& calibration = std::vector<gr_complex>(),
                int64_t calibration_first_channel = 0);

/*!
 * \brief Sky frequencies (Hz) of the channel centres the phasors use.
 * \ingroup blade
 *
 * \details
 * Coarse channel c of a step is recorded channel first_channel + c, centred at
 * observation_frequency + (first_channel + c - (observation_channels - 1) / 2) *
 * channel_width; fine channel k of channelizer_rate N at (k - floor(N / 2)) *
 * channel_width / N from it. Returns channels * N values.
 */
BLADE_API std::vector<double> channel_frequencies(double observation_frequency,
                                                  double channel_width,
                                                  int64_t observation_channels,
                                                  int64_t first_channel,
                                                  int64_t channels,
                                                  int64_t channelizer_rate = 1);

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DELAYS_H */
