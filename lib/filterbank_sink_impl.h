/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_FILTERBANK_SINK_IMPL_H
#define INCLUDED_BLADE_FILTERBANK_SINK_IMPL_H

#include "device_block.h"
#include <gnuradio/blade/filterbank_sink.h>

#include <map>

namespace gr {
namespace blade {

class filterbank_sink_impl : public filterbank_sink, public device_block
{
public:
    filterbank_sink_impl(const std::string& stem,
                         const tensor_spec& input,
                         blade_filterbank_format format,
                         const std::string& aspect,
                         const std::map<std::string, std::string>& overrides,
                         const std::vector<std::map<std::string, std::string>>& file_overrides,
                         const std::vector<double>& if_scales,
                         const std::vector<double>& aspect_weights);
    ~filterbank_sink_impl() override;

    std::vector<std::string> files() const override;
    int64_t spectra_written() const override;
    size_t input_item_size() const override { return input_spec(0).item_size(); }

    bool start() override;
    bool stop() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void open_files();
    static void apply_identity(blade_observation& obs,
                               const std::map<std::string, std::string>& values);
    void close_files();

    std::string d_stem;
    blade_filterbank_format d_format;
    std::string d_aspect;
    std::map<std::string, std::string> d_overrides;
    std::vector<std::map<std::string, std::string>> d_file_overrides;
    std::vector<double> d_if_scales;      // one per IF, or empty
    std::vector<double> d_aspect_weights; // one per aspect (one summed file), or empty
    std::vector<float> d_scratch;         // a combined slice [F, T, P]
    std::vector<blade_filterbank_writer*> d_writers;
    bool d_closed = false;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_FILTERBANK_SINK_IMPL_H */
