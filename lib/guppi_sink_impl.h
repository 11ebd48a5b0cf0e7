/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_GUPPI_SINK_IMPL_H
#define INCLUDED_BLADE_GUPPI_SINK_IMPL_H

#include "device_block.h"
#include "observation_tags.h"
#include <gnuradio/blade/guppi_sink.h>

namespace gr {
namespace blade {

class guppi_sink_impl : public guppi_sink, public device_block
{
public:
    guppi_sink_impl(blade_guppi_writer* writer,
                    blade_guppi_header* extra,
                    const tensor_spec& input);
    ~guppi_sink_impl() override;

    int64_t blocks_written() const override { return blade_guppi_writer_blocks(d_writer); }
    std::vector<std::string> files() const override;
    size_t input_item_size() const override { return input_spec(0).item_size(); }

    bool start() override;
    bool stop() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void describe_stream();
    void name_beams(const tagged_observation& tagged, blade_observation& observation);

    blade_guppi_writer* d_writer;
    blade_guppi_header* d_extra;
    bool d_described = false;
    bool d_closed = false;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_GUPPI_SINK_IMPL_H */
