/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/* compute_delays(), compute_phasors(): the phasor core called once, on the CPU, for
 * users who want numbers rather than a flowgraph. */

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

std::vector<double>
compute_delays(const array_geometry& array, double jd, double dut1, bool absolute)
{
    // Delays do not depend on the frequency axis: any valid one will do.
    observation axis;
    axis.value().freq_first = 1e9;
    axis.value().chan_bw = 1e6;
    axis.value().nchan = 1;
    phasor_options options;
    options.polarizations = 1;
    phasor_setup setup;
    geometry_setup(setup, axis, array, options, "blade.compute_delays");
    setup.config.absolute_delays = absolute;
    plan_ptr plan = make_plan(setup.config, "blade.compute_delays");
    std::vector<double> delays(static_cast<size_t>(setup.config.beams * setup.config.antennas));
    throw_on_error(blade_phasor_delays(plan.get(), unix_from_jd(jd), dut1, delays.data()),
                   "blade.compute_delays");
    return delays;
}

std::vector<gr_complex> compute_phasors(const observation& axis,
                                        const array_geometry& array,
                                        double jd,
                                        double dut1,
                                        const phasor_options& options)
{
    phasor_setup setup;
    geometry_setup(setup, axis, array, options, "blade.compute_phasors");
    plan_ptr plan = make_plan(setup.config, "blade.compute_phasors");
    const blade_shape shape = blade_phasor_output_shape(plan.get());
    std::vector<gr_complex> phasors(static_cast<size_t>(blade_shape_count(&shape)));
    blade_tensor tensor = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), phasors.data());
    throw_on_error(
        blade_phasor_compute(plan.get(), unix_from_jd(jd), dut1, nullptr, &tensor, nullptr),
        "blade.compute_phasors");
    return phasors;
}

} // namespace blade
} // namespace gr
