// SPDX-License-Identifier: MIT
// Duplicate on CUDA: every copy equals the input byte for byte, at the benchmark
// size, with 1, 2, 3 and 9 copies (more than one fan-out launch), odd byte counts
// (the 16-byte vector tail) and misaligned pointers. Exits 77 without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cstdio>
#include <vector>

using blade_test::ok;

namespace {

blade_device gpu() { return blade_device{ BLADE_DEVICE_CUDA, 0 }; }

void check_copies(
    blade_dtype dtype, const blade_shape& shape, int copies, uint32_t seed, size_t offset = 0)
{
    const size_t bytes = blade_tensor_bytes(dtype, &shape);
    const auto input = blade_test::random_elements(dtype, blade_shape_count(&shape), seed);
    blade_duplicate* plan;
    const blade_duplicate_config config = { dtype, copies };
    ok(blade_duplicate_create(&plan, &config, &shape, gpu()), "create");
    blade_stream stream;
    ok(blade_stream_create(gpu(), &stream), "stream");
    void* d_in;
    ok(blade_device_alloc(gpu(), bytes + offset, &d_in), "alloc");
    char* in_ptr = static_cast<char*>(d_in) + offset;
    ok(blade_memcpy(gpu(), in_ptr, input.data(), bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
       "upload");
    std::vector<void*> d_out(copies);
    std::vector<blade_tensor> outputs;
    const std::vector<uint8_t> poison(bytes, 0xA5);
    for (int c = 0; c < copies; c++) {
        ok(blade_device_alloc(gpu(), bytes + offset, &d_out[c]), "alloc");
        char* out_ptr = static_cast<char*>(d_out[c]) + (c % 2 ? 0 : offset);
        ok(blade_memcpy(gpu(), out_ptr, poison.data(), bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "poison");
        outputs.push_back(blade_tensor_make(dtype, &shape, gpu(), out_ptr));
    }
    blade_tensor in = blade_tensor_make(dtype, &shape, gpu(), in_ptr);
    ok(blade_duplicate_process(plan, &in, outputs.data(), copies, stream), "process");
    for (int c = 0; c < copies; c++) {
        std::vector<uint8_t> got(bytes);
        ok(blade_memcpy(
               gpu(), got.data(), outputs[c].data, bytes, BLADE_COPY_DEVICE_TO_HOST, stream),
           "download");
        ok(blade_stream_synchronize(gpu(), stream), "sync");
        BOOST_TEST((got == input), "copy " << c << " of " << copies << ", offset " << offset);
        blade_device_free(gpu(), d_out[c]);
    }
    std::vector<uint8_t> source(bytes);
    ok(blade_memcpy(gpu(), source.data(), in_ptr, bytes, BLADE_COPY_DEVICE_TO_HOST, stream),
       "download");
    ok(blade_stream_synchronize(gpu(), stream), "sync");
    BOOST_TEST((source == input)); // the input is only read
    blade_device_free(gpu(), d_in);
    blade_stream_destroy(gpu(), stream);
    blade_duplicate_destroy(plan);
}

} // namespace

BOOST_AUTO_TEST_CASE(benchmark_size)
{
    const blade_shape shape = blade_shape_aftp(20, 192, 8192, 2);
    for (int copies : { 1, 2, 3 })
        check_copies(BLADE_CF32, shape, copies, copies);
}

BOOST_AUTO_TEST_CASE(more_copies_than_one_launch_writes)
{
    check_copies(BLADE_CF32, blade_shape_aftp(2, 192, 8192, 2), 9, 4);
}

BOOST_AUTO_TEST_CASE(odd_sizes_and_every_type)
{
    for (int type = 0; type < BLADE_DTYPE_COUNT; type++)
        for (int copies : { 1, 2, 5 }) {
            check_copies(
                static_cast<blade_dtype>(type), blade_shape_aftp(1, 1, 1, 1), copies, 10 + type);
            check_copies(
                static_cast<blade_dtype>(type), blade_shape_aftp(3, 7, 1001, 1), copies, 20 + type);
        }
}

BOOST_AUTO_TEST_CASE(misaligned_pointers)
{
    for (size_t offset : { 1, 4, 8 })
        check_copies(BLADE_CI8, blade_shape_aftp(2, 3, 4099, 2), 3, 30, offset);
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
