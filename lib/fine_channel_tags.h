/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * The stream tags of a chunk after a channelizer: its frequency and time axis
 * rewritten for the fine channels (private header). Shared by the channelizer block
 * and the blocks that channelize in place (a gather in Mode BH).
 */
#ifndef INCLUDED_BLADE_FINE_CHANNEL_TAGS_H
#define INCLUDED_BLADE_FINE_CHANNEL_TAGS_H

#include <gnuradio/logger.h>
#include <gnuradio/tags.h>

#include <cstdint>
#include <vector>

namespace gr {
namespace blade {

class fine_channel_tags
{
public:
    /*! For a channelizer of `rate` fine channels per coarse channel. */
    explicit fine_channel_tags(int64_t rate) : d_rate(rate) {}

    /*!
     * Rewrite the tags of one chunk (all at one offset) in place: blade_chan_bw,
     * blade_freq_first, blade_tsamp, blade_nfpc, blade_nchan for the fine axis; a
     * chunk that describes its axis without blade_nfpc gets one (from `srcid`).
     * Remembers the last coarse channel width, for a later blade_freq_first alone;
     * without any, that tag passes unchanged and `logger` warns once.
     */
    void rewrite(std::vector<gr::tag_t>& chunk_tags,
                 const pmt::pmt_t& srcid,
                 const gr::logger_ptr& logger);

private:
    int64_t d_rate;
    double d_chan_bw = 0; // the last coarse chan_bw seen (for a lone freq_first)
    bool d_have_chan_bw = false;
    bool d_warned_freq = false;
};

} // namespace blade
} // namespace gr

#endif
