/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

/* The dedoppler block: chunks [B, F, Tc, P] are transposed into a host window
 * [B, T, F] (IF 0) and searched by dedoppler_search; hits leave as messages. The
 * window is host memory of the search's device (pinned for a GPU), so its upload
 * runs at the link's speed: 113 MB per search for Mode BS at the ATA node. */

#include "device_block.h"

#include <gnuradio/blade/dedoppler.h>
#include <gnuradio/io_signature.h>
#include <pmt/pmt.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>

namespace gr {
namespace blade {

class dedoppler_impl : public dedoppler, public device_block
{
public:
    dedoppler_impl(const tensor_spec& input,
                   int64_t spectra,
                   const dedoppler_options& options,
                   double fch1_mhz,
                   double tstart_mjd,
                   const std::string& device)
        : gr::sync_block("dedoppler",
                         gr::io_signature::make(1, 1, static_cast<int>(input.item_size())),
                         gr::io_signature::make(0, 0, 0)),
          device_block("dedoppler", "cpu", blade_device_cpu()),
          d_beams(input.shape.dims[0]),
          d_channels(input.shape.dims[1]),
          d_chunk_spectra(input.shape.dims[2]),
          d_ifs(input.shape.dims[3]),
          d_spectra(spectra),
          d_fch1(fch1_mhz),
          d_tstart(tstart_mjd),
          d_options(options)
    {
        set_port_specs({ input }, {});
        d_search.reset(new dedoppler_search(d_beams, d_spectra, d_channels, options, device));
        d_window_values = static_cast<size_t>(d_beams * d_spectra * d_channels);
        d_window_device = resolve_device(device, "dedoppler");
        void* window = nullptr;
        throw_on_error(blade_host_alloc(d_window_device, d_window_values * sizeof(float), &window),
                       "dedoppler: host memory for the window");
        d_window = static_cast<float*>(window);
        std::fill(d_window, d_window + d_window_values, 0.0f);
        message_port_register_out(d_port);
    }

    ~dedoppler_impl() override { blade_host_free(d_window_device, d_window); }

    int64_t windows() const override { return d_windows; }
    int64_t hits() const override { return d_hits; }
    double search_seconds() const override { return d_seconds; }
    double drift_step() const override { return d_search->drift_step(); }
    int64_t window() const override { return d_search->window(); }
    int64_t padded_spectra() const override { return d_search->padded_spectra(); }

    bool start() override
    {
        check_neighbours_at_start(*this, d_logger);
        return gr::sync_block::start();
    }

    int
    work(int noutput_items, gr_vector_const_void_star& input_items, gr_vector_void_star&) override
    {
        return guarded_work(d_logger, [&]() {
            const auto* in = static_cast<const char*>(input_items[0]);
            const int64_t F = d_channels, Tc = d_chunk_spectra, P = d_ifs, T = d_spectra;
            for (int i = 0; i < noutput_items; i++) {
                const auto* chunk = reinterpret_cast<const float*>(in + i * input_item_size());
                for (int64_t t = 0; t < Tc; t++) {
                    for (int64_t b = 0; b < d_beams; b++) {
                        float* row = d_window + (b * T + d_filled) * F;
                        const float* source = chunk + b * F * Tc * P + t * P; // [b][f][t][0]
                        for (int64_t f = 0; f < F; f++)
                            row[f] = source[f * Tc * P];
                    }
                    if (++d_filled == T)
                        search_window();
                }
            }
            return noutput_items;
        });
    }

private:
    void search_window()
    {
        const auto start = std::chrono::steady_clock::now();
        const std::vector<dedoppler_hit> found = d_search->search(d_window, d_window_values);
        d_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double foff_mhz = d_options.foff_hz * 1e-6;
        const double mjd = d_tstart + d_windows * d_spectra * d_options.tsamp_s / 86400.0;
        for (const dedoppler_hit& h : found) {
            pmt::pmt_t d = pmt::make_dict();
            d = pmt::dict_add(d, pmt::intern("beam"), pmt::from_long(h.beam));
            d = pmt::dict_add(d, pmt::intern("channel"), pmt::from_long(h.channel));
            d = pmt::dict_add(d, pmt::intern("coarse_channel"), pmt::from_long(h.coarse_channel));
            d = pmt::dict_add(
                d, pmt::intern("channel_in_coarse"), pmt::from_long(h.channel_in_coarse));
            d = pmt::dict_add(d, pmt::intern("drift_index"), pmt::from_long(h.drift_index));
            d = pmt::dict_add(d, pmt::intern("drift_rate"), pmt::from_double(h.drift_rate));
            d = pmt::dict_add(d, pmt::intern("snr"), pmt::from_double(h.snr));
            d = pmt::dict_add(d, pmt::intern("path_sum"), pmt::from_double(h.path_sum));
            d = pmt::dict_add(d,
                              pmt::intern("frequency"),
                              pmt::from_double(d_fch1 + static_cast<double>(h.channel) * foff_mhz));
            d = pmt::dict_add(d, pmt::intern("window"), pmt::from_long(d_windows));
            d = pmt::dict_add(d, pmt::intern("window_mjd"), pmt::from_double(mjd));
            message_port_pub(d_port, d);
        }
        pmt::pmt_t done = pmt::make_dict();
        done = pmt::dict_add(done, pmt::intern("window_done"), pmt::from_long(d_windows));
        done = pmt::dict_add(
            done, pmt::intern("hits"), pmt::from_long(static_cast<long>(found.size())));
        done = pmt::dict_add(done, pmt::intern("dropped"), pmt::from_long(d_search->dropped()));
        message_port_pub(d_port, done);
        d_hits += static_cast<int64_t>(found.size());
        d_windows++;
        d_filled = 0;
    }

    const pmt::pmt_t d_port = pmt::mp("hits");
    int64_t d_beams, d_channels, d_chunk_spectra, d_ifs, d_spectra;
    double d_fch1, d_tstart;
    dedoppler_options d_options;
    std::unique_ptr<dedoppler_search> d_search;
    blade_device d_window_device;
    float* d_window = nullptr; // [B, T, F], blade_host_alloc'd for d_window_device
    size_t d_window_values = 0;
    int64_t d_filled = 0;
    int64_t d_windows = 0;
    int64_t d_hits = 0;
    double d_seconds = 0.0;
};

dedoppler::sptr dedoppler::make(const std::vector<int64_t>& shape,
                                int64_t spectra,
                                const dedoppler_options& options,
                                double fch1_mhz,
                                double tstart_mjd,
                                const std::string& device)
{
    const blade_shape input = parse_shape(shape, "blade.dedoppler: shape");
    if (input.rank != 4)
        throw std::invalid_argument("blade.dedoppler: shape must be [B, F, T, P]");
    if (spectra < 1)
        throw std::invalid_argument("blade.dedoppler: spectra per window must be at least 1");
    return gnuradio::make_block_sptr<dedoppler_impl>(
        tensor_spec(BLADE_F32, input), spectra, options, fch1_mhz, tstart_mjd, device);
}

} // namespace blade
} // namespace gr
