/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * Turning the C++/Python arguments of the phasor block and of compute_delays()
 * and compute_phasors() into a core phasor configuration (private header). The
 * setup owns every array the configuration points to.
 */
#ifndef INCLUDED_BLADE_PHASOR_SETUP_H
#define INCLUDED_BLADE_PHASOR_SETUP_H

#include <blade/blade.h>
#include <gnuradio/gr_complex.h>

#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*! A core configuration and the storage it points into. Not copyable (pointers). */
struct phasor_setup {
    std::vector<double> positions;   // [A][3]
    std::vector<double> beam_ra;     // [B]
    std::vector<double> beam_dec;    // [B]
    std::vector<double> calibration; // [A][rows][P] (re, im)
    std::vector<std::string> beam_names; // [B]: the recipe's source names, or empty
    std::shared_ptr<blade_bfr5> recipe;
    blade_phasor_config config{};

    phasor_setup() = default;
    phasor_setup(const phasor_setup&) = delete;
    phasor_setup& operator=(const phasor_setup&) = delete;
};

blade_frequency_axis make_frequency_axis(double observation_frequency,
                                         double channel_width,
                                         int64_t observation_channels,
                                         int64_t first_channel,
                                         int64_t channels,
                                         int64_t channelizer_rate,
                                         int64_t schan);

/*! B rows of (ra, dec) -> two arrays; throws std::invalid_argument naming `what`. */
void split_directions(const std::vector<std::vector<double>>& rows,
                      std::vector<double>& ra,
                      std::vector<double>& dec,
                      const std::string& what);

/*! Complex [A, rows, P] flattened -> (re, im) doubles and the row count. */
std::vector<double> calibration_pairs(const std::vector<gr_complex>& calibration,
                                      int64_t antennas,
                                      int64_t polarizations,
                                      int64_t& rows,
                                      const std::string& what);

/*! "geometry", "recipe", "recipe_rates" -> the core's delay mode. */
blade_delay_mode parse_delay_mode(const std::string& name, const std::string& what);

/*! Fill `setup` from explicit geometry (validated by the core later). */
void geometry_setup(phasor_setup& setup,
                    const std::vector<double>& reference,
                    const std::vector<std::vector<double>>& antenna_positions,
                    const std::vector<double>& boresight,
                    const std::vector<std::vector<double>>& beams,
                    const blade_frequency_axis& axis,
                    int64_t polarizations,
                    int64_t reference_antenna,
                    const std::vector<gr_complex>& calibration,
                    int64_t calibration_first_channel,
                    const std::string& what);

/*! Fill `setup` from a BFR5 recipe matched against the recording; `beams` picks
 *  recipe beams by index (empty: all, in recipe order). */
void recipe_setup(phasor_setup& setup,
                  const std::string& path,
                  int64_t antennas,
                  int64_t polarizations,
                  const blade_frequency_axis& axis,
                  int64_t reference_antenna,
                  blade_delay_mode mode,
                  const std::string& what,
                  const std::vector<int64_t>& beams = {});

} // namespace blade
} // namespace gr

#endif
