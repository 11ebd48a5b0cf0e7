/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "chunk_group_tags.h"

#include <gnuradio/blade/metadata.h>
#include <pmt/pmt.h>

#include <algorithm>
#include <cstring>

namespace gr {
namespace blade {

namespace {

bool has_key(const gr::tag_t& tag, const char* key)
{
    return pmt::is_symbol(tag.key) && pmt::symbol_to_string(tag.key) == key;
}

void add_to_double(std::vector<gr::tag_t>& tags, const char* key, double amount)
{
    for (auto& tag : tags)
        if (has_key(tag, key) && pmt::is_real(tag.value))
            tag.value = pmt::from_double(pmt::to_double(tag.value) + amount);
}

} // namespace

std::vector<gr::tag_t> first_chunk_tags(const std::vector<gr::tag_t>& input_tags,
                                        uint64_t group,
                                        const std::function<void(std::vector<gr::tag_t>&)>& rewrite)
{
    std::vector<gr::tag_t> sorted = input_tags;
    std::stable_sort(sorted.begin(), sorted.end(), [](const gr::tag_t& a, const gr::tag_t& b) {
        return a.offset < b.offset;
    });
    std::vector<gr::tag_t> result;
    for (size_t begin = 0; begin < sorted.size();) {
        size_t end = begin;
        while (end < sorted.size() && sorted[end].offset == sorted[begin].offset)
            end++;
        if (sorted[begin].offset % group == 0) {
            std::vector<gr::tag_t> chunk(sorted.begin() + begin, sorted.begin() + end);
            for (auto& tag : chunk)
                tag.offset /= group;
            if (rewrite)
                rewrite(chunk);
            result.insert(result.end(), chunk.begin(), chunk.end());
        }
        begin = end;
    }
    return result;
}

std::optional<double> find_double(const std::vector<gr::tag_t>& tags, const char* key)
{
    for (const auto& tag : tags)
        if (has_key(tag, key) && pmt::is_real(tag.value))
            return pmt::to_double(tag.value);
    return std::nullopt;
}

void scale_double(std::vector<gr::tag_t>& tags, const char* key, double factor)
{
    for (auto& tag : tags)
        if (has_key(tag, key) && pmt::is_real(tag.value))
            tag.value = pmt::from_double(pmt::to_double(tag.value) * factor);
}

void shift_mid_times(std::vector<gr::tag_t>& tags, double seconds)
{
    add_to_double(tags, tag::time_mid_unix, seconds);
    add_to_double(tags, tag::jd_mid, seconds / 86400.0);
}

std::optional<bool> lower_sideband_of(const std::vector<gr::tag_t>& widths)
{
    std::optional<bool> lower;
    for (const auto& width : widths) // the last one holds
        if (pmt::is_real(width.value))
            lower = pmt::to_double(width.value) < 0;
    return lower;
}

} // namespace blade
} // namespace gr
