/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * Blocks that turn each group of K consecutive chunks into one (detector and
 * correlator integrating across chunks, gather): their stream tags, and the loop of
 * those that take the chunks one at a time (private header).
 */
#ifndef INCLUDED_BLADE_CHUNK_GROUP_TAGS_H
#define INCLUDED_BLADE_CHUNK_GROUP_TAGS_H

#include <gnuradio/tags.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace gr {
namespace blade {

/*!
 * The tags that travel when each group of `group` input chunks becomes one output
 * chunk: those on the first chunk of a group (input offset a multiple of `group`),
 * moved to that group's output offset. Tags on later chunks of a group are
 * dropped rather than piling K copies of the per-chunk metadata onto one output.
 * `rewrite` (may be empty) sees the travelling tags of one group at a time and may
 * change their values. With group = 1 every tag travels, offsets unchanged.
 */
std::vector<gr::tag_t>
first_chunk_tags(const std::vector<gr::tag_t>& input_tags,
                 uint64_t group,
                 const std::function<void(std::vector<gr::tag_t>&)>& rewrite);

/*! The double value of the tag `key` among `tags`, if there is one. */
std::optional<double> find_double(const std::vector<gr::tag_t>& tags, const char* key);

/*! Multiply every double tag `key` among `tags` by `factor`. */
void scale_double(std::vector<gr::tag_t>& tags, const char* key, double factor);

/*!
 * Move the mid-chunk time tags (blade_time_mid_unix and blade_jd_mid) by `seconds`:
 * the output chunk of a group spans more time than its first input chunk.
 */
void shift_mid_times(std::vector<gr::tag_t>& tags, double seconds);

/*!
 * Whether the chunk whose channel-width tags are `widths` (blade_chan_bw, in the order
 * they were added) is of a lower sideband (a negative width: the voltages are the
 * sky's conjugates); empty when it carries none.
 */
std::optional<bool> lower_sideband_of(const std::vector<gr::tag_t>& widths);

/*!
 * The loop of general_work() for a block that sums each group of `steps` consecutive
 * chunks into one output chunk, taking the chunks one at a time (so that the buffer
 * feeding it holds two chunks, not two groups: a decimator's buffer holds two whole
 * groups). Groups start at input item 0. While an input chunk is available and an
 * output slot free: `chunk(item, consumed, produced, first)` processes input chunk
 * `consumed` (absolute item `item`) toward output slot `produced`, `first` when it
 * opens a group; after a group's last chunk `close()` runs and the slot is taken.
 * Returns {chunks consumed, outputs produced}.
 */
template <typename Chunk, typename Close>
std::pair<int, int> run_chunk_groups(
    uint64_t first_item, int64_t steps, int available, int space, Chunk&& chunk, Close&& close)
{
    const uint64_t group = static_cast<uint64_t>(steps);
    int consumed = 0, produced = 0;
    while (consumed < available && produced < space) {
        const uint64_t item = first_item + static_cast<uint64_t>(consumed);
        chunk(item, consumed, produced, item % group == 0);
        consumed++;
        if ((item + 1) % group == 0) {
            close();
            produced++;
        }
    }
    return { consumed, produced };
}

} // namespace blade
} // namespace gr

#endif
