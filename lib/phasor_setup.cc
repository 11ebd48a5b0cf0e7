/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "phasor_setup.h"
#include "device_block.h"

#include <stdexcept>

namespace gr {
namespace blade {

blade_frequency_axis make_frequency_axis(double observation_frequency,
                                         double channel_width,
                                         int64_t observation_channels,
                                         int64_t first_channel,
                                         int64_t channels,
                                         int64_t channelizer_rate,
                                         int64_t schan)
{
    blade_frequency_axis axis{};
    axis.observation_frequency = observation_frequency;
    axis.channel_width = channel_width;
    axis.observation_channels = observation_channels;
    axis.first_channel = first_channel;
    axis.channels = channels;
    axis.channelizer_rate = channelizer_rate;
    axis.absolute_first_channel = schan;
    return axis;
}

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
        throw std::invalid_argument(
            what + ": " + std::to_string(size) + " calibration values are not [A = " +
            std::to_string(antennas) + ", rows, P = " + std::to_string(polarizations) +
            "] flattened");
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
                    const std::vector<double>& reference,
                    const std::vector<std::vector<double>>& antenna_positions,
                    const std::vector<double>& boresight,
                    const std::vector<std::vector<double>>& beams,
                    const blade_frequency_axis& axis,
                    int64_t polarizations,
                    int64_t reference_antenna,
                    const std::vector<gr_complex>& calibration,
                    int64_t calibration_first_channel,
                    const std::string& what)
{
    if (reference.size() != 3)
        throw std::invalid_argument(what + ": reference must be (longitude rad, latitude "
                                           "rad, altitude m), " +
                                    std::to_string(reference.size()) + " values given");
    if (boresight.size() != 2)
        throw std::invalid_argument(what + ": boresight must be (ra, dec) in radians, " +
                                    std::to_string(boresight.size()) + " values given");
    setup.positions.clear();
    for (size_t a = 0; a < antenna_positions.size(); a++) {
        if (antenna_positions[a].size() != 3)
            throw std::invalid_argument(what + ": antenna position " + std::to_string(a) +
                                        " has " +
                                        std::to_string(antenna_positions[a].size()) +
                                        " values; expected ECEF (x, y, z) in metres");
        setup.positions.insert(
            setup.positions.end(), antenna_positions[a].begin(), antenna_positions[a].end());
    }
    split_directions(beams, setup.beam_ra, setup.beam_dec, what + " beams");
    const int64_t antennas = static_cast<int64_t>(antenna_positions.size());
    int64_t rows = 0;
    setup.calibration = calibration_pairs(calibration, antennas, polarizations, rows, what);

    blade_phasor_config& c = setup.config;
    c = blade_phasor_config{};
    c.longitude = reference[0];
    c.latitude = reference[1];
    c.altitude = reference[2];
    c.antennas = antennas;
    c.antenna_positions = setup.positions.data();
    c.reference_antenna = reference_antenna;
    c.boresight_ra = boresight[0];
    c.boresight_dec = boresight[1];
    c.beams = static_cast<int64_t>(setup.beam_ra.size());
    c.beam_ra = setup.beam_ra.data();
    c.beam_dec = setup.beam_dec.data();
    c.frequency = axis;
    c.polarizations = polarizations;
    c.calibration = setup.calibration.empty() ? nullptr : setup.calibration.data();
    c.calibration_channels = rows;
    c.calibration_first_channel = calibration_first_channel;
    c.delay_mode = BLADE_DELAYS_GEOMETRY;
}

void recipe_setup(phasor_setup& setup,
                  const std::string& path,
                  int64_t antennas,
                  int64_t polarizations,
                  const blade_frequency_axis& axis,
                  int64_t reference_antenna,
                  blade_delay_mode mode,
                  const std::string& what,
                  const std::vector<int64_t>& beams)
{
    blade_bfr5* recipe = nullptr;
    throw_on_error(blade_bfr5_read(path.c_str(), &recipe), what);
    setup.recipe.reset(recipe, blade_bfr5_free);
    if (!beams.empty())
        throw_on_error(
            blade_bfr5_select_beams(recipe, beams.data(), static_cast<int64_t>(beams.size())),
            what + " beams");
    setup.beam_names.clear();
    for (int64_t b = 0; recipe->source_names != nullptr && b < recipe->beams; b++)
        setup.beam_names.push_back(recipe->source_names[b] ? recipe->source_names[b] : "");
    throw_on_error(blade_bfr5_phasor_config(recipe,
                                            &axis,
                                            antennas,
                                            polarizations,
                                            reference_antenna,
                                            mode,
                                            &setup.config),
                   what);
}

} // namespace blade
} // namespace gr
