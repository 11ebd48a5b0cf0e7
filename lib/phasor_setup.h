/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * Turning the phasor block's and compute_delays()/compute_phasors()'s arguments (an
 * observation, an array or a recipe, options) into a core phasor configuration
 * (private header). The setup owns every array the configuration points to.
 */
#ifndef INCLUDED_BLADE_PHASOR_SETUP_H
#define INCLUDED_BLADE_PHASOR_SETUP_H

#include <gnuradio/blade/phasor.h>
#include <gnuradio/gr_complex.h>
#include <blade/blade.h>

#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*! A core configuration and the storage it points into. Not copyable (pointers). */
struct phasor_setup {
    std::vector<double> positions;       // [A][3]
    std::vector<double> beam_ra;         // [B]
    std::vector<double> beam_dec;        // [B]
    std::vector<double> calibration;     // [A][rows][P] (re, im)
    std::vector<std::string> beam_names; // [B]: the recipe's source names, or empty
    std::shared_ptr<blade_bfr5> recipe;
    blade_phasor_config config{};

    phasor_setup() = default;
    phasor_setup(const phasor_setup&) = delete;
    phasor_setup& operator=(const phasor_setup&) = delete;
};

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
                    const observation& axis,
                    const array_geometry& array,
                    const phasor_options& options,
                    const std::string& what);

/*! Fill `setup` from a BFR5 recipe for chunks on `axis`; options.beams picks
 *  recipe beams by index (empty: all, in recipe order). */
void recipe_setup(phasor_setup& setup,
                  const observation& axis,
                  const recipe& recipe,
                  const phasor_options& options,
                  const std::string& what);

} // namespace blade
} // namespace gr

#endif
