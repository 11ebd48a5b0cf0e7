/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_GUPPI_SOURCE_IMPL_H
#define INCLUDED_BLADE_GUPPI_SOURCE_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/guppi_source.h>

namespace gr {
namespace blade {

/*! "zero-fill" or "stop" (on_gap of guppi_source and describe_guppi). */
blade_guppi_gap_policy parse_gap_policy(const std::string& text);

class guppi_source_impl : public guppi_source, public device_block
{
public:
    guppi_source_impl(blade_guppi_reader* reader, const tensor_spec& output);
    ~guppi_source_impl() override;

    std::vector<int64_t> output_shape() const override
    {
        return shape_to_vector(output_spec(0).shape);
    }
    size_t output_item_size() const override { return output_spec(0).item_size(); }
    std::vector<std::string> files() const override;
    int64_t chunks() const override;
    double tsamp() const override;
    int64_t zero_filled_blocks() const override;
    int64_t bytes_read() const override;
    std::vector<std::string> warnings() const override;

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void tag_chunk(uint64_t offset, const blade_guppi_chunk& chunk);
    void log_end();

    blade_guppi_reader* d_reader;
    bool d_ended = false;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_GUPPI_SOURCE_IMPL_H */
