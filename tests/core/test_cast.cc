// SPDX-License-Identifier: MIT
// Cast on the CPU: values worked out by hand from the spec, and the plan contract.
#define BOOST_TEST_MODULE cast
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

using blade_test::ok;

namespace {

struct plan {
    blade_cast* cast = nullptr;
    blade_shape shape;
    plan(blade_dtype from, blade_dtype to, blade_shape s) : shape(s)
    {
        const blade_cast_config config = { from, to };
        ok(blade_cast_create(&cast, &config, &shape, blade_device_cpu()), "create");
    }
    ~plan() { blade_cast_destroy(cast); }
    template <typename In, typename Out>
    void run(blade_dtype from, const In* in, blade_dtype to, Out* out)
    {
        blade_tensor input =
            blade_tensor_make(from, &shape, blade_device_cpu(), const_cast<In*>(in));
        blade_tensor output = blade_tensor_make(to, &shape, blade_device_cpu(), out);
        ok(blade_cast_process(cast, &input, &output, nullptr), "process");
    }
};

uint16_t half_bits(float value)
{
    // Half from one tiny cast so the expectations below stay readable.
    const blade_shape one = blade_shape_aftp(1, 1, 1, 1);
    plan p(BLADE_F32, BLADE_F16, one);
    uint16_t bits;
    p.run(BLADE_F32, &value, BLADE_F16, &bits);
    return bits;
}

} // namespace

BOOST_AUTO_TEST_CASE(ci8_to_cf32_keeps_real_and_imaginary_parts)
{
    const int8_t in[8] = { -128, 127, 0, -1, 5, -7, 100, -100 };
    float out[8];
    plan p(BLADE_CI8, BLADE_CF32, blade_shape_aftp(1, 2, 2, 1));
    p.run(BLADE_CI8, in, BLADE_CF32, out);
    for (int i = 0; i < 8; i++)
        BOOST_TEST(out[i] == static_cast<float>(in[i]));
}

BOOST_AUTO_TEST_CASE(ci4_nibbles_are_twos_complement_real_high)
{
    // 0x7F: re = 7, im = -1; 0x80: re = -8, im = 0; 0x19: re = 1, im = -7.
    const uint8_t in[3] = { 0x7F, 0x80, 0x19 };
    float out[6];
    plan p(BLADE_CI4, BLADE_CF32, blade_shape_aftp(1, 1, 3, 1));
    p.run(BLADE_CI4, in, BLADE_CF32, out);
    const float expected[6] = { 7, -1, -8, 0, 1, -7 };
    for (int i = 0; i < 6; i++)
        BOOST_TEST(out[i] == expected[i]);
    // and back: the same bytes
    uint8_t back[3];
    plan q(BLADE_CF32, BLADE_CI4, blade_shape_aftp(1, 1, 3, 1));
    q.run(BLADE_CF32, out, BLADE_CI4, back);
    for (int i = 0; i < 3; i++)
        BOOST_TEST(back[i] == in[i]);
}

BOOST_AUTO_TEST_CASE(float_to_integer_rounds_ties_to_even_and_saturates)
{
    const float in[10] = { 0.5f,    1.5f,   2.5f,
                           -2.5f,   127.4f, 127.6f,
                           -128.9f, 1e9f,   std::numeric_limits<float>::quiet_NaN(),
                           -0.4f };
    int8_t out[10];
    plan p(BLADE_CF32, BLADE_CI8, blade_shape_aftp(1, 1, 5, 1));
    p.run(BLADE_CF32, in, BLADE_CI8, out);
    const int8_t expected[10] = { 0, 2, 2, -2, 127, 127, -128, 127, 0, 0 };
    for (int i = 0; i < 10; i++)
        BOOST_TEST(out[i] == expected[i]);

    const float wide[4] = { 7.5f, -8.6f, 6.5f, 40000.0f };
    uint8_t packed[2];
    plan q(BLADE_CF32, BLADE_CI4, blade_shape_aftp(1, 1, 2, 1));
    q.run(BLADE_CF32, wide, BLADE_CI4, packed);
    BOOST_TEST(packed[0] == 0x78); // re 7 (saturated), im -8 (saturated)
    BOOST_TEST(packed[1] == 0x67); // re 6 (tie to even), im 7 (saturated)
}

BOOST_AUTO_TEST_CASE(half_conversions_round_to_nearest_even)
{
    BOOST_TEST(half_bits(1.0f) == 0x3C00);
    BOOST_TEST(half_bits(-2.0f) == 0xC000);
    BOOST_TEST(half_bits(65504.0f) == 0x7BFF);           // largest half
    BOOST_TEST(half_bits(65520.0f) == 0x7C00);           // rounds up to infinity
    BOOST_TEST(half_bits(1.0f + 1.0f / 2048) == 0x3C00); // tie -> even (down)
    BOOST_TEST(half_bits(1.0f + 3.0f / 2048) == 0x3C02); // tie -> even (up)
    BOOST_TEST(half_bits(5.9604645e-8f) == 0x0001);      // smallest subnormal
    BOOST_TEST(half_bits(2.98e-8f) == 0x0000);           // below half of it
    BOOST_TEST((half_bits(std::numeric_limits<float>::quiet_NaN()) & 0x7C00) == 0x7C00);
    BOOST_TEST((half_bits(std::numeric_limits<float>::quiet_NaN()) & 0x03FF) != 0);

    const uint16_t halves[4] = { 0x3555, 0x0001, 0xFBFF, 0x7C00 };
    float out[4];
    plan p(BLADE_F16, BLADE_F32, blade_shape_aftp(1, 1, 4, 1));
    p.run(BLADE_F16, halves, BLADE_F32, out);
    BOOST_TEST(out[0] == 0.333251953125f);
    BOOST_TEST(out[1] == std::ldexp(1.0f, -24));
    BOOST_TEST(out[2] == -65504.0f);
    BOOST_TEST(std::isinf(out[3]));
}

BOOST_AUTO_TEST_CASE(double_to_half_rounds_once)
{
    // 1 + 2^-11 + 2^-40 is just above the tie: rounding through float would land on
    // the tie and round to even (down); a single rounding goes up.
    const double in = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    uint16_t out;
    plan p(BLADE_F64, BLADE_F16, blade_shape_aftp(1, 1, 1, 1));
    p.run(BLADE_F64, &in, BLADE_F16, &out);
    BOOST_TEST(out == 0x3C01);
}

BOOST_AUTO_TEST_CASE(identical_types_copy_exactly_and_large_casts_split_across_threads)
{
    const blade_shape big = blade_shape_aftp(3, 7, 65537, 1); // > threshold, odd
    const int64_t count = blade_shape_count(&big);
    auto in = blade_test::random_elements(BLADE_CI8, count, 11);
    std::vector<float> out(2 * count);
    plan p(BLADE_CI8, BLADE_CF32, big);
    p.run(BLADE_CI8, in.data(), BLADE_CF32, out.data());
    const auto* raw = reinterpret_cast<const int8_t*>(in.data());
    for (int64_t i = 0; i < 2 * count; i++)
        if (out[i] != raw[i])
            BOOST_FAIL("mismatch at " << i);
    std::vector<float> copy(2 * count);
    plan same(BLADE_CF32, BLADE_CF32, big);
    same.run(BLADE_CF32, out.data(), BLADE_CF32, copy.data());
    BOOST_TEST(std::memcmp(copy.data(), out.data(), copy.size() * sizeof(float)) == 0);
}

BOOST_AUTO_TEST_CASE(streamed_integer_casts_give_every_value_at_every_alignment)
{
    // Outputs of 64 MiB and more are written with streaming stores (cast_cpu.c); a
    // size of 0 sends every cast there. Each output starts 0 ... 16 floats past a
    // 64-byte line (the plain head before the first aligned line, the vector body, the
    // plain tail), lengths from one value to past the threading threshold, both
    // integer widths, every value of int8 and values spread over int16's range.
    setenv("BLADE_STREAM_MIN_BYTES", "0", 1);
    for (const blade_dtype from : { BLADE_CI8, BLADE_CI16 }) {
        for (const int64_t samples : { 1, 7, 33, 1000, (1 << 18) + 3 }) {
            const blade_shape shape = blade_shape_aftp(1, 1, samples, 1);
            plan p(from, BLADE_CF32, shape);
            std::vector<int16_t> values(2 * samples);
            for (int64_t i = 0; i < 2 * samples; i++)
                values[i] = from == BLADE_CI8 ? static_cast<int16_t>(i % 256 - 128)
                                              : static_cast<int16_t>((i * 7919) % 65536 - 32768);
            std::vector<int8_t> bytes(values.begin(), values.end());
            std::vector<float> storage(2 * samples + 16 + 16);
            float* line = reinterpret_cast<float*>(
                (reinterpret_cast<uintptr_t>(storage.data()) + 63) & ~static_cast<uintptr_t>(63));
            for (const int offset : { 0, 1, 3, 8, 15 }) {
                if (samples > 1000 && offset % 8 != 0 && offset != 1)
                    continue; // the large case: aligned and one unaligned start
                float* out = line + offset;
                if (from == BLADE_CI8)
                    p.run(from, bytes.data(), BLADE_CF32, out);
                else
                    p.run(from, values.data(), BLADE_CF32, out);
                for (int64_t i = 0; i < 2 * samples; i++)
                    if (out[i] != static_cast<float>(values[i]))
                        BOOST_FAIL("type " << from << ", " << samples << " samples, offset "
                                           << offset << ": value " << i << " is " << out[i]
                                           << ", not " << values[i]);
            }
        }
    }
    unsetenv("BLADE_STREAM_MIN_BYTES");
}

BOOST_AUTO_TEST_CASE(unsupported_pairs_are_refused_at_creation)
{
    const blade_shape shape = blade_shape_aftp(1, 1, 4, 2);
    blade_cast* cast = reinterpret_cast<blade_cast*>(0x1);
    blade_cast_config complex_to_real = { BLADE_CF32, BLADE_F32 };
    BOOST_TEST(blade_cast_create(&cast, &complex_to_real, &shape, blade_device_cpu()) ==
               BLADE_ERROR_UNSUPPORTED);
    BOOST_TEST(cast == nullptr);
    BOOST_TEST(std::string(blade_last_error()).find("imaginary") != std::string::npos);
    blade_cast_config real_to_complex = { BLADE_F32, BLADE_CF32 };
    BOOST_TEST(blade_cast_create(&cast, &real_to_complex, &shape, blade_device_cpu()) ==
               BLADE_ERROR_UNSUPPORTED);
    BOOST_TEST(std::string(blade_last_error()).find("f32 -> cf32") != std::string::npos);
    BOOST_TEST(!blade_cast_supported(BLADE_CF64, BLADE_CF32));
    BOOST_TEST(blade_cast_supported(BLADE_CI4, BLADE_CI16));
    blade_shape bad = blade_shape_aftp(1, 0, 4, 2);
    blade_cast_config fine = { BLADE_CI8, BLADE_CF32 };
    BOOST_TEST(blade_cast_create(&cast, &fine, &bad, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(process_refuses_tensors_the_plan_was_not_made_for)
{
    plan p(BLADE_CI8, BLADE_CF32, blade_shape_aftp(2, 3, 4, 2));
    std::vector<int8_t> in(2 * 48);
    std::vector<float> out(2 * 48);
    blade_shape other = blade_shape_aftp(2, 3, 2, 4);
    blade_tensor input = blade_tensor_make(BLADE_CI8, &other, blade_device_cpu(), in.data());
    blade_tensor output = blade_tensor_make(BLADE_CF32, &p.shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_cast_process(p.cast, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    const std::string message = blade_last_error();
    BOOST_TEST(message.find("[2, 3, 2, 4]") != std::string::npos);
    BOOST_TEST(message.find("[2, 3, 4, 2]") != std::string::npos);
    input = blade_tensor_make(BLADE_CI16, &p.shape, blade_device_cpu(), in.data());
    BOOST_TEST(blade_cast_process(p.cast, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("ci16") != std::string::npos);
}

namespace {

std::vector<uint8_t> scaled_cast(blade_dtype from,
                                 blade_dtype to,
                                 const blade_shape& shape,
                                 const std::vector<uint8_t>& input,
                                 float scale)
{
    blade_cast* cast;
    const blade_cast_config config = { from, to, scale };
    ok(blade_cast_create(&cast, &config, &shape, blade_device_cpu()), "create");
    std::vector<uint8_t> out(blade_tensor_bytes(to, &shape));
    blade_tensor in =
        blade_tensor_make(from, &shape, blade_device_cpu(), const_cast<uint8_t*>(input.data()));
    blade_tensor o = blade_tensor_make(to, &shape, blade_device_cpu(), out.data());
    ok(blade_cast_process(cast, &in, &o, nullptr), "process");
    blade_cast_destroy(cast);
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_power_of_two_scale_keeps_8_bit_voltages_exact_in_half)
{
    // ci8 x 2^-k is a half exactly for k up to 24 - 0 (v 2^-k is a multiple of 2^-24):
    // the half-precision chain's range scale loses nothing. Checked against the value.
    const blade_shape shape = blade_shape_aftp(1, 1, 256, 1);
    std::vector<uint8_t> all(512);
    for (int v = 0; v < 256; v++) {
        all[2 * v] = static_cast<uint8_t>(v);           // every int8 value as the real part
        all[2 * v + 1] = static_cast<uint8_t>(255 - v); // and as the imaginary part
    }
    for (int k : { 0, 13, 20, 24 }) {
        const auto half = scaled_cast(BLADE_CI8, BLADE_CF16, shape, all, std::ldexp(1.0f, -k));
        const auto back = scaled_cast(BLADE_CF16, BLADE_CF32, shape, half, std::ldexp(1.0f, k));
        const auto* values = reinterpret_cast<const float*>(back.data());
        for (int i = 0; i < 512; i++)
            if (values[i] != static_cast<float>(static_cast<int8_t>(all[i])))
                BOOST_FAIL("k " << k << " value " << i << ": " << values[i]);
    }
    // 0 means 1 (zero-initialised configs), and a general scale multiplies in float
    const auto wide = blade_test::random_elements(BLADE_CF32, 256, 3);
    BOOST_TEST((scaled_cast(BLADE_CF32, BLADE_CF16, shape, wide, 0) ==
                scaled_cast(BLADE_CF32, BLADE_CF16, shape, wide, 1)));
    const auto tripled = scaled_cast(BLADE_CF32, BLADE_CF32, shape, wide, 3.0f);
    const auto* in = reinterpret_cast<const float*>(wide.data());
    const auto* out = reinterpret_cast<const float*>(tripled.data());
    for (int i = 0; i < 512; i++)
        if (!(out[i] == in[i] * 3.0f || (std::isnan(out[i]) && std::isnan(in[i]))))
            BOOST_FAIL("x3 value " << i);
}

BOOST_AUTO_TEST_CASE(bad_scales_are_refused_at_creation)
{
    const blade_shape shape = blade_shape_aftp(1, 1, 4, 1);
    for (float bad : { -1.0f,
                       std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN() }) {
        blade_cast* cast = reinterpret_cast<blade_cast*>(0x1);
        const blade_cast_config config = { BLADE_CI8, BLADE_CF16, bad };
        BOOST_TEST(blade_cast_create(&cast, &config, &shape, blade_device_cpu()) ==
                   BLADE_ERROR_INVALID_ARGUMENT);
        BOOST_TEST(cast == nullptr);
        BOOST_TEST(std::string(blade_last_error()).find("scale") != std::string::npos);
    }
}

namespace {

// IEEE binary16 written from the format, independently of the library: the value of
// every finite half, and the half nearest a float (ties to the even significand;
// 65520 and above round to infinity, which counts as 65536 here; NaN -> 0x7E00).
double reference_half_value(uint16_t h)
{
    const int exponent = (h >> 10) & 0x1f, significand = h & 0x3ff;
    const double magnitude = exponent == 0 ? std::ldexp(significand, -24)
                                           : std::ldexp(1024 + significand, exponent - 25);
    return (h & 0x8000) ? -magnitude : magnitude;
}

uint16_t reference_half_of(float value)
{
    if (std::isnan(value))
        return 0x7E00;
    const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    const double magnitude = std::fabs(static_cast<double>(value));
    auto at = [](int h) { return h == 0x7C00 ? 65536.0 : reference_half_value(h); };
    int low = 0, high = 0x7C00; // at(low) <= magnitude < at(high), or magnitude >= 65536
    if (magnitude >= 65536.0)
        return sign | 0x7C00;
    while (high - low > 1) {
        const int middle = (low + high) / 2;
        (at(middle) <= magnitude ? low : high) = middle;
    }
    const double below = magnitude - at(low), above = at(high) - magnitude;
    const int nearest = below < above ? low : above < below ? high : (low & 1 ? high : low);
    return sign | static_cast<uint16_t>(nearest);
}

} // namespace

BOOST_AUTO_TEST_CASE(half_runs_convert_like_the_format_says_for_every_half_and_boundary)
{
    // cf16 <-> cf32 of long runs take the library's vector conversions (F16C where the
    // CPU has it) with a per-value tail: every one of the 65536 halves to float, and
    // floats at, just below and just above every midpoint between neighbouring halves
    // (both signs), subnormal floats, infinities and NaNs to half, against the format.
    std::vector<uint16_t> halves(65536);
    for (int h = 0; h < 65536; h++)
        halves[h] = static_cast<uint16_t>(h);
    std::vector<float> widened(65536);
    plan(BLADE_CF16, BLADE_CF32, blade_shape_aftp(1, 1, 32768, 1))
        .run(BLADE_CF16, halves.data(), BLADE_CF32, widened.data());
    int wrong = 0;
    for (int h = 0; h < 65536; h++) {
        const bool nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
        uint32_t bits;
        std::memcpy(&bits, &widened[h], 4);
        const bool right = nan ? bits == 0x7FC00000u
                           : (h & 0x7FFF) == 0x7C00
                               ? widened[h] == ((h & 0x8000) ? -INFINITY : INFINITY)
                               : static_cast<double>(widened[h]) == reference_half_value(h) &&
                                     std::signbit(widened[h]) == bool(h & 0x8000);
        if (!right && wrong++ < 5)
            BOOST_ERROR("half " << std::hex << h << " widened to " << bits);
    }
    std::vector<float> floats;
    for (int h = 0; h < 0x7C00; h++) {
        const float middle = static_cast<float>(
            (reference_half_value(h) + (h == 0x7BFF ? 65536.0 : reference_half_value(h + 1))) /
            2); // exact: 12 significant bits at most
        const float value = static_cast<float>(reference_half_value(h));
        for (float f :
             { value, middle, std::nextafter(middle, 0.0f), std::nextafter(middle, INFINITY) }) {
            floats.push_back(f);
            floats.push_back(-f);
        }
    }
    for (float f : { 1e-45f, -1e-45f, 1e-40f, 3e38f, -3e38f, INFINITY, -INFINITY, NAN, -NAN })
        floats.push_back(f);
    floats.resize(floats.size() + floats.size() % 2); // whole complex values
    std::vector<uint16_t> rounded(floats.size());
    plan(BLADE_CF32, BLADE_CF16, blade_shape_aftp(1, 1, static_cast<int64_t>(floats.size() / 2), 1))
        .run(BLADE_CF32, floats.data(), BLADE_CF16, rounded.data());
    for (size_t i = 0; i < floats.size(); i++)
        if (rounded[i] != reference_half_of(floats[i]) && wrong++ < 10)
            BOOST_ERROR("float " << floats[i] << " rounded to " << std::hex << rounded[i] << " not "
                                 << reference_half_of(floats[i]));
    BOOST_TEST(wrong == 0);
    BOOST_TEST(floats.size() > 250000);
}

BOOST_AUTO_TEST_CASE(the_half_chains_scaled_cast_rounds_each_scaled_float_once)
{
    // ci8, ci16 and cf32 x scale into cf16 take a block path: (value as float) x scale
    // in float, then one rounding to half, as the general path computes it. ci8 with a
    // scale that is a half exactly runs in half-precision arithmetic where the CPU has
    // AVX512-FP16, and must give the same bits: such scales here are 2^-13, 1, 3, a
    // full 11-bit mantissa, the largest half (products overflow to infinity) and the
    // smallest subnormal (products subnormal); 0.3 is not a half. The output starts on
    // and off a 64-byte boundary (the streamed path's first stores are ordinary ones).
    const int64_t count = 5000;
    std::vector<int8_t> bytes(2 * count);
    std::vector<int16_t> shorts(2 * count);
    std::vector<float> floats(2 * count);
    for (int64_t i = 0; i < 2 * count; i++) {
        bytes[i] = static_cast<int8_t>(i * 37 + 11);
        shorts[i] = static_cast<int16_t>(i * 7919 - 30000);
        floats[i] = static_cast<float>(i % 977) * 1.37f - 600.0f;
    }
    const blade_shape shape = blade_shape_aftp(1, 1, count, 1);
    // BLADE_STREAM_MIN_BYTES = 0: the streamed path (blocks in L1, streaming stores).
    const float scales[] = { 0x1p-13f, 0.3f, 3.0f, 1.0f, 0x1.554p-2f, 65504.0f, 0x1p-24f };
    for (const char* stream : { "", "0" })
        for (int64_t offset : { 0, 1, 7 }) // complex values into a 64-byte aligned buffer
            for (float scale : scales) {
                setenv("BLADE_STREAM_MIN_BYTES", stream, 1);
                std::vector<uint16_t> buffer(2 * (count + offset) + 32);
                const uintptr_t misaligned = reinterpret_cast<uintptr_t>(buffer.data()) % 64;
                uint16_t* const out_data = buffer.data() + (64 - misaligned) % 64 / 2 + 2 * offset;
                auto check = [&](blade_dtype from, const void* in, auto value_of) {
                    blade_cast* cast = nullptr;
                    const blade_cast_config config = { from, BLADE_CF16, scale };
                    ok(blade_cast_create(&cast, &config, &shape, blade_device_cpu()), "create");
                    blade_tensor input =
                        blade_tensor_make(from, &shape, blade_device_cpu(), const_cast<void*>(in));
                    blade_tensor output =
                        blade_tensor_make(BLADE_CF16, &shape, blade_device_cpu(), out_data);
                    ok(blade_cast_process(cast, &input, &output, nullptr), "process");
                    blade_cast_destroy(cast);
                    int wrong = 0;
                    for (int64_t i = 0; i < 2 * count; i++)
                        wrong += out_data[i] != reference_half_of(value_of(i) * scale);
                    BOOST_TEST(wrong == 0,
                               blade_dtype_name(from) << " x " << scale << ", streamed " << stream
                                                      << ", output offset " << offset);
                };
                check(BLADE_CI8, bytes.data(), [&](int64_t i) {
                    return static_cast<float>(bytes[i]);
                });
                check(BLADE_CI16, shorts.data(), [&](int64_t i) {
                    return static_cast<float>(shorts[i]);
                });
                check(BLADE_CF32, floats.data(), [&](int64_t i) { return floats[i]; });
            }
    unsetenv("BLADE_STREAM_MIN_BYTES");
}
