/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "mode_b_impl.h"

#include <gnuradio/blade/beamformer.h>
#include <gnuradio/blade/metadata.h>
#include <gnuradio/blade/phasor.h>
#include <gnuradio/blade/runtime.h>
#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

chain_end beamform(bundle_chain& chain,
                   const beamforming_options& o,
                   const chain_end& input_voltages,
                   const chain_end& times,
                   int64_t& beams)
{
    if (o.shape.size() != 4)
        throw std::invalid_argument("blade bundle shape: expected [A, F, T, P], got " +
                                    std::to_string(o.shape.size()) + " axes");
    const int64_t antennas = o.shape[0], channels = o.shape[1], pols = o.shape[3];
    chain_end voltages = input_voltages;
    // The beamformer converts ci8 itself while it loads; a channelizer or a
    // polarizer needs cf32 first.
    const bool fused_cast = o.input_type == "ci8" && o.channelizer_rate == 1 && o.taps == 1 &&
                            !o.circular;
    if (!fused_cast)
        voltages = chain.cast(voltages, "cf32");
    voltages = chain.channelize(voltages, o.channelizer_rate, o.taps, o.window);
    voltages = chain.polarize(voltages, o.circular);

    auto phasors = gr::blade::phasor::make_from_recipe(o.recipe,
                                                       antennas,
                                                       pols,
                                                       o.observation_frequency,
                                                       o.channel_width,
                                                       o.observation_channels,
                                                       o.first_channel,
                                                       channels,
                                                       o.channelizer_rate,
                                                       o.schan,
                                                       0,
                                                       o.delays,
                                                       chain.device(),
                                                       o.beams);
    chain.connect(times, phasors, 0);

    auto beamformer = gr::blade::beamformer::make(voltages.shape,
                                                  phasors->output_shape(),
                                                  voltages.dtype,
                                                  o.voltage_type,
                                                  o.incoherent,
                                                  o.incoherent_sqrt,
                                                  o.beamformer_path,
                                                  chain.device());
    chain.connect(voltages, beamformer, 0);
    chain.connect(chain_end{ phasors, 0, phasors->output_shape(), "cf32", 1 }, beamformer, 1);
    beams = beamformer->beams();
    return chain_end{ beamformer, 0, beamformer->output_shape(), o.voltage_type, voltages.chunks_per_item };
}

chain_end build_beamforming_bundle(gr::hier_block2& hier,
                                   const std::string& name,
                                   const beamforming_options& options,
                                   const std::vector<std::string>& devices,
                                   const beamforming_stages& stages)
{
    if (devices.size() == 1) {
        bundle_chain chain(hier, name, devices[0]);
        return stages(chain,
                      options,
                      chain.input(0, options.shape, options.input_type),
                      chain.input(1, {}, "chunk_time"));
    }
    // Sub-band n is recorded channels first_channel + n F/parts onwards: its phasor
    // block places its channels, and looks up their calibration rows, from there.
    return build_across_devices(
        hier,
        name,
        devices,
        options.shape,
        options.input_type,
        true,
        [&](bundle_chain& chain, const chain_end& voltages, const chain_end& times, int64_t subband) {
            beamforming_options part = options;
            part.shape = voltages.shape;
            part.first_channel = options.first_channel + subband * voltages.shape[1];
            return stages(chain, part, voltages, times);
        });
}

mode_b::sptr mode_b::make(const std::vector<int64_t>& shape,
                          const std::string& recipe,
                          double observation_frequency,
                          double channel_width,
                          int64_t observation_channels,
                          int64_t first_channel,
                          int64_t schan,
                          const std::string& input_type,
                          int64_t channelizer_rate,
                          int taps,
                          const std::string& window,
                          bool circular,
                          bool incoherent,
                          const std::string& detector,
                          int64_t integration,
                          const std::string& output_type,
                          const std::vector<int64_t>& beams,
                          const std::string& delays,
                          const std::string& beamformer_path,
                          const std::string& device,
                          const std::vector<std::string>& devices)
{
    check_detector_mode(detector, true, "blade.mode_b");
    if (detector == "none" && integration != 1)
        throw std::invalid_argument("blade.mode_b: integration " + std::to_string(integration) +
                                    " needs a detector; voltages (detector \"none\") are not "
                                    "integrated");
    if (output_type != "cf32" && output_type != "cf16")
        throw std::invalid_argument("blade.mode_b output_type: '" + output_type +
                                    "' (beamformed voltages are cf32 or cf16)");
    beamforming_options options;
    options.shape = shape;
    options.recipe = recipe;
    options.observation_frequency = observation_frequency;
    options.channel_width = channel_width;
    options.observation_channels = observation_channels;
    options.first_channel = first_channel;
    options.schan = schan;
    options.input_type = input_type;
    options.channelizer_rate = channelizer_rate;
    options.taps = taps;
    options.window = window;
    options.circular = circular;
    options.incoherent = incoherent;
    // A detector squares what it is given: the incoherent beam's square root makes
    // it power again.
    options.incoherent_sqrt = incoherent && detector != "none";
    options.voltage_type = detector == "none" ? output_type : "cf32";
    options.beams = beams;
    options.delays = delays;
    options.beamformer_path = beamformer_path;
    return gnuradio::make_block_sptr<mode_b_impl>(
        options,
        detector,
        integration,
        gr::blade::resolve_devices(device, devices, shape.size() > 1 ? shape[1] : 0));
}

mode_b_impl::mode_b_impl(const beamforming_options& options,
                         const std::string& detector,
                         int64_t integration,
                         const std::vector<std::string>& devices)
    : gr::hier_block2(
          "mode_b",
          gr::io_signature::makev(
              2,
              2,
              { static_cast<int>(bundle_item_size(options.shape, options.input_type)),
                static_cast<int>(sizeof(chunk_time)) }),
          gr::io_signature::make(1, 1, sizeof(float))), // item size set once built
      d_options(options),
      d_devices(devices)
{
    const chain_end end = build_beamforming_bundle(
        *this,
        "mode_b",
        options,
        devices,
        [&](bundle_chain& chain, const beamforming_options& o, const chain_end& voltages, const chain_end& times) {
            chain_end beams = beamform(chain, o, voltages, times, d_beams);
            if (detector != "none")
                beams = chain.detect(beams, detector, integration);
            return beams;
        });
    d_output = end;
    set_output_signature(gr::io_signature::make(
        1, 1, static_cast<int>(bundle_item_size(end.shape, end.dtype))));
    connect(end.block, end.port, self(), 0);
}

} // namespace blade
} // namespace gr
