// SPDX-License-Identifier: MIT
// In-place operation on the CPU: every module that may overwrite its input (polarizer,
// cast between types of one size, channelizer with T = N) gives the out-of-place
// bits; every other aliasing (a partial overlap, in place where the module cannot)
// is refused with a message that says why.
#define BOOST_TEST_MODULE in_place
#include <boost/test/unit_test.hpp>

#include "in_place_support.h"

#include <blade/cpu_threads.h>

#include <cstdlib>
#include <string>

using blade_test::check_in_place_matches;
using blade_test::ok;
using blade_test::random_chunks;

namespace {

const blade_device cpu = blade_device_cpu();

// The status and message of `call`, expected to fail.
std::string refusal(blade_status status)
{
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    return blade_last_error();
}

bool says(const std::string& message, const std::string& words)
{
    const bool found = message.find(words) != std::string::npos;
    if (!found)
        BOOST_TEST_MESSAGE("message: " << message);
    return found;
}

} // namespace

BOOST_AUTO_TEST_CASE(polarizer_in_place_gives_the_out_of_place_bits)
{
    for (const blade_shape& shape : { blade_shape_aftp(1, 1, 1, 2),
                                      blade_shape_aftp(3, 7, 13, 2),
                                      blade_shape_aftp(2, 5, 10007, 2) }) {
        const int64_t count = blade_shape_count(&shape);
        check_in_place_matches(cpu,
                               blade_test::polarizer_plans(shape, BLADE_CF32),
                               random_chunks(BLADE_CF32, count, 2, 1),
                               static_cast<size_t>(count) * 8,
                               "polarizer cf32");
        check_in_place_matches(cpu,
                               blade_test::polarizer_plans(shape, BLADE_CF16),
                               random_chunks(BLADE_CF16, count, 2, 2),
                               static_cast<size_t>(count) * 4,
                               "polarizer cf16");
    }
}

BOOST_AUTO_TEST_CASE(cast_in_place_between_types_of_one_size)
{
    // 131072 elements: the threaded path (chunks of 2^16) as well as the plain loop
    for (const blade_shape& shape :
         { blade_shape_aftp(3, 7, 13, 2), blade_shape_aftp(4, 16, 2048, 2) }) {
        const int64_t count = blade_shape_count(&shape);
        check_in_place_matches(cpu,
                               blade_test::cast_plans(shape, BLADE_CF32, BLADE_CF32, 0.25f),
                               random_chunks(BLADE_CF32, count, 1, 3),
                               static_cast<size_t>(count) * 8,
                               "cast cf32 x 0.25");
        check_in_place_matches(cpu,
                               blade_test::cast_plans(shape, BLADE_CI16, BLADE_CF16, 0.0f),
                               random_chunks(BLADE_CI16, count, 1, 4),
                               static_cast<size_t>(count) * 4,
                               "cast ci16 -> cf16");
        check_in_place_matches(cpu,
                               blade_test::cast_plans(shape, BLADE_CF16, BLADE_CI16, 0.0f),
                               random_chunks(BLADE_CF16, count, 1, 5),
                               static_cast<size_t>(count) * 4,
                               "cast cf16 -> ci16");
        check_in_place_matches(cpu,
                               blade_test::cast_plans(shape, BLADE_F32, BLADE_F32, 2.0f),
                               random_chunks(BLADE_F32, count, 1, 6),
                               static_cast<size_t>(count) * 4,
                               "cast f32 x 2");
    }
}

BOOST_AUTO_TEST_CASE(channelizer_in_place_with_one_spectrum_per_chunk)
{
    struct geometry {
        blade_shape shape;
        int64_t n;
        int taps;
    };
    // T = N: plain FFTs, a polyphase filter whose history spans chunks (3 chunks in
    // order), an odd length, one row, and Mode H's N = 8192 over several threads.
    for (const geometry& g : { geometry{ blade_shape_aftp(3, 5, 64, 2), 64, 1 },
                               geometry{ blade_shape_aftp(3, 5, 64, 2), 64, 4 },
                               geometry{ blade_shape_aftp(2, 3, 12, 2), 12, 1 },
                               geometry{ blade_shape_aftp(1, 1, 256, 1), 256, 8 },
                               geometry{ blade_shape_aftp(2, 4, 8192, 2), 8192, 4 } }) {
        const int64_t count = blade_shape_count(&g.shape);
        const std::string what =
            "channelizer N = " + std::to_string(g.n) + ", taps = " + std::to_string(g.taps);
        check_in_place_matches(cpu,
                               blade_test::channelizer_plans(g.shape, BLADE_CF32, g.n, g.taps),
                               random_chunks(BLADE_CF32, count, 3, 7),
                               static_cast<size_t>(count) * 8,
                               what + " cf32");
        check_in_place_matches(cpu,
                               blade_test::channelizer_plans(g.shape, BLADE_CF16, g.n, g.taps),
                               random_chunks(BLADE_CF16, count, 3, 8),
                               static_cast<size_t>(count) * 4,
                               what + " cf16");
    }
}

BOOST_AUTO_TEST_CASE(channelizer_in_place_through_streaming_stores)
{
    // Outputs larger than the caches are written with streaming stores (cpu_stream.h):
    // at T = N with two polarizations the channelizer splits each row into its scratch
    // and interleaves the spectra back over that very row. Forced here on small shapes
    // (BLADE_STREAM_MIN_BYTES = 0), on 1 and 2 threads: the bits of out of place.
    setenv("BLADE_STREAM_MIN_BYTES", "0", 1);
    for (int threads : { 1, 2 })
        for (int taps : { 1, 4 }) {
            blade_cpu_threads_set(threads);
            const blade_shape shape = blade_shape_aftp(2, 4, 8192, 2);
            const int64_t count = blade_shape_count(&shape);
            const std::string what =
                "streamed channelizer N = 8192, taps = " + std::to_string(taps) + ", " +
                std::to_string(threads) + " threads";
            check_in_place_matches(cpu,
                                   blade_test::channelizer_plans(shape, BLADE_CF32, 8192, taps),
                                   random_chunks(BLADE_CF32, count, 3, 9),
                                   static_cast<size_t>(count) * 8,
                                   what + " cf32");
            check_in_place_matches(cpu,
                                   blade_test::channelizer_plans(shape, BLADE_CF16, 8192, taps),
                                   random_chunks(BLADE_CF16, count, 3, 10),
                                   static_cast<size_t>(count) * 4,
                                   what + " cf16");
        }
    // the casts that may run in place never take the streamed (widening) path
    const blade_shape shape = blade_shape_aftp(4, 16, 2048, 2);
    const int64_t count = blade_shape_count(&shape);
    check_in_place_matches(cpu,
                           blade_test::cast_plans(shape, BLADE_CI16, BLADE_CF16, 0.0f),
                           random_chunks(BLADE_CI16, count, 1, 11),
                           static_cast<size_t>(count) * 4,
                           "streamed cast ci16 -> cf16");
    blade_cpu_threads_set(0);
    unsetenv("BLADE_STREAM_MIN_BYTES");
}

BOOST_AUTO_TEST_CASE(partial_overlap_is_refused_with_a_clear_message)
{
    const blade_shape shape = blade_shape_aftp(2, 3, 16, 2);
    const int64_t count = blade_shape_count(&shape);
    std::vector<uint8_t> memory(static_cast<size_t>(count) * 8 * 2 + 64);
    uint8_t* base = memory.data();
    blade_polarizer* polarizer = nullptr;
    const blade_polarizer_config circular = { BLADE_BASIS_CIRCULAR };
    ok(blade_polarizer_create(&polarizer, &circular, &shape, cpu), "create");
    blade_tensor in = blade_tensor_make(BLADE_CF32, &shape, cpu, base);
    blade_tensor shifted = blade_tensor_make(BLADE_CF32, &shape, cpu, base + 8);
    std::string message = refusal(blade_polarizer_process(polarizer, &in, &shifted, nullptr));
    BOOST_TEST(says(message, "polarizer: the output"));
    BOOST_TEST(says(message, "+8 bytes from the input's start"));
    BOOST_TEST(says(message, "without being the same memory"));
    // output before the input, overlapping its start
    message = refusal(blade_polarizer_process(polarizer, &shifted, &in, nullptr));
    BOOST_TEST(says(message, "-8 bytes"));
    blade_polarizer_destroy(polarizer);

    blade_cast* cast = nullptr;
    const blade_cast_config same = { BLADE_CF32, BLADE_CF32, 0.5f };
    ok(blade_cast_create(&cast, &same, &shape, cpu), "create");
    message = refusal(blade_cast_process(cast, &in, &shifted, nullptr));
    BOOST_TEST(says(message, "cast: the output"));
    blade_cast_destroy(cast);
}

BOOST_AUTO_TEST_CASE(modules_that_cannot_run_in_place_say_why)
{
    const blade_shape shape = blade_shape_aftp(2, 3, 16, 2);
    const int64_t count = blade_shape_count(&shape);
    std::vector<uint8_t> memory(static_cast<size_t>(count) * 8 * 8);
    void* base = memory.data();

    // a widening cast: ci8 -> cf32 would overwrite samples still to be read
    blade_cast* cast = nullptr;
    const blade_cast_config widen = { BLADE_CI8, BLADE_CF32 };
    ok(blade_cast_create(&cast, &widen, &shape, cpu), "create");
    blade_tensor ci8 = blade_tensor_make(BLADE_CI8, &shape, cpu, base);
    blade_tensor cf32 = blade_tensor_make(BLADE_CF32, &shape, cpu, base);
    std::string message = refusal(blade_cast_process(cast, &ci8, &cf32, nullptr));
    BOOST_TEST(says(message, "cast: input and output are the same memory"));
    BOOST_TEST(says(message, "ci8 has 16 bits per element, cf32 64"));
    blade_cast_destroy(cast);

    // detector: power written over voltages
    blade_detector* detector = nullptr;
    const blade_detector_config detection = { BLADE_DETECT_I, 1 };
    ok(blade_detector_create(&detector, &detection, &shape, cpu), "create");
    const blade_shape power_shape = blade_detector_output_shape(detector);
    blade_tensor power = blade_tensor_make(BLADE_F32, &power_shape, cpu, base);
    message = refusal(blade_detector_process(detector, &cf32, &power, nullptr));
    BOOST_TEST(says(message, "detector: input and output are the same memory"));
    BOOST_TEST(says(message, "cannot run in place"));
    blade_detector_destroy(detector);

    // gather: the long chunk starting where its input lies
    blade_gather* gather = nullptr;
    const blade_gather_config along_time = { BLADE_CF32, 2, 4 };
    ok(blade_gather_create(&gather, &along_time, &shape, cpu), "create");
    const blade_shape long_shape = blade_gather_output_shape(gather);
    blade_tensor long_chunk = blade_tensor_make(BLADE_CF32, &long_shape, cpu, base);
    message = refusal(blade_gather_process(gather, &cf32, 0, &long_chunk, nullptr));
    BOOST_TEST(says(message, "gather: input and output are the same memory"));
    blade_gather_destroy(gather);

    // channelizer: T = 16 > N = 4 interleaves a row's spectra over the whole row
    blade_channelizer* channelizer = nullptr;
    blade_channelizer_config four = { BLADE_CF32, BLADE_CF32, 4, 1 };
    ok(blade_channelizer_create(&channelizer, &four, &shape, cpu), "create");
    blade_shape fine = blade_channelizer_output_shape(channelizer);
    blade_tensor spectra = blade_tensor_make(BLADE_CF32, &fine, cpu, base);
    message = refusal(blade_channelizer_process(channelizer, &cf32, &spectra, nullptr));
    BOOST_TEST(says(message, "channelizer: input and output are the same memory"));
    BOOST_TEST(says(message, "T = 16, N = 4"));
    blade_channelizer_destroy(channelizer);

    // channelizer changing the type: cf32 in, cf16 out, even with T = N
    blade_channelizer_config narrowing = { BLADE_CF32, BLADE_CF16, 16, 1 };
    ok(blade_channelizer_create(&channelizer, &narrowing, &shape, cpu), "create");
    fine = blade_channelizer_output_shape(channelizer);
    blade_tensor half = blade_tensor_make(BLADE_CF16, &fine, cpu, base);
    message = refusal(blade_channelizer_process(channelizer, &cf32, &half, nullptr));
    BOOST_TEST(says(message, "only when it keeps the type (cf32 in, cf16 out)"));
    blade_channelizer_destroy(channelizer);
}
