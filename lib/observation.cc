/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/* gr::blade::observation: the core's observation value for C++ and Python. */

#include "device_block.h"
#include <gnuradio/blade/observation.h>

#include <cstdio>
#include <stdexcept>

namespace gr {
namespace blade {

observation::observation() : d_value{} { d_value.nfpc = 1; }

observation::observation(const blade_observation& value) : d_value(value) {}

observation observation::band(double centre, double chan_bw, int64_t nchan, int64_t coarse_first)
{
    observation o;
    blade_observation_set_band(&o.d_value, centre, chan_bw, nchan);
    o.d_value.coarse_first = coarse_first;
    return o;
}

double observation::band_centre() const { return blade_observation_band_centre(&d_value); }

double observation::frequency(int64_t channel) const
{
    return blade_observation_frequency(&d_value, channel);
}

std::vector<double> observation::frequencies() const
{
    std::vector<double> centres(static_cast<size_t>(d_value.nchan > 0 ? d_value.nchan : 0));
    for (size_t j = 0; j < centres.size(); j++)
        centres[j] = frequency(static_cast<int64_t>(j));
    return centres;
}

int64_t observation::coarse_channel(int64_t channel) const
{
    return blade_observation_coarse_channel(&d_value, channel);
}

observation observation::channels(int64_t first, int64_t count) const
{
    blade_observation subset;
    if (blade_observation_select_channels(&d_value, first, count, &subset) != BLADE_OK)
        throw std::invalid_argument(std::string("observation channels: ") + blade_last_error());
    return observation(subset);
}

observation observation::channelized(int64_t rate) const
{
    if (rate < 1)
        throw std::invalid_argument("observation channelized: rate " + std::to_string(rate) +
                                    " must be >= 1");
    return observation(blade_observation_channelized(&d_value, rate));
}

void observation::set_source_name(const std::string& name)
{
    std::snprintf(d_value.source_name, sizeof d_value.source_name, "%s", name.c_str());
}

void observation::set_telescope(const std::string& name)
{
    std::snprintf(d_value.telescope, sizeof d_value.telescope, "%s", name.c_str());
}

std::string observation::describe() const
{
    char text[512];
    const double last = frequency(d_value.nchan > 0 ? d_value.nchan - 1 : 0);
    std::snprintf(text,
                  sizeof text,
                  "%lld channels of %.9g MHz, %.9g .. %.9g MHz (centres), F-engine channel "
                  "%lld on, %lld per coarse channel; from unix %.6f, %.6g s per sample%s%s",
                  static_cast<long long>(d_value.nchan),
                  d_value.chan_bw / 1e6,
                  d_value.freq_first / 1e6,
                  last / 1e6,
                  static_cast<long long>(d_value.coarse_first),
                  static_cast<long long>(d_value.nfpc),
                  d_value.unix_start,
                  d_value.tsamp,
                  d_value.source_name[0] ? "; " : "",
                  d_value.source_name);
    return text;
}

} // namespace blade
} // namespace gr
