/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_OBSERVATION_H
#define INCLUDED_BLADE_OBSERVATION_H

#include <gnuradio/blade/api.h>

#include <blade/io/observation.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief What a stream of chunks is of: its time and frequency axes and pointing.
 * \ingroup blade
 *
 * \details
 * The core's blade_observation (blade/io/observation.h), the one place where the
 * axes of a recording live: the GUPPI reader computes it once from the header
 * (describe_guppi().observation), the stream tags of every chunk carry the same
 * values (metadata.h), and the bundles and the phasor block take it instead of loose
 * numbers. Channel j of the chunks (0-based, per aspect) is centred at
 * freq_first + j·chan_bw (Hz; chan_bw < 0: a lower-sideband band) and belongs to
 * F-engine channel coarse_first + j / nfpc. Units: seconds, hertz, radians.
 *
 * Python: blade.Observation, with the same fields as attributes and the methods
 * below.
 */
class BLADE_API observation
{
public:
    observation();
    explicit observation(const blade_observation& value);

    /*! The core value (for C calls). */
    const blade_observation& value() const { return d_value; }
    blade_observation& value() { return d_value; }

    /*! The observation of nchan channels of chan_bw (Hz) around a band centre (Hz),
     *  as recorders write it (GUPPI OBSFREQ); the rest as in observation(). */
    static observation band(double centre, double chan_bw, int64_t nchan, int64_t coarse_first = 0);

    /*! Centre (Hz) of the band of the nchan channels. */
    double band_centre() const;

    /*! Centre (Hz) of channel `channel`. */
    double frequency(int64_t channel) const;

    /*! Centres (Hz) of every channel, 0 .. nchan − 1. */
    std::vector<double> frequencies() const;

    /*! The F-engine (coarse) channel of channel `channel`. */
    int64_t coarse_channel(int64_t channel) const;

    /*! The observation of channels first .. first + count − 1 (coarse channels).
     *  Throws std::invalid_argument when they are not within nchan. */
    observation channels(int64_t first, int64_t count) const;

    /*! The observation after a channelizer of rate N (fine channels). */
    observation channelized(int64_t rate) const;

    std::string source_name() const { return d_value.source_name; }
    void set_source_name(const std::string& name);
    std::string telescope() const { return d_value.telescope; }
    void set_telescope(const std::string& name);

    /*! One line: band, channels, start, source ("Observation(...)" in Python). */
    std::string describe() const;

private:
    blade_observation d_value;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_OBSERVATION_H */
