// SPDX-License-Identifier: MIT
// GUPPI RAW in the core: header cards worked out by hand, angle and time
// conversions, and a writer -> reader round trip through real files.
#define BOOST_TEST_MODULE guppi
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using blade_test::ok;
using blade_test::temp_dir;

namespace {

std::string card(const std::string& text)
{
    std::string c = text;
    c.resize(80, ' ');
    return c;
}

struct parsed {
    blade_guppi_header* header = nullptr;
    size_t consumed = 0;
    blade_status status;
    explicit parsed(const std::string& bytes, int64_t offset = 0)
    {
        status = blade_guppi_header_parse(
            bytes.data(), bytes.size(), "test.raw", offset, &header, &consumed);
    }
    ~parsed() { blade_guppi_header_destroy(header); }
};


} // namespace

BOOST_AUTO_TEST_CASE(cards_quoted_numbers_exponents_and_strings)
{
    const std::string bytes = card("BLOCSIZE=              1048576") +
                              card("DIRECTIO= '1       '") + card("CHAN_BW = '-3.125  '") +
                              card("TBIN    =  3.41333333333333E-07") +
                              card("OBSFREQ =  1.4200D+03") + card("SRC_NAME= 'O''Brien '") +
                              card("COMMENT   a card without a value") + card("") +
                              card("NBITS   =                    8 / bits per value") +
                              card("ONLINE  =                    T") + card("END");
    parsed p(bytes + "garbage after END is not looked at");
    ok(p.status, "parse");
    BOOST_TEST(p.consumed == 11 * 80u);
    BOOST_TEST(blade_guppi_header_count(p.header) == 9); // the blank card is skipped
    int64_t i;
    double r;
    const char* s;
    ok(blade_guppi_header_get_int(p.header, "BLOCSIZE", &i), "BLOCSIZE");
    BOOST_TEST(i == 1048576);
    ok(blade_guppi_header_get_int(p.header, "DIRECTIO", &i), "DIRECTIO");
    BOOST_TEST(i == 1);
    ok(blade_guppi_header_get_real(p.header, "CHAN_BW", &r), "CHAN_BW");
    BOOST_TEST(r == -3.125);
    ok(blade_guppi_header_get_real(p.header, "TBIN", &r), "TBIN");
    BOOST_TEST(r == 3.41333333333333e-07);
    ok(blade_guppi_header_get_real(p.header, "OBSFREQ", &r), "OBSFREQ");
    BOOST_TEST(r == 1420.0);
    ok(blade_guppi_header_get_string(p.header, "SRC_NAME", &s), "SRC_NAME");
    BOOST_TEST(std::string(s) == "O'Brien");
    ok(blade_guppi_header_get_int(p.header, "NBITS", &i), "NBITS");
    BOOST_TEST(i == 8);
    const blade_guppi_card dir = blade_guppi_header_card(p.header, 1);
    BOOST_TEST(dir.kind == BLADE_GUPPI_VALUE_INTEGER);
    BOOST_TEST(dir.quoted);
    BOOST_TEST(blade_guppi_header_card(p.header, 5).kind == BLADE_GUPPI_VALUE_STRING);
    BOOST_TEST(blade_guppi_header_card(p.header, 6).kind == BLADE_GUPPI_VALUE_NONE);
    BOOST_TEST(blade_guppi_header_card(p.header, 8).kind == BLADE_GUPPI_VALUE_LOGICAL);
    // a real with an integral value reads as an integer; a string does not
    BOOST_TEST(blade_guppi_header_get_int(p.header, "OBSFREQ", &i) == BLADE_OK);
    BOOST_TEST(i == 1420);
    BOOST_TEST(blade_guppi_header_get_int(p.header, "SRC_NAME", &i) == BLADE_ERROR_FORMAT);
    BOOST_TEST(std::string(blade_last_error()).find("SRC_NAME = 'O'Brien' is not an integer") !=
               std::string::npos);
    BOOST_TEST(blade_guppi_header_get_real(p.header, "MISSING", &r) == BLADE_ERROR_FORMAT);
    BOOST_TEST(std::string(blade_last_error()).find("no MISSING card") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(malformed_headers_name_the_file_and_offset)
{
    std::string binary = card("NBITS   =                    8");
    binary += std::string("\x01\x02", 2) + std::string(78, 'x');
    parsed p(binary, 4096);
    BOOST_TEST(p.status == BLADE_ERROR_FORMAT);
    const std::string message = blade_last_error();
    BOOST_TEST(message.find("test.raw: byte offset 4176 (header card 2)") != std::string::npos);
    BOOST_TEST(message.find("0x01, not printable ASCII") != std::string::npos);
    BOOST_TEST(message.find("END card missing") != std::string::npos);

    parsed space(card("BAD KEY =                    1") + card("END"));
    BOOST_TEST(space.status == BLADE_ERROR_FORMAT);
    BOOST_TEST(std::string(blade_last_error()).find("not a single word") != std::string::npos);

    parsed quote(card("SRC_NAME= 'unterminated") + card("END"));
    BOOST_TEST(quote.status == BLADE_ERROR_FORMAT);
    BOOST_TEST(std::string(blade_last_error()).find("no closing quote") != std::string::npos);

    parsed short_(card("NBITS   =                    8"));
    BOOST_TEST(short_.status == BLADE_ERROR_END_OF_DATA);
}

BOOST_AUTO_TEST_CASE(building_and_formatting_headers)
{
    blade_guppi_header* h;
    ok(blade_guppi_header_create(&h), "create");
    ok(blade_guppi_header_set_int(h, "BLOCSIZE", 1024), "int");
    ok(blade_guppi_header_set_real(h, "TBIN", 1.0 / 3.0), "real");
    ok(blade_guppi_header_set_real(h, "BIG", 1e20), "real");
    ok(blade_guppi_header_set_string(h, "SRC_NAME", "it's"), "string");
    ok(blade_guppi_header_set_int(h, "BLOCSIZE", 2048), "replace");
    BOOST_TEST(blade_guppi_header_set_int(h, "TOOLONGKEY", 1) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_guppi_header_set_int(h, "lower", 1) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_guppi_header_set_real(h, "NAN", NAN) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_guppi_header_count(h) == 4);
    BOOST_TEST(blade_guppi_header_bytes(h, false) == 5 * 80u);
    BOOST_TEST(blade_guppi_header_bytes(h, true) == 512u);
    std::string text(512, '\0');
    ok(blade_guppi_header_format(h, true, &text[0], text.size()), "format");
    BOOST_TEST(text.substr(0, 80) == card("BLOCSIZE= 2048"));
    BOOST_TEST(text.substr(160, 80) == card("BIG     = 1.E+20")); // a real keeps its point
    BOOST_TEST(text.substr(240, 80) == card("SRC_NAME= 'it''s    '"));
    BOOST_TEST(text.substr(320, 80) == card("END"));
    BOOST_TEST(text.substr(400) == std::string(112, ' '));
    parsed back(text);
    ok(back.status, "parse back");
    double r;
    ok(blade_guppi_header_get_real(back.header, "TBIN", &r), "TBIN");
    BOOST_TEST(r == 1.0 / 3.0); // 17 digits read back exactly
    blade_guppi_header_destroy(h);
}

BOOST_AUTO_TEST_CASE(angles_and_dates)
{
    double v;
    ok(blade_parse_sexagesimal("13:31:08.288", &v), "ra");
    BOOST_TEST(std::fabs(v - (13 + 31 / 60.0 + 8.288 / 3600)) < 1e-14);
    ok(blade_parse_sexagesimal("-00:30:00", &v), "dec");
    BOOST_TEST(v == -0.5);
    BOOST_TEST(blade_parse_sexagesimal("12:61:00", &v) == BLADE_ERROR_FORMAT);
    char text[40];
    blade_format_sexagesimal(-0.5, 2, true, text, sizeof text);
    BOOST_TEST(std::string(text) == "-00:30:00.00");
    blade_format_sexagesimal(12.0 + 59.0 / 60 + 59.9999 / 3600, 2, false, text, sizeof text);
    BOOST_TEST(std::string(text) == "13:00:00.00"); // rounding carries, never 60 s
    BOOST_TEST(std::fabs(blade_sigproc_packed_angle(12.5) - 123000.0) < 1e-9);
    BOOST_TEST(std::fabs(blade_sigproc_packed_angle(-(30 + 30 / 60.0 + 32.96 / 3600)) + 303032.96) <
               1e-6);
    BOOST_TEST(std::fabs(blade_sigproc_unpack_angle(-303032.96) + (30 + 30 / 60.0 + 32.96 / 3600)) <
               1e-12);
    BOOST_TEST(blade_sigproc_telescope_id("ATA") == 9);
    BOOST_TEST(blade_sigproc_telescope_id("gbt") == 6);
    BOOST_TEST(blade_sigproc_telescope_id("MeerKAT") == 64);
    BOOST_TEST(blade_sigproc_telescope_id("Somewhere") == 0);
    BOOST_TEST(blade_unix_to_mjd(0) == 40587.0);
    BOOST_TEST(blade_unix_to_jd(86400) == 2440588.5);
}

BOOST_AUTO_TEST_CASE(writer_then_reader_round_trip_with_files_and_4_bits)
{
    temp_dir dir;
    const std::string stem = dir.path + "/rec";
    const blade_shape shape = blade_shape_aftp(2, 3, 8, 2); // T = 8 per chunk
    blade_guppi_writer_config config = {};
    config.stem = stem.c_str();
    config.input_type = BLADE_CI8;
    config.file_type = BLADE_CI4;
    config.directio = true;
    config.block_samples = 12; // blocks span chunks
    config.blocks_per_file = 2;
    blade_guppi_writer* writer;
    ok(blade_guppi_writer_create(&writer, &config, &shape), "writer");
    blade_observation obs = {};
    obs.unix_start = 1700000000.5;
    obs.tsamp = 1e-3;
    obs.freq_first = 1e9;
    obs.chan_bw = 1e6;
    obs.coarse_first = 7;
    ok(blade_guppi_writer_set_observation(writer, &obs, nullptr), "observation");
    // 5 chunks of values -8..7 -> 40 samples: 3 blocks of 12, 4 samples dropped
    std::vector<int8_t> values(blade_shape_count(&shape) * 2 * 5);
    for (size_t i = 0; i < values.size(); i++)
        values[i] = static_cast<int8_t>(static_cast<int>((i * 7) % 16) - 8);
    const size_t chunk_values = blade_shape_count(&shape) * 2;
    for (int c = 0; c < 5; c++) {
        blade_tensor t =
            blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), &values[c * chunk_values]);
        ok(blade_guppi_writer_write(writer, &t), "write");
    }
    ok(blade_guppi_writer_close(writer), "close");
    BOOST_TEST(blade_guppi_writer_blocks(writer) == 3);
    BOOST_TEST(blade_guppi_writer_files(writer) == 2);
    BOOST_TEST(blade_guppi_writer_discarded_samples(writer) == 4);
    blade_guppi_writer_destroy(writer);

    blade_guppi_reader_config rc = {};
    const std::string member = stem + ".0001.raw";
    rc.path = member.c_str(); // any member opens the sequence
    rc.chunk_samples = 9;
    rc.output_type = BLADE_CI8;
    rc.channel_start = 1;
    rc.channel_count = 2;
    blade_guppi_reader* reader;
    ok(blade_guppi_reader_open(&reader, &rc), "reader");
    const blade_guppi_recording* rec = blade_guppi_reader_recording(reader);
    BOOST_TEST(rec->nfiles == 2);
    BOOST_TEST(rec->nblocks == 3);
    BOOST_TEST(rec->nbits == 4);
    BOOST_TEST(rec->ntime == 12);
    BOOST_TEST(rec->chunks == 4); // 36 samples / 9
    BOOST_TEST(rec->observation.unix_start == 1700000000.5);
    BOOST_TEST(rec->observation.coarse_first == 7);
    const blade_shape out_shape = blade_guppi_reader_output_shape(reader);
    std::vector<int8_t> out(blade_shape_count(&out_shape) * 2);
    for (int c = 0; c < 4; c++) {
        blade_tensor t = blade_tensor_make(BLADE_CI8, &out_shape, blade_device_cpu(), out.data());
        blade_guppi_chunk info;
        ok(blade_guppi_reader_read(reader, &t, &info), "read");
        BOOST_TEST(std::fabs(info.unix_start - (1700000000.5 + c * 9 * 1e-3)) < 1e-6);
        BOOST_TEST(info.observation.freq_first == 1e9 + 1e6); // channel 1
        BOOST_TEST(info.observation.coarse_first == 8);
        for (int a = 0; a < 2; a++)
            for (int f = 0; f < 2; f++)
                for (int t = 0; t < 9; t++)
                    for (int p = 0; p < 2; p++)
                        for (int z = 0; z < 2; z++) {
                            const int s = c * 9 + t, chunk = s / 8, ts = s % 8;
                            const size_t in = ((((a * 3 + f + 1) * 8 + ts) * 2 + p) * 2 + z) +
                                              chunk * chunk_values;
                            const size_t o = (((a * 2 + f) * 9 + t) * 2 + p) * 2 + z;
                            BOOST_TEST(out[o] == values[in]);
                        }
    }
    blade_tensor t = blade_tensor_make(BLADE_CI8, &out_shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_guppi_reader_read(reader, &t, nullptr) == BLADE_ERROR_END_OF_DATA);
    BOOST_TEST(blade_guppi_reader_get_stats(reader).samples_left == 0);
    blade_guppi_reader_close(reader);
}

BOOST_AUTO_TEST_CASE(reader_rejects_bad_requests)
{
    temp_dir dir;
    const std::string path = dir.path + "/x.raw";
    {
        std::ofstream f(path, std::ios::binary);
        f << card("BLOCSIZE=                   16") << card("OBSNCHAN=                    2")
          << card("NPOL    =                    2") << card("NBITS   =                    8")
          << card("TBIN    =                1E-06") << card("END") << std::string(16, '\0');
    }
    blade_guppi_reader_config rc = {};
    rc.path = path.c_str();
    rc.output_type = BLADE_CF32;
    rc.channel_start = 2;
    blade_guppi_reader* reader;
    BOOST_TEST(blade_guppi_reader_open(&reader, &rc) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("outside the recording's 2 channels") !=
               std::string::npos);
    rc.channel_start = 0;
    ok(blade_guppi_reader_open(&reader, &rc), "open");
    BOOST_TEST(blade_guppi_reader_recording(reader)->ntime == 2);
    // a wrong output tensor is refused, not written
    const blade_shape wrong = blade_shape_aftp(1, 2, 3, 2);
    std::vector<float> out(64);
    blade_tensor t = blade_tensor_make(BLADE_CF32, &wrong, blade_device_cpu(), out.data());
    BOOST_TEST(blade_guppi_reader_read(reader, &t, nullptr) == BLADE_ERROR_INVALID_ARGUMENT);
    blade_guppi_reader_close(reader);
}
