// SPDX-License-Identifier: MIT
// Element types, shapes, item sizes and the error channel of the core.
#define BOOST_TEST_MODULE tensor
#include <boost/test/unit_test.hpp>

#include <blade/blade.h>

#include <string>

BOOST_AUTO_TEST_CASE(dtype_sizes_and_names)
{
    BOOST_TEST(blade_dtype_bits(BLADE_CI4) == 8u);
    BOOST_TEST(blade_dtype_bits(BLADE_CI8) == 16u);
    BOOST_TEST(blade_dtype_bits(BLADE_CI16) == 32u);
    BOOST_TEST(blade_dtype_bits(BLADE_CF16) == 32u);
    BOOST_TEST(blade_dtype_bits(BLADE_CF32) == 64u);
    BOOST_TEST(blade_dtype_bits(BLADE_CF64) == 128u);
    BOOST_TEST(blade_dtype_bits(BLADE_F16) == 16u);
    BOOST_TEST(blade_dtype_bits(BLADE_F32) == 32u);
    BOOST_TEST(blade_dtype_bits(BLADE_F64) == 64u);
    BOOST_TEST(blade_dtype_is_complex(BLADE_CI4));
    BOOST_TEST(!blade_dtype_is_complex(BLADE_F32));
    BOOST_TEST(blade_dtype_is_integer(BLADE_CI16));
    BOOST_TEST(!blade_dtype_is_integer(BLADE_CF16));
    for (int i = 0; i < BLADE_DTYPE_COUNT; i++) {
        blade_dtype parsed;
        const blade_dtype type = static_cast<blade_dtype>(i);
        BOOST_TEST(blade_dtype_parse(blade_dtype_name(type), &parsed) == BLADE_OK);
        BOOST_TEST(parsed == type);
    }
    blade_dtype upper;
    BOOST_TEST(blade_dtype_parse("CF32", &upper) == BLADE_OK);
    BOOST_TEST(upper == BLADE_CF32);
}

BOOST_AUTO_TEST_CASE(unknown_dtype_names_the_accepted_ones)
{
    blade_dtype parsed;
    BOOST_TEST(blade_dtype_parse("ci9", &parsed) == BLADE_ERROR_INVALID_ARGUMENT);
    const std::string message = blade_last_error();
    BOOST_TEST(message.find("'ci9'") != std::string::npos);
    BOOST_TEST(message.find("cf32") != std::string::npos);
    BOOST_TEST(blade_dtype_parse(nullptr, &parsed) == BLADE_ERROR_INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(shape_count_format_and_equality)
{
    const blade_shape ata = blade_shape_aftp(20, 192, 8192, 2);
    BOOST_TEST(ata.rank == 4);
    BOOST_TEST(blade_shape_count(&ata) == 20LL * 192 * 8192 * 2);
    char text[64];
    BOOST_TEST(std::string(blade_shape_format(&ata, text, sizeof text)) == "[20, 192, 8192, 2]");
    const int64_t dims[5] = { 3, 20, 192, 1, 2 };
    blade_shape phasors;
    BOOST_TEST(blade_shape_make(dims, 5, &phasors) == BLADE_OK);
    BOOST_TEST(blade_shape_count(&phasors) == 3LL * 20 * 192 * 2);
    BOOST_TEST(!blade_shape_equal(&ata, &phasors));
    blade_shape same = blade_shape_aftp(20, 192, 8192, 2);
    BOOST_TEST(blade_shape_equal(&ata, &same));
    // A tiny buffer is truncated, never overrun.
    char tiny[4];
    blade_shape_format(&ata, tiny, sizeof tiny);
    BOOST_TEST(std::string(tiny) == "[20");
}

BOOST_AUTO_TEST_CASE(bad_shapes_are_rejected_with_the_reason)
{
    blade_shape shape;
    const int64_t six[6] = { 1, 1, 1, 1, 1, 1 };
    BOOST_TEST(blade_shape_make(six, 6, &shape) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("rank 6") != std::string::npos);
    BOOST_TEST(blade_shape_make(six, 0, &shape) == BLADE_ERROR_INVALID_ARGUMENT);
    const int64_t zero[4] = { 2, 0, 8, 2 };
    BOOST_TEST(blade_shape_make(zero, 4, &shape) == BLADE_ERROR_INVALID_ARGUMENT);
    const std::string message = blade_last_error();
    BOOST_TEST(message.find("[2, 0, 8, 2]") != std::string::npos);
    BOOST_TEST(message.find("axis 1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(item_sizes_are_padded_to_4096_bytes)
{
    const blade_shape one = blade_shape_aftp(1, 1, 1, 1);
    BOOST_TEST(blade_item_size(BLADE_CI8, &one) == 4096u);
    const blade_shape exact = blade_shape_aftp(1, 1, 256, 2); // 512 cf32 = 4096 bytes
    BOOST_TEST(blade_tensor_bytes(BLADE_CF32, &exact) == 4096u);
    BOOST_TEST(blade_item_size(BLADE_CF32, &exact) == 4096u);
    const blade_shape over = blade_shape_aftp(1, 1, 257, 2);
    BOOST_TEST(blade_item_size(BLADE_CF32, &over) == 8192u);
    const blade_shape ata = blade_shape_aftp(28, 192, 8192, 2);
    BOOST_TEST(blade_item_size(BLADE_CI8, &ata) == 28u * 192 * 8192 * 2 * 2);
    const blade_shape odd = blade_shape_aftp(3, 5, 7, 1); // ci4: 105 bytes
    BOOST_TEST(blade_tensor_bytes(BLADE_CI4, &odd) == 105u);
}

BOOST_AUTO_TEST_CASE(errors_are_per_thread_and_clearable)
{
    blade_dtype parsed;
    blade_dtype_parse("nope", &parsed);
    BOOST_TEST(std::string(blade_last_error()) != "");
    blade_clear_error();
    BOOST_TEST(std::string(blade_last_error()) == "");
    BOOST_TEST(std::string(blade_status_name(BLADE_ERROR_OUT_OF_MEMORY)) == "out of memory");
    BOOST_TEST(std::string(blade_version()) == BLADE_VERSION_STRING);
}
