// SPDX-License-Identifier: MIT
// Sub-bands on the CPU and the emulated devices: the slice of every sub-band
// against an index formula for every element type and every count of parts that
// divides F (and rejection of those that do not), split-then-merge giving the chunk
// back bit for bit, ranks 2 to 5, the 2-D copy underneath, the copy accounting
// (one upload per sub-band), distinct emulated devices, and the transfer probe.
#define BOOST_TEST_MODULE subband
#include <boost/test/unit_test.hpp>

#include "device_memory.h"

#include <string>

using blade_test::make_shape;
using blade_test::ok;

namespace {

blade_device device_named(const char* name)
{
    blade_device device;
    ok(blade_device_parse(name, &device), name);
    return device;
}

// Sub-band `index` by definition: element (a, f, rest...) of the part is element
// (a, index * F/parts + f, rest...) of the whole.
std::vector<uint8_t> reference_part(const std::vector<uint8_t>& whole,
                                    const blade_shape& shape,
                                    size_t element,
                                    int64_t parts,
                                    int64_t index)
{
    int64_t inner = 1;
    for (int d = 2; d < shape.rank; d++)
        inner *= shape.dims[d];
    const int64_t channels = shape.dims[1], part_channels = channels / parts;
    std::vector<uint8_t> part(shape.dims[0] * part_channels * inner * element);
    for (int64_t a = 0; a < shape.dims[0]; a++)
        for (int64_t f = 0; f < part_channels; f++)
            for (int64_t r = 0; r < inner; r++) {
                const int64_t from = (a * channels + index * part_channels + f) * inner + r;
                const int64_t to = (a * part_channels + f) * inner + r;
                std::memcpy(&part[to * element], &whole[from * element], element);
            }
    return part;
}

std::vector<uint8_t> extract(blade_dtype dtype,
                             const blade_shape& shape,
                             const std::vector<uint8_t>& whole,
                             int64_t parts,
                             int64_t index,
                             blade_device to = blade_device_cpu())
{
    blade_shape part_shape;
    ok(blade_subband_shape(&shape, parts, &part_shape), "part shape");
    blade_test::device_memory part(to, blade_tensor_bytes(dtype, &part_shape));
    const blade_tensor in =
        blade_tensor_make(dtype, &shape, blade_device_cpu(), const_cast<uint8_t*>(whole.data()));
    blade_tensor out = blade_tensor_make(dtype, &part_shape, to, part.data());
    ok(blade_subband_extract(&in, parts, index, &out, nullptr), "extract");
    return part.download();
}

// Split into `parts` sub-bands (each through `via`) and insert them back, in
// reverse order, into a poisoned chunk.
std::vector<uint8_t> round_trip(blade_dtype dtype,
                                const blade_shape& shape,
                                const std::vector<uint8_t>& whole,
                                int64_t parts,
                                blade_device via)
{
    blade_shape part_shape;
    ok(blade_subband_shape(&shape, parts, &part_shape), "part shape");
    std::vector<uint8_t> merged(whole.size(), 0xA5);
    blade_tensor out = blade_tensor_make(dtype, &shape, blade_device_cpu(), merged.data());
    for (int64_t n = parts - 1; n >= 0; n--) {
        blade_test::device_memory part(via, extract(dtype, shape, whole, parts, n, via));
        const blade_tensor in = blade_tensor_make(dtype, &part_shape, via, part.data());
        ok(blade_subband_insert(&in, parts, n, &out, nullptr), "insert");
    }
    return merged;
}

const blade_dtype all_types[] = { BLADE_CI4,  BLADE_CI8, BLADE_CI16, BLADE_CF16, BLADE_CF32,
                                  BLADE_CF64, BLADE_F16, BLADE_F32,  BLADE_F64 };

} // namespace

BOOST_AUTO_TEST_CASE(part_shape_divides_the_channel_axis)
{
    blade_shape part;
    const blade_shape shape = make_shape({ 28, 192, 8192, 2 });
    ok(blade_subband_shape(&shape, 2, &part), "2 parts");
    BOOST_TEST(part.rank == 4);
    BOOST_TEST(part.dims[0] == 28);
    BOOST_TEST(part.dims[1] == 96);
    BOOST_TEST(part.dims[2] == 8192);
    BOOST_TEST(part.dims[3] == 2);
    ok(blade_subband_shape(&shape, 192, &part), "192 parts");
    BOOST_TEST(part.dims[1] == 1);
}

BOOST_AUTO_TEST_CASE(part_counts_that_do_not_divide_are_rejected)
{
    blade_shape part;
    const blade_shape shape = make_shape({ 2, 12, 4, 2 });
    for (int64_t parts : { 5, 7, 8, 9, 10, 11, 13, 24 }) {
        BOOST_TEST(blade_subband_shape(&shape, parts, &part) == BLADE_ERROR_INVALID_ARGUMENT);
        const std::string message = blade_last_error();
        BOOST_TEST(message.find("12 channels") != std::string::npos, message);
        BOOST_TEST(message.find(std::to_string(parts) + " equal parts") != std::string::npos,
                   message);
    }
    BOOST_TEST(blade_subband_shape(&shape, 0, &part) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_subband_shape(&shape, -2, &part) == BLADE_ERROR_INVALID_ARGUMENT);
    const blade_shape line = make_shape({ 12 });
    BOOST_TEST(blade_subband_shape(&line, 2, &part) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("no channel axis") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_small_split_worked_by_hand)
{
    // [A=2, F=4, T=1, P=1] f32: element value 10 a + f.
    const blade_shape shape = make_shape({ 2, 4, 1, 1 });
    const float values[] = { 0, 1, 2, 3, 10, 11, 12, 13 };
    std::vector<uint8_t> whole(sizeof values);
    std::memcpy(whole.data(), values, sizeof values);
    const auto part = extract(BLADE_F32, shape, whole, 2, 1);
    float got[4];
    std::memcpy(got, part.data(), sizeof got);
    BOOST_TEST(got[0] == 2.0f);
    BOOST_TEST(got[1] == 3.0f);
    BOOST_TEST(got[2] == 12.0f);
    BOOST_TEST(got[3] == 13.0f);
}

BOOST_AUTO_TEST_CASE(every_type_every_divisor_slices_and_round_trips_exactly)
{
    // F = 12: every divisor; T and P odd so runs are not multiples of anything handy.
    const blade_shape shape = make_shape({ 3, 12, 5, 3 });
    uint32_t seed = 1;
    for (blade_dtype dtype : all_types) {
        const auto whole = blade_test::random_elements(dtype, blade_shape_count(&shape), seed++);
        const size_t element = blade_bytes(dtype, 1);
        for (int64_t parts : { 1, 2, 3, 4, 6, 12 }) {
            for (int64_t n = 0; n < parts; n++)
                BOOST_TEST((extract(dtype, shape, whole, parts, n) ==
                            reference_part(whole, shape, element, parts, n)),
                           blade_dtype_name(dtype) << " part " << n << " of " << parts);
            BOOST_TEST((round_trip(dtype, shape, whole, parts, blade_device_cpu()) == whole),
                       blade_dtype_name(dtype) << " " << parts << " parts");
        }
    }
}

BOOST_AUTO_TEST_CASE(ranks_two_to_five)
{
    uint32_t seed = 40;
    for (const auto& dims : std::vector<std::vector<int64_t>>{
             { 4, 6 }, { 1, 6, 7 }, { 2, 6, 3, 2 }, { 2, 6, 3, 1, 2 }, { 1, 1, 1, 1 } }) {
        const blade_shape shape = make_shape(dims);
        const auto whole =
            blade_test::random_elements(BLADE_CI8, blade_shape_count(&shape), seed++);
        for (int64_t parts : { 1, 2, 3, 6 }) {
            if (dims[1] % parts != 0)
                continue;
            for (int64_t n = 0; n < parts; n++)
                BOOST_TEST((extract(BLADE_CI8, shape, whole, parts, n) ==
                            reference_part(whole, shape, 2, parts, n)),
                           "rank " << dims.size() << " part " << n << " of " << parts);
            BOOST_TEST((round_trip(BLADE_CI8, shape, whole, parts, blade_device_cpu()) == whole));
        }
    }
}

BOOST_AUTO_TEST_CASE(through_emulated_devices_each_part_is_one_upload)
{
    const blade_shape shape = make_shape({ 4, 6, 8, 2 });
    const auto whole = blade_test::random_elements(BLADE_CF16, blade_shape_count(&shape), 9);
    blade_copy_stats_reset();
    const auto merged = round_trip(BLADE_CF16, shape, whole, 3, device_named("emulated:2"));
    BOOST_TEST((merged == whole));
    blade_copy_stats stats;
    blade_copy_stats_get(&stats);
    // One 2-D upload per part (extract) and one 2-D download (insert); the test's
    // own staging through device_memory counts as host copies on the emulated device.
    BOOST_TEST(stats.count[BLADE_COPY_HOST_TO_DEVICE] == 3u);
    BOOST_TEST(stats.bytes[BLADE_COPY_HOST_TO_DEVICE] == whole.size());
    BOOST_TEST(stats.count[BLADE_COPY_DEVICE_TO_HOST] == 3u);
    BOOST_TEST(stats.bytes[BLADE_COPY_DEVICE_TO_HOST] == whole.size());
    BOOST_TEST(stats.count[BLADE_COPY_DEVICE_TO_DEVICE] == 0u);
}

BOOST_AUTO_TEST_CASE(between_two_devices_is_refused)
{
    const blade_shape shape = make_shape({ 1, 2, 4, 1 });
    blade_shape part_shape;
    ok(blade_subband_shape(&shape, 2, &part_shape), "part");
    const blade_device a = device_named("emulated:0"), b = device_named("emulated:1");
    blade_test::device_memory whole(a, blade_tensor_bytes(BLADE_F32, &shape));
    blade_test::device_memory part(b, blade_tensor_bytes(BLADE_F32, &part_shape));
    const blade_tensor in = blade_tensor_make(BLADE_F32, &shape, a, whole.data());
    blade_tensor out = blade_tensor_make(BLADE_F32, &part_shape, b, part.data());
    BOOST_TEST(blade_subband_extract(&in, 2, 0, &out, nullptr) == BLADE_ERROR_UNSUPPORTED);
    const std::string message = blade_last_error();
    BOOST_TEST(message.find("from emulated to emulated:1") != std::string::npos, message);
    // Within one device it is a device-to-device copy.
    blade_test::device_memory same(a, blade_tensor_bytes(BLADE_F32, &part_shape));
    blade_tensor local = blade_tensor_make(BLADE_F32, &part_shape, a, same.data());
    blade_copy_stats_reset();
    ok(blade_subband_extract(&in, 2, 1, &local, nullptr), "same device");
    blade_copy_stats stats;
    blade_copy_stats_get(&stats);
    BOOST_TEST(stats.count[BLADE_COPY_DEVICE_TO_DEVICE] == 1u);
}

BOOST_AUTO_TEST_CASE(bad_tensors_are_rejected_with_what_was_expected)
{
    const blade_shape shape = make_shape({ 2, 4, 3, 2 });
    blade_shape part_shape;
    ok(blade_subband_shape(&shape, 2, &part_shape), "part");
    std::vector<uint8_t> whole(blade_tensor_bytes(BLADE_CI8, &shape));
    std::vector<uint8_t> part(blade_tensor_bytes(BLADE_CF32, &shape));
    const blade_tensor in = blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), whole.data());
    blade_tensor out = blade_tensor_make(BLADE_CI8, &part_shape, blade_device_cpu(), part.data());
    BOOST_TEST(blade_subband_extract(&in, 2, 2, &out, nullptr) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("sub-band 2 of 2 (expected 0 to 1)") !=
               std::string::npos);
    BOOST_TEST(blade_subband_extract(&in, 3, 0, &out, nullptr) == BLADE_ERROR_INVALID_ARGUMENT);
    blade_tensor wrong_type =
        blade_tensor_make(BLADE_CF32, &part_shape, blade_device_cpu(), part.data());
    BOOST_TEST(blade_subband_extract(&in, 2, 0, &wrong_type, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("cf32") != std::string::npos);
    std::vector<uint8_t> target(whole.size());
    blade_tensor whole_out =
        blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), target.data());
    blade_tensor wrong_shape =
        blade_tensor_make(BLADE_CI8, &shape, blade_device_cpu(), part.data());
    BOOST_TEST(blade_subband_insert(&wrong_shape, 2, 0, &whole_out, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    const std::string message = blade_last_error();
    BOOST_TEST(message.find("shape [2, 4, 3, 2]") != std::string::npos, message);
    BOOST_TEST(message.find("[2, 2, 3, 2]") != std::string::npos, message);
    blade_tensor empty = out;
    empty.data = nullptr;
    BOOST_TEST(blade_subband_extract(&in, 2, 0, &empty, nullptr) == BLADE_ERROR_INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(the_2d_copy_moves_runs_and_leaves_the_gaps)
{
    // 3 runs of 4 bytes, 7 apart in the source and 5 apart in the destination.
    std::vector<uint8_t> source(21);
    for (size_t i = 0; i < source.size(); i++)
        source[i] = static_cast<uint8_t>(i);
    std::vector<uint8_t> destination(15, 0xEE);
    blade_copy_stats_reset();
    ok(blade_memcpy_2d(blade_device_cpu(),
                       destination.data(),
                       5,
                       source.data(),
                       7,
                       4,
                       3,
                       BLADE_COPY_HOST_TO_HOST,
                       nullptr),
       "2d");
    const std::vector<uint8_t> expected = { 0,  1,    2,  3,  0xEE, 7,  8,   9,
                                            10, 0xEE, 14, 15, 16,   17, 0xEE };
    BOOST_TEST((destination == expected));
    blade_copy_stats stats;
    blade_copy_stats_get(&stats);
    BOOST_TEST(stats.count[BLADE_COPY_HOST_TO_HOST] == 1u);
    BOOST_TEST(stats.bytes[BLADE_COPY_HOST_TO_HOST] == 12u);
    BOOST_TEST(blade_memcpy_2d(blade_device_cpu(),
                               destination.data(),
                               3,
                               source.data(),
                               7,
                               4,
                               3,
                               BLADE_COPY_HOST_TO_HOST,
                               nullptr) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("at least the run length") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(emulated_devices_are_numbered)
{
    const blade_device first = device_named("emulated"), zero = device_named("emulated:0"),
                       third = device_named("emulated:3");
    BOOST_TEST(blade_device_equal(first, zero));
    BOOST_TEST(!blade_device_equal(zero, third));
    BOOST_TEST(third.kind == BLADE_DEVICE_EMULATED);
    BOOST_TEST(third.index == 3);
    char text[32];
    BOOST_TEST(std::string(blade_device_format(third, text, sizeof text)) == "emulated:3");
    BOOST_TEST(std::string(blade_device_format(zero, text, sizeof text)) == "emulated");
    blade_device device;
    BOOST_TEST(blade_device_parse("emulated:x", &device) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("'emulated:N'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(transfer_probe_measures_and_validates)
{
    const blade_device devices[2] = { device_named("emulated:0"), device_named("emulated:1") };
    double rate = 0;
    ok(blade_measure_transfer(devices, 2, 1 << 20, 3, BLADE_COPY_HOST_TO_DEVICE, &rate), "probe");
    BOOST_TEST(rate > 1e6); // host memory copies: far above a megabyte per second
    BOOST_TEST(blade_measure_transfer(devices, 0, 1 << 20, 3, BLADE_COPY_HOST_TO_DEVICE, &rate) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_measure_transfer(devices, 2, 0, 3, BLADE_COPY_HOST_TO_DEVICE, &rate) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_measure_transfer(devices, 2, 64, 3, BLADE_COPY_HOST_TO_HOST, &rate) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("direction") != std::string::npos);
}
