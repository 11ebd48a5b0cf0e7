/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "fine_channel_tags.h"

#include <gnuradio/blade/metadata.h>
#include <blade/blade.h>

#include <cmath>

namespace gr {
namespace blade {

void fine_channel_tags::rewrite(std::vector<gr::tag_t>& chunk_tags,
                                const pmt::pmt_t& srcid,
                                const gr::logger_ptr& logger)
{
    if (chunk_tags.empty())
        return;
    const pmt::pmt_t chan_bw = pmt::intern(tag::chan_bw), freq_first = pmt::intern(tag::freq_first);
    const pmt::pmt_t tsamp = pmt::intern(tag::tsamp), nfpc = pmt::intern(tag::nfpc),
                     nchan = pmt::intern(tag::nchan);
    const int64_t n = d_rate;
    const auto number = [](const gr::tag_t& t) {
        return pmt::is_number(t.value) && !pmt::is_complex(t.value);
    };
    // The chunk's axis as an observation, turned into the fine one in one place
    // (blade_observation_channelized). chan_bw first: freq_first of the same chunk
    // is shifted by half of it, and later chunks may not repeat it.
    blade_observation coarse = {};
    coarse.nfpc = 1;
    bool has_nfpc = false, axis = false;
    for (const auto& t : chunk_tags) {
        if (!number(t))
            continue;
        if (pmt::eq(t.key, chan_bw)) {
            d_chan_bw = pmt::to_double(t.value);
            d_have_chan_bw = true;
        } else if (pmt::eq(t.key, freq_first)) {
            coarse.freq_first = pmt::to_double(t.value);
        } else if (pmt::eq(t.key, tsamp)) {
            coarse.tsamp = pmt::to_double(t.value);
        } else if (pmt::eq(t.key, nfpc)) {
            coarse.nfpc = std::lround(pmt::to_double(t.value));
        } else if (pmt::eq(t.key, nchan)) {
            coarse.nchan = std::lround(pmt::to_double(t.value));
        }
    }
    coarse.chan_bw = d_chan_bw;
    const blade_observation fine = blade_observation_channelized(&coarse, n);
    for (auto& t : chunk_tags) {
        if (number(t) && pmt::eq(t.key, chan_bw)) {
            t.value = pmt::from_double(fine.chan_bw);
            axis = true;
        } else if (number(t) && pmt::eq(t.key, freq_first)) {
            axis = true;
            if (d_have_chan_bw) {
                t.value = pmt::from_double(fine.freq_first);
            } else if (n > 1 && !d_warned_freq) {
                logger->warn("{} tag without a {} tag: passed on unchanged, as the centre "
                             "of the first fine channel cannot be known",
                             tag::freq_first,
                             tag::chan_bw);
                d_warned_freq = true;
            }
        } else if (number(t) && pmt::eq(t.key, tsamp)) {
            t.value = pmt::from_double(fine.tsamp);
        } else if (number(t) && pmt::eq(t.key, nfpc)) {
            t.value = pmt::from_long(fine.nfpc);
            has_nfpc = true;
        } else if (number(t) && pmt::eq(t.key, nchan)) {
            t.value = pmt::from_long(fine.nchan);
        }
    }
    if (axis && !has_nfpc) { // no nfpc means one channel per coarse channel so far
        gr::tag_t added;
        added.offset = chunk_tags.front().offset;
        added.key = nfpc;
        added.value = pmt::from_long(n);
        added.srcid = srcid;
        chunk_tags.push_back(added);
    }
}

} // namespace blade
} // namespace gr
