/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_block.h"
#include "guppi_source_impl.h"
#include <gnuradio/blade/guppi_recording.h>

#include <memory>

namespace gr {
namespace blade {

namespace {

/* A reader used only for its scan: no thread starts until a read. */
std::unique_ptr<blade_guppi_reader, void (*)(blade_guppi_reader*)>
scan(const std::string& path,
     bool single_file,
     blade_guppi_gap_policy gap_policy = BLADE_GUPPI_GAP_ZERO_FILL,
     double max_gap = 0)
{
    blade_guppi_reader_config config = {};
    config.path = path.c_str();
    config.single_file = single_file;
    config.output_type = BLADE_CF32; // holds every sample type
    config.gap_policy = gap_policy;
    config.max_gap_seconds = max_gap;
    blade_guppi_reader* reader = nullptr;
    throw_on_error(blade_guppi_reader_open(&reader, &config), "GUPPI RAW");
    return { reader, blade_guppi_reader_close };
}

const char* kind_name(blade_guppi_value_kind kind)
{
    switch (kind) {
    case BLADE_GUPPI_VALUE_INTEGER:
        return "integer";
    case BLADE_GUPPI_VALUE_REAL:
        return "real";
    case BLADE_GUPPI_VALUE_LOGICAL:
        return "logical";
    case BLADE_GUPPI_VALUE_NONE:
        return "none";
    default:
        return "string";
    }
}

} // namespace

/* The cards of `header`, which is destroyed. */
std::vector<guppi_card> cards_of(blade_guppi_header* header);

guppi_description
describe_guppi(const std::string& path, bool single_file, const std::string& on_gap, double max_gap)
{
    const auto reader = scan(path, single_file, parse_gap_policy(on_gap), max_gap);
    const blade_guppi_recording* rec = blade_guppi_reader_recording(reader.get());
    guppi_description d;
    for (int64_t i = 0; i < rec->nfiles; i++)
        d.files.push_back(blade_guppi_reader_file_name(reader.get(), i));
    d.nants = rec->nants;
    d.nchan = rec->nchan;
    d.npol = rec->npol;
    d.nbits = rec->nbits;
    d.sample_type = blade_dtype_name(rec->file_type);
    d.blocsize = rec->blocsize;
    d.ntime = rec->ntime;
    d.overlap = rec->overlap;
    d.piperblk = rec->piperblk;
    d.blocks = rec->nblocks;
    d.gaps = rec->gaps;
    d.missing_blocks = rec->missing_blocks;
    d.first_pktidx = rec->first_pktidx;
    d.tbin = rec->tbin;
    d.observation = observation(rec->observation);
    for (int64_t i = 0; i < blade_guppi_reader_warning_count(reader.get()); i++)
        d.warnings.push_back(blade_guppi_reader_warning(reader.get(), i));
    return d;
}

std::vector<guppi_card> read_guppi_header(const std::string& path, int64_t block, bool single_file)
{
    // Gaps do not matter for reading a header: no bound on them here.
    const auto reader = scan(path, single_file, BLADE_GUPPI_GAP_STOP);
    blade_guppi_header* header = nullptr;
    throw_on_error(blade_guppi_reader_block_header(reader.get(), block, &header), "GUPPI RAW");
    return cards_of(header);
}

std::vector<guppi_card> read_guppi_file_header(const std::string& path)
{
    blade_guppi_header* header = nullptr;
    throw_on_error(blade_guppi_file_header(path.c_str(), &header), "GUPPI RAW");
    return cards_of(header);
}

std::vector<guppi_card> cards_of(blade_guppi_header* header)
{
    std::vector<guppi_card> cards;
    for (int64_t i = 0; i < blade_guppi_header_count(header); i++) {
        const blade_guppi_card card = blade_guppi_header_card(header, i);
        guppi_card entry;
        entry.key = card.key;
        entry.value = card.text;
        entry.kind = kind_name(card.kind);
        entry.quoted = card.quoted;
        cards.push_back(entry);
    }
    blade_guppi_header_destroy(header);
    return cards;
}

} // namespace blade
} // namespace gr
