// SPDX-License-Identifier: MIT
// Polarizer on CUDA gives exactly the CPU's bits (additions only: no rounding
// differences are possible), at edge and benchmark sizes, in place, on unaligned
// views, and as a pass-through. Exits 77 (skipped) without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "device_memory.h"


using blade_test::device_memory;
using blade_test::first_gpu;
using blade_test::ok;

namespace {

// Polarize `input` (cf32 bytes of `shape`) on `device`; `offset` bytes shift both
// tensors inside their allocations (to test unaligned views).
std::vector<uint8_t> polarize_on(blade_device device,
                                 const blade_shape& shape,
                                 const std::vector<uint8_t>& input,
                                 blade_basis basis = BLADE_BASIS_CIRCULAR,
                                 bool in_place = false,
                                 size_t offset = 0,
                                 blade_dtype type = BLADE_CF32)
{
    blade_polarizer* polarizer;
    const blade_polarizer_config config = { basis };
    ok(blade_polarizer_create(&polarizer, &config, &shape, device), "create");
    blade_stream stream = nullptr;
    ok(blade_stream_create(device, &stream), "stream");
    device_memory in(device, input.size() + offset), out(device, input.size() + offset);
    in.upload(input.data(), input.size(), offset);
    void* in_data = static_cast<char*>(in.data()) + offset;
    void* out_data = in_place ? in_data : static_cast<char*>(out.data()) + offset;
    blade_tensor a = blade_tensor_make(type, &shape, device, in_data);
    blade_tensor b = blade_tensor_make(type, &shape, device, out_data);
    ok(blade_polarizer_process(polarizer, &a, &b, stream), "process");
    ok(blade_stream_synchronize(device, stream), "sync");
    blade_stream_destroy(device, stream);
    blade_polarizer_destroy(polarizer);
    const auto all = (in_place ? in : out).download();
    return std::vector<uint8_t>(all.begin() + offset, all.end());
}

void check_parity(const blade_shape& shape, uint32_t seed)
{
    const auto input = blade_test::random_cf32(blade_shape_count(&shape), seed);
    const auto cpu = polarize_on(blade_device_cpu(), shape, input);
    char text[64];
    BOOST_TEST((polarize_on(first_gpu(), shape, input) == cpu),
               blade_shape_format(&shape, text, sizeof text));
    BOOST_TEST((polarize_on(first_gpu(), shape, input, BLADE_BASIS_CIRCULAR, true) == cpu),
               "in place");
}

} // namespace

BOOST_AUTO_TEST_CASE(edge_shapes_match_the_cpu_bit_for_bit)
{
    // 1 pair, odd and prime extents, pair counts around the unrolled kernel's edges
    check_parity(blade_shape_aftp(1, 1, 1, 2), 1);
    check_parity(blade_shape_aftp(3, 7, 13, 2), 2);
    check_parity(blade_shape_aftp(1, 1, 1021, 2), 3);
    check_parity(blade_shape_aftp(2, 5, 104729, 2), 4);
}

BOOST_AUTO_TEST_CASE(benchmark_shape_matches_the_cpu)
{
    check_parity(blade_shape_aftp(16, 192, 8192, 2), 5);
}

BOOST_AUTO_TEST_CASE(unaligned_views_take_the_general_kernel)
{
    const blade_shape shape = blade_shape_aftp(1, 3, 333, 2);
    const auto input = blade_test::random_cf32(blade_shape_count(&shape), 6);
    const auto cpu = polarize_on(blade_device_cpu(), shape, input);
    BOOST_TEST((polarize_on(first_gpu(), shape, input, BLADE_BASIS_CIRCULAR, false, 8) == cpu));
    BOOST_TEST((polarize_on(first_gpu(), shape, input, BLADE_BASIS_CIRCULAR, false, 4) == cpu));
}

BOOST_AUTO_TEST_CASE(linear_basis_copies_the_input)
{
    const blade_shape shape = blade_shape_aftp(2, 3, 5, 2);
    const auto input = blade_test::random_cf32(blade_shape_count(&shape), 7);
    BOOST_TEST((polarize_on(first_gpu(), shape, input, BLADE_BASIS_LINEAR) == input));
    BOOST_TEST((polarize_on(first_gpu(), shape, input, BLADE_BASIS_LINEAR, true) == input));
}

BOOST_AUTO_TEST_CASE(half_pairs_match_the_cpu_bit_for_bit)
{
    // cf16: both backends widen to float, add, and round to half once.
    for (const blade_shape& shape : { blade_shape_aftp(1, 1, 1, 2),
                                      blade_shape_aftp(3, 7, 13, 2),
                                      blade_shape_aftp(2, 5, 104729, 2),
                                      blade_shape_aftp(16, 192, 8192, 2) }) {
        const auto input = blade_test::random_cf16(blade_shape_count(&shape), 8);
        const auto cpu = polarize_on(
            blade_device_cpu(), shape, input, BLADE_BASIS_CIRCULAR, false, 0, BLADE_CF16);
        char text[64];
        BOOST_TEST(
            (polarize_on(first_gpu(), shape, input, BLADE_BASIS_CIRCULAR, false, 0, BLADE_CF16) ==
             cpu),
            blade_shape_format(&shape, text, sizeof text));
        BOOST_TEST(
            (polarize_on(first_gpu(), shape, input, BLADE_BASIS_CIRCULAR, true, 0, BLADE_CF16) ==
             cpu),
            "in place");
        // 4 bytes off an 8-byte boundary: the one-__half2-at-a-time kernel
        BOOST_TEST(
            (polarize_on(first_gpu(), shape, input, BLADE_BASIS_CIRCULAR, false, 4, BLADE_CF16) ==
             cpu),
            "unaligned");
        BOOST_TEST(
            (polarize_on(first_gpu(), shape, input, BLADE_BASIS_LINEAR, false, 0, BLADE_CF16) ==
             input),
            "linear");
    }
}

bool init_unit_test() { return true; }

int main(int argc, char* argv[]) { return blade_test::gpu_suite_main(argc, argv, &init_unit_test); }
