/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * Stream tags of blocks that turn each group of K consecutive chunks into one
 * (detector integrating across chunks, gather) (private header).
 */
#ifndef INCLUDED_BLADE_CHUNK_GROUP_TAGS_H
#define INCLUDED_BLADE_CHUNK_GROUP_TAGS_H

#include <gnuradio/tags.h>

#include <cstdint>
#include <functional>
#include <optional>
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

} // namespace blade
} // namespace gr

#endif
