// SPDX-License-Identifier: MIT
// Permutation on the CPU: hand-worked transposes, every permutation of 4 and 5 axes
// against the definition (numpy.transpose), identity, and validation messages.
#define BOOST_TEST_MODULE permutation
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

using blade_test::make_shape;
using blade_test::ok;

namespace {

// Output of numpy.transpose(x, axes), written from the definition: output element
// (i0, i1, ...) is input element j with j[axes[k]] = ik.
std::vector<uint8_t> reference(const std::vector<uint8_t>& input,
                               const blade_shape& shape,
                               const std::vector<int>& axes,
                               size_t element)
{
    const int rank = shape.rank;
    std::vector<int64_t> in_strides(rank, 1);
    for (int k = rank - 2; k >= 0; k--)
        in_strides[k] = in_strides[k + 1] * shape.dims[k + 1];
    std::vector<int64_t> out_dims(rank);
    for (int k = 0; k < rank; k++)
        out_dims[k] = shape.dims[axes[k]];
    const int64_t count = blade_shape_count(&shape);
    std::vector<uint8_t> output(input.size());
    std::vector<int64_t> index(rank, 0); // output multi-index
    for (int64_t o = 0; o < count; o++) {
        int64_t source = 0;
        for (int k = 0; k < rank; k++)
            source += index[k] * in_strides[axes[k]];
        std::copy_n(input.begin() + source * element, element, output.begin() + o * element);
        for (int k = rank - 1; k >= 0; k--) {
            if (++index[k] < out_dims[k])
                break;
            index[k] = 0;
        }
    }
    return output;
}

std::vector<uint8_t> permute(blade_dtype dtype,
                             const blade_shape& shape,
                             const std::vector<int>& axes,
                             const std::vector<uint8_t>& input,
                             size_t in_offset = 0,
                             size_t out_offset = 0)
{
    blade_permutation_config config = { dtype, static_cast<int>(axes.size()), {} };
    std::copy(axes.begin(), axes.end(), config.axes);
    blade_permutation* plan;
    ok(blade_permutation_create(&plan, &config, &shape, blade_device_cpu()), "create");
    const blade_shape out_shape = blade_permutation_output_shape(plan);
    // Offsets let a test hand the plan pointers of any alignment; the output's counts
    // from a 64-byte boundary (the streamed transposes' alignment).
    std::vector<uint8_t> in_buffer(input.size() + in_offset);
    std::copy(input.begin(), input.end(), in_buffer.begin() + in_offset);
    std::vector<uint8_t> out_buffer(input.size() + out_offset + 64, 0xA5); // poison
    const size_t aligned = (64 - reinterpret_cast<uintptr_t>(out_buffer.data()) % 64) % 64;
    uint8_t* out_data = out_buffer.data() + aligned + out_offset;
    blade_tensor in =
        blade_tensor_make(dtype, &shape, blade_device_cpu(), in_buffer.data() + in_offset);
    blade_tensor out = blade_tensor_make(dtype, &out_shape, blade_device_cpu(), out_data);
    ok(blade_permutation_process(plan, &in, &out, nullptr), "process");
    blade_permutation_destroy(plan);
    return std::vector<uint8_t>(out_data, out_data + input.size());
}

void check_against_reference(blade_dtype dtype,
                             const std::vector<int64_t>& dims,
                             const std::vector<int>& axes,
                             uint32_t seed)
{
    const blade_shape shape = make_shape(dims);
    const auto input = blade_test::random_elements(dtype, blade_shape_count(&shape), seed);
    const auto got = permute(dtype, shape, axes, input);
    const auto expected = reference(input, shape, axes, blade_dtype_size(dtype));
    std::string axes_text;
    for (int axis : axes)
        axes_text += std::to_string(axis) + " ";
    char text[128];
    BOOST_TEST((got == expected),
               blade_dtype_name(dtype) << " " << blade_shape_format(&shape, text, sizeof text)
                                       << " axes " << axes_text);
}

blade_status
try_create(blade_dtype dtype, const std::vector<int64_t>& dims, int naxes, std::vector<int> axes)
{
    const blade_shape shape = make_shape(dims);
    blade_permutation_config config = { dtype, naxes, {} };
    std::copy(axes.begin(), axes.end(), config.axes);
    blade_permutation* plan = nullptr;
    const blade_status status =
        blade_permutation_create(&plan, &config, &shape, blade_device_cpu());
    blade_permutation_destroy(plan);
    return status;
}

bool error_mentions(const std::string& text)
{
    return std::string(blade_last_error()).find(text) != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(two_by_three_transpose_by_hand)
{
    // [[0, 1, 2], [3, 4, 5]] -> [[0, 3], [1, 4], [2, 5]]
    const float in[6] = { 0, 1, 2, 3, 4, 5 };
    const blade_shape shape = make_shape({ 2, 3 });
    std::vector<uint8_t> bytes(reinterpret_cast<const uint8_t*>(in),
                               reinterpret_cast<const uint8_t*>(in) + sizeof in);
    const auto out = permute(BLADE_F32, shape, { 1, 0 }, bytes);
    const float* values = reinterpret_cast<const float*>(out.data());
    const float expected[6] = { 0, 3, 1, 4, 2, 5 };
    for (int i = 0; i < 6; i++)
        BOOST_TEST(values[i] == expected[i]);
}

BOOST_AUTO_TEST_CASE(aftp_to_atfp_and_atpf_by_hand)
{
    // A=1, F=2, T=3, P=2 with element value = 1000*f + 10*t + p (real part), so every
    // output element names where it came from.
    const blade_shape shape = blade_shape_aftp(1, 2, 3, 2);
    std::vector<float> in;
    for (int f = 0; f < 2; f++)
        for (int t = 0; t < 3; t++)
            for (int p = 0; p < 2; p++) {
                in.push_back(1000.0f * f + 10.0f * t + p);
                in.push_back(-1.0f); // imaginary part
            }
    std::vector<uint8_t> bytes(reinterpret_cast<uint8_t*>(in.data()),
                               reinterpret_cast<uint8_t*>(in.data()) + in.size() * sizeof(float));

    // ATFP: [1, 3, 2, 2], order t, f, p.
    auto out = permute(BLADE_CF32, shape, { 0, 2, 1, 3 }, bytes);
    const float* v = reinterpret_cast<const float*>(out.data());
    const float atfp[12] = { 0, 1, 1000, 1001, 10, 11, 1010, 1011, 20, 21, 1020, 1021 };
    for (int i = 0; i < 12; i++) {
        BOOST_TEST(v[2 * i] == atfp[i]);
        BOOST_TEST(v[2 * i + 1] == -1.0f);
    }
    // ATPF: [1, 3, 2, 2], order t, p, f.
    out = permute(BLADE_CF32, shape, { 0, 2, 3, 1 }, bytes);
    v = reinterpret_cast<const float*>(out.data());
    const float atpf[12] = { 0, 1000, 1, 1001, 10, 1010, 11, 1011, 20, 1020, 21, 1021 };
    for (int i = 0; i < 12; i++)
        BOOST_TEST(v[2 * i] == atpf[i]);
    // AFPT: [1, 2, 2, 3], order f, p, t.
    out = permute(BLADE_CF32, shape, { 0, 1, 3, 2 }, bytes);
    v = reinterpret_cast<const float*>(out.data());
    const float afpt[12] = { 0, 10, 20, 1, 11, 21, 1000, 1010, 1020, 1001, 1011, 1021 };
    for (int i = 0; i < 12; i++)
        BOOST_TEST(v[2 * i] == afpt[i]);
}

BOOST_AUTO_TEST_CASE(five_axes_reversed_by_hand)
{
    // [2, 1, 2, 1, 2] reversed -> [2, 1, 2, 1, 2]; x[i, 0, j, 0, k] = 4i + 2j + k moves
    // to y[k, 0, j, 0, i], i.e. y flat = 4k + 2j + i.
    const blade_shape shape = make_shape({ 2, 1, 2, 1, 2 });
    std::vector<uint8_t> in(8);
    std::iota(in.begin(), in.end(), 0);
    const auto out = permute(BLADE_CI4, shape, { 4, 3, 2, 1, 0 }, in);
    const uint8_t expected[8] = { 0, 4, 2, 6, 1, 5, 3, 7 };
    for (int i = 0; i < 8; i++)
        BOOST_TEST(out[i] == expected[i]);
}

BOOST_AUTO_TEST_CASE(output_shape_follows_the_axes)
{
    const blade_shape shape = blade_shape_aftp(2, 192, 8192, 2);
    blade_permutation_config config = { BLADE_CF32, 4, { 0, 2, 3, 1 } };
    blade_permutation* plan;
    ok(blade_permutation_create(&plan, &config, &shape, blade_device_cpu()), "create");
    const blade_shape out = blade_permutation_output_shape(plan);
    BOOST_TEST(out.rank == 4);
    BOOST_TEST(out.dims[0] == 2);
    BOOST_TEST(out.dims[1] == 8192);
    BOOST_TEST(out.dims[2] == 2);
    BOOST_TEST(out.dims[3] == 192);
    BOOST_TEST(!blade_permutation_is_identity(plan));
    blade_permutation_destroy(plan);
}

BOOST_AUTO_TEST_CASE(every_permutation_of_four_axes_every_type)
{
    // Odd extents; P = 2 and P = 1 (the extent-1 axis is dropped by the reduction).
    uint32_t seed = 1;
    for (const auto& dims :
         { std::vector<int64_t>{ 3, 5, 7, 2 }, std::vector<int64_t>{ 2, 7, 33, 1 } }) {
        std::vector<int> axes = { 0, 1, 2, 3 };
        do {
            for (int type = 0; type < BLADE_DTYPE_COUNT; type++)
                check_against_reference(static_cast<blade_dtype>(type), dims, axes, seed++);
        } while (std::next_permutation(axes.begin(), axes.end()));
    }
}

BOOST_AUTO_TEST_CASE(every_permutation_of_five_axes)
{
    uint32_t seed = 100;
    std::vector<int> axes = { 0, 1, 2, 3, 4 };
    do {
        check_against_reference(BLADE_CF32, { 3, 2, 5, 1, 4 }, axes, seed++);
        check_against_reference(BLADE_CI8, { 2, 3, 2, 5, 3 }, axes, seed++);
    } while (std::next_permutation(axes.begin(), axes.end()));
}

BOOST_AUTO_TEST_CASE(large_tiles_and_ragged_edges)
{
    // Extents that are not multiples of the 32 x 32 tile, large enough for threads.
    check_against_reference(BLADE_CF32, { 2, 67, 1031, 2 }, { 0, 2, 3, 1 }, 7);
    check_against_reference(BLADE_CF32, { 2, 67, 1031, 2 }, { 0, 2, 1, 3 }, 8);
    check_against_reference(BLADE_CI8, { 3, 129, 257, 2 }, { 3, 0, 2, 1 }, 9);
    check_against_reference(BLADE_CF64, { 2, 33, 65, 3 }, { 0, 2, 1, 3 }, 10);   // rows of 48 bytes
    check_against_reference(BLADE_CI4, { 1, 5, 100003, 1 }, { 0, 2, 1, 3 }, 11); // prime T
}

BOOST_AUTO_TEST_CASE(misaligned_pointers_give_the_same_result)
{
    const blade_shape shape = blade_shape_aftp(2, 5, 9, 2);
    const auto input = blade_test::random_elements(BLADE_CF32, blade_shape_count(&shape), 3);
    for (const std::vector<int>& axes :
         { std::vector<int>{ 0, 2, 1, 3 }, std::vector<int>{ 0, 2, 3, 1 } }) {
        const auto expected = reference(input, shape, axes, 8);
        for (size_t offset : { 1, 2, 4, 8 })
            BOOST_TEST((permute(BLADE_CF32, shape, axes, input, offset, 3) == expected));
    }
}

BOOST_AUTO_TEST_CASE(streamed_outputs_give_the_same_result)
{
    // Outputs of 64 MiB (transposes: 16 MiB) and more are written with streaming stores
    // (permutation_cpu.c: whole rows, and TILED's runs of 8- and 16-byte elements); a
    // size of 0 sends every permutation there. Output pointers 64-byte aligned (whole
    // blocks of a transpose then go through AVX-512 registers, cpu_transpose.h, where
    // the output rows are multiples of 64 bytes: extents 16, 24 and 40 here, with
    // tiles of 16 x 16 and ragged edges of 8 and 10), 16 past it (streamed runs), 8 past
    // it (an unaligned head before the streamed body) and 4 past it (8-byte elements
    // then take the ordinary path), odd extents (a run's unpaired last element), every
    // type.
    setenv("BLADE_STREAM_MIN_BYTES", "0", 1);
    uint32_t seed = 500;
    for (const auto& dims : { std::vector<int64_t>{ 3, 5, 7, 2 },
                              std::vector<int64_t>{ 2, 67, 131, 2 },
                              std::vector<int64_t>{ 2, 16, 24, 2 },
                              std::vector<int64_t>{ 3, 40, 26, 2 } }) {
        const blade_shape shape = make_shape(dims);
        std::vector<int> axes = { 0, 1, 2, 3 };
        do {
            for (int type = 0; type < BLADE_DTYPE_COUNT; type++) {
                const blade_dtype dtype = static_cast<blade_dtype>(type);
                const auto input =
                    blade_test::random_elements(dtype, blade_shape_count(&shape), seed++);
                const auto expected = reference(input, shape, axes, blade_dtype_size(dtype));
                for (size_t offset : { 0, 16, 8, 4 })
                    BOOST_TEST((permute(dtype, shape, axes, input, 0, offset) == expected),
                               blade_dtype_name(dtype) << " axes " << axes[0] << axes[1] << axes[2]
                                                       << axes[3] << " output offset " << offset);
            }
        } while (std::next_permutation(axes.begin(), axes.end()));
    }
    unsetenv("BLADE_STREAM_MIN_BYTES");
}

BOOST_AUTO_TEST_CASE(identity_is_a_pass_through)
{
    const blade_shape shape = blade_shape_aftp(3, 4, 5, 2);
    const auto input = blade_test::random_elements(BLADE_CI16, blade_shape_count(&shape), 4);
    BOOST_TEST((permute(BLADE_CI16, shape, { 0, 1, 2, 3 }, input) == input));

    // Moving only axes of extent 1 does not change the memory layout either.
    blade_permutation_config config = { BLADE_CF32, 4, { 1, 0, 3, 2 } };
    const blade_shape ones = blade_shape_aftp(1, 6, 1, 7);
    blade_permutation* plan;
    ok(blade_permutation_create(&plan, &config, &ones, blade_device_cpu()), "create");
    BOOST_TEST(blade_permutation_is_identity(plan));
    blade_permutation_destroy(plan);

    // In place, the identity does nothing and succeeds.
    config = { BLADE_CI16, 4, { 0, 1, 2, 3 } };
    ok(blade_permutation_create(&plan, &config, &shape, blade_device_cpu()), "create");
    BOOST_TEST(blade_permutation_is_identity(plan));
    std::vector<uint8_t> data = input;
    blade_tensor t = blade_tensor_make(BLADE_CI16, &shape, blade_device_cpu(), data.data());
    ok(blade_permutation_process(plan, &t, &t, nullptr), "in place");
    BOOST_TEST((data == input));
    blade_permutation_destroy(plan);
}

BOOST_AUTO_TEST_CASE(axes_that_are_not_a_permutation_are_rejected)
{
    BOOST_TEST(try_create(BLADE_CF32, { 2, 3, 4, 2 }, 4, { 0, 0, 1, 2 }) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("axes {0, 0, 1, 2} are not a permutation of 0..3"));
    BOOST_TEST(try_create(BLADE_CF32, { 2, 3, 4, 2 }, 4, { 0, 1, 2, 4 }) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("{0, 1, 2, 4}"));
    BOOST_TEST(try_create(BLADE_CF32, { 2, 3, 4, 2 }, 4, { -1, 1, 2, 3 }) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("{-1, 1, 2, 3}"));
}

BOOST_AUTO_TEST_CASE(wrong_number_of_axes_is_rejected)
{
    BOOST_TEST(try_create(BLADE_CF32, { 2, 3, 4, 2 }, 3, { 0, 2, 1 }) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("3 axes given for a tensor of rank 4 ([2, 3, 4, 2])"));
    BOOST_TEST(try_create(BLADE_CF32, { 2, 3 }, 4, { 0, 1, 2, 3 }) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("4 axes given for a tensor of rank 2"));
}

BOOST_AUTO_TEST_CASE(bad_type_shape_and_tensors_are_rejected)
{
    BOOST_TEST(try_create(static_cast<blade_dtype>(42), { 2, 3 }, 2, { 1, 0 }) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("unknown element type code 42"));
    blade_permutation* plan = nullptr;
    BOOST_TEST(blade_permutation_create(&plan, nullptr, nullptr, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(plan == nullptr);
    blade_shape bad = blade_shape_aftp(2, 0, 4, 2);
    blade_permutation_config config = { BLADE_CF32, 4, { 0, 2, 1, 3 } };
    BOOST_TEST(blade_permutation_create(&plan, &config, &bad, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);

    // process(): the output must have the permuted shape, and must not overlap.
    const blade_shape shape = blade_shape_aftp(2, 3, 4, 2);
    ok(blade_permutation_create(&plan, &config, &shape, blade_device_cpu()), "create");
    std::vector<uint8_t> a(blade_tensor_bytes(BLADE_CF32, &shape)), b(a.size());
    blade_tensor in = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), a.data());
    blade_tensor out = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), b.data());
    BOOST_TEST(blade_permutation_process(plan, &in, &out, nullptr) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions(
        "output tensor has shape [2, 3, 4, 2] but the plan was made for [2, 4, 3, 2]"));
    const blade_shape permuted = blade_permutation_output_shape(plan);
    out = blade_tensor_make(BLADE_CF32, &permuted, blade_device_cpu(), a.data() + 8);
    BOOST_TEST(blade_permutation_process(plan, &in, &out, nullptr) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(error_mentions("cannot run in place"));
    blade_permutation_destroy(plan);
}
