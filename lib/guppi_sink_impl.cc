/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "guppi_sink_impl.h"
#include "observation_tags.h"

#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

guppi_sink::sptr guppi_sink::make(const std::string& stem,
                                  const std::vector<int64_t>& shape,
                                  const std::string& input_type,
                                  const std::string& file_type,
                                  double scale,
                                  bool directio,
                                  int64_t block_samples,
                                  int64_t blocks_per_file,
                                  const std::map<std::string, std::string>& header)
{
    const tensor_spec input(parse_dtype(input_type, "blade.guppi_sink input_type"),
                            parse_shape(shape, "blade.guppi_sink shape"));
    blade_guppi_writer_config config = {};
    config.stem = stem.c_str();
    config.input_type = input.dtype;
    config.file_type = parse_dtype(file_type, "blade.guppi_sink file_type");
    config.scale = scale;
    config.directio = directio;
    config.block_samples = block_samples;
    config.blocks_per_file = blocks_per_file;

    blade_guppi_header* extra = nullptr;
    throw_on_error(blade_guppi_header_create(&extra), "blade.guppi_sink");
    blade_guppi_writer* writer = nullptr;
    try {
        for (const auto& card : header)
            throw_on_error(
                blade_guppi_header_set_raw(extra, card.first.c_str(), card.second.c_str()),
                "blade.guppi_sink header");
        throw_on_error(blade_guppi_writer_create(&writer, &config, &input.shape),
                       "blade.guppi_sink");
        // Checks the extra cards now (geometry keys cannot be set by hand).
        throw_on_error(blade_guppi_writer_set_observation(writer, nullptr, extra),
                       "blade.guppi_sink header");
        return gnuradio::make_block_sptr<guppi_sink_impl>(writer, extra, input);
    } catch (...) {
        blade_guppi_writer_destroy(writer);
        blade_guppi_header_destroy(extra);
        throw;
    }
}

guppi_sink_impl::guppi_sink_impl(blade_guppi_writer* writer,
                                 blade_guppi_header* extra,
                                 const tensor_spec& input)
    : gr::sync_block("guppi_sink",
                     gr::io_signature::make(1, 1, static_cast<int>(input.item_size())),
                     gr::io_signature::make(0, 0, 0)),
      device_block("guppi_sink", "cpu", blade_device_cpu()),
      d_writer(writer),
      d_extra(extra)
{
    set_port_specs({ input }, {});
}

guppi_sink_impl::~guppi_sink_impl()
{
    blade_guppi_writer_destroy(d_writer);
    blade_guppi_header_destroy(d_extra);
}

std::vector<std::string> guppi_sink_impl::files() const
{
    std::vector<std::string> names;
    for (int64_t i = 0; i < blade_guppi_writer_files(d_writer); i++)
        names.push_back(blade_guppi_writer_file_name(d_writer, i));
    return names;
}

bool guppi_sink_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

bool guppi_sink_impl::stop()
{
    if (!d_closed) {
        d_closed = true;
        const blade_status status = blade_guppi_writer_close(d_writer);
        if (status != BLADE_OK)
            fail(d_logger, std::string("blade.guppi_sink: ") + blade_last_error());
        const int64_t dropped = blade_guppi_writer_discarded_samples(d_writer);
        if (dropped > 0)
            d_logger->warn("the last {} samples did not fill a block and were not written",
                           dropped);
        if (blade_guppi_writer_blocks(d_writer) == 0)
            d_logger->warn("no complete block arrived: nothing was written");
        else
            d_logger->info("wrote {} blocks to {} file(s) from {}",
                           blade_guppi_writer_blocks(d_writer),
                           blade_guppi_writer_files(d_writer),
                           blade_guppi_writer_file_name(d_writer, 0));
    }
    return gr::sync_block::stop();
}

/* Beamformed voltages: the aspects are beams, named where readers look for antenna
 * names (ANTNMS), unless the caller gave them; one beam makes the recording that
 * beam's (SRC_NAME and its direction); several keep the pointing, as antennas do.
 * Beams nobody identified (no blade_beams tag) keep no direction: the boresight is
 * not necessarily theirs. */
void guppi_sink_impl::name_beams(const tagged_observation& tagged, blade_observation& observation)
{
    if (tagged.aspect != "beam")
        return;
    const std::vector<beam_identity>& beams = tagged.beams.beams;
    const int64_t count = input_spec(0).shape.dims[0];
    if (static_cast<int64_t>(beams.size()) != count) {
        observation.has_position = false;
        return;
    }
    std::string names;
    for (const beam_identity& beam : beams)
        names += (names.empty() ? "" : ",") + beam.name;
    if (!blade_guppi_header_has(d_extra, "ANTNMS00"))
        for (size_t at = 0, index = 0; at < names.size(); at += 64, index++) {
            char key[16];
            std::snprintf(key, sizeof key, "ANTNMS%02zu", index);
            check(blade_guppi_header_set_string(d_extra, key, names.substr(at, 64).c_str()),
                  "beam names");
        }
    if (count == 1) {
        std::snprintf(
            observation.source_name, sizeof observation.source_name, "%s", beams[0].name.c_str());
        observation.ra = beams[0].ra;
        observation.dec = beams[0].dec;
        observation.has_position = beams[0].has_position;
    } // several beams: RA_STR, DEC_STR stay the pointing (the boresight), as for antennas
}

/* The first chunk's tags give the header's time and frequency cards. */
void guppi_sink_impl::describe_stream()
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, nitems_read(0), nitems_read(0) + 1);
    const tagged_observation tagged = observation_from_tags(tags);
    blade_observation observation = tagged.observation;
    if (!tagged.has_tsamp) {
        double tbin = 0;
        if (blade_guppi_header_get_real(d_extra, "TBIN", &tbin) != BLADE_OK || !(tbin > 0))
            throw std::runtime_error(
                "blade.guppi_sink: the first chunk has no blade_tsamp tag and the header "
                "gives no TBIN: the sample time is unknown");
        observation.tsamp = tbin;
    }
    if (!tagged.has_time)
        d_logger->warn("the first chunk has no blade_time_start_unix tag: SYNCTIME is 0");
    if (!tagged.has_frequency)
        d_logger->warn("the first chunk has no blade_freq_first and blade_chan_bw tags: "
                       "OBSFREQ and CHAN_BW come from the header cards given, or are 0");
    name_beams(tagged, observation);
    check(blade_guppi_writer_set_observation(d_writer, &observation, d_extra), "header");
}

int guppi_sink_impl::work(int noutput_items,
                          gr_vector_const_void_star& input_items,
                          gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        if (d_closed)
            return static_cast<int>(WORK_DONE);
        const auto* in = static_cast<const char*>(input_items[0]);
        for (int i = 0; i < noutput_items; i++) {
            if (!d_described) {
                describe_stream();
                d_described = true;
            }
            const blade_tensor chunk = tensor(input_spec(0), in + i * input_item_size());
            check(blade_guppi_writer_write(d_writer, &chunk), "writing");
        }
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
