/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "mode_b_impl.h"

#include <gnuradio/blade/beamformer.h>
#include <gnuradio/blade/metadata.h>
#include <gnuradio/blade/phasor.h>
#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

chain_end beamform(bundle_chain& chain,
                   const beamforming_setup& setup,
                   const chain_end& input_voltages,
                   const chain_end& times,
                   int64_t& beams)
{
    const beamforming_options& o = setup.options;
    const int64_t rate = o.channelizer_rate.value_or(1);
    chain_end voltages = input_voltages;
    // The beamformer converts ci8 itself while it loads; a channelizer or a
    // polarizer needs cf32 first.
    const bool fused_cast = o.input_type == "ci8" && rate == 1 && o.taps == 1 && !o.circular;
    if (!fused_cast) {
        // Half precision: scaled by 2^-k ahead of a channelizer of gain up to 2^k (its
        // spectra stay within half's range; the detector undoes it). Voltages out
        // (detector "none") are not scaled: they must fit half's range as they are.
        const std::string work = working_type(o.precision, "blade.mode_b");
        const bool scaled = work == "cf16" && o.detector != "none";
        // cast, channelizer (in place on the cast's chunk when T = N) and polarizer
        // (in place on the chunk before it) share blocks and device buffers
        voltages = chain.cast_and_channelize(
            voltages,
            work,
            scaled ? half_range_scale(channelizer_gain(rate, o.taps, o.window)) : 1.0,
            rate,
            o.taps,
            o.window);
    }
    voltages = chain.polarize(voltages, o.circular);

    // The phasors are for the channels the beamformer sees: the axis channelized.
    phasor_options phasing;
    phasing.polarizations = setup.shape[3];
    phasing.delays = o.delays;
    phasing.beams = o.beams;
    phasing.device = chain.device();
    auto phasors = phasor::make_from_recipe(setup.axis.channelized(rate), setup.recipe, phasing);
    chain.connect(times, phasors, 0);

    // Half precision: the tensor-core path on half operands with float32 sums where
    // tensor cores pay (the beamformer's own rule for them: A, B >= 32, T >= 64; its
    // "auto" never lowers the accuracy itself). With fewer beams its 64-beam tiles are
    // mostly empty: on the H200 the whole fp16 Mode BH chain (B = 2) ran 26 % slower
    // than the fp32 one with it.
    const auto& phasor_shape = phasors->output_shape();
    const bool tensor_cores_pay =
        voltages.shape[0] >= 32 && phasor_shape[0] >= 32 && voltages.shape[2] >= 64;
    const std::string path =
        o.precision == "fp16" && o.beamformer_path == "auto" && tensor_cores_pay
            ? "fp16"
            : o.beamformer_path;
    auto beamformer = gr::blade::beamformer::make(voltages.shape,
                                                  phasors->output_shape(),
                                                  voltages.dtype,
                                                  setup.voltage_type,
                                                  *o.incoherent,
                                                  setup.incoherent_sqrt,
                                                  path,
                                                  chain.device());
    chain.connect(voltages, beamformer, 0);
    chain.connect(chain_end{ phasors, 0, phasors->output_shape(), "cf32", 1 }, beamformer, 1);
    beams = beamformer->beams();
    return chain_end{
        beamformer,    0, beamformer->output_shape(), setup.voltage_type, voltages.chunks_per_item,
        voltages.scale
    };
}

chain_end build_beamforming_bundle(gr::hier_block2& hier,
                                   const std::string& name,
                                   const beamforming_setup& setup,
                                   const std::vector<std::string>& devices,
                                   const beamforming_stages& stages)
{
    const std::string& type = setup.options.input_type;
    if (devices.size() == 1) {
        bundle_chain chain(hier, name, devices[0]);
        return stages(
            chain, setup, chain.input(0, setup.shape, type), chain.input(1, {}, "chunk_time"));
    }
    // Sub-band n is channels n F/parts onwards of the chunks: its phasor block places
    // its channels, and looks up their calibration rows, from there.
    return build_across_devices(hier,
                                name,
                                devices,
                                setup.shape,
                                type,
                                true,
                                [&](bundle_chain& chain,
                                    const chain_end& voltages,
                                    const chain_end& times,
                                    int64_t subband) {
                                    beamforming_setup part = setup;
                                    part.shape = voltages.shape;
                                    part.axis = setup.axis.channels(subband * voltages.shape[1],
                                                                    voltages.shape[1]);
                                    return stages(chain, part, voltages, times);
                                });
}

void check_beamforming_inputs(const std::vector<int64_t>& shape,
                              const observation& axis,
                              const recipe& recipe,
                              const std::string& what)
{
    if (shape.size() != 4)
        throw std::invalid_argument(what + " shape: expected [A, F, T, P], got " +
                                    std::to_string(shape.size()) + " axes");
    if (axis.value().nchan != shape[1])
        throw std::invalid_argument(
            what + ": the observation describes " + std::to_string(axis.value().nchan) +
            " channels, the chunks have F = " + std::to_string(shape[1]) +
            " (take Recording.observation of the channels read, or observation.channels())");
    if (recipe.antennas != shape[0])
        throw std::invalid_argument(
            what + ": " + recipe.path + " is for " + std::to_string(recipe.antennas) +
            " antennas (/diminfo/nants), the chunks have A = " + std::to_string(shape[0]));
}

gr::io_signature::sptr beamforming_inputs(const std::vector<int64_t>& shape,
                                          const std::string& input_type)
{
    return gr::io_signature::makev(2,
                                   2,
                                   { static_cast<int>(bundle_item_size(shape, input_type)),
                                     static_cast<int>(sizeof(chunk_time)) });
}

mode_b::sptr mode_b::make(const std::vector<int64_t>& shape,
                          const observation& axis,
                          const recipe& recipe,
                          const beamforming_options& options)
{
    check_beamforming_inputs(shape, axis, recipe, "blade.mode_b");
    check_detector_mode(options.detector, true, "blade.mode_b");
    if (options.detector == "none" && options.integration != 1)
        throw std::invalid_argument("blade.mode_b: integration " +
                                    std::to_string(options.integration) +
                                    " needs a detector; voltages (detector \"none\") are not "
                                    "integrated");
    const std::string work = working_type(options.precision, "blade.mode_b");
    if (options.output_type != "cf32" && options.output_type != "cf16")
        throw std::invalid_argument("blade.mode_b output_type: '" + options.output_type +
                                    "' (beamformed voltages are cf32 or cf16)");
    beamforming_setup setup;
    setup.shape = shape;
    setup.axis = axis;
    setup.recipe = recipe;
    setup.options = options;
    setup.options.channelizer_rate = options.channelizer_rate.value_or(1);
    setup.options.incoherent = options.incoherent.value_or(true);
    // A detector squares what it is given: the incoherent beam's square root makes
    // it power again.
    setup.incoherent_sqrt = *setup.options.incoherent && options.detector != "none";
    // Beams for the detector are of the chain's precision; voltages of output_type.
    setup.voltage_type = options.detector == "none" ? options.output_type : work;
    return gnuradio::make_block_sptr<mode_b_impl>(setup, bundle_devices(options, shape));
}

mode_b_impl::mode_b_impl(const beamforming_setup& setup, const std::vector<std::string>& devices)
    : gr::hier_block2("mode_b",
                      beamforming_inputs(setup.shape, setup.options.input_type),
                      gr::io_signature::make(1, 1, sizeof(float))), // item size set once built
      bundle_impl(setup.shape, setup.options.input_type, devices)
{
    d_precision = setup.options.precision;
    const std::string& detector = setup.options.detector;
    const int64_t integration = setup.options.integration;
    finish(build_beamforming_bundle(*this,
                                    "mode_b",
                                    setup,
                                    devices,
                                    [&](bundle_chain& chain,
                                        const beamforming_setup& part,
                                        const chain_end& voltages,
                                        const chain_end& times) {
                                        chain_end beams =
                                            beamform(chain, part, voltages, times, d_beams);
                                        if (detector != "none")
                                            beams = chain.detect(beams, detector, integration);
                                        return beams;
                                    }));
}

} // namespace blade
} // namespace gr
