// SPDX-License-Identifier: MIT
// Duplicate on the CPU: every copy equals the input byte for byte, copies are
// independent memory, and bad configurations are rejected with clear messages.
#define BOOST_TEST_MODULE duplicate
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cstring>
#include <string>
#include <vector>

using blade_test::ok;

namespace {

struct plan {
    blade_duplicate* duplicate = nullptr;
    blade_shape shape;
    blade_dtype dtype;
    plan(blade_dtype type, blade_shape s, int copies) : shape(s), dtype(type)
    {
        const blade_duplicate_config config = { type, copies };
        ok(blade_duplicate_create(&duplicate, &config, &shape, blade_device_cpu()), "create");
    }
    ~plan() { blade_duplicate_destroy(duplicate); }
    blade_status run(std::vector<uint8_t>& input, std::vector<std::vector<uint8_t>>& outputs)
    {
        blade_tensor in = blade_tensor_make(dtype, &shape, blade_device_cpu(), input.data());
        std::vector<blade_tensor> out;
        for (auto& o : outputs)
            out.push_back(blade_tensor_make(dtype, &shape, blade_device_cpu(), o.data()));
        return blade_duplicate_process(
            duplicate, &in, out.data(), static_cast<int>(out.size()), nullptr);
    }
};

bool error_mentions(const std::string& text)
{
    return std::string(blade_last_error()).find(text) != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_copy_equals_the_input)
{
    for (int type = 0; type < BLADE_DTYPE_COUNT; type++) {
        const auto dtype = static_cast<blade_dtype>(type);
        const blade_shape shape = blade_shape_aftp(3, 5, 7, 2);
        auto input = blade_test::random_elements(dtype, blade_shape_count(&shape), type + 1);
        const auto original = input;
        std::vector<std::vector<uint8_t>> outputs(3, std::vector<uint8_t>(input.size(), 0xA5));
        plan p(dtype, shape, 3);
        ok(p.run(input, outputs), "process");
        for (const auto& out : outputs)
            BOOST_TEST((out == input), blade_dtype_name(dtype));
        BOOST_TEST((input == original)); // the input is only read
    }
}

BOOST_AUTO_TEST_CASE(copies_are_independent)
{
    const blade_shape shape = blade_shape_aftp(1, 2, 3, 2);
    auto input = blade_test::random_elements(BLADE_CF32, 12, 5);
    const auto original = input;
    std::vector<std::vector<uint8_t>> outputs(2, std::vector<uint8_t>(input.size()));
    plan p(BLADE_CF32, shape, 2);
    ok(p.run(input, outputs), "process");
    outputs[0][0] ^= 0xFF; // changing one copy changes nothing else
    BOOST_TEST((outputs[1] == original));
    BOOST_TEST((input == original));
}

BOOST_AUTO_TEST_CASE(large_tensors_split_across_threads)
{
    // 2.6 MB of ci8 (ten 256 KiB pieces plus a ragged end), one copy and five.
    const blade_shape shape = blade_shape_aftp(3, 7, 31001, 2);
    auto input = blade_test::random_elements(BLADE_CI8, blade_shape_count(&shape), 9);
    for (int copies : { 1, 5 }) {
        std::vector<std::vector<uint8_t>> outputs(copies, std::vector<uint8_t>(input.size(), 0));
        plan p(BLADE_CI8, shape, copies);
        ok(p.run(input, outputs), "process");
        for (const auto& out : outputs)
            BOOST_TEST((out == input));
    }
}

BOOST_AUTO_TEST_CASE(streamed_copies_equal_the_input)
{
    // Copies of 64 MiB and more in all are written with streaming stores
    // (duplicate_cpu.c); a size of 0 sends every copy there. Odd lengths (a tail after
    // the streamed body), ragged last pieces, and output buffers starting 1 and 8
    // bytes past a 16-byte boundary (an ordinary head first).
    setenv("BLADE_STREAM_MIN_BYTES", "0", 1);
    for (const blade_shape& shape :
         { blade_shape_aftp(1, 1, 9, 1), blade_shape_aftp(3, 7, 31001, 2) }) {
        auto input = blade_test::random_elements(BLADE_CI8, blade_shape_count(&shape), 11);
        for (int copies : { 1, 3 }) {
            plan p(BLADE_CI8, shape, copies);
            std::vector<std::vector<uint8_t>> storage(copies,
                                                      std::vector<uint8_t>(input.size() + 16, 0));
            for (size_t offset : { 0, 1, 8 }) {
                std::vector<void*> outputs;
                for (auto& buffer : storage)
                    outputs.push_back(buffer.data() + offset);
                blade_tensor in =
                    blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), input.data());
                std::vector<blade_tensor> out;
                for (void* data : outputs)
                    out.push_back(blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), data));
                ok(blade_duplicate_process(p.duplicate, &in, out.data(), copies, nullptr),
                   "process");
                for (void* data : outputs)
                    BOOST_TEST(std::memcmp(data, input.data(), input.size()) == 0,
                               "offset " << offset);
            }
        }
    }
    unsetenv("BLADE_STREAM_MIN_BYTES");
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_rejected)
{
    const blade_shape shape = blade_shape_aftp(1, 2, 3, 2);
    blade_duplicate* d = nullptr;
    blade_duplicate_config config = { BLADE_CF32, 0 };
    BOOST_TEST(blade_duplicate_create(&d, &config, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("copies must be 1 to 64, got 0"));
    config.copies = 65;
    BOOST_TEST(blade_duplicate_create(&d, &config, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    config = { static_cast<blade_dtype>(99), 2 };
    BOOST_TEST(blade_duplicate_create(&d, &config, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("unknown element type code 99"));
    BOOST_TEST(blade_duplicate_create(&d, nullptr, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(d == nullptr);
}

BOOST_AUTO_TEST_CASE(wrong_outputs_are_rejected)
{
    const blade_shape shape = blade_shape_aftp(1, 2, 3, 2);
    plan p(BLADE_CF32, shape, 2);
    std::vector<uint8_t> input(96);
    std::vector<std::vector<uint8_t>> three(3, std::vector<uint8_t>(96));
    BOOST_TEST(p.run(input, three) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("the plan writes 2 copies but 3 outputs were given"));

    // An output overlapping the input or another output would alias.
    std::vector<uint8_t> big(400);
    blade_tensor in = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), big.data());
    blade_tensor outs[2] = {
        blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), big.data() + 48),
        blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), big.data() + 200)
    };
    BOOST_TEST(blade_duplicate_process(p.duplicate, &in, outs, 2, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("output 0 overlaps the input"));
    outs[0].data = big.data() + 150;
    BOOST_TEST(blade_duplicate_process(p.duplicate, &in, outs, 2, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("outputs 0 and 1 overlap"));

    // Type mismatch.
    outs[0] = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), big.data() + 100);
    outs[1].data = big.data() + 300;
    BOOST_TEST(blade_duplicate_process(p.duplicate, &in, outs, 2, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("output tensor is ci8 but the plan was made for cf32"));
}
