/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_B_IMPL_H
#define INCLUDED_BLADE_MODE_B_IMPL_H

#include "bundle_chain.h"
#include <gnuradio/blade/mode_b.h>

namespace gr {
namespace blade {

/*! What Mode B and Mode BH share: the options of the beamforming front end. */
struct beamforming_options {
    std::vector<int64_t> shape;
    std::string recipe;
    double observation_frequency = 0;
    double channel_width = 0;
    int64_t observation_channels = 0;
    int64_t first_channel = 0;
    int64_t schan = 0;
    std::string input_type = "ci8";
    int64_t channelizer_rate = 1;
    int taps = 1;
    std::string window = "hamming";
    bool circular = false;
    bool incoherent = true;
    bool incoherent_sqrt = false;
    std::string voltage_type = "cf32";
    std::vector<int64_t> beams;
    std::string delays = "geometry";
    std::string beamformer_path = "auto";
};

/*!
 * Voltages (input 0) and chunk times (input 1) -> [channelizer] -> [polarizer]
 * -> beamformer fed by a phasor block. Returns the beams' end of the stream and
 * the number of coherent beams.
 */
chain_end beamform(bundle_chain& chain, const beamforming_options& options, int64_t& beams);

class mode_b_impl : public mode_b
{
public:
    mode_b_impl(const beamforming_options& options,
                const std::string& detector,
                int64_t integration,
                const std::string& device);

    std::vector<int64_t> output_shape() const override { return d_output.shape; }
    std::string output_type() const override { return d_output.dtype; }
    size_t input_item_size() const override
    {
        return bundle_item_size(d_options.shape, d_options.input_type);
    }
    size_t output_item_size() const override
    {
        return bundle_item_size(d_output.shape, d_output.dtype);
    }
    int64_t chunks_per_output() const override { return d_output.chunks_per_item; }
    int64_t beams() const override { return d_beams; }
    std::string device() const override { return d_device; }

private:
    beamforming_options d_options;
    std::string d_device;
    chain_end d_output;
    int64_t d_beams = 0;
};

} // namespace blade
} // namespace gr

#endif
