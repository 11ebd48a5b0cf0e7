/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * The gr-blade stream tags of a chunk (gnuradio/blade/metadata.h) <-> the core's
 * blade_observation: what sources attach and sinks read back. Private header.
 */
#ifndef INCLUDED_BLADE_OBSERVATION_TAGS_H
#define INCLUDED_BLADE_OBSERVATION_TAGS_H

#include <gnuradio/tags.h>
#include <blade/io/observation.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace blade {

/*! One beam of a beamformer's output: its name and direction (from blade_beams). */
struct beam_identity {
    std::string name;
    double ra = 0, dec = 0;    //!< radians
    bool has_position = false; //!< ra and dec are known
};

/*! What the beams of axis A are: a blade_beams tag. */
struct beam_set {
    std::vector<beam_identity> beams;
    double boresight_ra = NAN, boresight_dec = NAN; //!< radians; NaN if unknown

    /*! Append the incoherent beam, named "incoherent", at the boresight. */
    void add_incoherent();
};

/*! The value of a blade_beams tag. */
pmt::pmt_t beams_tag_value(const beam_set& set);

/*! The beam set of a blade_beams tag value (empty if malformed). */
beam_set beams_from_tag(const pmt::pmt_t& value);

/*! The observation a chunk's tags describe, and which parts were present. */
struct tagged_observation {
    blade_observation observation = {};
    bool has_time = false;      //!< time_start_unix
    bool has_tsamp = false;     //!< tsamp
    bool has_frequency = false; //!< freq_first and chan_bw
    std::string aspect;         //!< "antenna", "beam" or "" (no tag)
    int64_t dropped_blocks = 0; //!< the dropped_blocks tag, 0 if none
    beam_set beams;             //!< the blade_beams tag; no beams if none
};

/*! Read the gr-blade tags among `tags` (unknown keys are ignored; nfpc defaults to 1). */
tagged_observation observation_from_tags(const std::vector<gr::tag_t>& tags);

/*! The (key, value) tags that describe an observation's axes and pointing. */
std::vector<std::pair<std::string, pmt::pmt_t>>
observation_tag_values(const blade_observation& observation);

} // namespace blade
} // namespace gr

#endif
