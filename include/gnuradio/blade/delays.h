/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DELAYS_H
#define INCLUDED_BLADE_DELAYS_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/phasor.h>
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
 * \param array Array reference, antenna positions (ECEF m), boresight, beams, the
 *        reference antenna.
 * \param jd UTC Julian date (the middle of the step).
 * \param dut1 UT1 - UTC in seconds.
 * \param absolute True: delay[b, a] = tau_a(beam b), the geometric delay relative
 *        to the reference antenna without the boresight's subtracted (for data
 *        not phased upstream, and for inspection).
 */
BLADE_API std::vector<double>
compute_delays(const array_geometry& array, double jd, double dut1 = 0.0, bool absolute = false);

/*!
 * \brief Phasors of the phasor block for one time, without a flowgraph.
 * \ingroup blade
 *
 * \details
 * phasor[b, a, f, 0, p] = cal[a, f, p] * exp(-2 pi i delay[b, a] nu_f) (exp(+2 pi i
 * ...) for a lower-sideband axis) with the delays of compute_delays() and nu_f =
 * axis.frequency(f). Returns B * A * F * P values (Python: a complex64 numpy array
 * [B, A, F, 1, P]). Parameters as in phasor::make().
 */
BLADE_API std::vector<gr_complex> compute_phasors(const observation& axis,
                                                  const array_geometry& array,
                                                  double jd,
                                                  double dut1 = 0.0,
                                                  const phasor_options& options = phasor_options());

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DELAYS_H */
