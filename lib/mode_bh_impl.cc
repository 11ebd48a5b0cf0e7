/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "mode_bh_impl.h"

#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

mode_bh::sptr mode_bh::make(const std::vector<int64_t>& shape,
                            const observation& axis,
                            const recipe& recipe,
                            const beamforming_options& options)
{
    check_beamforming_inputs(shape, axis, recipe, "blade.mode_bh");
    check_detector_mode(options.detector, false, "blade.mode_bh");
    if (options.gather < 1)
        throw std::invalid_argument("blade.mode_bh gather: " + std::to_string(options.gather) +
                                    " chunks (at least 1)");
    const int64_t rate = options.channelizer_rate.value_or(0);
    if (rate < 0)
        throw std::invalid_argument("blade.mode_bh channelizer_rate: " + std::to_string(rate) +
                                    " (0 means the whole gathered time axis)");
    // The beamformer works on the coarse channels; the channelizer comes after the
    // gather.
    beamforming_setup setup;
    setup.shape = shape;
    setup.axis = axis;
    setup.recipe = recipe;
    setup.options = options;
    setup.options.channelizer_rate = 1;
    setup.options.taps = 1;
    setup.options.incoherent = options.incoherent.value_or(false);
    working_type(options.precision, "blade.mode_bh");
    return gnuradio::make_block_sptr<mode_bh_impl>(
        setup, rate, options.taps, bundle_devices(options, shape));
}

mode_bh_impl::mode_bh_impl(const beamforming_setup& setup,
                           int64_t channelizer_rate,
                           int taps,
                           const std::vector<std::string>& devices)
    : gr::hier_block2("mode_bh",
                      beamforming_inputs(setup.shape, setup.options.input_type),
                      gr::io_signature::make(1, 1, sizeof(float))), // item size set once built
      bundle_impl(setup.shape, setup.options.input_type, devices)
{
    const beamforming_options& o = setup.options;
    d_precision = o.precision;
    finish(build_beamforming_bundle(
        *this,
        "mode_bh",
        setup,
        devices,
        [&](bundle_chain& chain,
            const beamforming_setup& part,
            const chain_end& voltages,
            const chain_end& times) {
            chain_end spectra = beamform(chain, part, voltages, times, d_beams);
            const int64_t rate =
                channelizer_rate == 0 ? spectra.shape[2] * o.gather : channelizer_rate;
            if (o.precision == "fp16") {
                // cf32 beams (the incoherent one is a power: scaling the voltages
                // would scale it by s^2, the coherent beams by s), then cf16 scaled by
                // 2^-k for the channelizer's gain of up to 2^k: gather, channelizer
                // and detector then move half the bytes.
                spectra = chain.cast(
                    spectra, "cf16", half_range_scale(channelizer_gain(rate, taps, o.window)));
            }
            spectra = chain.gather_time(spectra, o.gather);
            spectra = chain.channelize(spectra, rate, taps, o.window);
            return chain.detect(spectra, o.detector, o.integration);
        }));
}

} // namespace blade
} // namespace gr
