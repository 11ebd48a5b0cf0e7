// SPDX-License-Identifier: MIT
// Stream adapters: the port order, packing and unpacking by hand, and the sample
// clock (rx_time anchors, rate changes, chunk times with their Julian dates).
#define BOOST_TEST_MODULE stream_adapter
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cmath>
#include <complex>
#include <string>
#include <vector>

using blade_test::ok;
using cf32 = std::complex<float>;

namespace {

bool error_mentions(const std::string& text)
{
    return std::string(blade_last_error()).find(text) != std::string::npos;
}

// Stream s, sample t holds (s, t): every value names its origin.
std::vector<std::vector<cf32>> numbered_streams(int64_t count, int64_t samples)
{
    std::vector<std::vector<cf32>> streams(count);
    for (int64_t s = 0; s < count; s++)
        for (int64_t t = 0; t < samples; t++)
            streams[s].push_back(cf32(static_cast<float>(s), static_cast<float>(t)));
    return streams;
}

} // namespace

BOOST_AUTO_TEST_CASE(port_order_is_polarization_fastest)
{
    const blade_shape shape = blade_shape_aftp(2, 3, 8, 2);
    BOOST_TEST(blade_stream_port(&shape, 0, 0, 0) == 0);
    BOOST_TEST(blade_stream_port(&shape, 0, 0, 1) == 1);
    BOOST_TEST(blade_stream_port(&shape, 0, 1, 0) == 2);
    BOOST_TEST(blade_stream_port(&shape, 1, 0, 0) == 6);
    BOOST_TEST(blade_stream_port(&shape, 1, 2, 1) == 11);
    BOOST_TEST(blade_stream_count(&shape) == 12);
    blade_shape three;
    const int64_t dims[3] = { 2, 16, 2 };
    ok(blade_shape_make(dims, 3, &three), "shape");
    BOOST_TEST(blade_stream_count(&three) == 0);
}

BOOST_AUTO_TEST_CASE(packing_by_hand)
{
    // A = 2, F = 1, T = 3, P = 2: four streams. Element [a, 0, t, p] = stream 2a + p,
    // sample t.
    const blade_shape shape = blade_shape_aftp(2, 1, 3, 2);
    const auto streams = numbered_streams(4, 3);
    std::vector<const void*> pointers;
    for (const auto& s : streams)
        pointers.push_back(s.data());
    std::vector<cf32> chunk(12, cf32(-1, -1));
    ok(blade_streams_to_chunk(pointers.data(), 4, &shape, chunk.data()), "pack");
    const cf32 expected[12] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 }, { 0, 2 }, { 1, 2 },
                                { 2, 0 }, { 3, 0 }, { 2, 1 }, { 3, 1 }, { 2, 2 }, { 3, 2 } };
    for (int i = 0; i < 12; i++)
        BOOST_TEST(chunk[i] == expected[i]);
}

BOOST_AUTO_TEST_CASE(unpacking_inverts_packing)
{
    for (const blade_shape shape : { blade_shape_aftp(2, 3, 5, 2),
                                     blade_shape_aftp(3, 1, 7, 1),
                                     blade_shape_aftp(1, 2, 4, 3) }) {
        const int64_t n = shape.dims[0] * shape.dims[1] * shape.dims[3];
        const auto streams = numbered_streams(n, shape.dims[2]);
        std::vector<const void*> in;
        for (const auto& s : streams)
            in.push_back(s.data());
        std::vector<cf32> chunk(blade_shape_count(&shape));
        ok(blade_streams_to_chunk(in.data(), n, &shape, chunk.data()), "pack");
        // [a, f, t, p] is stream (a*F + f)*P + p, sample t.
        const int64_t F = shape.dims[1], T = shape.dims[2], P = shape.dims[3];
        for (int64_t a = 0; a < shape.dims[0]; a++)
            for (int64_t f = 0; f < F; f++)
                for (int64_t t = 0; t < T; t++)
                    for (int64_t p = 0; p < P; p++)
                        BOOST_TEST(
                            chunk[((a * F + f) * T + t) * P + p] ==
                            cf32(static_cast<float>((a * F + f) * P + p), static_cast<float>(t)));
        std::vector<std::vector<cf32>> back(n, std::vector<cf32>(T));
        std::vector<void*> out;
        for (auto& s : back)
            out.push_back(s.data());
        ok(blade_chunk_to_streams(chunk.data(), &shape, out.data(), n), "unpack");
        BOOST_TEST((back == streams));
    }
}

BOOST_AUTO_TEST_CASE(bad_shapes_and_stream_counts_are_rejected)
{
    const blade_shape shape = blade_shape_aftp(2, 1, 16, 2);
    BOOST_TEST(blade_stream_adapter_check(&shape, 3) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("a [2, 1, 16, 2] chunk takes A*F*P = 4 streams"));
    BOOST_TEST(error_mentions("got 3"));
    blade_shape three;
    const int64_t dims[3] = { 2, 16, 2 };
    ok(blade_shape_make(dims, 3, &three), "shape");
    BOOST_TEST(blade_stream_adapter_check(&three, 4) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("rank 4"));
    const blade_shape zero_t = blade_shape_aftp(2, 1, 0, 2);
    BOOST_TEST(blade_stream_adapter_check(&zero_t, 4) == BLADE_ERROR_INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(clock_counts_samples_from_its_anchor)
{
    blade_sample_clock clock;
    ok(blade_sample_clock_init(&clock, 4.0, 1700000000.25), "init");
    BOOST_TEST(blade_sample_clock_unix(&clock, 0) == 1700000000.25);
    BOOST_TEST(blade_sample_clock_unix(&clock, 3) == 1700000001.0);
    BOOST_TEST(blade_sample_clock_unix(&clock, -1) == 1700000000.0);

    // rx_time (whole, fraction) at sample 10: full precision in the fraction.
    blade_sample_clock_set_time(&clock, 10, 1700000100, 0.123456789);
    int64_t whole;
    double fraction;
    blade_sample_clock_time(&clock, 17, &whole, &fraction); // 7 samples = 1.75 s later
    BOOST_TEST(whole == 1700000101);
    BOOST_TEST(std::fabs(fraction - 0.873456789) < 1e-15);
    blade_sample_clock_time(&clock, 10, &whole, &fraction);
    BOOST_TEST(whole == 1700000100);
    BOOST_TEST(fraction == 0.123456789);

    // A rate change at sample 18 keeps earlier times and counts at the new rate after.
    ok(blade_sample_clock_set_rate(&clock, 18, 2.0), "rate");
    BOOST_TEST(std::fabs(blade_sample_clock_unix(&clock, 18) - 1700000102.123456789) < 1e-6);
    BOOST_TEST(std::fabs(blade_sample_clock_unix(&clock, 22) - 1700000104.123456789) < 1e-6);
}

BOOST_AUTO_TEST_CASE(long_runs_keep_sub_microsecond_precision)
{
    // 10^12 samples at 3 MHz after the anchor = 333333.333... s: the fraction must
    // still be right to well under a sample (0.33 us).
    blade_sample_clock clock;
    ok(blade_sample_clock_init(&clock, 3e6, 0.0), "init");
    blade_sample_clock_set_time(&clock, 0, 1700000000, 0.5);
    int64_t whole;
    double fraction;
    blade_sample_clock_time(&clock, 1000000000000LL, &whole, &fraction);
    BOOST_TEST(whole == 1700333333);
    BOOST_TEST(std::fabs(fraction - (0.5 + 1.0 / 3.0)) < 1e-9);
}

BOOST_AUTO_TEST_CASE(chunk_times_are_start_middle_and_julian)
{
    blade_sample_clock clock;
    ok(blade_sample_clock_init(&clock, 1000.0, 946728000.0), "init");
    const blade_chunk_times times = blade_sample_clock_chunk(&clock, 2000, 500);
    BOOST_TEST(times.unix_start == 946728002.0);
    BOOST_TEST(times.unix_mid == 946728002.25); // 500 samples of 1 ms: middle at +0.25 s
    // (Julian dates near 2.45e6 resolve 4.7e-10 days in a double.)
    BOOST_TEST(std::fabs(times.jd_start - (2451545.0 + 2.0 / 86400.0)) < 1e-9);
    BOOST_TEST(std::fabs(times.jd_mid - (2451545.0 + 2.25 / 86400.0)) < 1e-9);
    BOOST_TEST(times.tsamp == 0.001);
}

BOOST_AUTO_TEST_CASE(bad_rates_are_rejected)
{
    blade_sample_clock clock;
    BOOST_TEST(blade_sample_clock_init(&clock, 0.0, 0.0) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("sample rate must be a positive number"));
    BOOST_TEST(blade_sample_clock_init(&clock, -5.0, 0.0) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_sample_clock_init(&clock, NAN, 0.0) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_sample_clock_init(&clock, 1.0, INFINITY) == BLADE_ERROR_INVALID_ARGUMENT);
    ok(blade_sample_clock_init(&clock, 1.0, 0.0), "init");
    BOOST_TEST(blade_sample_clock_set_rate(&clock, 5, 0.0) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(clock.rate == 1.0); // unchanged
}
