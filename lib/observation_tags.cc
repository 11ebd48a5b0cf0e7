/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "observation_tags.h"

#include <gnuradio/blade/metadata.h>
#include <pmt/pmt.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace gr {
namespace blade {

namespace {

void copy_name(char* out, const std::string& text)
{
    std::snprintf(out, BLADE_OBSERVATION_NAME_SIZE, "%s", text.c_str());
}

pmt::pmt_t reals(const std::vector<double>& values)
{
    return pmt::init_f64vector(values.size(), values);
}

} // namespace

void beam_set::add_incoherent()
{
    beam_identity sum;
    sum.name = "incoherent";
    sum.ra = boresight_ra;
    sum.dec = boresight_dec;
    sum.has_position = std::isfinite(sum.ra) && std::isfinite(sum.dec);
    beams.push_back(sum);
}

pmt::pmt_t beams_tag_value(const beam_set& set)
{
    pmt::pmt_t names = pmt::make_vector(set.beams.size(), pmt::PMT_NIL);
    std::vector<double> ra, dec;
    for (size_t b = 0; b < set.beams.size(); b++) {
        const beam_identity& beam = set.beams[b];
        pmt::vector_set(names, b, pmt::intern(beam.name));
        ra.push_back(beam.has_position ? beam.ra : NAN);
        dec.push_back(beam.has_position ? beam.dec : NAN);
    }
    pmt::pmt_t value = pmt::make_dict();
    value = pmt::dict_add(value, pmt::mp("names"), names);
    value = pmt::dict_add(value, pmt::mp("ra"), reals(ra));
    value = pmt::dict_add(value, pmt::mp("dec"), reals(dec));
    value =
        pmt::dict_add(value, pmt::mp("boresight"), reals({ set.boresight_ra, set.boresight_dec }));
    return value;
}

beam_set beams_from_tag(const pmt::pmt_t& value)
{
    beam_set set;
    if (!pmt::is_dict(value))
        return set;
    const pmt::pmt_t names = pmt::dict_ref(value, pmt::mp("names"), pmt::PMT_NIL);
    const pmt::pmt_t ra = pmt::dict_ref(value, pmt::mp("ra"), pmt::PMT_NIL);
    const pmt::pmt_t dec = pmt::dict_ref(value, pmt::mp("dec"), pmt::PMT_NIL);
    const pmt::pmt_t boresight = pmt::dict_ref(value, pmt::mp("boresight"), pmt::PMT_NIL);
    if (!pmt::is_vector(names) || !pmt::is_f64vector(ra) || !pmt::is_f64vector(dec) ||
        pmt::length(ra) != pmt::length(names) || pmt::length(dec) != pmt::length(names))
        return set;
    for (size_t b = 0; b < pmt::length(names); b++) {
        beam_identity beam;
        const pmt::pmt_t name = pmt::vector_ref(names, b);
        beam.name = pmt::is_symbol(name) ? pmt::symbol_to_string(name) : "";
        beam.ra = pmt::f64vector_ref(ra, b);
        beam.dec = pmt::f64vector_ref(dec, b);
        beam.has_position = std::isfinite(beam.ra) && std::isfinite(beam.dec);
        set.beams.push_back(beam);
    }
    if (pmt::is_f64vector(boresight) && pmt::length(boresight) == 2) {
        set.boresight_ra = pmt::f64vector_ref(boresight, 0);
        set.boresight_dec = pmt::f64vector_ref(boresight, 1);
    }
    return set;
}

tagged_observation observation_from_tags(const std::vector<gr::tag_t>& tags)
{
    tagged_observation result;
    blade_observation& obs = result.observation;
    obs.nfpc = 1;
    bool has_freq = false, has_bw = false, has_ra = false, has_dec = false;
    bool has_az = false, has_za = false;
    for (const gr::tag_t& tag : tags) {
        if (!pmt::is_symbol(tag.key))
            continue;
        const std::string key = pmt::symbol_to_string(tag.key);
        const pmt::pmt_t& value = tag.value;
        const bool number = pmt::is_number(value);
        const double real = number ? pmt::to_double(value) : 0.0;
        if (key == tag::time_start_unix && number) {
            obs.unix_start = real;
            result.has_time = true;
        } else if (key == tag::tsamp && number) {
            obs.tsamp = real;
            result.has_tsamp = true;
        } else if (key == tag::freq_first && number) {
            obs.freq_first = real;
            has_freq = true;
        } else if (key == tag::chan_bw && number) {
            obs.chan_bw = real;
            has_bw = true;
        } else if (key == tag::nfpc && number) {
            obs.nfpc = static_cast<int64_t>(real);
        } else if (key == tag::nchan && number) {
            obs.nchan = static_cast<int64_t>(real);
        } else if (key == tag::coarse_first && number) {
            obs.coarse_first = static_cast<int64_t>(real);
        } else if (key == tag::dut1 && number) {
            obs.dut1 = real;
        } else if (key == tag::ra && number) {
            obs.ra = real;
            has_ra = true;
        } else if (key == tag::dec && number) {
            obs.dec = real;
            has_dec = true;
        } else if (key == tag::az && number) {
            obs.az = real;
            has_az = true;
        } else if (key == tag::za && number) {
            obs.za = real;
            has_za = true;
        } else if (key == tag::source_name && pmt::is_symbol(value)) {
            copy_name(obs.source_name, pmt::symbol_to_string(value));
        } else if (key == tag::telescope && pmt::is_symbol(value)) {
            copy_name(obs.telescope, pmt::symbol_to_string(value));
        } else if (key == tag::aspect && pmt::is_symbol(value)) {
            result.aspect = pmt::symbol_to_string(value);
        } else if (key == tag::dropped && number) {
            result.dropped_blocks = static_cast<int64_t>(real);
        } else if (key == tag::beams) {
            result.beams = beams_from_tag(value);
        }
    }
    result.has_frequency = has_freq && has_bw;
    obs.has_position = has_ra && has_dec;
    obs.has_horizontal = has_az && has_za;
    return result;
}

std::vector<std::pair<std::string, pmt::pmt_t>> observation_tag_values(const blade_observation& obs)
{
    std::vector<std::pair<std::string, pmt::pmt_t>> tags = {
        { tag::time_start_unix, pmt::from_double(obs.unix_start) },
        { tag::tsamp, pmt::from_double(obs.tsamp) },
        { tag::freq_first, pmt::from_double(obs.freq_first) },
        { tag::chan_bw, pmt::from_double(obs.chan_bw) },
        { tag::nchan, pmt::from_long(static_cast<long>(obs.nchan)) },
        { tag::nfpc, pmt::from_long(static_cast<long>(obs.nfpc)) },
        { tag::coarse_first, pmt::from_long(static_cast<long>(obs.coarse_first)) },
        { tag::dut1, pmt::from_double(obs.dut1) },
        { tag::source_name, pmt::intern(obs.source_name) },
        { tag::telescope, pmt::intern(obs.telescope) },
    };
    if (obs.has_position) {
        tags.emplace_back(tag::ra, pmt::from_double(obs.ra));
        tags.emplace_back(tag::dec, pmt::from_double(obs.dec));
    }
    if (obs.has_horizontal) {
        tags.emplace_back(tag::az, pmt::from_double(obs.az));
        tags.emplace_back(tag::za, pmt::from_double(obs.za));
    }
    return tags;
}

} // namespace blade
} // namespace gr
