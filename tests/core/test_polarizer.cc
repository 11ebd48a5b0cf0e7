// SPDX-License-Identifier: MIT
// Polarizer on the CPU: values worked out by hand from L = X + iY, R = X - iY, and
// the plan contract.
#define BOOST_TEST_MODULE polarizer
#include <boost/test/unit_test.hpp>

#include "device_memory.h"

#include <blade/cpu_threads.h>

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define HALF_ARITHMETIC_CHECK
#include <immintrin.h>
#endif

using blade_test::ok;
using cf = std::complex<float>;

namespace {

struct plan {
    blade_polarizer* polarizer = nullptr;
    blade_shape shape;
    plan(blade_shape s, blade_basis basis = BLADE_BASIS_CIRCULAR) : shape(s)
    {
        const blade_polarizer_config config = { basis };
        ok(blade_polarizer_create(&polarizer, &config, &shape, blade_device_cpu()), "create");
    }
    ~plan() { blade_polarizer_destroy(polarizer); }
    void run(const cf* in, cf* out)
    {
        blade_tensor input =
            blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), const_cast<cf*>(in));
        blade_tensor output = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), out);
        ok(blade_polarizer_process(polarizer, &input, &output, nullptr), "process");
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(left_is_x_plus_i_y_and_right_is_x_minus_i_y)
{
    // (X, Y) = (1+2i, 3+4i): L = 1+2i + i(3+4i) = -3+5i, R = 1+2i - i(3+4i) = 5-i
    // (X, Y) = (1, 0): L = R = 1;  (X, Y) = (0, 1): L = i, R = -i
    const cf in[6] = { { 1, 2 }, { 3, 4 }, { 1, 0 }, { 0, 0 }, { 0, 0 }, { 1, 0 } };
    const cf expected[6] = { { -3, 5 }, { 5, -1 }, { 1, 0 }, { 1, 0 }, { 0, 1 }, { 0, -1 } };
    cf out[6];
    plan p(blade_shape_aftp(1, 1, 3, 2));
    p.run(in, out);
    for (int i = 0; i < 6; i++)
        BOOST_TEST(out[i] == expected[i],
                   "element " << i << ": " << out[i] << " != " << expected[i]);
}

BOOST_AUTO_TEST_CASE(total_power_doubles_and_every_axis_is_covered)
{
    // An odd shape above the threaded threshold: check every element against the
    // formula, and the power identity |L|^2 + |R|^2 = 2 (|X|^2 + |Y|^2).
    const blade_shape shape = blade_shape_aftp(3, 7, 6257, 2); // 131397 pairs, odd, prime T
    const int64_t pairs = blade_shape_count(&shape) / 2;
    const auto bytes = blade_test::random_cf32(2 * pairs, 3);
    const auto* in = reinterpret_cast<const cf*>(bytes.data());
    std::vector<cf> out(2 * pairs);
    plan p(shape);
    p.run(in, out.data());
    const cf i(0, 1);
    double power_in = 0, power_out = 0;
    for (int64_t k = 0; k < pairs; k++) {
        const cf x = in[2 * k], y = in[2 * k + 1];
        if (out[2 * k] != x + i * y || out[2 * k + 1] != x - i * y)
            BOOST_FAIL("pair " << k << " differs from X + iY, X - iY");
        power_in += std::norm(std::complex<double>(x)) + std::norm(std::complex<double>(y));
        power_out += std::norm(std::complex<double>(out[2 * k])) +
                     std::norm(std::complex<double>(out[2 * k + 1]));
    }
    BOOST_TEST(power_out == 2 * power_in,
               boost::test_tools::tolerance(1e-6)); // float rounding of L, R
}

BOOST_AUTO_TEST_CASE(in_place_conversion_gives_the_same_result)
{
    const blade_shape shape = blade_shape_aftp(2, 3, 5, 2);
    const auto bytes = blade_test::random_cf32(60, 4);
    std::vector<cf> in(reinterpret_cast<const cf*>(bytes.data()),
                       reinterpret_cast<const cf*>(bytes.data()) + 60);
    std::vector<cf> separate(60), inplace = in;
    plan p(shape);
    p.run(in.data(), separate.data());
    p.run(inplace.data(), inplace.data());
    BOOST_TEST(inplace == separate, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(streamed_outputs_are_the_bits_of_ordinary_stores)
{
    // Outputs of 64 MiB and more are formed in L1 blocks of 512 pairs and streamed
    // out; BLADE_STREAM_MIN_BYTES = 0 takes that path here. Pair counts of one, one
    // under and over a block, and above the threading threshold (2^17 pairs); 1 to 3
    // threads; the output 4 bytes off its allocation's alignment; in place too.
    const int64_t pair_counts[] = { 1, 511, 513, (1 << 17) + 77 };
    uint32_t seed = 90;
    for (const int64_t pairs : pair_counts) {
        const blade_shape shape = blade_shape_aftp(1, 1, pairs, 2);
        const auto bytes = blade_test::random_cf32(2 * pairs, seed++);
        const cf* in = reinterpret_cast<const cf*>(bytes.data());
        unsetenv("BLADE_STREAM_MIN_BYTES");
        std::vector<cf> ordinary(2 * pairs);
        plan(shape).run(in, ordinary.data());
        setenv("BLADE_STREAM_MIN_BYTES", "0", 1);
        for (int threads = 1; threads <= 3; threads++) {
            blade_cpu_threads_set(threads);
            std::vector<float> shifted(4 * pairs + 1);
            cf* out = reinterpret_cast<cf*>(shifted.data() + 1);
            plan(shape).run(in, out);
            BOOST_TEST(std::memcmp(out, ordinary.data(), ordinary.size() * sizeof(cf)) == 0,
                       pairs << " pairs, " << threads << " threads, out of place");
            std::vector<cf> inplace(in, in + 2 * pairs);
            plan(shape).run(inplace.data(), inplace.data());
            BOOST_TEST(std::memcmp(inplace.data(), ordinary.data(), ordinary.size() * sizeof(cf)) ==
                           0,
                       pairs << " pairs, " << threads << " threads, in place");
        }
    }
    unsetenv("BLADE_STREAM_MIN_BYTES");
    blade_cpu_threads_set(0);
}

BOOST_AUTO_TEST_CASE(linear_output_basis_is_a_pass_through)
{
    const blade_shape shape = blade_shape_aftp(1, 2, 3, 2);
    const auto bytes = blade_test::random_cf32(12, 5);
    const auto* in = reinterpret_cast<const cf*>(bytes.data());
    std::vector<cf> out(12);
    plan p(shape, BLADE_BASIS_LINEAR);
    p.run(in, out.data());
    BOOST_TEST(std::memcmp(out.data(), in, 96) == 0);
    std::vector<cf> same(in, in + 12);
    p.run(same.data(), same.data()); // nothing to do, nothing changes
    BOOST_TEST(std::memcmp(same.data(), in, 96) == 0);
}

BOOST_AUTO_TEST_CASE(anything_but_two_polarizations_is_refused_at_creation)
{
    const blade_polarizer_config config = { BLADE_BASIS_CIRCULAR };
    for (int64_t polarizations : { 1, 3, 4 }) {
        blade_polarizer* polarizer = reinterpret_cast<blade_polarizer*>(0x1);
        const blade_shape shape = blade_shape_aftp(2, 3, 4, polarizations);
        BOOST_TEST(blade_polarizer_create(&polarizer, &config, &shape, blade_device_cpu()) ==
                   BLADE_ERROR_INVALID_ARGUMENT);
        BOOST_TEST(polarizer == nullptr);
        const std::string message = blade_last_error();
        BOOST_TEST(message.find("2 polarizations") != std::string::npos, message);
        BOOST_TEST(message.find("[2, 3, 4, " + std::to_string(polarizations) + "]") !=
                       std::string::npos,
                   message);
    }
    // The pass-through is checked just the same: a polarizer of P = 1 is a mistake.
    blade_polarizer* polarizer;
    const blade_polarizer_config linear = { BLADE_BASIS_LINEAR };
    const blade_shape single = blade_shape_aftp(2, 3, 4, 1);
    BOOST_TEST(blade_polarizer_create(&polarizer, &linear, &single, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    const blade_polarizer_config unknown = { static_cast<blade_basis>(7) };
    const blade_shape fine = blade_shape_aftp(2, 3, 4, 2);
    BOOST_TEST(blade_polarizer_create(&polarizer, &unknown, &fine, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("basis code 7") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(basis_names_parse_both_ways)
{
    blade_basis basis;
    ok(blade_basis_parse("Circular", &basis), "parse");
    BOOST_TEST(basis == BLADE_BASIS_CIRCULAR);
    ok(blade_basis_parse("linear", &basis), "parse");
    BOOST_TEST(basis == BLADE_BASIS_LINEAR);
    BOOST_TEST(std::string(blade_basis_name(BLADE_BASIS_CIRCULAR)) == "circular");
    BOOST_TEST(blade_basis_parse("elliptical", &basis) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("'elliptical'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(process_refuses_tensors_the_plan_was_not_made_for)
{
    plan p(blade_shape_aftp(2, 3, 4, 2));
    std::vector<cf> buffer(48);
    const blade_shape other = blade_shape_aftp(2, 4, 3, 2);
    blade_tensor input = blade_tensor_make(BLADE_CF32, &other, blade_device_cpu(), buffer.data());
    blade_tensor output =
        blade_tensor_make(BLADE_CF32, &p.shape, blade_device_cpu(), buffer.data());
    BOOST_TEST(blade_polarizer_process(p.polarizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("[2, 4, 3, 2]") != std::string::npos);
    input = blade_tensor_make(BLADE_CF16, &p.shape, blade_device_cpu(), buffer.data());
    BOOST_TEST(blade_polarizer_process(p.polarizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("cf16") != std::string::npos);
}

namespace {

// Polarize `in` (bytes of `type` and `shape`) on the CPU (in place when asked, else
// into an output `offset` bytes past a 64-byte boundary).
std::vector<uint8_t> polarize_bytes(blade_dtype type,
                                    const blade_shape& shape,
                                    std::vector<uint8_t> in,
                                    bool in_place = false,
                                    size_t offset = 0)
{
    blade_polarizer* polarizer;
    const blade_polarizer_config config = { BLADE_BASIS_CIRCULAR };
    ok(blade_polarizer_create(&polarizer, &config, &shape, blade_device_cpu()), "create");
    std::vector<uint8_t> buffer(in.size() + 64 + offset);
    uint8_t* const out =
        buffer.data() + (64 - reinterpret_cast<uintptr_t>(buffer.data()) % 64) % 64 + offset;
    blade_tensor input = blade_tensor_make(type, &shape, blade_device_cpu(), in.data());
    blade_tensor output =
        blade_tensor_make(type, &shape, blade_device_cpu(), in_place ? in.data() : out);
    ok(blade_polarizer_process(polarizer, &input, &output, nullptr), "process");
    blade_polarizer_destroy(polarizer);
    return in_place ? in : std::vector<uint8_t>(out, out + in.size());
}

} // namespace

BOOST_AUTO_TEST_CASE(half_pairs_are_combined_in_float_and_rounded_once)
{
    // cf16 in and out: each output is the float sum of the widened halves rounded to
    // half once, i.e. exactly cast(polarize_cf32(cast(x))). Odd shape above the
    // threaded threshold; then the exact small cases.
    // Special values among them (NaN, infinities, signed zeros, subnormals, the
    // largest half) check the registers' path (F16C) against the per-value one;
    // BLADE_STREAM_MIN_BYTES = 0 runs the streamed path on this shape too, with the
    // output on and off a 64-byte boundary (4 bytes off: no pair 8-byte aligned), which
    // the streamed copy out of the L1 block aligns itself.
    const blade_shape shape = blade_shape_aftp(3, 7, 6257, 2);
    const int64_t values = blade_shape_count(&shape);
    auto half = blade_test::random_cf16(values, 8);
    const uint16_t specials[] = { 0x7e00, 0x7c01, 0xfe00, 0x7c00, 0xfc00, 0x0000,
                                  0x8000, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x3c00 };
    for (size_t k = 0; 2 * k + 1 < half.size(); k += 37) {
        const uint16_t v = specials[(k / 37) % (sizeof specials / sizeof specials[0])];
        std::memcpy(&half[2 * k], &v, 2);
    }
    const auto wide = blade_test::cast_on_cpu(half, BLADE_CF16, BLADE_CF32, values);
    const auto expected = blade_test::cast_on_cpu(
        polarize_bytes(BLADE_CF32, shape, wide), BLADE_CF32, BLADE_CF16, values);
    for (const char* stream : { "", "0" }) {
        setenv("BLADE_STREAM_MIN_BYTES", stream, 1);
        for (size_t offset : { 0, 4, 8, 56 })
            BOOST_TEST((polarize_bytes(BLADE_CF16, shape, half, false, offset) == expected),
                       "streamed " << stream << ", output offset " << offset);
        BOOST_TEST((polarize_bytes(BLADE_CF16, shape, half, true) == expected),
                   "in place, streamed " << stream);
    }
    unsetenv("BLADE_STREAM_MIN_BYTES");

    // (X, Y) = (1+2i, 3+4i): L = -3+5i, R = 5-i.  (X, Y) = (2048, -i): L = 2049, a tie
    // between the halves 2048 and 2050, rounds to even 2048; R = 2047 is exact.
    const std::vector<uint16_t> small = { 0x3C00, 0x4000, 0x4200, 0x4400,   // 1, 2, 3, 4
                                          0x6800, 0x0000, 0x0000, 0xBC00 }; // 2048, 0; 0, -1
    std::vector<uint8_t> bytes(16);
    std::memcpy(bytes.data(), small.data(), 16);
    const auto out = polarize_bytes(BLADE_CF16, blade_shape_aftp(1, 1, 2, 2), bytes);
    std::vector<uint16_t> got(8);
    std::memcpy(got.data(), out.data(), 16);
    const std::vector<uint16_t> want = { 0xC200, 0x4500, 0x4500, 0xBC00,   // -3, 5; 5, -1
                                         0x6800, 0x0000, 0x67FF, 0x0000 }; // 2048, 0; 2047, 0
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(mixed_or_integer_types_are_refused_by_name)
{
    plan p(blade_shape_aftp(1, 2, 3, 2));
    std::vector<uint8_t> a(96), b(96);
    blade_tensor input = blade_tensor_make(BLADE_CF16, &p.shape, blade_device_cpu(), a.data());
    blade_tensor output = blade_tensor_make(BLADE_CF32, &p.shape, blade_device_cpu(), b.data());
    BOOST_TEST(blade_polarizer_process(p.polarizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("the output has the input's type") !=
               std::string::npos);
    input = blade_tensor_make(BLADE_CI8, &p.shape, blade_device_cpu(), a.data());
    output = blade_tensor_make(BLADE_CI8, &p.shape, blade_device_cpu(), b.data());
    BOOST_TEST(blade_polarizer_process(p.polarizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("ci8; expected cf32 or cf16") !=
               std::string::npos);
}

#ifdef HALF_ARITHMETIC_CHECK
namespace {

// Over every pair of halves (x, y): pairs whose half sum (AVX512-FP16's addition,
// rounded once) differs from their float sum rounded to half, NaN results aside.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512fp16"))) uint64_t
half_sums_unlike_float_sums()
{
    uint64_t differ = 0;
    const __m512i lanes = _mm512_set_epi16(31,
                                           30,
                                           29,
                                           28,
                                           27,
                                           26,
                                           25,
                                           24,
                                           23,
                                           22,
                                           21,
                                           20,
                                           19,
                                           18,
                                           17,
                                           16,
                                           15,
                                           14,
                                           13,
                                           12,
                                           11,
                                           10,
                                           9,
                                           8,
                                           7,
                                           6,
                                           5,
                                           4,
                                           3,
                                           2,
                                           1,
                                           0);
    for (uint32_t x = 0; x < 65536; x++) {
        const __m512i xs = _mm512_set1_epi16(static_cast<short>(x));
        for (uint32_t y = 0; y < 65536; y += 32) {
            const __m512i ys = _mm512_add_epi16(_mm512_set1_epi16(static_cast<short>(y)), lanes);
            const __m512i half_sum = _mm512_castph_si512(
                _mm512_add_ph(_mm512_castsi512_ph(xs), _mm512_castsi512_ph(ys)));
            for (int k = 0; k < 2; k++) {
                const __m256i x16 = _mm512_extracti64x4_epi64(xs, k);
                const __m256i y16 = _mm512_extracti64x4_epi64(ys, k);
                const __m512 sum = _mm512_add_ps(_mm512_cvtph_ps(x16), _mm512_cvtph_ps(y16));
                const __m256i rounded =
                    _mm512_cvtps_ph(sum, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                const __mmask16 nan = _mm512_cmp_ps_mask(sum, sum, _CMP_UNORD_Q);
                differ += __builtin_popcount(
                    _mm256_cmpneq_epi16_mask(rounded, _mm512_extracti64x4_epi64(half_sum, k)) &
                    ~nan);
            }
        }
    }
    return differ;
}

} // namespace
#endif

BOOST_AUTO_TEST_CASE(half_additions_round_as_float_additions_round)
{
    // The cf16 polarizer adds halves in half-precision arithmetic where the CPU has
    // AVX512-FP16, and promises the bits of the float path: a float sum of two halves
    // rounded to half. Float's 24 bits are at least 2 x 11 + 2, so that double rounding
    // is innocuous; checked here for all 2^32 pairs (half a second) where the CPU can.
#ifdef HALF_ARITHMETIC_CHECK
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512fp16") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl")) {
        BOOST_TEST(half_sums_unlike_float_sums() == 0u);
        return;
    }
#endif
    BOOST_TEST_MESSAGE("no AVX512-FP16 here: the polarizer's half arithmetic is not used");
}
