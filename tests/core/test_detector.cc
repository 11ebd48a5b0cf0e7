// SPDX-License-Identifier: MIT
// Detector on the CPU: products worked out by hand, integration within and across
// chunks with distinct data per chunk, and the validation messages.
#define BOOST_TEST_MODULE detector
#include <boost/test/unit_test.hpp>

#include "device_memory.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>

using blade_test::ok;
using cf = std::complex<float>;

namespace {

struct plan {
    blade_detector* detector = nullptr;
    blade_shape shape, out_shape;
    plan(blade_shape s, blade_detector_mode mode, int64_t integration, bool lower_sideband = false)
        : shape(s)
    {
        const blade_detector_config config = { mode, integration, lower_sideband };
        ok(blade_detector_create(&detector, &config, &shape, blade_device_cpu()), "create");
        out_shape = blade_detector_output_shape(detector);
    }
    ~plan() { blade_detector_destroy(detector); }
    int64_t outputs() const { return blade_shape_count(&out_shape); }
    void run(const cf* in, float* out)
    {
        blade_tensor input =
            blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), const_cast<cf*>(in));
        blade_tensor output = blade_tensor_make(BLADE_F32, &out_shape, blade_device_cpu(), out);
        ok(blade_detector_process(detector, &input, &output, nullptr), "process");
    }
    std::vector<float> run(const std::vector<cf>& in)
    {
        std::vector<float> out(outputs(), -1.0f);
        run(in.data(), out.data());
        return out;
    }
};

// (X, Y) = (1+2i, 3+4i): |X|^2 = 5, |Y|^2 = 25, X Y* = (1+2i)(3-4i) = 11 + 2i
// (X, Y) = (-1, i):      |X|^2 = 1, |Y|^2 = 1,  X Y* = (-1)(-i) = i
const std::vector<cf> two_samples = { { 1, 2 }, { 3, 4 }, { -1, 0 }, { 0, 1 } };

void expect(const std::vector<float>& got, const std::vector<float>& expected)
{
    BOOST_TEST(got == expected, boost::test_tools::per_element());
}

std::string error_of(blade_detector_mode mode, int64_t integration, blade_shape shape)
{
    blade_detector* detector = reinterpret_cast<blade_detector*>(0x1);
    const blade_detector_config config = { mode, integration };
    const blade_status status =
        blade_detector_create(&detector, &config, &shape, blade_device_cpu());
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(detector == nullptr);
    return blade_last_error();
}

} // namespace

BOOST_AUTO_TEST_CASE(every_mode_by_hand_without_integration)
{
    const blade_shape shape = blade_shape_aftp(1, 1, 2, 2);
    expect(plan(shape, BLADE_DETECT_I, 1).run(two_samples), { 30, 2 });
    expect(plan(shape, BLADE_DETECT_XXYY, 1).run(two_samples), { 5, 25, 1, 1 });
    expect(plan(shape, BLADE_DETECT_CROSS, 1).run(two_samples), { 5, 25, 11, 2, 1, 1, 0, 1 });
    // I = XX + YY, Q = XX - YY, U = 2 Re(XY*), V = -2 Im(XY*)
    expect(plan(shape, BLADE_DETECT_IQUV, 1).run(two_samples), { 30, -20, 22, -4, 2, 0, 0, -2 });
}

BOOST_AUTO_TEST_CASE(a_lower_sideband_negates_the_imaginary_cross_product_only)
{
    // The voltages of a lower-sideband band are the sky's conjugates: X·Y* becomes
    // its conjugate, so Im(X·Y*) (cross's 4th output, IQUV's V) changes sign and
    // nothing else does; the same by the setter, and within a sum over samples.
    const blade_shape shape = blade_shape_aftp(1, 1, 2, 2);
    expect(plan(shape, BLADE_DETECT_I, 1, true).run(two_samples), { 30, 2 });
    expect(plan(shape, BLADE_DETECT_XXYY, 1, true).run(two_samples), { 5, 25, 1, 1 });
    expect(plan(shape, BLADE_DETECT_CROSS, 1, true).run(two_samples),
           { 5, 25, 11, -2, 1, 1, 0, -1 });
    expect(plan(shape, BLADE_DETECT_IQUV, 1, true).run(two_samples),
           { 30, -20, 22, 4, 2, 0, 0, 2 });
    plan p(shape, BLADE_DETECT_IQUV, 2);
    expect(p.run(two_samples), { 32, -20, 22, -6 });
    blade_detector_set_lower_sideband(p.detector, true);
    expect(p.run(two_samples), { 32, -20, 22, 6 });
}

BOOST_AUTO_TEST_CASE(every_mode_by_hand_summed_over_two_samples)
{
    const blade_shape shape = blade_shape_aftp(1, 1, 2, 2);
    plan p(shape, BLADE_DETECT_CROSS, 2);
    BOOST_TEST(p.out_shape.dims[2] == 1);
    BOOST_TEST(p.out_shape.dims[3] == 4);
    expect(p.run(two_samples), { 6, 26, 11, 3 });
    expect(plan(shape, BLADE_DETECT_I, 2).run(two_samples), { 32 });
    expect(plan(shape, BLADE_DETECT_XXYY, 2).run(two_samples), { 6, 26 });
    expect(plan(shape, BLADE_DETECT_IQUV, 2).run(two_samples), { 32, -20, 22, -6 });
}

BOOST_AUTO_TEST_CASE(one_polarization_total_power)
{
    // [1, 2, 3, 1]: channel 0 = 3+4i, 1, i; channel 1 = 2, 0, -1-i; I = 3
    const std::vector<cf> in = { { 3, 4 }, { 1, 0 }, { 0, 1 }, { 2, 0 }, { 0, 0 }, { -1, -1 } };
    plan p(blade_shape_aftp(1, 2, 3, 1), BLADE_DETECT_I, 3);
    BOOST_TEST(p.out_shape.dims[3] == 1);
    expect(p.run(in), { 27, 6 });
}

BOOST_AUTO_TEST_CASE(output_shapes_follow_the_integration)
{
    const blade_shape shape = blade_shape_aftp(3, 5, 12, 2);
    const struct {
        blade_detector_mode mode;
        int64_t integration, samples, outputs, steps;
    } cases[] = {
        { BLADE_DETECT_I, 1, 12, 1, 1 },     { BLADE_DETECT_XXYY, 4, 3, 2, 1 },
        { BLADE_DETECT_CROSS, 12, 1, 4, 1 }, { BLADE_DETECT_IQUV, 36, 1, 4, 3 },
        { BLADE_DETECT_I, 120, 1, 1, 10 },
    };
    for (const auto& c : cases) {
        plan p(shape, c.mode, c.integration);
        BOOST_TEST(p.out_shape.rank == 4);
        BOOST_TEST(p.out_shape.dims[0] == 3);
        BOOST_TEST(p.out_shape.dims[1] == 5);
        BOOST_TEST(p.out_shape.dims[2] == c.samples);
        BOOST_TEST(p.out_shape.dims[3] == c.outputs);
        BOOST_TEST(blade_detector_steps(p.detector) == c.steps);
    }
}

BOOST_AUTO_TEST_CASE(random_data_against_a_direct_double_sum)
{
    // Odd and prime extents, every mode, several integrations (I = 1: the rows of one
    // sample, eight at a time and the rest one by one), both sidebands (a lower one
    // negates Im(X Y*), so V).
    const blade_shape shape = blade_shape_aftp(3, 7, 30, 2);
    const int64_t samples = 3 * 7 * 30;
    const auto bytes = blade_test::random_cf32(2 * samples, 21);
    const std::vector<cf> in(reinterpret_cast<const cf*>(bytes.data()),
                             reinterpret_cast<const cf*>(bytes.data()) + 2 * samples);
    for (int64_t integration : { 1, 2, 3, 5, 15, 30 }) {
        const int64_t per_row = 30 / integration, rows = 21 * per_row;
        for (int mode = 0; mode < 8; mode++) {
            const bool lower = mode >= 4;
            plan p(shape, static_cast<blade_detector_mode>(mode % 4), integration, lower);
            const auto got = p.run(in);
            const int outputs =
                blade_detector_mode_outputs(static_cast<blade_detector_mode>(mode % 4));
            for (int64_t r = 0; r < rows; r++) {
                double xx = 0, yy = 0, re = 0, im = 0;
                for (int64_t t = 0; t < integration; t++) {
                    const std::complex<double> x = in[2 * (r * integration + t)],
                                               y = in[2 * (r * integration + t) + 1];
                    xx += std::norm(x);
                    yy += std::norm(y);
                    re += (x * std::conj(y)).real();
                    im += (x * std::conj(y)).imag();
                }
                if (lower)
                    im = -im;
                const double modes[4][4] = { { xx + yy },
                                             { xx, yy },
                                             { xx, yy, re, im },
                                             { xx + yy, xx - yy, 2 * re, -2 * im } };
                for (int c = 0; c < outputs; c++) {
                    const double want = modes[mode % 4][c], have = got[r * outputs + c];
                    if (std::abs(have - want) > 1e-6 * (xx + yy))
                        BOOST_FAIL("mode " << mode % 4 << (lower ? " lower" : "") << " I "
                                           << integration << " row " << r << " output " << c << ": "
                                           << have << " != " << want);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(integration_across_chunks_sums_distinct_chunks_in_groups)
{
    // T = 2, I = 6: three chunks per output. Chunk k of group g holds X = 10g + k + 1,
    // Y = 0 in both samples, so XX of the group = 2 * sum over k of (10g + k + 1)^2.
    const blade_shape shape = blade_shape_aftp(1, 1, 2, 2);
    plan p(shape, BLADE_DETECT_XXYY, 6);
    BOOST_TEST(blade_detector_steps(p.detector) == 3);
    for (int group = 0; group < 2; group++) {
        std::vector<float> out = { -7.0f, -7.0f };
        double want = 0;
        for (int k = 0; k < 3; k++) {
            BOOST_TEST(blade_detector_position(p.detector) == k);
            const float x = static_cast<float>(10 * group + k + 1);
            const std::vector<cf> chunk = { { x, 0 }, { 0, 0 }, { x, 0 }, { 0, 0 } };
            p.run(chunk.data(), out.data());
            want += 2.0 * x * x;
            if (k < 2) // only the last step of a group writes the output
                expect(out, { -7.0f, -7.0f });
        }
        // group 0: 2 (1 + 4 + 9) = 28; group 1: 2 (121 + 144 + 169) = 868 (not 896:
        // the second group starts afresh)
        expect(out, { static_cast<float>(want), 0.0f });
        BOOST_TEST(want == (group == 0 ? 28.0 : 868.0));
    }
}

BOOST_AUTO_TEST_CASE(reset_starts_a_new_group)
{
    const blade_shape shape = blade_shape_aftp(1, 1, 1, 2);
    plan p(shape, BLADE_DETECT_I, 2);
    std::vector<float> out = { 0 };
    const std::vector<cf> big = { { 100, 0 }, { 0, 0 } }, one = { { 1, 0 }, { 0, 0 } };
    p.run(big.data(), out.data());
    blade_detector_reset(p.detector);
    BOOST_TEST(blade_detector_position(p.detector) == 0);
    p.run(one.data(), out.data());
    p.run(one.data(), out.data());
    expect(out, { 2.0f });
}

BOOST_AUTO_TEST_CASE(repeated_runs_give_identical_bits)
{
    const blade_shape shape = blade_shape_aftp(4, 33, 512, 2); // above the threaded threshold
    const auto bytes = blade_test::random_cf32(2 * 4 * 33 * 512, 8);
    const std::vector<cf> in(reinterpret_cast<const cf*>(bytes.data()),
                             reinterpret_cast<const cf*>(bytes.data()) + 2 * 4 * 33 * 512);
    plan p(shape, BLADE_DETECT_IQUV, 64);
    const auto first = p.run(in), second = p.run(in);
    BOOST_TEST(std::memcmp(first.data(), second.data(), first.size() * 4) == 0);
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_with_reasons)
{
    std::string message = error_of(BLADE_DETECT_I, 3, blade_shape_aftp(2, 4, 8, 2));
    BOOST_TEST(message.find("integration 3 does not divide the T = 8") != std::string::npos,
               message);
    message = error_of(BLADE_DETECT_I, 12, blade_shape_aftp(2, 4, 8, 2));
    BOOST_TEST(message.find("not a multiple of T") != std::string::npos, message);
    BOOST_TEST(message.find("use 8 or 16") != std::string::npos, message);
    message = error_of(BLADE_DETECT_I, 0, blade_shape_aftp(2, 4, 8, 2));
    BOOST_TEST(message.find("at least 1") != std::string::npos, message);
    for (auto mode : { BLADE_DETECT_XXYY, BLADE_DETECT_CROSS, BLADE_DETECT_IQUV }) {
        message = error_of(mode, 1, blade_shape_aftp(2, 4, 8, 1));
        BOOST_TEST(message.find("needs two polarizations") != std::string::npos, message);
        BOOST_TEST(message.find(blade_detector_mode_name(mode)) != std::string::npos, message);
    }
    message = error_of(BLADE_DETECT_I, 1, blade_shape_aftp(2, 4, 8, 3));
    BOOST_TEST(message.find("P = 3") != std::string::npos, message);
    int64_t dims[3] = { 2, 8, 2 };
    blade_shape rank3;
    ok(blade_shape_make(dims, 3, &rank3), "shape");
    message = error_of(BLADE_DETECT_I, 1, rank3);
    BOOST_TEST(message.find("[A, F, T, P] (rank 4)") != std::string::npos, message);
    message = error_of(static_cast<blade_detector_mode>(9), 1, blade_shape_aftp(2, 4, 8, 2));
    BOOST_TEST(message.find("unknown mode code 9") != std::string::npos, message);
}

BOOST_AUTO_TEST_CASE(mode_names_parse_case_insensitively)
{
    blade_detector_mode mode;
    ok(blade_detector_mode_parse("iquv", &mode), "parse");
    BOOST_TEST(mode == BLADE_DETECT_IQUV);
    ok(blade_detector_mode_parse("Cross", &mode), "parse");
    BOOST_TEST(mode == BLADE_DETECT_CROSS);
    ok(blade_detector_mode_parse("i", &mode), "parse");
    BOOST_TEST(mode == BLADE_DETECT_I);
    BOOST_TEST(blade_detector_mode_parse("AABB", &mode) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("'AABB'") != std::string::npos);
    BOOST_TEST(blade_detector_mode_outputs(BLADE_DETECT_XXYY) == 2);
}

BOOST_AUTO_TEST_CASE(process_refuses_tensors_the_plan_was_not_made_for)
{
    plan p(blade_shape_aftp(1, 1, 4, 2), BLADE_DETECT_I, 2);
    std::vector<cf> in(8);
    std::vector<float> out(2);
    blade_tensor input = blade_tensor_make(BLADE_CF32, &p.shape, blade_device_cpu(), in.data());
    blade_tensor output = blade_tensor_make(BLADE_F32, &p.shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_detector_process(p.detector, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("[1, 1, 2, 1]") != std::string::npos);
}

namespace {

// Detect `nchunks` chunks of `type` bytes with one plan on the CPU; the output chunks.
std::vector<float> detect_bytes(blade_dtype type,
                                const blade_shape& shape,
                                blade_detector_mode mode,
                                int64_t integration,
                                const std::vector<uint8_t>& chunks,
                                int64_t nchunks,
                                float scale = 0,
                                bool lower_sideband = false)
{
    blade_detector* detector;
    const blade_detector_config config = { mode, integration, lower_sideband, scale };
    ok(blade_detector_create(&detector, &config, &shape, blade_device_cpu()), "create");
    const blade_shape out_shape = blade_detector_output_shape(detector);
    const int64_t steps = blade_detector_steps(detector), outputs = blade_shape_count(&out_shape);
    const size_t in_bytes = blade_tensor_bytes(type, &shape);
    std::vector<float> out(static_cast<size_t>(outputs * (nchunks / steps)), -1.0f);
    for (int64_t c = 0; c < nchunks; c++) {
        blade_tensor input = blade_tensor_make(
            type, &shape, blade_device_cpu(), const_cast<uint8_t*>(chunks.data()) + c * in_bytes);
        blade_tensor output = blade_tensor_make(
            BLADE_F32, &out_shape, blade_device_cpu(), out.data() + (c / steps) * outputs);
        ok(blade_detector_process(detector, &input, &output, nullptr), "process");
    }
    blade_detector_destroy(detector);
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(half_voltages_detect_exactly_as_their_cast_to_cf32)
{
    // cf16 is widened as it is read and summed in double by the same code: every
    // mode, integrations below, at and across the widening block (256 samples) and
    // across chunks, one and two polarizations, give the bits of the cf32 cast.
    struct run {
        blade_shape shape;
        int64_t integration, chunks;
    };
    const run runs[] = {
        { blade_shape_aftp(3, 7, 30, 2), 1, 1 },      { blade_shape_aftp(3, 7, 30, 2), 15, 1 },
        { blade_shape_aftp(2, 3, 600, 2), 600, 1 },   { blade_shape_aftp(2, 3, 257, 2), 257, 1 },
        { blade_shape_aftp(2, 5, 64, 2), 3 * 64, 6 }, { blade_shape_aftp(3, 4, 700, 1), 700, 2 }
    };
    uint32_t seed = 31;
    for (const run& r : runs) {
        const int64_t values = blade_shape_count(&r.shape) * r.chunks;
        const auto half = blade_test::random_cf16(values, seed++);
        const auto wide = blade_test::cast_on_cpu(half, BLADE_CF16, BLADE_CF32, values);
        const int modes = r.shape.dims[3] == 1 ? 1 : 4;
        for (int mode = 0; mode < modes; mode++) {
            const auto m = static_cast<blade_detector_mode>(mode);
            const auto from_half =
                detect_bytes(BLADE_CF16, r.shape, m, r.integration, half, r.chunks);
            const auto from_cast =
                detect_bytes(BLADE_CF32, r.shape, m, r.integration, wide, r.chunks);
            BOOST_TEST((from_half == from_cast),
                       "mode " << mode << " I " << r.integration << " T " << r.shape.dims[2]);
        }
    }
    // By hand: (X, Y) = (1+2i, 3+4i), (-1, i) are exact halves: I = 32, XX = 6, YY = 26
    const std::vector<uint16_t> halves = { 0x3C00, 0x4000, 0x4200, 0x4400,
                                           0xBC00, 0x0000, 0x0000, 0x3C00 };
    std::vector<uint8_t> bytes(16);
    std::memcpy(bytes.data(), halves.data(), 16);
    const auto iquv =
        detect_bytes(BLADE_CF16, blade_shape_aftp(1, 1, 2, 2), BLADE_DETECT_IQUV, 2, bytes, 1);
    // X Y* summed: (11 + 2i) + i = 11 + 3i: U = 22, V = -6
    expect(iquv, { 32, -20, 22, -6 });
}

BOOST_AUTO_TEST_CASE(integer_voltages_are_refused_naming_the_types)
{
    plan p(blade_shape_aftp(1, 1, 4, 2), BLADE_DETECT_I, 2);
    std::vector<uint8_t> in(64);
    std::vector<float> out(2);
    blade_tensor input = blade_tensor_make(BLADE_CI8, &p.shape, blade_device_cpu(), in.data());
    blade_tensor output =
        blade_tensor_make(BLADE_F32, &p.out_shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_detector_process(p.detector, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("ci8; expected cf32 or cf16") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_scale_multiplies_the_outputs_once)
{
    // A half-precision chain's 2^2k: every output exactly 2^20 times the unscaled
    // one, within a chunk and across chunks (the accumulator is not scaled).
    const blade_shape shape = blade_shape_aftp(2, 3, 16, 2);
    const auto half = blade_test::random_cf16(blade_shape_count(&shape) * 4, 51, 0.01f);
    for (int64_t integration : { 4, 32 }) {
        const auto plain = detect_bytes(BLADE_CF16, shape, BLADE_DETECT_IQUV, integration, half, 4);
        const auto scaled =
            detect_bytes(BLADE_CF16, shape, BLADE_DETECT_IQUV, integration, half, 4, 0x1p20f);
        BOOST_TEST_REQUIRE(plain.size() == scaled.size());
        for (size_t i = 0; i < plain.size(); i++)
            if (scaled[i] != std::ldexp(plain[i], 20))
                BOOST_FAIL("I " << integration << " output " << i);
    }
    blade_detector* detector = reinterpret_cast<blade_detector*>(0x1);
    const blade_detector_config bad = { BLADE_DETECT_I, 4, false, -2.0f };
    BOOST_TEST(blade_detector_create(&detector, &bad, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(detector == nullptr);
    BOOST_TEST(std::string(blade_last_error()).find("scale -2") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(short_rows_detected_together_give_the_bits_of_one_row_at_a_time)
{
    // Rows of up to 64 values (I <= 16 samples of two polarizations) are finished two
    // (four outputs) or four (total power) at a time, and rows of one sample eight at a
    // time (the total power also when integrating across chunks), lanes of one vector;
    // a chunk of a single row takes the one-row path. Every mode, cf32 and cf16, both sidebands,
    // integrations within a chunk and across chunks, and row counts that leave a
    // remainder after the groups: the chunk's bits are those of each row alone.
    struct run {
        blade_shape shape;
        int64_t integration, chunks;
    };
    const run runs[] = {
        { blade_shape_aftp(3, 5, 24, 2), 1, 1 },  { blade_shape_aftp(3, 5, 24, 2), 2, 1 },
        { blade_shape_aftp(3, 5, 24, 2), 3, 1 },  { blade_shape_aftp(3, 5, 24, 2), 8, 1 },
        { blade_shape_aftp(3, 5, 24, 2), 12, 1 }, { blade_shape_aftp(2, 3, 16, 2), 16, 1 },
        { blade_shape_aftp(3, 5, 32, 2), 32, 1 }, { blade_shape_aftp(3, 5, 4, 2), 8, 2 },
        { blade_shape_aftp(3, 5, 4, 2), 12, 3 },  { blade_shape_aftp(3, 5, 24, 1), 8, 1 },
        { blade_shape_aftp(3, 5, 1, 2), 1, 2 },   { blade_shape_aftp(3, 5, 1, 2), 3, 6 }
    };
    uint32_t seed = 91;
    for (const run& r : runs) {
        const int64_t A = r.shape.dims[0], F = r.shape.dims[1], T = r.shape.dims[2];
        const int64_t P = r.shape.dims[3];
        const int64_t values = blade_shape_count(&r.shape) * r.chunks;
        // A row: I samples of one chunk (I <= T), or the T samples of each of I / T chunks.
        const int64_t per_chunk = std::min(r.integration, T);
        const int64_t rows = A * F * (T / per_chunk);
        const blade_shape row_shape = blade_shape_aftp(1, 1, per_chunk, P);
        for (const blade_dtype type : { BLADE_CF32, BLADE_CF16 }) {
            const auto data = type == BLADE_CF32 ? blade_test::random_cf32(values, seed++)
                                                 : blade_test::random_cf16(values, seed++);
            const size_t sample = blade_dtype_bits(type) / 8 * P;
            const size_t chunk_bytes = blade_tensor_bytes(type, &r.shape);
            const size_t row_bytes = per_chunk * sample;
            for (int mode = 0; mode < (P == 2 ? 4 : 1); mode++) // one polarization: I only
                for (bool lower : { false, true }) {
                    const auto m = static_cast<blade_detector_mode>(mode);
                    const auto together =
                        detect_bytes(type, r.shape, m, r.integration, data, r.chunks, 0, lower);
                    // output steps: one per chunk, or one per I / T chunks
                    const int64_t steps =
                        r.integration <= T ? r.chunks : r.chunks / (r.integration / T);
                    const size_t outputs = together.size() / static_cast<size_t>(rows * steps);
                    for (int64_t row = 0; row < rows; row++) {
                        std::vector<uint8_t> alone_data;
                        for (int64_t c = 0; c < r.chunks; c++) {
                            const uint8_t* at = data.data() + c * chunk_bytes + row * row_bytes;
                            alone_data.insert(alone_data.end(), at, at + row_bytes);
                        }
                        const auto alone = detect_bytes(
                            type, row_shape, m, r.integration, alone_data, r.chunks, 0, lower);
                        BOOST_TEST_REQUIRE(alone.size() == outputs * steps);
                        bool same = true;
                        for (int64_t step = 0; step < steps; step++)
                            same =
                                same && std::memcmp(alone.data() + step * outputs,
                                                    together.data() + (step * rows + row) * outputs,
                                                    outputs * 4) == 0;
                        BOOST_TEST(same,
                                   blade_dtype_name(type)
                                       << " mode " << mode << " I " << r.integration << " T " << T
                                       << " P " << P << " row " << row
                                       << (lower ? " lower sideband" : ""));
                    }
                }
        }
    }
}

BOOST_AUTO_TEST_CASE(rows_of_one_sample_give_the_bits_of_the_general_sums)
{
    // A spectrometer's detector (after a channelizer with N = T) sees rows of one
    // sample; cf32 rows of one sample of two polarizations have a loop of their own,
    // cf16 rows take the general sums of the same widened values. Both must give the
    // same bits for every mode, with signed zeros (a product -0 sums to +0 in the
    // general chains), subnormal and large halves, a lower sideband, a scale, and
    // integration in the chunk (I = 1) and across chunks (I = 3 T with T = 1).
    const uint16_t specials[] = { 0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x7BFF,
                                  0xFBFF, 0x3C00, 0xBC00, 0x3555, 0x0400, 0x8400 };
    struct run {
        blade_shape shape;
        int64_t integration, chunks;
    };
    const run runs[] = { { blade_shape_aftp(2, 5, 1, 2), 1, 3 },
                         { blade_shape_aftp(2, 5, 1, 2), 3, 6 },
                         { blade_shape_aftp(3, 4, 6, 2), 1, 2 } };
    uint32_t seed = 71;
    for (const run& r : runs) {
        const int64_t values = blade_shape_count(&r.shape) * r.chunks;
        auto half = blade_test::random_cf16(values, seed++);
        uint16_t* parts = reinterpret_cast<uint16_t*>(half.data());
        for (int64_t i = 0; i < 2 * values; i += 3) // every third part a special value
            parts[i] = specials[(i / 3) % (sizeof specials / sizeof specials[0])];
        const auto wide = blade_test::cast_on_cpu(half, BLADE_CF16, BLADE_CF32, values);
        for (int mode = 0; mode < 4; mode++)
            for (bool lower : { false, true }) {
                const auto m = static_cast<blade_detector_mode>(mode);
                const auto general =
                    detect_bytes(BLADE_CF16, r.shape, m, r.integration, half, r.chunks, 4, lower);
                const auto one_sample =
                    detect_bytes(BLADE_CF32, r.shape, m, r.integration, wide, r.chunks, 4, lower);
                BOOST_TEST_REQUIRE(general.size() == one_sample.size());
                BOOST_TEST(std::memcmp(general.data(), one_sample.data(), general.size() * 4) == 0,
                           "mode " << mode << " I " << r.integration << " T " << r.shape.dims[2]
                                   << (lower ? " lower sideband" : ""));
            }
    }
}
