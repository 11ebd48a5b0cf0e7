/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "mode_bh_impl.h"

#include <gnuradio/blade/metadata.h>
#include <gnuradio/blade/runtime.h>
#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

mode_bh::sptr mode_bh::make(const std::vector<int64_t>& shape,
                            const std::string& recipe,
                            double observation_frequency,
                            double channel_width,
                            int64_t observation_channels,
                            int64_t first_channel,
                            int64_t schan,
                            const std::string& input_type,
                            int64_t gather,
                            int64_t channelizer_rate,
                            int taps,
                            const std::string& window,
                            bool circular,
                            bool incoherent,
                            const std::string& detector,
                            int64_t integration,
                            const std::vector<int64_t>& beams,
                            const std::string& delays,
                            const std::string& beamformer_path,
                            const std::string& device)
{
    check_detector_mode(detector, false, "blade.mode_bh");
    if (gather < 1)
        throw std::invalid_argument("blade.mode_bh gather: " + std::to_string(gather) +
                                    " chunks (at least 1)");
    if (channelizer_rate < 0)
        throw std::invalid_argument("blade.mode_bh channelizer_rate: " +
                                    std::to_string(channelizer_rate) +
                                    " (0 means the whole gathered time axis)");
    beamforming_options options;
    options.shape = shape;
    options.recipe = recipe;
    options.observation_frequency = observation_frequency;
    options.channel_width = channel_width;
    options.observation_channels = observation_channels;
    options.first_channel = first_channel;
    options.schan = schan;
    options.input_type = input_type;
    options.circular = circular;
    options.incoherent = incoherent;
    options.beams = beams;
    options.delays = delays;
    options.beamformer_path = beamformer_path;
    return gnuradio::make_block_sptr<mode_bh_impl>(options,
                                                   gather,
                                                   channelizer_rate,
                                                   taps,
                                                   window,
                                                   detector,
                                                   integration,
                                                   gr::blade::resolve_device(device));
}

mode_bh_impl::mode_bh_impl(const beamforming_options& options,
                           int64_t gather,
                           int64_t channelizer_rate,
                           int taps,
                           const std::string& window,
                           const std::string& detector,
                           int64_t integration,
                           const std::string& device)
    : gr::hier_block2(
          "mode_bh",
          gr::io_signature::makev(
              2,
              2,
              { static_cast<int>(bundle_item_size(options.shape, options.input_type)),
                static_cast<int>(sizeof(chunk_time)) }),
          gr::io_signature::make(1, 1, sizeof(float))), // item size set once built
      d_options(options),
      d_device(device)
{
    bundle_chain chain(*this, "mode_bh", device);
    chain_end end = beamform(chain, options, d_beams);
    end = chain.gather_time(end, gather);
    const int64_t rate = channelizer_rate == 0 ? end.shape[2] : channelizer_rate;
    end = chain.channelize(end, rate, taps, window);
    end = chain.detect(end, detector, integration);
    d_output = end;
    set_output_signature(
        gr::io_signature::make(1, 1, static_cast<int>(bundle_item_size(end.shape, "f32"))));
    chain.output(end, 0);
}

} // namespace blade
} // namespace gr
