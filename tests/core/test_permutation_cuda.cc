// SPDX-License-Identifier: MIT
// Permutation on CUDA must give exactly the CPU's bytes (it moves bits, no
// arithmetic): every permutation of 4 axes at the benchmark size, every element type
// and 5-D shapes at edge sizes, the tiny-tile and row paths, misaligned pointers and
// more than 2^31 elements. Exits 77 (skipped) without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using blade_test::make_shape;
using blade_test::ok;

namespace {

blade_device gpu() { return blade_device{ BLADE_DEVICE_CUDA, 0 }; }

// Permute on `device`; offsets shift the device pointers off their 256-byte alignment.
std::vector<uint8_t> permute_on(blade_device device,
                                blade_dtype dtype,
                                const blade_shape& shape,
                                const std::vector<int>& axes,
                                const std::vector<uint8_t>& input,
                                size_t in_offset = 0,
                                size_t out_offset = 0)
{
    blade_permutation_config config = { dtype, static_cast<int>(axes.size()), {} };
    std::copy(axes.begin(), axes.end(), config.axes);
    blade_permutation* plan;
    ok(blade_permutation_create(&plan, &config, &shape, device), "create");
    const blade_shape out_shape = blade_permutation_output_shape(plan);
    const size_t bytes = input.size();
    std::vector<uint8_t> output(bytes, 0xA5); // poison: every byte must be written
    if (device.kind == BLADE_DEVICE_CUDA) {
        void *d_in = nullptr, *d_out = nullptr;
        blade_stream stream = nullptr;
        ok(blade_stream_create(device, &stream), "stream");
        ok(blade_device_alloc(device, bytes + in_offset, &d_in), "alloc in");
        ok(blade_device_alloc(device, bytes + out_offset, &d_out), "alloc out");
        char* in_ptr = static_cast<char*>(d_in) + in_offset;
        char* out_ptr = static_cast<char*>(d_out) + out_offset;
        ok(blade_memcpy(device, in_ptr, input.data(), bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "upload");
        ok(blade_memcpy(device, out_ptr, output.data(), bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "poison");
        blade_tensor in = blade_tensor_make(dtype, &shape, device, in_ptr);
        blade_tensor out = blade_tensor_make(dtype, &out_shape, device, out_ptr);
        ok(blade_permutation_process(plan, &in, &out, stream), "process");
        ok(blade_memcpy(device, output.data(), out_ptr, bytes, BLADE_COPY_DEVICE_TO_HOST, stream),
           "download");
        ok(blade_stream_synchronize(device, stream), "sync");
        blade_device_free(device, d_in);
        blade_device_free(device, d_out);
        blade_stream_destroy(device, stream);
    } else {
        blade_tensor in =
            blade_tensor_make(dtype, &shape, device, const_cast<uint8_t*>(input.data()));
        blade_tensor out = blade_tensor_make(dtype, &out_shape, device, output.data());
        ok(blade_permutation_process(plan, &in, &out, nullptr), "process");
    }
    blade_permutation_destroy(plan);
    return output;
}

void check_parity(blade_dtype dtype,
                  const std::vector<int64_t>& dims,
                  const std::vector<int>& axes,
                  uint32_t seed,
                  size_t in_offset = 0,
                  size_t out_offset = 0)
{
    const blade_shape shape = make_shape(dims);
    const auto input = blade_test::random_elements(dtype, blade_shape_count(&shape), seed);
    const auto cpu = permute_on(blade_device_cpu(), dtype, shape, axes, input);
    const auto cuda = permute_on(gpu(), dtype, shape, axes, input, in_offset, out_offset);
    size_t first = cpu.size();
    for (size_t i = 0; i < cpu.size(); i++)
        if (cpu[i] != cuda[i]) {
            first = i;
            break;
        }
    std::string axes_text;
    for (int axis : axes)
        axes_text += std::to_string(axis) + " ";
    char text[128];
    BOOST_TEST(first == cpu.size(),
               blade_dtype_name(dtype) << " " << blade_shape_format(&shape, text, sizeof text)
                                       << " axes " << axes_text << "offsets " << in_offset << "/"
                                       << out_offset << ": first differing byte " << first);
}

} // namespace

BOOST_AUTO_TEST_CASE(every_permutation_of_four_axes_at_benchmark_size)
{
    std::vector<int> axes = { 0, 1, 2, 3 };
    uint32_t seed = 1;
    do
        check_parity(BLADE_CF32, { 2, 192, 8192, 2 }, axes, seed++);
    while (std::next_permutation(axes.begin(), axes.end()));
}

BOOST_AUTO_TEST_CASE(every_type_every_permutation_at_odd_sizes)
{
    uint32_t seed = 100;
    for (int type = 0; type < BLADE_DTYPE_COUNT; type++) {
        std::vector<int> axes = { 0, 1, 2, 3 };
        do {
            check_parity(static_cast<blade_dtype>(type), { 3, 7, 129, 2 }, axes, seed++);
            check_parity(static_cast<blade_dtype>(type), { 2, 33, 65, 3 }, axes, seed++);
        } while (std::next_permutation(axes.begin(), axes.end()));
    }
}

BOOST_AUTO_TEST_CASE(every_permutation_of_five_axes)
{
    std::vector<int> axes = { 0, 1, 2, 3, 4 };
    uint32_t seed = 1000;
    do {
        check_parity(BLADE_CF32, { 3, 5, 2, 7, 4 }, axes, seed++);
        check_parity(BLADE_CI8, { 2, 37, 3, 41, 2 }, axes, seed++);
    } while (std::next_permutation(axes.begin(), axes.end()));
}

BOOST_AUTO_TEST_CASE(tile_shapes_and_kernels)
{
    // 2 x 512 tiles (P innermost), 512 x 2, tiny tiles (gather), rows of 24 and 48 bytes.
    check_parity(BLADE_CF32, { 4, 3, 8192, 2 }, { 0, 1, 3, 2 }, 1);
    check_parity(BLADE_CF32, { 4, 2, 8192, 1 }, { 0, 2, 1, 3 }, 2);
    check_parity(BLADE_CF32, { 1000, 3, 3, 1 }, { 0, 2, 1, 3 }, 3);
    check_parity(BLADE_CF32, { 5, 77, 301, 3 }, { 0, 2, 1, 3 }, 4);
    check_parity(BLADE_CF64, { 5, 77, 301, 3 }, { 0, 2, 1, 3 }, 5);
    check_parity(BLADE_CI4, { 16, 192, 8192, 2 }, { 0, 2, 3, 1 }, 6);
    check_parity(BLADE_CI8, { 16, 192, 8192, 2 }, { 0, 2, 1, 3 }, 7);
}

BOOST_AUTO_TEST_CASE(misaligned_pointers)
{
    for (size_t offset : { 1, 2, 4, 8, 12 }) {
        check_parity(BLADE_CF32, { 2, 19, 130, 2 }, { 0, 2, 3, 1 }, 10, offset, 0);
        check_parity(BLADE_CF32, { 2, 19, 130, 2 }, { 0, 2, 1, 3 }, 11, 0, offset);
        check_parity(BLADE_CI16, { 2, 19, 130, 2 }, { 3, 1, 2, 0 }, 12, offset, offset);
    }
}

BOOST_AUTO_TEST_CASE(more_than_two_to_the_31_elements)
{
    // 2.15e9 one-byte elements (64-bit index paths of both kernels): rows of 3 bytes
    // (gather) and a transpose (tiles).
    check_parity(BLADE_CI4, { 1, 1024, 700000, 3 }, { 0, 2, 1, 3 }, 20);
    check_parity(BLADE_CI4, { 1, 3, 716000000, 1 }, { 0, 2, 1, 3 }, 21);
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
