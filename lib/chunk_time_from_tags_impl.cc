/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "chunk_time_from_tags_impl.h"

#include <gnuradio/io_signature.h>
#include <blade/io/observation.h>

#include <cmath>
#include <stdexcept>

namespace gr {
namespace blade {

chunk_time_from_tags::sptr chunk_time_from_tags::make(const std::vector<int64_t>& shape,
                                                      const std::string& dtype,
                                                      const std::string& on_gap)
{
    const blade_shape extents = parse_shape(shape, "blade.chunk_time_from_tags shape");
    if (extents.rank != 4)
        throw std::invalid_argument(
            "blade.chunk_time_from_tags shape: expected [A, F, T, P], got " +
            std::to_string(extents.rank) + " axes");
    if (on_gap != "report" && on_gap != "stop")
        throw std::invalid_argument("blade.chunk_time_from_tags on_gap: '" + on_gap +
                                    "' (expected \"report\" or \"stop\")");
    const tensor_spec chunks(parse_dtype(dtype, "blade.chunk_time_from_tags dtype"), extents);
    return gnuradio::make_block_sptr<chunk_time_from_tags_impl>(chunks, on_gap == "stop");
}

// The input is never read, only its tags: the block can share its upstream's
// output with a GPU block (it then sees device memory it does not touch).
chunk_time_from_tags_impl::chunk_time_from_tags_impl(const tensor_spec& chunks, bool stop_on_gap)
    : gr::sync_block("chunk_time_from_tags",
                     gr::io_signature::make(1, 1, static_cast<int>(chunks.item_size())),
                     gr::io_signature::make(1, 1, sizeof(chunk_time))),
      device_block("chunk_time_from_tags", "cpu", blade_device_cpu()),
      d_stop_on_gap(stop_on_gap),
      d_samples(chunks.shape.dims[2])
{
    set_port_specs({ chunks }, {});
}

bool chunk_time_from_tags_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

chunk_time_from_tags_impl::chunk_tags chunk_time_from_tags_impl::read_tags(uint64_t offset)
{
    chunk_tags found;
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, offset, offset + 1);
    for (const auto& t : tags) {
        if (!pmt::is_number(t.value))
            continue;
        const std::string key = pmt::symbol_to_string(t.key);
        const double value = pmt::to_double(t.value);
        if (key == tag::time_start_unix) {
            found.has_start = true;
            found.start = value;
        } else if (key == tag::time_mid_unix) {
            found.has_mid = true;
            found.mid = value;
        } else if (key == tag::jd_start) {
            found.has_jd_start = true;
            found.jd_start = value;
        } else if (key == tag::jd_mid) {
            found.has_jd_mid = true;
            found.jd_mid = value;
        } else if (key == tag::tsamp) {
            d_tsamp = value;
        } else if (key == tag::dut1) {
            d_dut1 = value;
        } else if (key == tag::dropped) {
            found.dropped = value > 0;
        }
    }
    return found;
}

void chunk_time_from_tags_impl::account_for_gap(double start, double expected, double duration)
{
    const double chunks_off = (start - expected) / duration;
    const int64_t missing = static_cast<int64_t>(std::llround(chunks_off));
    char text[400];
    if (missing >= 1) {
        std::snprintf(text,
                      sizeof text,
                      "chunks %lld to %lld missing (%lld chunk%s, %.6f s of data): the chunk "
                      "after step %lld starts at unix %.6f instead of %.6f; a sender or the "
                      "network dropped them",
                      static_cast<long long>(d_step + 1),
                      static_cast<long long>(d_step + missing),
                      static_cast<long long>(missing),
                      missing == 1 ? "" : "s",
                      missing * duration,
                      static_cast<long long>(d_step),
                      start,
                      expected);
        d_missing += missing;
        d_step += missing;
    } else {
        std::snprintf(text,
                      sizeof text,
                      "the chunk after step %lld starts at unix %.6f, %.3f chunks from the "
                      "expected %.6f: out of order, repeated or misaligned",
                      static_cast<long long>(d_step),
                      start,
                      chunks_off,
                      expected);
    }
    d_gaps++;
    if (d_stop_on_gap)
        throw std::runtime_error(std::string("blade.chunk_time_from_tags: ") + text);
    d_logger->warn("{}", text);
}

int chunk_time_from_tags_impl::work(int noutput_items,
                                    gr_vector_const_void_star& input_items,
                                    gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        auto* times = static_cast<chunk_time*>(output_items[0]);
        for (int i = 0; i < noutput_items; i++) {
            const uint64_t offset = nitems_read(0) + i;
            const chunk_tags found = read_tags(offset);
            const double duration = static_cast<double>(d_samples) * d_tsamp;
            double start = found.start;
            if (!found.has_start) {
                if (!d_have_previous)
                    throw std::runtime_error(
                        "blade.chunk_time_from_tags: chunk " + std::to_string(offset) +
                        " has no blade_time_start_unix tag and no chunk before it had one: "
                        "the time is unknown (pass tags over the network: pass_tags=True)");
                start = d_previous_start + duration;
            } else if (d_have_previous && duration > 0) {
                const double expected = d_previous_start + duration;
                // A gap shows as a start off by at least a chunk; half a sample
                // absorbs rounding of the times in the tags.
                if (std::fabs(start - expected) > 0.5 * d_tsamp)
                    account_for_gap(start, expected, duration);
            }
            chunk_time& out = times[i];
            out.unix_start = start;
            out.unix_mid = found.has_mid ? found.mid : start + 0.5 * duration;
            out.jd_start = found.has_jd_start ? found.jd_start : blade_unix_to_jd(start);
            out.jd_mid = found.has_jd_mid ? found.jd_mid : blade_unix_to_jd(out.unix_mid);
            out.dut1 = d_dut1;
            out.tsamp = d_tsamp;
            out.step = ++d_step;
            out.flags = found.dropped ? 1 : 0;
            d_previous_start = start;
            d_have_previous = true;
            d_chunks++;
        }
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
