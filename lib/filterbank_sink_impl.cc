/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "filterbank_sink_impl.h"
#include "observation_tags.h"

#include <gnuradio/io_signature.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gr {
namespace blade {

namespace {

const char* const override_keys[] = { "source_name", "rawdatafile", "telescope_id", "machine_id",
                                      "fch1",        "foff",        "tstart",       "tsamp",
                                      "nfpc",        "ra",          "dec",          "nbeams",
                                      "ibeam",       "path" };

double number(const std::map<std::string, std::string>& values, const std::string& key)
{
    const std::string& text = values.at(key);
    try {
        size_t used = 0;
        const double value = std::stod(text, &used);
        if (used == text.size())
            return value;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument("blade.filterbank_sink overrides: " + key + " = '" + text +
                                "' is not a number");
}

/* Refuse unknown keys (SIGPROC readers misread files with keys they do not know)
 * and values that are not numbers where numbers are due. */
void check_overrides(const std::map<std::string, std::string>& overrides, const std::string& what)
{
    for (const auto& entry : overrides) {
        bool known = false;
        for (const char* key : override_keys)
            known = known || entry.first == key;
        if (!known)
            throw std::invalid_argument(what + ": unknown key '" + entry.first +
                                        "' (known: source_name, rawdatafile, "
                                        "telescope_id, machine_id, fch1, foff, "
                                        "tstart, tsamp, nfpc, ra, dec, nbeams, ibeam, and "
                                        "path per file; other keys would make SIGPROC "
                                        "readers misread the file)");
        if (entry.first != "source_name" && entry.first != "rawdatafile" && entry.first != "path")
            number(overrides, entry.first);
    }
}

} // namespace

filterbank_sink::sptr
filterbank_sink::make(const std::string& stem,
                      const std::vector<int64_t>& shape,
                      const std::string& format,
                      const std::string& aspect,
                      const std::map<std::string, std::string>& overrides,
                      const std::vector<std::map<std::string, std::string>>& file_overrides,
                      const std::vector<double>& if_scales,
                      const std::vector<double>& aspect_weights)
{
    const blade_shape extents = parse_shape(shape, "blade.filterbank_sink shape");
    if (extents.rank != 4)
        throw std::invalid_argument("blade.filterbank_sink shape: expected [B, F, T, P] (beams, "
                                    "channels, spectra, IFs), got " +
                                    std::to_string(extents.rank) + " axes");
    blade_filterbank_format file_format;
    if (format == "fil")
        file_format = BLADE_FILTERBANK_FIL;
    else if (format == "h5" || format == "fbh5")
        file_format = BLADE_FILTERBANK_FBH5;
    else
        throw std::invalid_argument("blade.filterbank_sink format: '" + format +
                                    "' is neither \"fil\" nor \"h5\"");
    if (file_format == BLADE_FILTERBANK_FBH5 && !blade_filterbank_fbh5_available())
        throw std::invalid_argument("blade.filterbank_sink: this build has no HDF5, so it "
                                    "cannot write .h5; use format \"fil\"");
    if (file_format == BLADE_FILTERBANK_FBH5 && extents.dims[1] < BLADE_FBH5_BLIMPY_MINIMUM)
        throw std::invalid_argument(
            "blade.filterbank_sink: " + std::to_string(extents.dims[1]) +
            " channels: blimpy refuses FBH5 files with fewer than 3 channels; write "
            ".fil, "
            "or keep more channels");
    if (aspect != "auto" && aspect != "beam" && aspect != "antenna")
        throw std::invalid_argument("blade.filterbank_sink aspect: '" + aspect +
                                    "' is not \"auto\", \"beam\" or \"antenna\"");
    check_overrides(overrides, "blade.filterbank_sink overrides");
    if (overrides.count("path"))
        throw std::invalid_argument("blade.filterbank_sink overrides: path names one file: give "
                                    "it in file_overrides");
    if (!if_scales.empty() && if_scales.size() != 1 &&
        static_cast<int64_t>(if_scales.size()) != extents.dims[3])
        throw std::invalid_argument(
            "blade.filterbank_sink if_scales: " + std::to_string(if_scales.size()) +
            " factors for " + std::to_string(extents.dims[3]) +
            " IFs (give one per IF, or one for all)");
    if (!aspect_weights.empty() && static_cast<int64_t>(aspect_weights.size()) != extents.dims[0])
        throw std::invalid_argument(
            "blade.filterbank_sink aspect_weights: " + std::to_string(aspect_weights.size()) +
            " weights for " + std::to_string(extents.dims[0]) + " aspects");
    for (double value : if_scales)
        if (!std::isfinite(value))
            throw std::invalid_argument("blade.filterbank_sink if_scales: not finite");
    for (double value : aspect_weights)
        if (!std::isfinite(value))
            throw std::invalid_argument("blade.filterbank_sink aspect_weights: not finite");
    if (static_cast<int64_t>(file_overrides.size()) > extents.dims[0])
        throw std::invalid_argument(
            "blade.filterbank_sink file_overrides: " + std::to_string(file_overrides.size()) +
            " entries for " + std::to_string(extents.dims[0]) + " files");
    for (size_t b = 0; b < file_overrides.size(); b++)
        check_overrides(file_overrides[b],
                        "blade.filterbank_sink file_overrides[" + std::to_string(b) + "]");
    // The files are made from the first chunk's tags: refuse an unusable place
    // now, not in the middle of a run.
    throw_on_error(blade_output_directory_check(stem.c_str(), "filterbank writer"),
                   "blade.filterbank_sink");
    // One IF scale for all: spelled out per IF, as the combine step takes them.
    std::vector<double> scales = if_scales;
    if (scales.size() == 1)
        scales.assign(static_cast<size_t>(extents.dims[3]), if_scales[0]);
    return gnuradio::make_block_sptr<filterbank_sink_impl>(stem,
                                                           tensor_spec(BLADE_F32, extents),
                                                           file_format,
                                                           aspect,
                                                           overrides,
                                                           file_overrides,
                                                           scales,
                                                           aspect_weights);
}

filterbank_sink_impl::filterbank_sink_impl(
    const std::string& stem,
    const tensor_spec& input,
    blade_filterbank_format format,
    const std::string& aspect,
    const std::map<std::string, std::string>& overrides,
    const std::vector<std::map<std::string, std::string>>& file_overrides,
    const std::vector<double>& if_scales,
    const std::vector<double>& aspect_weights)
    : gr::sync_block("filterbank_sink",
                     gr::io_signature::make(1, 1, static_cast<int>(input.item_size())),
                     gr::io_signature::make(0, 0, 0)),
      device_block("filterbank_sink", "cpu", blade_device_cpu()),
      d_stem(stem),
      d_format(format),
      d_aspect(aspect),
      d_overrides(overrides),
      d_file_overrides(file_overrides),
      d_if_scales(if_scales),
      d_aspect_weights(aspect_weights)
{
    set_port_specs({ input }, {});
    if (!d_aspect_weights.empty())
        d_scratch.resize(
            static_cast<size_t>(input.shape.dims[1] * input.shape.dims[2] * input.shape.dims[3]));
}

filterbank_sink_impl::~filterbank_sink_impl()
{
    for (blade_filterbank_writer* writer : d_writers)
        blade_filterbank_writer_destroy(writer);
}

std::vector<std::string> filterbank_sink_impl::files() const
{
    std::vector<std::string> names;
    for (const blade_filterbank_writer* writer : d_writers)
        names.push_back(blade_filterbank_writer_path(writer));
    return names;
}

int64_t filterbank_sink_impl::spectra_written() const
{
    return d_writers.empty() ? 0 : blade_filterbank_writer_spectra(d_writers[0]);
}

bool filterbank_sink_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

bool filterbank_sink_impl::stop()
{
    close_files();
    return gr::sync_block::stop();
}

void filterbank_sink_impl::close_files()
{
    if (d_closed)
        return;
    d_closed = true;
    for (blade_filterbank_writer* writer : d_writers) {
        const int64_t spectra = blade_filterbank_writer_spectra(writer);
        if (blade_filterbank_writer_close(writer) != BLADE_OK)
            fail(d_logger, std::string("blade.filterbank_sink: ") + blade_last_error());
        if (d_format == BLADE_FILTERBANK_FBH5 && spectra < BLADE_FBH5_BLIMPY_MINIMUM)
            d_logger->warn("{} holds {} spectra: blimpy refuses FBH5 files with fewer than 3 "
                           "spectra (h5py and sigpyproc read it; run longer or write .fil)",
                           blade_filterbank_writer_path(writer),
                           spectra);
    }
    if (!d_writers.empty())
        d_logger->info("wrote {} spectra to each of {} file(s) {} ...",
                       blade_filterbank_writer_spectra(d_writers[0]),
                       d_writers.size(),
                       blade_filterbank_writer_path(d_writers[0]));
}

/* Source name and coordinates from an override map (they may differ per file). */
void filterbank_sink_impl::apply_identity(blade_observation& obs,
                                          const std::map<std::string, std::string>& values)
{
    if (values.count("source_name"))
        std::snprintf(
            obs.source_name, sizeof obs.source_name, "%s", values.at("source_name").c_str());
    if (values.count("ra") != values.count("dec"))
        throw std::runtime_error("blade.filterbank_sink: ra and dec overrides come together");
    if (values.count("ra")) {
        obs.ra = number(values, "ra");
        obs.dec = number(values, "dec");
        obs.has_position = true;
    }
}

/* At the first chunk: the header from its tags (and the overrides), one file per
 * beam. */
void filterbank_sink_impl::open_files()
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, nitems_read(0), nitems_read(0) + 1);
    const tagged_observation tagged = observation_from_tags(tags);
    blade_observation obs = tagged.observation;
    const auto given = [&](const char* key) { return d_overrides.count(key) > 0; };
    std::string missing;
    if (given("tsamp"))
        obs.tsamp = number(d_overrides, "tsamp");
    else if (!tagged.has_tsamp)
        missing += " blade_tsamp (or tsamp)";
    if (given("fch1"))
        obs.freq_first = number(d_overrides, "fch1") * 1e6;
    else if (!tagged.has_frequency)
        missing += " blade_freq_first (or fch1)";
    if (given("foff"))
        obs.chan_bw = number(d_overrides, "foff") * 1e6;
    else if (!tagged.has_frequency)
        missing += " blade_chan_bw (or foff)";
    if (given("tstart"))
        obs.unix_start = (number(d_overrides, "tstart") - BLADE_MJD_OF_UNIX_EPOCH) * 86400.0;
    else if (!tagged.has_time)
        missing += " blade_time_start_unix (or tstart)";
    if (!missing.empty())
        throw std::runtime_error("blade.filterbank_sink: the first chunk lacks the tags" + missing +
                                 ", and no override gives them");
    if (given("nfpc"))
        obs.nfpc = static_cast<int64_t>(number(d_overrides, "nfpc"));
    apply_identity(obs, d_overrides);

    std::string label = d_aspect == "antenna" ? "ant" : "beam";
    if (d_aspect == "auto")
        label = tagged.aspect == "antenna" ? "ant" : "beam";
    const blade_shape& shape = input_spec(0).shape;
    const std::string rawdatafile = given("rawdatafile") ? d_overrides.at("rawdatafile") : "";
    // Each beam's file names its own source and direction (the blade_beams tag of
    // a beamformer); without them, a beam file must not claim the boresight's.
    const std::vector<beam_identity>& identities = tagged.beams.beams;
    const bool beams = label == "beam" && tagged.aspect == "beam";
    const bool identified = beams && static_cast<int64_t>(identities.size()) == shape.dims[0];
    if (beams && !identified && obs.has_position && !given("ra")) {
        d_logger->warn("the beams have no blade_beams tag (from blade.phasor through "
                       "blade.beamformer) that says where each points: their files get no "
                       "src_raj/src_dej (give them with file_overrides)");
        obs.has_position = false;
    }
    // With aspect weights, one file: their weighted sum.
    const int64_t nfiles = d_aspect_weights.empty() ? shape.dims[0] : 1;
    for (int64_t b = 0; b < nfiles; b++) {
        const bool own = b < static_cast<int64_t>(d_file_overrides.size());
        char name[4096];
        blade_filterbank_file_name(d_stem.c_str(), label.c_str(), b, d_format, name, sizeof name);
        if (own && d_file_overrides[b].count("path"))
            std::snprintf(name, sizeof name, "%s", d_file_overrides[b].at("path").c_str());
        blade_filterbank_config config = {};
        config.path = name;
        config.format = d_format;
        config.nchans = shape.dims[1];
        config.nifs = shape.dims[3];
        config.nbeams =
            given("nbeams") ? static_cast<int64_t>(number(d_overrides, "nbeams")) : nfiles;
        config.ibeam = given("ibeam") ? static_cast<int64_t>(number(d_overrides, "ibeam")) : b;
        config.observation = obs;
        if (identified) {
            const beam_identity& beam = identities[static_cast<size_t>(b)];
            std::snprintf(config.observation.source_name,
                          sizeof config.observation.source_name,
                          "%s",
                          beam.name.c_str());
            config.observation.ra = beam.ra;
            config.observation.dec = beam.dec;
            config.observation.has_position = beam.has_position;
        }
        if (own) {
            apply_identity(config.observation, d_file_overrides[b]);
            if (d_file_overrides[b].count("ibeam"))
                config.ibeam = static_cast<int64_t>(number(d_file_overrides[b], "ibeam"));
        }
        config.telescope_id = given("telescope_id")
                                  ? static_cast<int>(number(d_overrides, "telescope_id"))
                                  : BLADE_FILTERBANK_TELESCOPE_FROM_NAME;
        // rawspec's machine id, which Breakthrough Listen's files carry.
        config.machine_id =
            given("machine_id") ? static_cast<int>(number(d_overrides, "machine_id")) : 20;
        config.rawdatafile = rawdatafile.c_str();
        // The writer scales as it lays the spectra out: no pass of its own.
        config.if_scales = d_if_scales.empty() ? nullptr : d_if_scales.data();
        blade_filterbank_writer* writer = nullptr;
        check(blade_filterbank_writer_create(&writer, &config), "creating a file");
        d_writers.push_back(writer);
    }
}

int filterbank_sink_impl::work(int noutput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        if (d_closed)
            return static_cast<int>(WORK_DONE);
        const auto* in = static_cast<const char*>(input_items[0]);
        const blade_shape& shape = input_spec(0).shape;
        const int64_t B = shape.dims[0], F = shape.dims[1], T = shape.dims[2], P = shape.dims[3];
        for (int i = 0; i < noutput_items; i++) {
            if (d_writers.empty())
                open_files();
            const auto* chunk = reinterpret_cast<const float*>(in + i * input_item_size());
            const int64_t slice_dims[3] = { F, T, P };
            blade_shape slice_shape;
            check(blade_shape_make(slice_dims, 3, &slice_shape), "slice");
            for (size_t b = 0; b < d_writers.size(); b++) {
                const float* values = chunk + static_cast<int64_t>(b) * F * T * P;
                if (!d_aspect_weights.empty()) { // the aspects summed into one file
                    blade_filterbank_combine(
                        chunk, B, F * T, P, d_aspect_weights.data(), 0, nullptr, d_scratch.data());
                    values = d_scratch.data();
                }
                const blade_tensor slice = blade_tensor_make(
                    BLADE_F32, &slice_shape, blade_device_cpu(), const_cast<float*>(values));
                check(blade_filterbank_writer_write(d_writers[b], &slice), "writing");
            }
        }
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
