/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_block.h"
#include "phasor_setup.h"

#include <stdexcept>

namespace gr {
namespace blade {

void split_directions(const std::vector<std::vector<double>>& rows,
                      std::vector<double>& ra,
                      std::vector<double>& dec,
                      const std::string& what)
{
    ra.clear();
    dec.clear();
    for (size_t i = 0; i < rows.size(); i++) {
        if (rows[i].size() != 2)
            throw std::invalid_argument(what + ": row " + std::to_string(i) + " has " +
                                        std::to_string(rows[i].size()) +
                                        " values; expected (ra, dec) in radians");
        ra.push_back(rows[i][0]);
        dec.push_back(rows[i][1]);
    }
}

std::vector<double> calibration_pairs(const std::vector<gr_complex>& calibration,
                                      int64_t antennas,
                                      int64_t polarizations,
                                      int64_t& rows,
                                      const std::string& what)
{
    rows = 0;
    if (calibration.empty())
        return {};
    const int64_t per_row = antennas * polarizations;
    const int64_t size = static_cast<int64_t>(calibration.size());
    if (per_row < 1 || size % per_row != 0)
        throw std::invalid_argument(what + ": " + std::to_string(size) +
                                    " calibration values are not [A = " + std::to_string(antennas) +
                                    ", rows, P = " + std::to_string(polarizations) + "] flattened");
    rows = size / per_row;
    std::vector<double> pairs(2 * calibration.size());
    for (size_t i = 0; i < calibration.size(); i++) {
        pairs[2 * i] = calibration[i].real();
        pairs[2 * i + 1] = calibration[i].imag();
    }
    return pairs;
}

blade_delay_mode parse_delay_mode(const std::string& name, const std::string& what)
{
    if (name == "geometry")
        return BLADE_DELAYS_GEOMETRY;
    if (name == "recipe")
        return BLADE_DELAYS_TABLE_LINEAR;
    if (name == "recipe_rates")
        return BLADE_DELAYS_TABLE_RATES;
    throw std::invalid_argument(what + ": delays '" + name +
                                "' is not one of geometry, recipe, recipe_rates");
}

void geometry_setup(phasor_setup& setup,
                    const observation& axis,
                    const array_geometry& array,
                    const phasor_options& options,
                    const std::string& what)
{
    if (array.reference.size() != 3)
        throw std::invalid_argument(what +
                                    ": reference must be (longitude rad, latitude "
                                    "rad, altitude m), " +
                                    std::to_string(array.reference.size()) + " values given");
    if (array.boresight.size() != 2)
        throw std::invalid_argument(what + ": boresight must be (ra, dec) in radians, " +
                                    std::to_string(array.boresight.size()) + " values given");
    setup.positions.clear();
    for (size_t a = 0; a < array.antenna_positions.size(); a++) {
        if (array.antenna_positions[a].size() != 3)
            throw std::invalid_argument(what + ": antenna position " + std::to_string(a) + " has " +
                                        std::to_string(array.antenna_positions[a].size()) +
                                        " values; expected ECEF (x, y, z) in metres");
        setup.positions.insert(setup.positions.end(),
                               array.antenna_positions[a].begin(),
                               array.antenna_positions[a].end());
    }
    split_directions(array.beams, setup.beam_ra, setup.beam_dec, what + " beams");
    const int64_t antennas = static_cast<int64_t>(array.antenna_positions.size());
    int64_t rows = 0;
    setup.calibration =
        calibration_pairs(options.calibration, antennas, options.polarizations, rows, what);
    if (parse_delay_mode(options.delays, what) != BLADE_DELAYS_GEOMETRY)
        throw std::invalid_argument(what + ": delays '" + options.delays +
                                    "' need a recipe's delay table; explicit geometry "
                                    "computes them (delays \"geometry\")");
    if (!options.beams.empty())
        throw std::invalid_argument(what + ": beams selects recipe beams; with explicit "
                                           "geometry, give the beams' directions");

    blade_phasor_config& c = setup.config;
    c = blade_phasor_config{};
    c.longitude = array.reference[0];
    c.latitude = array.reference[1];
    c.altitude = array.reference[2];
    c.antennas = antennas;
    c.antenna_positions = setup.positions.data();
    c.reference_antenna = array.reference_antenna;
    c.boresight_ra = array.boresight[0];
    c.boresight_dec = array.boresight[1];
    c.beams = static_cast<int64_t>(setup.beam_ra.size());
    c.beam_ra = setup.beam_ra.data();
    c.beam_dec = setup.beam_dec.data();
    c.observation = axis.value();
    c.polarizations = options.polarizations;
    c.calibration = setup.calibration.empty() ? nullptr : setup.calibration.data();
    c.calibration_channels = rows;
    c.calibration_first_channel = options.calibration_first_channel;
    c.delay_mode = BLADE_DELAYS_GEOMETRY;
}

void recipe_setup(phasor_setup& setup,
                  const observation& axis,
                  const recipe& recipe,
                  const phasor_options& options,
                  const std::string& what)
{
    if (!options.calibration.empty())
        throw std::invalid_argument(what + ": a recipe brings its own calibration "
                                           "(/calinfo/cal_all); calibration is for "
                                           "explicit geometry");
    setup.recipe.reset(read_bfr5_core(recipe), blade_bfr5_free);
    blade_bfr5* core = setup.recipe.get();
    if (!options.beams.empty())
        throw_on_error(blade_bfr5_select_beams(
                           core, options.beams.data(), static_cast<int64_t>(options.beams.size())),
                       what + " beams");
    setup.beam_names.clear();
    for (int64_t b = 0; core->source_names != nullptr && b < core->beams; b++)
        setup.beam_names.push_back(core->source_names[b] ? core->source_names[b] : "");
    throw_on_error(blade_bfr5_phasor_config(core,
                                            &axis.value(),
                                            core->antennas,
                                            options.polarizations,
                                            -1, // the recipe's /calinfo/refant
                                            parse_delay_mode(options.delays, what),
                                            &setup.config),
                   what);
}

} // namespace blade
} // namespace gr
