// SPDX-License-Identifier: MIT
// Gather on the CPU: concatenation worked out by hand, every axis against an index
// formula with distinct data per step, any element type, and the validation
// messages.
#define BOOST_TEST_MODULE gather
#include <boost/test/unit_test.hpp>

#include "device_memory.h"

using blade_test::ok;

namespace {

blade_shape make_shape(std::vector<int64_t> dims)
{
    blade_shape shape;
    ok(blade_shape_make(dims.data(), static_cast<int>(dims.size()), &shape), "shape");
    return shape;
}

// Gather `steps` (M chunks of bytes) with the plan; return the output bytes.
std::vector<uint8_t> gather_all(blade_dtype dtype,
                                const blade_shape& shape,
                                int axis,
                                const std::vector<std::vector<uint8_t>>& steps)
{
    blade_gather* gather;
    const blade_gather_config config = { dtype, axis, static_cast<int64_t>(steps.size()) };
    ok(blade_gather_create(&gather, &config, &shape, blade_device_cpu()), "create");
    blade_shape out_shape = blade_gather_output_shape(gather);
    std::vector<uint8_t> out(blade_tensor_bytes(dtype, &out_shape), 0xA5);
    blade_tensor output = blade_tensor_make(dtype, &out_shape, blade_device_cpu(), out.data());
    // Place the steps in reverse order: the step index alone decides the position.
    for (int64_t step = static_cast<int64_t>(steps.size()) - 1; step >= 0; step--) {
        blade_tensor input = blade_tensor_make(
            dtype, &shape, blade_device_cpu(), const_cast<uint8_t*>(steps[step].data()));
        ok(blade_gather_process(gather, &input, step, &output, nullptr), "process");
    }
    blade_gather_destroy(gather);
    return out;
}

// The concatenation by its definition: output index (i0, ..., ik + step * S[k], ...)
// holds element (i0, ..., ik, ...) of chunk `step`.
std::vector<uint8_t> concatenate(const blade_shape& shape,
                                 int axis,
                                 size_t element,
                                 const std::vector<std::vector<uint8_t>>& steps)
{
    const int64_t count = blade_shape_count(&shape), m = static_cast<int64_t>(steps.size());
    std::vector<uint8_t> out(count * m * element);
    for (int64_t step = 0; step < m; step++)
        for (int64_t flat = 0; flat < count; flat++) {
            int64_t rest = flat, out_flat = 0, stride = 1;
            int64_t index[BLADE_MAX_RANK];
            for (int d = shape.rank - 1; d >= 0; d--) {
                index[d] = rest % shape.dims[d];
                rest /= shape.dims[d];
            }
            for (int d = shape.rank - 1; d >= 0; d--) {
                const int64_t extent = d == axis ? shape.dims[d] * m : shape.dims[d];
                const int64_t i = d == axis ? index[d] + step * shape.dims[d] : index[d];
                out_flat += i * stride;
                stride *= extent;
            }
            std::memcpy(&out[out_flat * element], &steps[step][flat * element], element);
        }
    return out;
}

std::vector<std::vector<uint8_t>> distinct_steps(blade_dtype dtype, const blade_shape& shape, int m)
{
    std::vector<std::vector<uint8_t>> steps;
    for (int step = 0; step < m; step++)
        steps.push_back(blade_test::random_elements(dtype, blade_shape_count(&shape), 100 + step));
    return steps;
}

std::string error_of(blade_dtype dtype, int axis, int64_t multiplier, const blade_shape& shape)
{
    blade_gather* gather = reinterpret_cast<blade_gather*>(0x1);
    const blade_gather_config config = { dtype, axis, multiplier };
    BOOST_TEST(blade_gather_create(&gather, &config, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(gather == nullptr);
    return blade_last_error();
}

} // namespace

BOOST_AUTO_TEST_CASE(two_by_three_by_hand)
{
    // a = [[1, 2, 3], [4, 5, 6]], b = [[7, 8, 9], [10, 11, 12]]
    const float a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 7, 8, 9, 10, 11, 12 };
    const auto bytes = [](const float* f) {
        return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(f),
                                    reinterpret_cast<const uint8_t*>(f) + 24);
    };
    const blade_shape shape = make_shape({ 2, 3 });
    auto along1 = gather_all(BLADE_F32, shape, 1, { bytes(a), bytes(b) });
    const float rows[12] = { 1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12 };
    BOOST_TEST(std::memcmp(along1.data(), rows, 48) == 0);
    auto along0 = gather_all(BLADE_F32, shape, 0, { bytes(a), bytes(b) });
    const float stacked[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
    BOOST_TEST(std::memcmp(along0.data(), stacked, 48) == 0);
}

BOOST_AUTO_TEST_CASE(every_axis_and_element_type_with_distinct_steps)
{
    const blade_shape shape = blade_shape_aftp(3, 5, 7, 2);
    for (blade_dtype dtype : { BLADE_CI4, BLADE_CI8, BLADE_CF16, BLADE_CF32, BLADE_F64 })
        for (int axis = 0; axis < 4; axis++)
            for (int m : { 1, 2, 5 }) {
                const auto steps = distinct_steps(dtype, shape, m);
                const auto got = gather_all(dtype, shape, axis, steps);
                const auto want = concatenate(shape, axis, blade_dtype_size(dtype), steps);
                BOOST_TEST(got == want, blade_dtype_name(dtype) << " axis " << axis << " M " << m);
            }
}

BOOST_AUTO_TEST_CASE(output_shape_grows_the_gathered_axis)
{
    blade_gather* gather;
    const blade_gather_config config = { BLADE_CF32, 2, 64 };
    const blade_shape shape = blade_shape_aftp(5, 192, 8192, 2);
    ok(blade_gather_create(&gather, &config, &shape, blade_device_cpu()), "create");
    const blade_shape out = blade_gather_output_shape(gather);
    BOOST_TEST(out.rank == 4);
    BOOST_TEST(out.dims[0] == 5);
    BOOST_TEST(out.dims[1] == 192);
    BOOST_TEST(out.dims[2] == 8192 * 64);
    BOOST_TEST(out.dims[3] == 2);
    blade_gather_destroy(gather);
}

BOOST_AUTO_TEST_CASE(large_chunks_split_across_threads)
{
    // Above the threaded threshold (4 MiB per step), rows long and short.
    for (int axis : { 0, 1, 2 }) {
        const blade_shape shape = blade_shape_aftp(3, 11, 8209, 2); // 4.3 MB of cf32 per step
        const auto steps = distinct_steps(BLADE_CF32, shape, 3);
        BOOST_TEST(gather_all(BLADE_CF32, shape, axis, steps) ==
                   concatenate(shape, axis, 8, steps));
    }
}

BOOST_AUTO_TEST_CASE(streamed_rows_land_where_copied_ones_do)
{
    // Groups of 64 MiB and more are written with streaming stores (gather_cpu.c); a
    // size of 0 sends every threaded gather there. ci8 rows of an odd length start at
    // every alignment (the ordinary head before the streamed body, and the tail).
    setenv("BLADE_STREAM_MIN_BYTES", "0", 1);
    for (const auto& [dtype, shape] : { std::pair{ BLADE_CF32, blade_shape_aftp(3, 11, 8209, 2) },
                                        std::pair{ BLADE_CI8, blade_shape_aftp(5, 13, 16411, 2) } })
        for (int axis : { 0, 1, 2, 3 }) {
            const auto steps = distinct_steps(dtype, shape, 3);
            BOOST_TEST((gather_all(dtype, shape, axis, steps) ==
                        concatenate(shape, axis, blade_dtype_size(dtype), steps)),
                       blade_dtype_name(dtype) << " axis " << axis);
        }
    unsetenv("BLADE_STREAM_MIN_BYTES");
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_with_reasons)
{
    const blade_shape shape = blade_shape_aftp(2, 3, 4, 2);
    std::string message = error_of(BLADE_CF32, 4, 2, shape);
    BOOST_TEST(message.find("axis 4 is out of range") != std::string::npos, message);
    BOOST_TEST(message.find("axes 0 to 3") != std::string::npos, message);
    message = error_of(BLADE_CF32, -1, 2, shape);
    BOOST_TEST(message.find("axis -1 is out of range") != std::string::npos, message);
    message = error_of(BLADE_CF32, 2, 0, shape);
    BOOST_TEST(message.find("multiplier 0 must be at least 1") != std::string::npos, message);
    message = error_of(BLADE_CF32, 2, -3, shape);
    BOOST_TEST(message.find("multiplier -3") != std::string::npos, message);
    message = error_of(static_cast<blade_dtype>(42), 2, 2, shape);
    BOOST_TEST(message.find("unknown element type code 42") != std::string::npos, message);
}

BOOST_AUTO_TEST_CASE(process_refuses_a_step_outside_the_group)
{
    blade_gather* gather;
    const blade_gather_config config = { BLADE_CI8, 1, 3 };
    const blade_shape shape = blade_shape_aftp(1, 2, 2, 2);
    ok(blade_gather_create(&gather, &config, &shape, blade_device_cpu()), "create");
    blade_shape out_shape = blade_gather_output_shape(gather);
    std::vector<uint8_t> in(16), out(48);
    blade_tensor input = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), in.data());
    blade_tensor output = blade_tensor_make(BLADE_CI8, &out_shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_gather_process(gather, &input, 3, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("step 3 is outside 0 to 2") !=
               std::string::npos);
    BOOST_TEST(blade_gather_process(gather, &input, -1, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    // the output tensor must have the gathered shape
    blade_tensor wrong = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_gather_process(gather, &input, 0, &wrong, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("[1, 6, 2, 2]") != std::string::npos);
    blade_gather_destroy(gather);
}
