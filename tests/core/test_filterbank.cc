// SPDX-License-Identifier: MIT
// Filterbank writer in the core: the SIGPROC header byte by byte, spectra order,
// and the configurations it refuses.
#define BOOST_TEST_MODULE filterbank
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

using blade_test::ok;
using blade_test::temp_dir;

namespace {


blade_filterbank_config base_config(const std::string& path, blade_filterbank_format format)
{
    blade_filterbank_config c = {};
    c.path = path.c_str();
    c.format = format;
    c.nchans = 3;
    c.nifs = 2;
    c.nbeams = 4;
    c.ibeam = 1;
    c.telescope_id = BLADE_FILTERBANK_TELESCOPE_FROM_NAME;
    c.observation.unix_start = 86400.0 * 2; // MJD 40589
    c.observation.tsamp = 0.5;
    c.observation.freq_first = 1.5e9;
    c.observation.chan_bw = -2.5e5;
    c.observation.nfpc = 4;
    std::strcpy(c.observation.source_name, "SRC");
    std::strcpy(c.observation.telescope, "GBT");
    return c;
}

} // namespace

BOOST_AUTO_TEST_CASE(sigproc_header_and_spectra)
{
    temp_dir dir;
    const std::string path = dir.path + "/a.fil";
    blade_filterbank_config c = base_config(path, BLADE_FILTERBANK_FIL);
    blade_filterbank_writer* w;
    ok(blade_filterbank_writer_create(&w, &c), "create");
    // [F = 3, T = 2, P = 2]: value = 100 f + 10 t + p
    float slice[12];
    for (int f = 0; f < 3; f++)
        for (int t = 0; t < 2; t++)
            for (int p = 0; p < 2; p++)
                slice[(f * 2 + t) * 2 + p] = static_cast<float>(100 * f + 10 * t + p);
    const int64_t dims[3] = { 3, 2, 2 };
    blade_shape shape;
    ok(blade_shape_make(dims, 3, &shape), "shape");
    blade_tensor tensor = blade_tensor_make(BLADE_F32, &shape, blade_device_cpu(), slice);
    ok(blade_filterbank_writer_write(w, &tensor), "write");
    BOOST_TEST(blade_filterbank_writer_spectra(w) == 2);
    ok(blade_filterbank_writer_close(w), "close");
    blade_filterbank_writer_destroy(w);

    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = 0;
    auto text = [&]() {
        int32_t n;
        std::memcpy(&n, bytes.data() + at, 4);
        std::string s = bytes.substr(at + 4, n);
        at += 4 + n;
        return s;
    };
    BOOST_TEST(text() == "HEADER_START");
    std::map<std::string, double> numbers;
    std::string source;
    for (;;) {
        const std::string key = text();
        if (key == "HEADER_END")
            break;
        if (key == "source_name") {
            source = text();
        } else if (key == "fch1" || key == "foff" || key == "tstart" || key == "tsamp") {
            double v;
            std::memcpy(&v, bytes.data() + at, 8);
            at += 8;
            numbers[key] = v;
        } else {
            int32_t v;
            std::memcpy(&v, bytes.data() + at, 4);
            at += 4;
            numbers[key] = v;
        }
    }
    BOOST_TEST(source == "SRC");
    BOOST_TEST(numbers["telescope_id"] == 6);
    BOOST_TEST(numbers["data_type"] == 1);
    BOOST_TEST(numbers["tstart"] == 40589.0);
    BOOST_TEST(numbers["tsamp"] == 0.5);
    BOOST_TEST(numbers["fch1"] == 1500.0);
    BOOST_TEST(numbers["foff"] == -0.25);
    BOOST_TEST(numbers["nchans"] == 3);
    BOOST_TEST(numbers["nifs"] == 2);
    BOOST_TEST(numbers["nbits"] == 32);
    BOOST_TEST(numbers["nbeams"] == 4);
    BOOST_TEST(numbers["ibeam"] == 1);
    BOOST_TEST(numbers.count("src_raj") == 0); // no position known: not written
    // data[t][p][f]
    BOOST_TEST(bytes.size() - at == 12 * sizeof(float));
    const float* data = reinterpret_cast<const float*>(bytes.data() + at);
    for (int t = 0; t < 2; t++)
        for (int p = 0; p < 2; p++)
            for (int f = 0; f < 3; f++)
                BOOST_TEST(data[(t * 2 + p) * 3 + f] == 100 * f + 10 * t + p);
}

// Odd and large slices (the large one over the writer's threads), with IF scales:
// every value lands at [t][p][f], multiplied by its IF's factor.
BOOST_AUTO_TEST_CASE(spectra_are_laid_out_and_scaled_for_every_shape)
{
    temp_dir dir;
    const int64_t shapes[][3] = { { 67, 5, 4 }, { 1, 1, 1 }, { 3001, 349, 1 }, { 130, 2049, 4 } };
    for (const auto& dims : shapes) {
        const int64_t F = dims[0], T = dims[1], P = dims[2];
        const std::string path = dir.path + "/s" + std::to_string(F) + ".fil";
        blade_filterbank_config c = base_config(path, BLADE_FILTERBANK_FIL);
        c.nchans = F;
        c.nifs = P;
        const double scales[4] = { 1.0 / 16129.0, 2.0, 0.5, -0.5 };
        c.if_scales = scales;
        blade_filterbank_writer* w;
        ok(blade_filterbank_writer_create(&w, &c), "create");
        std::vector<float> slice(static_cast<size_t>(F * T * P));
        for (size_t i = 0; i < slice.size(); i++)
            slice[i] = static_cast<float>((i * 2654435761u) % 100003) - 50000.0f;
        blade_shape shape;
        ok(blade_shape_make(dims, 3, &shape), "shape");
        blade_tensor tensor =
            blade_tensor_make(BLADE_F32, &shape, blade_device_cpu(), slice.data());
        ok(blade_filterbank_writer_write(w, &tensor), "write");
        ok(blade_filterbank_writer_close(w), "close");
        blade_filterbank_writer_destroy(w);
        std::ifstream in(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
        const size_t payload = static_cast<size_t>(F * T * P) * sizeof(float);
        BOOST_TEST_REQUIRE(bytes.size() > payload);
        const float* data = reinterpret_cast<const float*>(bytes.data() + bytes.size() - payload);
        size_t wrong = 0;
        for (int64_t f = 0; f < F; f++)
            for (int64_t t = 0; t < T; t++)
                for (int64_t q = 0; q < P; q++) {
                    const float want = static_cast<float>(
                        scales[q] * slice[static_cast<size_t>((f * T + t) * P + q)]);
                    wrong += data[(t * P + q) * F + f] != want;
                }
        BOOST_TEST(wrong == 0u,
                   F << " x " << T << " x " << P << ": " << wrong << " values misplaced");
    }
}

BOOST_AUTO_TEST_CASE(refused_configurations)
{
    temp_dir dir;
    const std::string path = dir.path + "/b.h5";
    blade_filterbank_writer* w;
    blade_filterbank_config c = base_config(path, BLADE_FILTERBANK_FBH5);
    c.nchans = 2;
    BOOST_TEST(blade_filterbank_writer_create(&w, &c) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("fewer than 3") != std::string::npos);
    c = base_config(path, BLADE_FILTERBANK_FIL);
    c.observation.tsamp = 0;
    BOOST_TEST(blade_filterbank_writer_create(&w, &c) == BLADE_ERROR_INVALID_ARGUMENT);
    c = base_config(path, BLADE_FILTERBANK_FIL);
    c.ibeam = -2; // -1 is "unknown"; a receiver's beam number may exceed nbeams (rawspec)
    BOOST_TEST(blade_filterbank_writer_create(&w, &c) == BLADE_ERROR_INVALID_ARGUMENT);
    c = base_config(path, BLADE_FILTERBANK_FIL);
    c.nbeams = 0;
    BOOST_TEST(blade_filterbank_writer_create(&w, &c) == BLADE_ERROR_INVALID_ARGUMENT);
    const std::string nowhere = dir.path + "/no/such/dir.fil";
    c = base_config(nowhere, BLADE_FILTERBANK_FIL);
    BOOST_TEST(blade_filterbank_writer_create(&w, &c) == BLADE_ERROR_IO);
    BOOST_TEST(std::string(blade_last_error()).find(nowhere) != std::string::npos);

    char name[128];
    blade_filterbank_file_name("obs", "beam", 12, BLADE_FILTERBANK_FBH5, name, sizeof name);
    BOOST_TEST(std::string(name) == "obs.beam0012.h5");
}
