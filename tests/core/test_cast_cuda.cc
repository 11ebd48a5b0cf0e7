// SPDX-License-Identifier: MIT
// Cast on CUDA must give exactly the CPU's bits, for every supported pair, at edge
// and benchmark sizes. Exits 77 (skipped) without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cstdio>

using blade_test::ok;

namespace {

blade_device gpu() { return blade_device{ BLADE_DEVICE_CUDA, 0 }; }

std::vector<uint8_t> cast_on(blade_device device,
                             blade_dtype from,
                             blade_dtype to,
                             const blade_shape& shape,
                             const std::vector<uint8_t>& input,
                             float scale = 0)
{
    blade_cast* cast;
    const blade_cast_config config = { from, to, scale };
    ok(blade_cast_create(&cast, &config, &shape, device), "create");
    const size_t in_bytes = blade_tensor_bytes(from, &shape);
    const size_t out_bytes = blade_tensor_bytes(to, &shape);
    std::vector<uint8_t> output(out_bytes, 0xA5); // poison: every byte must be written
    void *d_in = nullptr, *d_out = nullptr;
    blade_stream stream = nullptr;
    if (device.kind == BLADE_DEVICE_CUDA) {
        ok(blade_stream_create(device, &stream), "stream");
        ok(blade_device_alloc(device, in_bytes, &d_in), "alloc in");
        ok(blade_device_alloc(device, out_bytes, &d_out), "alloc out");
        ok(blade_memcpy(device, d_in, input.data(), in_bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "upload");
        ok(blade_memcpy(device, d_out, output.data(), out_bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "poison");
    } else {
        d_in = const_cast<uint8_t*>(input.data());
        d_out = output.data();
    }
    blade_tensor in = blade_tensor_make(from, &shape, device, d_in);
    blade_tensor out = blade_tensor_make(to, &shape, device, d_out);
    ok(blade_cast_process(cast, &in, &out, stream), "process");
    if (device.kind == BLADE_DEVICE_CUDA) {
        ok(blade_memcpy(device, output.data(), d_out, out_bytes, BLADE_COPY_DEVICE_TO_HOST, stream),
           "download");
        ok(blade_stream_synchronize(device, stream), "sync");
        blade_device_free(device, d_in);
        blade_device_free(device, d_out);
        blade_stream_destroy(device, stream);
    }
    blade_cast_destroy(cast);
    return output;
}

void check_parity(blade_dtype from, blade_dtype to, const blade_shape& shape, uint32_t seed)
{
    const auto input = blade_test::random_elements(from, blade_shape_count(&shape), seed);
    const auto cpu = cast_on(blade_device_cpu(), from, to, shape, input);
    const auto cuda = cast_on(gpu(), from, to, shape, input);
    size_t first = cpu.size();
    for (size_t i = 0; i < cpu.size(); i++)
        if (cpu[i] != cuda[i]) {
            first = i;
            break;
        }
    char text[64];
    BOOST_TEST(first == cpu.size(),
               blade_dtype_name(from) << " -> " << blade_dtype_name(to) << " "
                                      << blade_shape_format(&shape, text, sizeof text)
                                      << ": first differing byte " << first);
}

} // namespace

BOOST_AUTO_TEST_CASE(every_pair_matches_the_cpu_bit_for_bit)
{
    const blade_shape shapes[] = { blade_shape_aftp(1, 1, 1, 1),
                                   blade_shape_aftp(3, 7, 13, 2),
                                   blade_shape_aftp(2, 5, 1031, 1) };
    uint32_t seed = 1;
    for (int from = 0; from < BLADE_DTYPE_COUNT; from++)
        for (int to = 0; to < BLADE_DTYPE_COUNT; to++) {
            const auto a = static_cast<blade_dtype>(from), b = static_cast<blade_dtype>(to);
            if (!blade_cast_supported(a, b))
                continue;
            for (const auto& shape : shapes)
                check_parity(a, b, shape, seed++);
        }
}

BOOST_AUTO_TEST_CASE(ingest_path_at_benchmark_size)
{
    check_parity(BLADE_CI8, BLADE_CF32, blade_shape_aftp(16, 192, 8192, 2), 99);
    check_parity(BLADE_CI4, BLADE_CF32, blade_shape_aftp(2, 192, 8192, 2), 98);
    check_parity(BLADE_CF32, BLADE_CF16, blade_shape_aftp(2, 192, 8192, 2), 97);
}

BOOST_AUTO_TEST_CASE(misaligned_buffers_take_the_general_kernel)
{
    // The fast ci8 path needs aligned pointers; offset pointers must take the general kernel.
    const blade_shape shape = blade_shape_aftp(1, 1, 1000, 1);
    const auto input = blade_test::random_elements(BLADE_CI8, 1001, 5);
    const auto expected = cast_on(blade_device_cpu(),
                                  BLADE_CI8,
                                  BLADE_CF32,
                                  shape,
                                  std::vector<uint8_t>(input.begin() + 2, input.end()));
    blade_cast* cast;
    const blade_cast_config config = { BLADE_CI8, BLADE_CF32 };
    ok(blade_cast_create(&cast, &config, &shape, gpu()), "create");
    void *d_in, *d_out;
    ok(blade_device_alloc(gpu(), input.size(), &d_in), "alloc");
    ok(blade_device_alloc(gpu(), 8 * 1001, &d_out), "alloc");
    ok(blade_memcpy(gpu(), d_in, input.data(), input.size(), BLADE_COPY_HOST_TO_DEVICE, nullptr),
       "up");
    blade_tensor in = blade_tensor_make(BLADE_CI8, &shape, gpu(), static_cast<char*>(d_in) + 2);
    blade_tensor out = blade_tensor_make(BLADE_CF32, &shape, gpu(), static_cast<char*>(d_out) + 8);
    ok(blade_cast_process(cast, &in, &out, nullptr), "process");
    std::vector<uint8_t> result(8 * 1000);
    ok(blade_memcpy(gpu(),
                    result.data(),
                    static_cast<char*>(d_out) + 8,
                    result.size(),
                    BLADE_COPY_DEVICE_TO_HOST,
                    nullptr),
       "down");
    ok(blade_stream_synchronize(gpu(), nullptr), "sync");
    BOOST_TEST(result == expected);
    blade_device_free(gpu(), d_in);
    blade_device_free(gpu(), d_out);
    blade_cast_destroy(cast);
}

BOOST_AUTO_TEST_CASE(out_of_memory_names_the_size)
{
    void* pointer = nullptr;
    const size_t huge = size_t(1) << 50; // 1 PiB
    BOOST_TEST(blade_device_alloc(gpu(), huge, &pointer) == BLADE_ERROR_OUT_OF_MEMORY);
    BOOST_TEST(pointer == nullptr);
    BOOST_TEST(std::string(blade_last_error()).find("1125899906842624 bytes") != std::string::npos);
    // The device stays usable afterwards.
    check_parity(BLADE_CI8, BLADE_CF32, blade_shape_aftp(1, 1, 64, 2), 3);
}

BOOST_AUTO_TEST_CASE(scaled_casts_match_the_cpu)
{
    // The half-precision chain's ingest, ci8 -> cf16 times 2^-13 (the vector kernel,
    // an odd count for its tail), and general scales on every complex pair and a
    // real one: the CPU multiplies in float (double for reals) as the GPU does.
    for (float scale : { 0x1p-13f, 0x1p-20f, 0.3f, 3.0f }) {
        for (const blade_shape& shape : { blade_shape_aftp(1, 1, 1, 1),
                                          blade_shape_aftp(3, 7, 333, 1),
                                          blade_shape_aftp(2, 192, 8192, 2) }) {
            const auto input = blade_test::random_elements(BLADE_CI8, blade_shape_count(&shape), 7);
            BOOST_TEST((cast_on(gpu(), BLADE_CI8, BLADE_CF16, shape, input, scale) ==
                        cast_on(blade_device_cpu(), BLADE_CI8, BLADE_CF16, shape, input, scale)),
                       "ci8 -> cf16 x " << scale);
        }
        const blade_shape shape = blade_shape_aftp(2, 3, 129, 2);
        for (blade_dtype from : { BLADE_CI4, BLADE_CI8, BLADE_CI16, BLADE_CF16, BLADE_CF32 })
            for (blade_dtype to : { BLADE_CI8, BLADE_CF16, BLADE_CF32 }) {
                const auto input = blade_test::random_elements(from, blade_shape_count(&shape), 9);
                BOOST_TEST((cast_on(gpu(), from, to, shape, input, scale) ==
                            cast_on(blade_device_cpu(), from, to, shape, input, scale)),
                           blade_dtype_name(from)
                               << " -> " << blade_dtype_name(to) << " x " << scale);
            }
        const auto reals = blade_test::random_elements(BLADE_F64, 1000, 11);
        const blade_shape line = blade_shape_aftp(1, 1, 1000, 1);
        BOOST_TEST((cast_on(gpu(), BLADE_F64, BLADE_F16, line, reals, scale) ==
                    cast_on(blade_device_cpu(), BLADE_F64, BLADE_F16, line, reals, scale)));
    }
}

bool init_unit_test() { return true; }

int main(int argc, char* argv[])
{
    if (blade_gpu_count() == 0) {
        std::printf("no CUDA GPU: skipped\n");
        return 77;
    }
    return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
}
