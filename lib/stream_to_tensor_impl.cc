/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "stream_chunk.h"
#include "stream_to_tensor_impl.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace blade {

namespace {

/* A tag value as a double, if it is a number of any pmt kind. */
bool number_of(const pmt::pmt_t& value, double& number)
{
    if (pmt::is_real(value))
        number = pmt::to_double(value);
    else if (pmt::is_integer(value))
        number = static_cast<double>(pmt::to_long(value));
    else if (pmt::is_uint64(value))
        number = static_cast<double>(pmt::to_uint64(value));
    else
        return false;
    return true;
}

} // namespace

stream_to_tensor::sptr stream_to_tensor::make(const std::vector<int64_t>& shape,
                                              double sample_rate,
                                              double freq_first,
                                              double chan_bw,
                                              double start_time,
                                              double dut1)
{
    const tensor_spec chunk = stream_chunk_spec(shape, "blade.stream_to_tensor");
    blade_sample_clock clock;
    throw_on_error(blade_sample_clock_init(&clock, sample_rate, start_time),
                   "blade.stream_to_tensor");
    if (!std::isfinite(freq_first) || !std::isfinite(chan_bw) || !std::isfinite(dut1))
        throw std::invalid_argument("blade.stream_to_tensor: freq_first, chan_bw and "
                                    "dut1 must be finite numbers");
    return gnuradio::make_block_sptr<stream_to_tensor_impl>(
        chunk, clock, freq_first, chan_bw, dut1);
}

stream_to_tensor_impl::stream_to_tensor_impl(const tensor_spec& chunk,
                                             const blade_sample_clock& clock,
                                             double freq_first,
                                             double chan_bw,
                                             double dut1)
    : gr::sync_decimator(
          "stream_to_tensor",
          stream_signature(chunk),
          gr::io_signature::makev(
              1, 2, { static_cast<int>(chunk.item_size()), static_cast<int>(sizeof(chunk_time)) }),
          static_cast<unsigned>(chunk.shape.dims[2])),
      device_block("stream_to_tensor", "cpu", blade_device_cpu()),
      d_nstreams(stream_count(chunk)),
      d_samples(chunk.shape.dims[2]),
      d_clock(clock),
      d_freq_first(freq_first),
      d_freq_known(freq_first != 0),
      d_chan_bw(chan_bw),
      d_dut1(dut1),
      d_streams(d_nstreams)
{
    // The inputs are sample streams, not chunks: only the output is a tensor, which
    // lets a gr-blade block downstream check what it receives.
    set_port_specs({}, { chunk });
    set_tag_propagation_policy(TPP_DONT);
}

int stream_to_tensor_impl::port(int64_t a, int64_t f, int64_t p) const
{
    return static_cast<int>(blade_stream_port(&output_spec(0).shape, a, f, p));
}

bool stream_to_tensor_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_decimator::start();
}

bool stream_to_tensor_impl::apply_receiver_tag(const gr::tag_t& tag)
{
    const auto sample = static_cast<int64_t>(tag.offset);
    if (pmt::eq(tag.key, rx_time_key())) {
        // UHD: (uint64 whole seconds, double fraction); also accepted: plain seconds.
        const bool pair = pmt::is_tuple(tag.value) && pmt::length(tag.value) == 2;
        const pmt::pmt_t whole = pair ? pmt::tuple_ref(tag.value, 0) : pmt::PMT_NIL;
        const pmt::pmt_t fraction = pair ? pmt::tuple_ref(tag.value, 1) : pmt::PMT_NIL;
        if (pair && (pmt::is_uint64(whole) || pmt::is_integer(whole)) && pmt::is_real(fraction)) {
            const int64_t seconds = pmt::is_uint64(whole)
                                        ? static_cast<int64_t>(pmt::to_uint64(whole))
                                        : pmt::to_long(whole);
            blade_sample_clock_set_time(&d_clock, sample, seconds, pmt::to_double(fraction));
        } else if (double seconds; number_of(tag.value, seconds)) {
            const double whole_seconds = std::floor(seconds);
            blade_sample_clock_set_time(
                &d_clock, sample, static_cast<int64_t>(whole_seconds), seconds - whole_seconds);
        } else {
            d_logger->warn("rx_time tag at sample {} is neither (seconds, fraction) nor a "
                           "number: ignored",
                           tag.offset);
        }
        return true;
    }
    if (pmt::eq(tag.key, rx_rate_key())) {
        double rate = 0;
        number_of(tag.value, rate);
        if (blade_sample_clock_set_rate(&d_clock, sample, rate) != BLADE_OK)
            d_logger->warn("rx_rate tag at sample {}: {}; ignored", tag.offset, blade_last_error());
        return true;
    }
    if (pmt::eq(tag.key, rx_freq_key())) {
        if (double frequency; number_of(tag.value, frequency)) {
            d_freq_first = frequency;
            d_freq_known = true;
        }
        return true;
    }
    return false;
}

void stream_to_tensor_impl::take_tag(const gr::tag_t& tag)
{
    if (!apply_receiver_tag(tag)) // any other tag moves to the chunk holding its sample
        add_item_tag(0, tag.offset / d_samples, tag.key, tag.value, tag.srcid);
}

void stream_to_tensor_impl::tag_chunk(uint64_t item, const blade_chunk_times& times)
{
    auto put = [&](const char* key, double value) {
        add_item_tag(0, item, pmt::intern(key), pmt::from_double(value));
    };
    put(tag::time_start_unix, times.unix_start);
    put(tag::time_mid_unix, times.unix_mid);
    put(tag::jd_start, times.jd_start);
    put(tag::jd_mid, times.jd_mid);
    put(tag::dut1, d_dut1);
    put(tag::tsamp, times.tsamp);
    put(tag::chan_bw, d_chan_bw != 0 ? d_chan_bw : d_clock.rate);
    if (d_freq_known)
        put(tag::freq_first, d_freq_first);
}

int stream_to_tensor_impl::work(int noutput_items,
                                gr_vector_const_void_star& input_items,
                                gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        auto* out = static_cast<char*>(output_items[0]);
        auto* times_out =
            output_items.size() > 1 ? static_cast<chunk_time*>(output_items[1]) : nullptr;
        const size_t size = item_size();
        const uint64_t first_sample = nitems_read(0);
        const uint64_t first_chunk = nitems_written(0);

        std::vector<gr::tag_t> tags;
        get_tags_in_range(tags, 0, first_sample, first_sample + noutput_items * d_samples);
        std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
        size_t next_tag = 0;

        for (int i = 0; i < noutput_items; i++) {
            const uint64_t start = first_sample + static_cast<uint64_t>(i * d_samples);
            // Receiver tags up to the chunk's first sample date it.
            for (; next_tag < tags.size() && tags[next_tag].offset <= start; next_tag++)
                take_tag(tags[next_tag]);
            for (size_t k = next_tag; k < tags.size() && tags[k].offset < start + d_samples; k++)
                if (pmt::eq(tags[k].key, rx_time_key()))
                    d_logger->trace("rx_time inside chunk {} (sample {}): the chunk keeps the "
                                    "time of its first sample; the new time applies from the "
                                    "next chunk",
                                    first_chunk + i,
                                    tags[k].offset);

            for (int s = 0; s < d_nstreams; s++)
                d_streams[s] = static_cast<const gr_complex*>(input_items[s]) + i * d_samples;
            check(blade_streams_to_chunk(
                      d_streams.data(), d_nstreams, &output_spec(0).shape, out + i * size),
                  "packing");

            const blade_chunk_times times =
                blade_sample_clock_chunk(&d_clock, static_cast<int64_t>(start), d_samples);
            tag_chunk(first_chunk + i, times);
            if (times_out != nullptr) {
                chunk_time& t = times_out[i];
                t.unix_start = times.unix_start;
                t.unix_mid = times.unix_mid;
                t.jd_start = times.jd_start;
                t.jd_mid = times.jd_mid;
                t.dut1 = d_dut1;
                t.tsamp = times.tsamp;
                t.step = static_cast<int64_t>(first_chunk + i);
                t.flags = 0;
            }
        }
        // Tags inside the last chunk date the chunks of the next call.
        for (; next_tag < tags.size(); next_tag++)
            take_tag(tags[next_tag]);
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
