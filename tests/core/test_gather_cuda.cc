// SPDX-License-Identifier: MIT
// Gather on CUDA gives exactly the CPU's bytes: every axis, element sizes of 1 to
// 16 bytes (all three copy units), rows shorter than a block, unaligned views, and
// the benchmark shape with distinct data per step. Exits 77 without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "device_memory.h"


using blade_test::device_memory;
using blade_test::first_gpu;
using blade_test::ok;

namespace {

// Gather M distinct chunks on `device`, steps placed in reverse order; `offset`
// shifts the output inside its allocation.
std::vector<uint8_t> gather_on(blade_device device,
                               blade_dtype dtype,
                               const blade_shape& shape,
                               int axis,
                               int64_t multiplier,
                               const std::vector<uint8_t>& chunks,
                               size_t offset = 0)
{
    blade_gather* gather;
    const blade_gather_config config = { dtype, axis, multiplier };
    ok(blade_gather_create(&gather, &config, &shape, device), "create");
    const blade_shape out_shape = blade_gather_output_shape(gather);
    const size_t in_bytes = blade_tensor_bytes(dtype, &shape);
    blade_stream stream = nullptr;
    ok(blade_stream_create(device, &stream), "stream");
    device_memory in(device, chunks.size() + offset),
        out(device, blade_tensor_bytes(dtype, &out_shape) + offset);
    in.upload(chunks.data(), chunks.size(), offset);
    blade_tensor b =
        blade_tensor_make(dtype, &out_shape, device, static_cast<char*>(out.data()) + offset);
    for (int64_t step = multiplier - 1; step >= 0; step--) {
        blade_tensor a = blade_tensor_make(
            dtype, &shape, device, static_cast<char*>(in.data()) + offset + step * in_bytes);
        ok(blade_gather_process(gather, &a, step, &b, stream), "process");
    }
    ok(blade_stream_synchronize(device, stream), "sync");
    blade_stream_destroy(device, stream);
    blade_gather_destroy(gather);
    const auto all = out.download();
    return std::vector<uint8_t>(all.begin() + offset, all.end());
}

void check_parity(blade_dtype dtype,
                  const blade_shape& shape,
                  int axis,
                  int64_t multiplier,
                  uint32_t seed,
                  size_t offset = 0)
{
    const auto chunks =
        blade_test::random_elements(dtype, blade_shape_count(&shape) * multiplier, seed);
    const auto cpu = gather_on(blade_device_cpu(), dtype, shape, axis, multiplier, chunks);
    const auto gpu = gather_on(first_gpu(), dtype, shape, axis, multiplier, chunks, offset);
    char text[64];
    BOOST_TEST((gpu == cpu),
               blade_dtype_name(dtype)
                   << " " << blade_shape_format(&shape, text, sizeof text) << " axis " << axis
                   << " x" << multiplier << " offset " << offset);
}

} // namespace

BOOST_AUTO_TEST_CASE(every_axis_and_element_size)
{
    uint32_t seed = 1;
    for (blade_dtype dtype : { BLADE_CI4, BLADE_CI8, BLADE_CF16, BLADE_CF32, BLADE_CF64 })
        for (int axis = 0; axis < 4; axis++) {
            check_parity(dtype, blade_shape_aftp(1, 1, 1, 1), axis, 3, seed++);
            check_parity(dtype, blade_shape_aftp(3, 7, 13, 2), axis, 4, seed++);
            check_parity(dtype, blade_shape_aftp(2, 5, 2053, 2), axis, 3, seed++); // long rows
        }
}

BOOST_AUTO_TEST_CASE(unaligned_views)
{
    check_parity(BLADE_CF32, blade_shape_aftp(2, 5, 2053, 2), 2, 3, 50, 4);
    check_parity(BLADE_CI8, blade_shape_aftp(2, 5, 2053, 2), 2, 3, 51, 1);
}

BOOST_AUTO_TEST_CASE(benchmark_shape_along_time)
{
    // [5, 192, 8192, 2] cf32 along T: 126 MB per step; 3 distinct steps.
    check_parity(BLADE_CF32, blade_shape_aftp(5, 192, 8192, 2), 2, 3, 60);
    // Mode BH's fp16 chain: cf16 beams gathered along T (4-byte elements)
    check_parity(BLADE_CF16, blade_shape_aftp(3, 192, 8192, 2), 2, 8, 61);
}

bool init_unit_test() { return true; }

int main(int argc, char* argv[]) { return blade_test::gpu_suite_main(argc, argv, &init_unit_test); }
