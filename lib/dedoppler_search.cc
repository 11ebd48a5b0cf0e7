/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_block.h"

#include <gnuradio/blade/dedoppler_search.h>
#include <blade/blade.h>
#include <blade/modules/dedoppler.h>

#include <stdexcept>

namespace gr {
namespace blade {

namespace {

blade_dedoppler_normalization parse_normalization(const std::string& name)
{
    if (name == "MAD" || name == "mad")
        return BLADE_DEDOPPLER_NORM_MAD;
    if (name == "turbo_seti")
        return BLADE_DEDOPPLER_NORM_TURBO_SETI;
    throw std::invalid_argument("dedoppler: normalization '" + name +
                                "': expected MAD or turbo_seti");
}

blade_dedoppler_method parse_method(const std::string& name)
{
    if (name == "taylor")
        return BLADE_DEDOPPLER_TAYLOR;
    if (name == "brute_force")
        return BLADE_DEDOPPLER_BRUTE_FORCE;
    throw std::invalid_argument("dedoppler: method '" + name + "': expected taylor or brute_force");
}

} // namespace

struct dedoppler_search::state {
    dedoppler_options options;
    blade_device device = {};
    blade_stream stream = nullptr;
    blade_dedoppler* plan = nullptr;
    blade_shape shape = {};
    size_t values = 0;
    void* device_input = nullptr; // for devices other than the CPU
    std::vector<blade_dedoppler_hit> hits;
    int64_t dropped = 0;

    ~state()
    {
        blade_device_activate(device); // no-op on the CPU; errors cannot be reported here
        blade_dedoppler_destroy(plan);
        blade_device_free(device, device_input);
        if (stream)
            blade_stream_destroy(device, stream);
    }
};

dedoppler_search::dedoppler_search(int64_t beams,
                                   int64_t spectra,
                                   int64_t channels,
                                   const dedoppler_options& options,
                                   const std::string& device)
    : d_state(new state)
{
    state& s = *d_state;
    s.options = options;
    if (beams < 1 || spectra < 1 || channels < 1)
        throw std::invalid_argument("dedoppler: beams, spectra and channels must be at least 1");
    s.device = resolve_device(device, "dedoppler");
    blade_dedoppler_config config = blade_dedoppler_config_default();
    config.foff_hz = options.foff_hz;
    config.tsamp_s = options.tsamp_s;
    config.nfpc = options.nfpc;
    config.min_drift_hz_per_s = options.min_drift;
    config.max_drift_hz_per_s = options.max_drift;
    config.snr_threshold = options.snr;
    config.method = parse_method(options.method);
    config.normalization = parse_normalization(options.normalization);
    config.blank_dc = options.blank_dc;
    config.sk_shape = options.sk_shape;
    config.sk_sigmas = options.sk_sigmas;
    config.hit_capacity = options.capacity;
    s.shape = blade_shape_btf(beams, spectra, channels);
    throw_on_error(blade_dedoppler_create(&s.plan, &config, &s.shape, s.device), "dedoppler");
    s.values = static_cast<size_t>(beams * spectra * channels);
    s.hits.resize(static_cast<size_t>(options.capacity));
    if (!blade_device_equal(s.device, blade_device_cpu())) {
        // The stream and the memory belong to this device whichever one the calling
        // thread had current (several GPUs).
        throw_on_error(blade_device_activate(s.device), "dedoppler");
        throw_on_error(blade_stream_create(s.device, &s.stream), "dedoppler: stream");
        throw_on_error(blade_device_alloc(s.device, s.values * sizeof(float), &s.device_input),
                       "dedoppler: device memory for the spectrogram");
    }
}

dedoppler_search::~dedoppler_search() = default;

std::vector<dedoppler_hit> dedoppler_search::search(const float* spectrogram, size_t count)
{
    state& s = *d_state;
    if (count != s.values)
        throw std::invalid_argument("dedoppler: a spectrogram of " + std::to_string(count) +
                                    " values, expected B·T·F = " + std::to_string(s.values));
    blade_tensor input = { BLADE_F32, s.shape, s.device, const_cast<float*>(spectrogram) };
    if (s.device_input) {
        // GNU Radio's work threads (and Python's) may have another GPU current.
        throw_on_error(blade_device_activate(s.device), "dedoppler");
        throw_on_error(blade_memcpy(s.device,
                                    s.device_input,
                                    spectrogram,
                                    s.values * sizeof(float),
                                    BLADE_COPY_HOST_TO_DEVICE,
                                    s.stream),
                       "dedoppler: upload");
        input.data = s.device_input;
    }
    int64_t found = 0;
    throw_on_error(
        blade_dedoppler_process(s.plan, &input, s.hits.data(), &found, &s.dropped, s.stream),
        "dedoppler");
    std::vector<dedoppler_hit> result(static_cast<size_t>(found));
    for (int64_t i = 0; i < found; i++) {
        const blade_dedoppler_hit& h = s.hits[i];
        dedoppler_hit& r = result[i];
        r.beam = h.beam;
        r.channel = h.channel;
        r.coarse_channel = h.coarse_channel;
        r.channel_in_coarse = h.channel_in_coarse;
        r.drift_index = h.drift_index;
        r.drift_rate = h.drift_rate_hz_per_s;
        r.snr = h.snr;
        r.path_sum = h.path_sum;
    }
    return result;
}

int64_t dedoppler_search::dropped() const { return d_state->dropped; }

std::string dedoppler_search::device() const
{
    char text[64];
    return blade_device_format(d_state->device, text, sizeof text);
}

double dedoppler_search::drift_step() const
{
    return blade_dedoppler_get_geometry(d_state->plan).drift_step_hz_per_s;
}

int64_t dedoppler_search::drift_count() const
{
    return blade_dedoppler_get_geometry(d_state->plan).drift_count;
}

int64_t dedoppler_search::window() const
{
    return blade_dedoppler_get_geometry(d_state->plan).window;
}

int64_t dedoppler_search::padded_spectra() const
{
    return blade_dedoppler_get_geometry(d_state->plan).padded_spectra;
}

const dedoppler_options& dedoppler_search::options() const { return d_state->options; }

} // namespace blade
} // namespace gr
