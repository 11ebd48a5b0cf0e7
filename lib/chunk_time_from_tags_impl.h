/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CHUNK_TIME_FROM_TAGS_IMPL_H
#define INCLUDED_BLADE_CHUNK_TIME_FROM_TAGS_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/chunk_time_from_tags.h>
#include <gnuradio/blade/metadata.h>

#include <atomic>

namespace gr {
namespace blade {

class chunk_time_from_tags_impl : public chunk_time_from_tags, public device_block
{
public:
    chunk_time_from_tags_impl(const tensor_spec& chunks, bool stop_on_gap);

    int64_t chunks() const override { return d_chunks; }
    int64_t gaps() const override { return d_gaps; }
    int64_t missing_chunks() const override { return d_missing; }
    size_t input_item_size() const override { return input_spec(0).item_size(); }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    /*! The tags of one chunk, as far as time goes. */
    struct chunk_tags {
        bool has_start = false, has_mid = false, has_jd_start = false, has_jd_mid = false;
        double start = 0, mid = 0, jd_start = 0, jd_mid = 0;
        bool dropped = false;
    };

    chunk_tags read_tags(uint64_t offset);
    void account_for_gap(double start, double expected, double duration);

    bool d_stop_on_gap;
    int64_t d_samples;
    double d_tsamp = 0, d_dut1 = 0;
    bool d_have_previous = false;
    double d_previous_start = 0;
    int64_t d_step = -1;
    std::atomic<int64_t> d_chunks{ 0 }, d_gaps{ 0 }, d_missing{ 0 };
};

} // namespace blade
} // namespace gr

#endif
