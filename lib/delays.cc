/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/* compute_delays(), compute_phasors(), channel_frequencies(): the phasor core
 * called once, on the CPU, for users who want numbers rather than a flowgraph. */

#include "device_block.h"
#include "phasor_setup.h"
#include <gnuradio/blade/delays.h>

#include <memory>

namespace gr {
namespace blade {

namespace {

using plan_ptr = std::unique_ptr<blade_phasor, decltype(&blade_phasor_destroy)>;

// The Python-facing functions take Julian dates (the astronomer's unit); the core
// takes unix seconds.
double unix_from_jd(double jd) { return (jd - BLADE_UNIX_EPOCH_JD) * 86400.0; }

plan_ptr make_plan(const blade_phasor_config& config, const char* what)
{
    blade_phasor* plan = nullptr;
    throw_on_error(blade_phasor_create(&plan, &config, blade_device_cpu()), what);
    return plan_ptr(plan, blade_phasor_destroy);
}

} // namespace

std::vector<double> compute_delays(const std::vector<double>& reference,
                                   const std::vector<std::vector<double>>& antenna_positions,
                                   const std::vector<double>& boresight,
                                   const std::vector<std::vector<double>>& beams,
                                   double jd,
                                   double dut1,
                                   int64_t reference_antenna,
                                   bool absolute)
{
    // Delays do not depend on the frequency axis: any valid one will do.
    phasor_setup setup;
    geometry_setup(setup,
                   reference,
                   antenna_positions,
                   boresight,
                   beams,
                   make_frequency_axis(1e9, 1e6, 1, 0, 1, 1, 0),
                   1,
                   reference_antenna,
                   {},
                   0,
                   "blade.compute_delays");
    setup.config.absolute_delays = absolute;
    plan_ptr plan = make_plan(setup.config, "blade.compute_delays");
    std::vector<double> delays(static_cast<size_t>(setup.config.beams * setup.config.antennas));
    throw_on_error(blade_phasor_delays(plan.get(), unix_from_jd(jd), dut1, delays.data()),
                   "blade.compute_delays");
    return delays;
}

std::vector<gr_complex> compute_phasors(const std::vector<double>& reference,
                                        const std::vector<std::vector<double>>& antenna_positions,
                                        const std::vector<double>& boresight,
                                        const std::vector<std::vector<double>>& beams,
                                        double observation_frequency,
                                        double channel_width,
                                        int64_t observation_channels,
                                        int64_t first_channel,
                                        int64_t channels,
                                        double jd,
                                        double dut1,
                                        int64_t channelizer_rate,
                                        int64_t schan,
                                        int64_t polarizations,
                                        int64_t reference_antenna,
                                        const std::vector<gr_complex>& calibration,
                                        int64_t calibration_first_channel)
{
    phasor_setup setup;
    geometry_setup(setup,
                   reference,
                   antenna_positions,
                   boresight,
                   beams,
                   make_frequency_axis(observation_frequency,
                                       channel_width,
                                       observation_channels,
                                       first_channel,
                                       channels,
                                       channelizer_rate,
                                       schan),
                   polarizations,
                   reference_antenna,
                   calibration,
                   calibration_first_channel,
                   "blade.compute_phasors");
    plan_ptr plan = make_plan(setup.config, "blade.compute_phasors");
    const blade_shape shape = blade_phasor_output_shape(plan.get());
    std::vector<gr_complex> phasors(static_cast<size_t>(blade_shape_count(&shape)));
    blade_tensor tensor =
        blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), phasors.data());
    throw_on_error(blade_phasor_compute(plan.get(), unix_from_jd(jd), dut1, nullptr, &tensor, nullptr),
                   "blade.compute_phasors");
    return phasors;
}

std::vector<double> channel_frequencies(double observation_frequency,
                                        double channel_width,
                                        int64_t observation_channels,
                                        int64_t first_channel,
                                        int64_t channels,
                                        int64_t channelizer_rate)
{
    const blade_frequency_axis axis = make_frequency_axis(observation_frequency,
                                                          channel_width,
                                                          observation_channels,
                                                          first_channel,
                                                          channels,
                                                          channelizer_rate,
                                                          0);
    throw_on_error(blade_frequency_axis_validate(&axis), "blade.channel_frequencies");
    std::vector<double> out(static_cast<size_t>(channels * channelizer_rate));
    for (size_t j = 0; j < out.size(); j++)
        out[j] = blade_frequency_axis_centre(&axis, static_cast<int64_t>(j));
    return out;
}

} // namespace blade
} // namespace gr
