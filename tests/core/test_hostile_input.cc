// SPDX-License-Identifier: MIT
// Hostile input and faults at the core (docs/reliability.md): every bug the fuzzers
// or their properties found, as a test that fails on the old code, and the faults
// that can be made without a GPU: device memory exhausted, a full disk, a file size
// limit. These suites also run under AddressSanitizer and UBSan (tools/hostile-input).
#define BOOST_TEST_MODULE hostile_input
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using blade_test::ok;
using blade_test::temp_dir;

namespace {

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

std::string card(const std::string& text)
{
    std::string c = text;
    c.resize(80, ' ');
    return c;
}

// One block of 2 channels x 2 pol x 2 samples (ci8, 16 bytes) whose header holds
// the geometry, then `extra` cards (which come first, so they win over the
// defaults that follow: the parser keeps the first of a repeated key).
std::string one_block(const std::vector<std::string>& extra, bool synctime = true)
{
    std::string bytes;
    for (const auto& c : extra)
        bytes += card(c);
    for (const char* c : { "BLOCSIZE=                   16",
                           "OBSNCHAN=                    2",
                           "NPOL    =                    2",
                           "NBITS   =                    8",
                           "TBIN    =                1E-06",
                           "CHAN_BW =                  1.0",
                           "OBSFREQ =               1420.0",
                           "PKTIDX  =                    0" })
        bytes += card(c);
    if (synctime)
        bytes += card("SYNCTIME=           1700000000");
    return bytes + card("END") + std::string(16, '\x01');
}

void write_file(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

// Open `path` as a recording: the status, and the message on failure.
std::pair<blade_status, std::string> open_recording(const std::string& path)
{
    blade_guppi_reader_config config = {};
    config.path = path.c_str();
    config.single_file = true;
    config.output_type = BLADE_CF32;
    blade_guppi_reader* reader = nullptr;
    const blade_status status = blade_guppi_reader_open(&reader, &config);
    const std::string message = status == BLADE_OK ? "" : blade_last_error();
    blade_guppi_reader_close(reader);
    return { status, message };
}

// A soft file size limit for this process while it lives (SIGXFSZ ignored, so a
// write past it fails with EFBIG instead of killing the process).
struct file_size_limit {
    rlimit saved{};
    void (*saved_handler)(int);
    explicit file_size_limit(rlim_t bytes)
    {
        getrlimit(RLIMIT_FSIZE, &saved);
        saved_handler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limited = saved;
        limited.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limited);
    }
    ~file_size_limit()
    {
        setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, saved_handler);
    }
};

int64_t file_size(const std::string& path)
{
    struct stat info;
    return stat(path.c_str(), &info) == 0 ? static_cast<int64_t>(info.st_size) : -1;
}

blade_observation observation()
{
    blade_observation obs = {};
    obs.unix_start = 1700000000.0;
    obs.tsamp = 1e-3;
    obs.freq_first = 1.4e9;
    obs.chan_bw = 1e6;
    return obs;
}

// One .fil file of `nchans` channels, one IF, at observation(); `path` must outlive it.
blade_filterbank_config filterbank_config(const std::string& path, int64_t nchans = 4)
{
    blade_filterbank_config config = {};
    config.path = path.c_str();
    config.format = BLADE_FILTERBANK_FIL;
    config.nchans = nchans;
    config.nifs = 1;
    config.nbeams = 1;
    config.telescope_id = BLADE_FILTERBANK_TELESCOPE_FROM_NAME;
    config.observation = observation();
    return config;
}

// ci8 chunks written as ci8 to stem.NNNN.raw; `stem` must outlive it.
blade_guppi_writer_config guppi_config(const std::string& stem)
{
    blade_guppi_writer_config config = {};
    config.stem = stem.c_str();
    config.input_type = BLADE_CI8;
    config.file_type = BLADE_CI8;
    return config;
}

} // namespace

// ---- found by the fuzzers ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(subnormal_reals_written_to_a_header_read_back)
{
    // fuzz_guppi_header: strtod reports ERANGE on underflow, so the parser refused a
    // value its own writer had written.
    blade_guppi_header* header;
    ok(blade_guppi_header_create(&header), "create");
    const double tiny = 1.1561136112685169e-321;
    ok(blade_guppi_header_set_real(header, "REAL", tiny), "set");
    std::string bytes(blade_guppi_header_bytes(header, false), ' ');
    ok(blade_guppi_header_format(header, false, &bytes[0], bytes.size()), "format");
    blade_guppi_header* parsed;
    size_t consumed;
    ok(blade_guppi_header_parse(bytes.data(), bytes.size(), "t", 0, &parsed, &consumed), "parse");
    double back = 0;
    ok(blade_guppi_header_get_real(parsed, "REAL", &back), "get");
    BOOST_TEST(back == tiny);
    // overflow is still no number
    blade_guppi_header_destroy(parsed);
    const std::string huge = card("REAL    =              1.0E999") + card("END");
    ok(blade_guppi_header_parse(huge.data(), huge.size(), "t", 0, &parsed, &consumed), "parse");
    BOOST_TEST(blade_guppi_header_get_real(parsed, "REAL", &back) == BLADE_ERROR_FORMAT);
    blade_guppi_header_destroy(parsed);
    blade_guppi_header_destroy(header);
}

BOOST_AUTO_TEST_CASE(angles_of_any_size_format_without_undefined_behaviour)
{
    // fuzz_text_values: (long)floor(1e160) is undefined behaviour (UBSan:
    // float-cast-overflow); RA/Dec come from files and tags.
    char text[400];
    blade_format_sexagesimal(3.18556e160, 3, false, text, sizeof text);
    BOOST_TEST(std::string(text).find(":00:00.000") != std::string::npos);
    blade_format_sexagesimal(INFINITY, 3, true, text, sizeof text);
    BOOST_TEST(std::string(text) == "+inf:00:00.000");
    blade_format_sexagesimal(-NAN, 2, false, text, sizeof text);
    BOOST_TEST(contains(text, "nan"));
    blade_format_sexagesimal(12.5, 99, false, text, sizeof text); // decimals clamped to 9
    BOOST_TEST(std::string(text) == "12:30:00.000000000");
    BOOST_TEST(std::isinf(blade_sigproc_packed_angle(INFINITY)));
    BOOST_TEST(std::isnan(blade_sigproc_packed_angle(NAN)));
    // and text never parses to a non-finite angle
    double value;
    BOOST_TEST(blade_parse_sexagesimal("1e999:00:00", &value) == BLADE_ERROR_FORMAT);
    BOOST_TEST(blade_parse_sexagesimal("1e15", &value) == BLADE_ERROR_FORMAT);
    ok(blade_parse_sexagesimal("359:59:59.5", &value), "a large but finite angle");
}

BOOST_AUTO_TEST_CASE(pointing_beyond_the_poles_is_refused)
{
    // fuzz_guppi_reader: DEC_STR = '-450000000' was accepted as a pointing.
    temp_dir dir;
    const std::string path = dir.path + "/pole.raw";
    write_file(path, one_block({ "RA_STR  = '12:00:00'", "DEC_STR = '-95:00:00'" }));
    auto [status, message] = open_recording(path);
    BOOST_TEST(status == BLADE_ERROR_FORMAT);
    BOOST_TEST(contains(message, path));
    BOOST_TEST(contains(message, "DEC_STR = '-95:00:00' is not a direction"));
    write_file(path,
               one_block({ "RA      =                1E300", "DEC     =                  0.0" }));
    std::tie(status, message) = open_recording(path);
    BOOST_TEST(status == BLADE_ERROR_FORMAT);
    BOOST_TEST(contains(message, "is not a direction in degrees"));
    write_file(path, one_block({ "RA_STR  = '23:59:59.9'", "DEC_STR = '+90:00:00'" }));
    BOOST_TEST(open_recording(path).first == BLADE_OK); // the edges are fine
}

// ---- found writing the fuzzers' properties (what a reader accepts is sane) ------------

BOOST_AUTO_TEST_CASE(header_numbers_that_would_overflow_downstream_are_refused)
{
    temp_dir dir;
    const std::string path = dir.path + "/x.raw";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        // PKTIDX differences and sums overflowed int64 (UB) in place_blocks
        { { "PKTIDX  = -9223372036854775808" },
          "PKTIDX = -9223372036854775808 is outside 0 .. 2^53" },
        { { "PKTIDX  =  9007199254740993" }, "PKTIDX = 9007199254740993 is outside 0 .. 2^53" },
        // coarse_first + channel_start overflowed
        { { "SCHAN   =  9223372036854775807" },
          "SCHAN = 9223372036854775807 is not a first coarse channel" },
        { { "SCHAN   =                   -1" }, "SCHAN = -1 is not a first coarse channel" },
        // DUT1 goes straight into the astrometry
        { { "DUT1    =                  5.0" }, "DUT1 = 5 s is not UT1 - UTC" },
        // times and frequencies a writer would turn into integers
        { { "SYNCTIME=               1E+300" }, "the time axis runs from 1e+300" },
        { { "STT_IMJD=             1.0D+200", "STT_SMJD=                    0" }, "not dates" },
        { { "TBIN    =               1E+290" }, "not dates" },
        { { "OBSFREQ =               1E+303" }, "channel frequencies" },
    };
    for (const auto& [cards, expected] : cases) {
        // without SYNCTIME the STT_* cards give the time
        write_file(path, one_block(cards, !contains(cards[0], "STT_IMJD")));
        const auto [status, message] = open_recording(path);
        BOOST_TEST_CONTEXT(cards[0])
        {
            BOOST_TEST(status == BLADE_ERROR_FORMAT);
            BOOST_TEST(contains(message, expected), message);
            BOOST_TEST(contains(message, path), message);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_geometry_that_changes_between_blocks_is_refused)
{
    temp_dir dir;
    const std::string path = dir.path + "/two.raw";
    const std::string first = one_block({});
    write_file(path,
               first + one_block({ "PKTIDX  =                    2",
                                   "OBSNCHAN=                    1",
                                   "BLOCSIZE=                    8" }));
    const auto [status, message] = open_recording(path);
    BOOST_TEST(status == BLADE_ERROR_FORMAT);
    BOOST_TEST(
        contains(message, path + ": block header at byte offset " + std::to_string(first.size())));
    BOOST_TEST(contains(message, "the block geometry changed"), message);
}

BOOST_AUTO_TEST_CASE(writers_refuse_observations_no_recording_can_have)
{
    temp_dir dir;
    const std::string stem = dir.path + "/w";
    blade_guppi_writer_config config = guppi_config(stem);
    const blade_shape shape = blade_shape_aftp(1, 2, 4, 2);
    blade_guppi_writer* writer;
    ok(blade_guppi_writer_create(&writer, &config, &shape), "writer");
    for (double start : { 1e300, double(NAN), double(INFINITY), -2e12 }) {
        blade_observation obs = observation();
        obs.unix_start = start;
        BOOST_TEST(blade_guppi_writer_set_observation(writer, &obs, nullptr) ==
                   BLADE_ERROR_INVALID_ARGUMENT);
        BOOST_TEST(contains(blade_last_error(), "not one a recording can have"));
    }
    blade_observation obs = observation();
    obs.has_position = true;
    obs.ra = 1.0;
    obs.dec = 2.0; // beyond the pole
    BOOST_TEST(blade_guppi_writer_set_observation(writer, &obs, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "is not a direction"));
    blade_guppi_writer_destroy(writer);

    const std::string path = dir.path + "/f.fil";
    blade_filterbank_config fb = filterbank_config(path);
    fb.observation.has_position = true;
    fb.observation.ra = NAN;
    blade_filterbank_writer* fw;
    BOOST_TEST(blade_filterbank_writer_create(&fw, &fb) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "is not a direction"));
    fb.observation.has_position = false;
    fb.observation.unix_start = 1e13;
    BOOST_TEST(blade_filterbank_writer_create(&fw, &fb) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "is not a date"));
}

// ---- faults --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(emulated_device_memory_runs_out_with_the_size_named)
{
    // BLADE_EMULATED_MEMORY_LIMIT gives the emulated device a memory size.
    const blade_device emulated = { BLADE_DEVICE_EMULATED, 0 };
    const uint64_t before = blade_emulated_memory_in_use();
    setenv("BLADE_EMULATED_MEMORY_LIMIT", "1M", 1);
    void* first = nullptr;
    void* second = nullptr;
    ok(blade_device_alloc(emulated, 600 * 1024, &first), "600 KiB of 1 MiB");
    BOOST_TEST(blade_emulated_memory_in_use() >= before + 600 * 1024);
    BOOST_TEST(blade_device_alloc(emulated, 600 * 1024, &second) == BLADE_ERROR_OUT_OF_MEMORY);
    BOOST_TEST(second == nullptr);
    const std::string message = blade_last_error();
    BOOST_TEST(contains(message, "allocating 614400 bytes"), message);
    BOOST_TEST(contains(message, "of 1048576 bytes in use"), message);
    BOOST_TEST(contains(message, "BLADE_EMULATED_MEMORY_LIMIT"), message);
    // host memory is not the emulated device's
    void* host = nullptr;
    ok(blade_device_alloc(blade_device_cpu(), 600 * 1024, &host), "cpu");
    blade_device_free(blade_device_cpu(), host);
    // freeing gives the memory back
    blade_device_free(emulated, first);
    BOOST_TEST(blade_emulated_memory_in_use() == before);
    ok(blade_device_alloc(emulated, 600 * 1024, &second), "after a free");
    blade_device_free(emulated, second);

    // a plan that needs device memory fails at creation, saying what for
    setenv("BLADE_EMULATED_MEMORY_LIMIT", "4096", 1);
    blade_detector_config config = { BLADE_DETECT_CROSS, 64 };
    const blade_shape shape = blade_shape_aftp(8, 64, 16, 2); // 4 steps: an accumulator
    blade_detector* detector = nullptr;
    BOOST_TEST(blade_detector_create(&detector, &config, &shape, emulated) ==
               BLADE_ERROR_OUT_OF_MEMORY);
    BOOST_TEST(contains(blade_last_error(), "detector accumulator"));
    BOOST_TEST(contains(blade_last_error(), "allocating 16384 bytes"), blade_last_error());
    unsetenv("BLADE_EMULATED_MEMORY_LIMIT");
    ok(blade_detector_create(&detector, &config, &shape, emulated), "unlimited again");
    blade_detector_destroy(detector);
    BOOST_TEST(blade_emulated_memory_in_use() == before);
}

BOOST_AUTO_TEST_CASE(a_full_disk_leaves_whole_blocks_and_stops_the_guppi_writer)
{
    temp_dir dir;
    const std::string stem = dir.path + "/rec";
    blade_guppi_writer_config config = guppi_config(stem);
    const blade_shape shape = blade_shape_aftp(2, 4, 64, 2); // 2 KiB of data a block
    std::vector<int8_t> data(blade_tensor_bytes(BLADE_CI8, &shape), 3);
    blade_tensor chunk = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), data.data());
    blade_guppi_writer* writer;
    ok(blade_guppi_writer_create(&writer, &config, &shape), "writer");
    blade_observation obs = observation();
    ok(blade_guppi_writer_set_observation(writer, &obs, nullptr), "observation");
    const std::string file = stem + ".0000.raw";
    blade_status status = BLADE_OK;
    int written = 0;
    {
        file_size_limit limit(10000); // room for two blocks and a part of a third
        for (; written < 10 && status == BLADE_OK; written++)
            status = blade_guppi_writer_write(writer, &chunk);
    }
    BOOST_TEST(status == BLADE_ERROR_IO);
    BOOST_TEST(contains(blade_last_error(), file), blade_last_error());
    BOOST_TEST(contains(blade_last_error(), "File too large"), blade_last_error());
    const int64_t blocks = blade_guppi_writer_blocks(writer);
    BOOST_TEST(blocks == written - 1);
    // nothing more is written, even with room again
    BOOST_TEST(blade_guppi_writer_write(writer, &chunk) == BLADE_ERROR_IO);
    BOOST_TEST(contains(blade_last_error(), "an earlier block could not be written"));
    ok(blade_guppi_writer_close(writer), "close");
    blade_guppi_writer_destroy(writer);

    // the file holds exactly the whole blocks: readers see them, no torn one
    blade_guppi_reader_config rc = {};
    rc.path = file.c_str();
    rc.output_type = BLADE_CI8;
    blade_guppi_reader* reader;
    ok(blade_guppi_reader_open(&reader, &rc), "reading back");
    BOOST_TEST(blade_guppi_reader_recording(reader)->nblocks == blocks);
    BOOST_TEST(blade_guppi_reader_warning_count(reader) == 0);
    const int64_t block_bytes = file_size(file) / blocks;
    BOOST_TEST(file_size(file) == blocks * block_bytes);
    blade_guppi_reader_close(reader);
}

BOOST_AUTO_TEST_CASE(a_full_disk_leaves_whole_spectra_and_stops_the_filterbank_writer)
{
    temp_dir dir;
    const std::string path = dir.path + "/beam.fil";
    const blade_filterbank_config config = filterbank_config(path, 100);
    blade_filterbank_writer* writer;
    ok(blade_filterbank_writer_create(&writer, &config), "writer");
    const int64_t header = file_size(path);
    const blade_shape slice_shape = blade_shape_aftp(100, 3, 1, 1); // [F, T, P] as rank 3
    blade_shape shape = slice_shape;
    shape.rank = 3;
    std::vector<float> spectra(300, 1.0f);
    blade_tensor slice = blade_tensor_make(BLADE_F32, &shape, blade_device_cpu(), spectra.data());
    blade_status status = BLADE_OK;
    {
        file_size_limit limit(static_cast<rlim_t>(header + 5000)); // 12.5 spectra
        for (int i = 0; i < 10 && status == BLADE_OK; i++)
            status = blade_filterbank_writer_write(writer, &slice);
    }
    BOOST_TEST(status == BLADE_ERROR_IO);
    BOOST_TEST(contains(blade_last_error(), path));
    const int64_t spectra_written = blade_filterbank_writer_spectra(writer);
    BOOST_TEST(spectra_written == 12); // four writes of 3 went in, the fifth did not
    BOOST_TEST(file_size(path) == header + spectra_written * 400);
    BOOST_TEST(blade_filterbank_writer_write(writer, &slice) == BLADE_ERROR_IO);
    ok(blade_filterbank_writer_close(writer), "close");
    blade_filterbank_writer_destroy(writer);
}

BOOST_AUTO_TEST_CASE(a_device_that_is_always_full_fails_and_is_left_as_it_was)
{
    // /dev/full: every write fails with ENOSPC, named with the file. The name was
    // there before the writer (a link to /dev/full): a writer removes only files it
    // created, so the link stays.
    temp_dir dir;
    const std::string path = dir.path + "/beam.fil";
    BOOST_REQUIRE(symlink("/dev/full", path.c_str()) == 0);
    const blade_filterbank_config config = filterbank_config(path);
    blade_filterbank_writer* writer = nullptr;
    BOOST_TEST(blade_filterbank_writer_create(&writer, &config) == BLADE_ERROR_IO);
    BOOST_TEST(contains(blade_last_error(), "No space left on device"), blade_last_error());
    BOOST_TEST(contains(blade_last_error(), path));
    char target[64] = {};
    BOOST_TEST(readlink(path.c_str(), target, sizeof target - 1) > 0);
    BOOST_TEST(std::string(target) == "/dev/full");

    const std::string stem = dir.path + "/rec";
    BOOST_REQUIRE(symlink("/dev/full", (stem + ".0000.raw").c_str()) == 0);
    blade_guppi_writer_config gc = guppi_config(stem);
    const blade_shape shape = blade_shape_aftp(1, 2, 4, 2);
    std::vector<int8_t> data(blade_tensor_bytes(BLADE_CI8, &shape), 1);
    blade_tensor chunk = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), data.data());
    blade_guppi_writer* gw;
    ok(blade_guppi_writer_create(&gw, &gc, &shape), "writer");
    BOOST_TEST(blade_guppi_writer_write(gw, &chunk) == BLADE_ERROR_IO);
    BOOST_TEST(contains(blade_last_error(), "No space left on device"));
    ok(blade_guppi_writer_close(gw), "close");
    BOOST_TEST(blade_guppi_writer_blocks(gw) == 0);
    blade_guppi_writer_destroy(gw);
    BOOST_TEST(readlink((stem + ".0000.raw").c_str(), target, sizeof target - 1) > 0);
}

BOOST_AUTO_TEST_CASE(a_file_system_that_fills_at_the_first_block_leaves_no_file_of_ours)
{
    // A file the writer created whose first block could not be written holds no
    // recording: it is removed (an empty .raw file is refused by every reader).
    temp_dir dir;
    const std::string stem = dir.path + "/rec";
    blade_guppi_writer_config gc = guppi_config(stem);
    const blade_shape shape = blade_shape_aftp(1, 2, 4, 2);
    std::vector<int8_t> data(blade_tensor_bytes(BLADE_CI8, &shape), 1);
    blade_tensor chunk = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), data.data());
    blade_guppi_writer* gw;
    ok(blade_guppi_writer_create(&gw, &gc, &shape), "writer");
    BOOST_TEST(blade_guppi_writer_files(gw) == 0); // created with the first block
    {
        file_size_limit limit(100); // less than one header
        BOOST_TEST(blade_guppi_writer_write(gw, &chunk) == BLADE_ERROR_IO);
    }
    ok(blade_guppi_writer_close(gw), "close");
    BOOST_TEST(blade_guppi_writer_files(gw) == 0);
    BOOST_TEST(file_size(stem + ".0000.raw") == -1);
    blade_guppi_writer_destroy(gw);
}

// ---- never lose an input ------------------------------------------------------------

namespace {

std::string read_bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// An open reader of `path` (its files are this process's inputs while it lives).
struct open_reader {
    blade_guppi_reader* reader = nullptr;
    explicit open_reader(const std::string& path, bool single_file = true)
    {
        blade_guppi_reader_config config = {};
        config.path = path.c_str();
        config.single_file = single_file;
        config.output_type = BLADE_CF32;
        ok(blade_guppi_reader_open(&reader, &config), "open");
    }
    ~open_reader() { blade_guppi_reader_close(reader); }
};

} // namespace

BOOST_AUTO_TEST_CASE(no_writer_writes_over_a_recording_being_read)
{
    // The output named like the input truncated the recording and then removed it
    // as a failed output. Every writer refuses a file being read, by any of its
    // names (the same path, a symbolic link, a hard link), and the input keeps every
    // byte.
    temp_dir dir;
    const std::string recording = dir.path + "/obs.0000.raw";
    const std::string bytes = one_block({});
    write_file(recording, bytes);
    BOOST_REQUIRE(symlink(recording.c_str(), (dir.path + "/soft.0000.raw").c_str()) == 0);
    BOOST_REQUIRE(link(recording.c_str(), (dir.path + "/hard.0000.raw").c_str()) == 0);
    BOOST_REQUIRE(symlink(recording.c_str(), (dir.path + "/soft.beam0000.fil").c_str()) == 0);
    BOOST_REQUIRE(symlink(recording.c_str(), (dir.path + "/soft.h5").c_str()) == 0);
    const blade_shape shape = blade_shape_aftp(1, 2, 2, 2);
    std::vector<int8_t> data(blade_tensor_bytes(BLADE_CI8, &shape), 3);
    blade_tensor chunk = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), data.data());
    {
        open_reader reader(recording);
        for (const char* stem : { "/obs", "/soft", "/hard" }) {
            BOOST_TEST_CONTEXT(stem)
            {
                const std::string path = dir.path + stem;
                blade_guppi_writer_config config = guppi_config(path);
                blade_guppi_writer* writer = nullptr;
                ok(blade_guppi_writer_create(&writer, &config, &shape), "writer");
                BOOST_TEST(blade_guppi_writer_write(writer, &chunk) ==
                           BLADE_ERROR_INVALID_ARGUMENT);
                const std::string message = blade_last_error();
                BOOST_TEST(contains(message, "which this process is reading"), message);
                BOOST_TEST(contains(message, recording), message);
                ok(blade_guppi_writer_close(writer), "close");
                blade_guppi_writer_destroy(writer);
                BOOST_TEST((read_bytes(recording) == bytes));
            }
        }
        for (const auto& [name, format] : { std::pair<std::string, blade_filterbank_format>{
                                                "/soft.beam0000.fil", BLADE_FILTERBANK_FIL },
                                            std::pair<std::string, blade_filterbank_format>{
                                                "/soft.h5", BLADE_FILTERBANK_FBH5 } }) {
            if (format == BLADE_FILTERBANK_FBH5 && !blade_filterbank_fbh5_available())
                continue;
            const std::string path = dir.path + name;
            blade_filterbank_config config = filterbank_config(path);
            config.format = format;
            blade_filterbank_writer* writer = nullptr;
            BOOST_TEST(blade_filterbank_writer_create(&writer, &config) ==
                       BLADE_ERROR_INVALID_ARGUMENT);
            BOOST_TEST(contains(blade_last_error(), "which this process is reading"),
                       blade_last_error());
            BOOST_TEST((read_bytes(recording) == bytes));
            struct stat info;
            BOOST_TEST(lstat(path.c_str(), &info) == 0); // the link is not removed
        }
    }
    // Once the reader is closed the file is no input: replacing it is allowed.
    const std::string replaced = dir.path + "/soft.beam0000.fil"; // outlives the config
    blade_filterbank_config config = filterbank_config(replaced);
    blade_filterbank_writer* writer = nullptr;
    ok(blade_filterbank_writer_create(&writer, &config), "after the reader closed");
    blade_filterbank_writer_destroy(writer);
}

BOOST_AUTO_TEST_CASE(a_corrupt_pktidx_is_not_zero_filled_without_bound)
{
    // A two-block file whose second PKTIDX jumps by 999 999 blocks was accepted and
    // zero-filled into 27 GB. By default a gap may be as long as the data the
    // recording holds; max_gap_seconds sets another bound; stopping at gaps needs
    // none.
    temp_dir dir;
    const std::string path = dir.path + "/jump.raw";
    // Blocks of 2 samples (TBIN 1 us), PKTIDX counting samples (PIPERBLK 2, as
    // hpguppi writes). (Without PIPERBLK or PKTSIZE the step would be learned from
    // the PKTIDX values themselves, and one pair cannot tell a jump from a step.)
    write_file(
        path,
        one_block({ "PKTIDX  =                    0", "PIPERBLK=                    2" }) +
            one_block({ "PKTIDX  =              2000000", "PIPERBLK=                    2" }));
    const auto open_with = [&](blade_guppi_gap_policy policy, double max_gap) {
        blade_guppi_reader_config config = {};
        config.path = path.c_str();
        config.single_file = true;
        config.output_type = BLADE_CF32;
        config.gap_policy = policy;
        config.max_gap_seconds = max_gap;
        blade_guppi_reader* reader = nullptr;
        const blade_status status = blade_guppi_reader_open(&reader, &config);
        const std::string message = status == BLADE_OK ? "" : blade_last_error();
        const int64_t stream_blocks =
            status == BLADE_OK ? blade_guppi_reader_recording(reader)->stream_blocks : -1;
        blade_guppi_reader_close(reader);
        return std::make_tuple(status, message, stream_blocks);
    };
    auto [status, message, blocks] = open_with(BLADE_GUPPI_GAP_ZERO_FILL, 0);
    BOOST_TEST(status == BLADE_ERROR_FORMAT);
    for (const char* part : { "jump.raw",
                              "block 1 ",
                              "from 0 to 2000000",
                              "999999 missing",
                              "the 2 blocks",
                              "--max-gap",
                              "--on-gap stop" })
        BOOST_TEST(contains(message, part), part << " in: " << message);
    // 2 s allow 999 999 blocks of 2 us; 1.9 s do not.
    std::tie(status, message, blocks) = open_with(BLADE_GUPPI_GAP_ZERO_FILL, 2.0);
    BOOST_TEST(status == BLADE_OK, message);
    BOOST_TEST(blocks == 1000001);
    std::tie(status, message, blocks) = open_with(BLADE_GUPPI_GAP_ZERO_FILL, 1.9);
    BOOST_TEST(status == BLADE_ERROR_FORMAT);
    BOOST_TEST(contains(message, "1.9 s allowed"), message);
    std::tie(status, message, blocks) = open_with(BLADE_GUPPI_GAP_ZERO_FILL, INFINITY);
    BOOST_TEST(status == BLADE_OK, message);
    std::tie(status, message, blocks) = open_with(BLADE_GUPPI_GAP_STOP, 0);
    BOOST_TEST(status == BLADE_OK, message);
    BOOST_TEST(blocks == 1); // the stream stops at the gap
    std::tie(status, message, blocks) = open_with(BLADE_GUPPI_GAP_ZERO_FILL, -1);
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    // A gap as long as the data is zero-filled by default: 2 blocks, 2 missing.
    write_file(
        path,
        one_block({ "PKTIDX  =                    0", "PIPERBLK=                    2" }) +
            one_block({ "PKTIDX  =                    6", "PIPERBLK=                    2" }));
    std::tie(status, message, blocks) = open_with(BLADE_GUPPI_GAP_ZERO_FILL, 0);
    BOOST_TEST(status == BLADE_OK, message);
    BOOST_TEST(blocks == 4);
}

BOOST_AUTO_TEST_CASE(what_is_not_a_regular_file_is_refused_without_waiting)
{
    // Opening a FIFO blocks until a writer comes (the reader hung); /dev/zero was
    // "empty". Both are refused by what they are, before anything is opened.
    temp_dir dir;
    const std::string fifo = dir.path + "/live.raw";
    BOOST_REQUIRE(mkfifo(fifo.c_str(), 0644) == 0);
    auto [status, message] = open_recording(fifo);
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(message, "is a FIFO (named pipe)"), message);
    BOOST_TEST(contains(message, fifo), message);
    std::tie(status, message) = open_recording("/dev/zero");
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(message, "/dev/zero is a character device"), message);
    blade_bfr5* recipe = nullptr;
    BOOST_TEST(blade_bfr5_read(fifo.c_str(), &recipe) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "a BFR5 recipe must be a regular file"),
               blade_last_error());
}

BOOST_AUTO_TEST_CASE(shapes_whose_size_would_wrap_are_refused)
{
    // [2^20, 2^20, 2^20, 2] ci8 is 2^62 bytes, whose item size wrapped to 4096.
    const int64_t huge[4] = { 1 << 20, 1 << 20, 1 << 20, 2 };
    blade_shape shape;
    BOOST_TEST(blade_shape_make(huge, 4, &shape) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "more than 2^56 elements"), blade_last_error());
    const int64_t wraps[5] = { INT64_C(1) << 40, INT64_C(1) << 30, 1, 1, 1 };
    BOOST_TEST(blade_shape_make(wraps, 5, &shape) == BLADE_ERROR_INVALID_ARGUMENT);
    const int64_t largest[2] = { INT64_C(1) << 28, INT64_C(1) << 28 };
    BOOST_TEST(blade_shape_make(largest, 2, &shape) == BLADE_OK);
    BOOST_TEST(blade_tensor_bytes(BLADE_CF64, &shape) == (size_t(1) << 60));
}

BOOST_AUTO_TEST_CASE(unwritable_places_are_refused_at_creation)
{
    temp_dir dir;
    const std::string missing = dir.path + "/no/such/dir/rec";
    blade_guppi_writer_config config = guppi_config(missing);
    const blade_shape shape = blade_shape_aftp(1, 2, 4, 2);
    blade_guppi_writer* writer = nullptr;
    BOOST_TEST(blade_guppi_writer_create(&writer, &config, &shape) == BLADE_ERROR_IO);
    BOOST_TEST(contains(blade_last_error(), "No such file or directory"));
    BOOST_TEST(contains(blade_last_error(), missing));
    // a regular file where a directory should be
    write_file(dir.path + "/plain", "x");
    const std::string under_file = dir.path + "/plain/beam.fil";
    const blade_filterbank_config fb = filterbank_config(under_file);
    blade_filterbank_writer* fw = nullptr;
    BOOST_TEST(blade_filterbank_writer_create(&fw, &fb) == BLADE_ERROR_IO);
    BOOST_TEST(contains(blade_last_error(), "Not a directory"));
}

BOOST_AUTO_TEST_CASE(a_recording_cut_short_while_it_is_read_ends_with_a_message)
{
    // The reader scanned the file at open; then the file shrank (a copy still
    // running, a disk error). The read fails with the file and offset, no garbage.
    temp_dir dir;
    const std::string path = dir.path + "/shrinks.raw";
    write_file(path, one_block({}) + one_block({ "PKTIDX  =                    2" }));
    blade_guppi_reader_config rc = {};
    rc.path = path.c_str();
    rc.output_type = BLADE_CI8;
    blade_guppi_reader* reader;
    ok(blade_guppi_reader_open(&reader, &rc), "open");
    BOOST_TEST(blade_guppi_reader_recording(reader)->chunks == 2);
    BOOST_REQUIRE(truncate(path.c_str(), file_size(path) - 40) == 0);
    const blade_shape shape = blade_guppi_reader_output_shape(reader);
    std::vector<int8_t> out(blade_tensor_bytes(BLADE_CI8, &shape));
    blade_tensor t = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), out.data());
    ok(blade_guppi_reader_read(reader, &t, nullptr), "the first block is whole");
    BOOST_TEST(blade_guppi_reader_read(reader, &t, nullptr) == BLADE_ERROR_IO);
    BOOST_TEST(contains(blade_last_error(), path));
    BOOST_TEST(contains(blade_last_error(), "did the file shrink?"));
    // and it stays failed
    BOOST_TEST(blade_guppi_reader_read(reader, &t, nullptr) == BLADE_ERROR_IO);
    blade_guppi_reader_close(reader);
}
