/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "guppi_source_impl.h"
#include "observation_tags.h"

#include <gnuradio/blade/metadata.h>
#include <gnuradio/io_signature.h>
#include <pmt/pmt.h>

#include <cmath>
#include <stdexcept>

namespace gr {
namespace blade {

blade_guppi_gap_policy parse_gap_policy(const std::string& text)
{
    if (text == "zero-fill" || text == "zero_fill" || text == "zero")
        return BLADE_GUPPI_GAP_ZERO_FILL;
    if (text == "stop")
        return BLADE_GUPPI_GAP_STOP;
    throw std::invalid_argument("on_gap: '" + text + "' is neither \"zero-fill\" nor \"stop\"");
}

guppi_source::sptr guppi_source::make(const std::string& path,
                                      int64_t chunk_samples,
                                      const std::string& output_type,
                                      int64_t channel_start,
                                      int64_t channel_count,
                                      const std::string& on_gap,
                                      bool single_file,
                                      int readahead_blocks,
                                      double max_gap)
{
    blade_guppi_reader_config config = {};
    config.path = path.c_str();
    config.single_file = single_file;
    config.chunk_samples = chunk_samples;
    config.channel_start = channel_start;
    config.channel_count = channel_count;
    config.output_type = parse_dtype(output_type, "blade.guppi_source output_type");
    config.gap_policy = parse_gap_policy(on_gap);
    config.readahead_blocks = readahead_blocks;
    config.max_gap_seconds = max_gap;
    blade_guppi_reader* reader = nullptr;
    throw_on_error(blade_guppi_reader_open(&reader, &config), "blade.guppi_source");
    const tensor_spec output(config.output_type, blade_guppi_reader_output_shape(reader));
    try {
        return gnuradio::make_block_sptr<guppi_source_impl>(reader, output);
    } catch (...) {
        blade_guppi_reader_close(reader);
        throw;
    }
}

guppi_source_impl::guppi_source_impl(blade_guppi_reader* reader, const tensor_spec& output)
    : gr::sync_block("guppi_source",
                     gr::io_signature::make(0, 0, 0),
                     gr::io_signature::makev(1,
                                             2,
                                             { static_cast<int>(output.item_size()),
                                               static_cast<int>(sizeof(chunk_time)) })),
      device_block("guppi_source", "cpu", blade_device_cpu()),
      d_reader(reader)
{
    set_port_specs({}, { output });
    const blade_guppi_recording* rec = blade_guppi_reader_recording(reader);
    d_logger->info("{}: {} file(s), {} blocks of {} samples ({} antennas x {} channels x {} "
                   "pol, {}-bit), {} chunks of {}",
                   blade_guppi_reader_file_name(reader, 0),
                   rec->nfiles,
                   rec->nblocks,
                   rec->ntime,
                   rec->nants,
                   rec->nchan,
                   rec->npol,
                   rec->nbits,
                   rec->chunks,
                   output.str());
    for (int64_t i = 0; i < blade_guppi_reader_warning_count(reader); i++)
        d_logger->warn("{}", blade_guppi_reader_warning(reader, i));
    if (rec->chunks == 0)
        d_logger->warn("the recording holds {} samples, fewer than one chunk of {}: nothing "
                       "will be emitted",
                       rec->stream_samples,
                       output.shape.dims[2]);
}

guppi_source_impl::~guppi_source_impl() { blade_guppi_reader_close(d_reader); }

std::vector<std::string> guppi_source_impl::files() const
{
    std::vector<std::string> names;
    const int64_t count = blade_guppi_reader_recording(d_reader)->nfiles;
    for (int64_t i = 0; i < count; i++)
        names.push_back(blade_guppi_reader_file_name(d_reader, i));
    return names;
}

int64_t guppi_source_impl::chunks() const { return blade_guppi_reader_recording(d_reader)->chunks; }

double guppi_source_impl::tsamp() const { return blade_guppi_reader_recording(d_reader)->tbin; }

int64_t guppi_source_impl::zero_filled_blocks() const
{
    return blade_guppi_reader_get_stats(d_reader).zero_filled_blocks;
}

int64_t guppi_source_impl::bytes_read() const
{
    return blade_guppi_reader_get_stats(d_reader).bytes_read;
}

std::vector<std::string> guppi_source_impl::warnings() const
{
    std::vector<std::string> found;
    for (int64_t i = 0; i < blade_guppi_reader_warning_count(d_reader); i++)
        found.push_back(blade_guppi_reader_warning(d_reader, i));
    return found;
}

bool guppi_source_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

void guppi_source_impl::tag_chunk(uint64_t offset, const blade_guppi_chunk& chunk)
{
    auto add = [&](const std::string& key, const pmt::pmt_t& value) {
        add_item_tag(0, offset, pmt::intern(key), value);
    };
    for (const auto& entry : observation_tag_values(chunk.observation))
        add(entry.first, entry.second);
    add(tag::time_mid_unix, pmt::from_double(chunk.unix_mid));
    add(tag::jd_start, pmt::from_double(chunk.jd_start));
    add(tag::jd_mid, pmt::from_double(chunk.jd_mid));
    add(tag::block_index, pmt::from_long(static_cast<long>(chunk.block_index)));
    add(tag::file_name, pmt::intern(blade_guppi_reader_file_name(d_reader, chunk.file_index)));
    add(tag::aspect, pmt::intern("antenna"));
    if (chunk.zero_filled_blocks > 0)
        add(tag::dropped, pmt::from_long(static_cast<long>(chunk.zero_filled_blocks)));
    // GNU Radio's convention: (whole seconds, fractional seconds).
    const double whole = std::floor(chunk.unix_start);
    add("rx_time",
        pmt::make_tuple(pmt::from_uint64(static_cast<uint64_t>(whole)),
                        pmt::from_double(chunk.unix_start - whole)));
}

void guppi_source_impl::log_end()
{
    const blade_guppi_reader_stats stats = blade_guppi_reader_get_stats(d_reader);
    const blade_guppi_recording* rec = blade_guppi_reader_recording(d_reader);
    d_logger->info("end of the recording: {} chunks, {} blocks ({} bytes) read, {} missing "
                   "blocks zero-filled",
                   stats.chunks,
                   stats.blocks_read,
                   stats.bytes_read,
                   stats.zero_filled_blocks);
    if (stats.stopped_at_gap)
        d_logger->warn("stopped at the first gap (on_gap=stop): {} gap(s), {} missing blocks "
                       "in the recording; {} complete blocks after the gap were not read",
                       rec->gaps,
                       rec->missing_blocks,
                       rec->nblocks - stats.blocks_read);
    if (stats.samples_left > 0)
        d_logger->info("the last {} samples are fewer than a chunk and were not emitted",
                       stats.samples_left);
}

int guppi_source_impl::work(int noutput_items,
                            gr_vector_const_void_star& input_items,
                            gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        if (d_ended)
            return static_cast<int>(WORK_DONE);
        auto* out = static_cast<char*>(output_items[0]);
        auto* times = output_items.size() > 1 ? static_cast<chunk_time*>(output_items[1]) : nullptr;
        const size_t item_size = output_item_size();
        int produced = 0;
        for (; produced < noutput_items; produced++) {
            blade_tensor chunk = tensor(output_spec(0), out + produced * item_size);
            blade_guppi_chunk info;
            const blade_status status = blade_guppi_reader_read(d_reader, &chunk, &info);
            if (status == BLADE_ERROR_END_OF_DATA) {
                d_ended = true;
                log_end();
                break;
            }
            // Deliver the chunks read before a failure (a file cut short or gone):
            // the reader keeps failing, so the next call reports it and ends.
            if (status != BLADE_OK && produced > 0)
                break;
            check(status, "reading");
            tag_chunk(nitems_written(0) + produced, info);
            // The chunk-time stream says which frequency axis its chunks have, so a
            // phasor block can check that it was made for them.
            if (times != nullptr && nitems_written(1) + produced == 0)
                for (const auto& entry : observation_tag_values(info.observation))
                    add_item_tag(1, 0, pmt::intern(entry.first), entry.second);
            if (info.zero_filled_blocks > 0)
                d_logger->trace("chunk {}: {} samples of {} missing block(s) zero-filled",
                                info.index,
                                info.zero_filled_samples,
                                info.zero_filled_blocks);
            if (times != nullptr) {
                chunk_time& time = times[produced];
                time.unix_start = info.unix_start;
                time.unix_mid = info.unix_mid;
                time.jd_start = info.jd_start;
                time.jd_mid = info.jd_mid;
                time.dut1 = info.observation.dut1;
                time.tsamp = info.observation.tsamp;
                time.step = info.index;
                time.flags = info.zero_filled_blocks > 0 ? 1 : 0;
            }
        }
        return produced == 0 && d_ended ? static_cast<int>(WORK_DONE) : produced;
    });
}

} // namespace blade
} // namespace gr
