// SPDX-License-Identifier: MIT
// Correlator on the CPU: products worked out by hand, random data against a direct
// double-precision sum written from the header's definition, integration within and
// across chunks (distinct data per chunk) and over channels, edge shapes (A = 1, 2,
// odd, 64; P = 1), the baseline numbering, and the validation messages; the fp32
// path (float32 sums through BLAS) against the same definition within float32 sums'
// rounding, with the same bits at any thread count.
#define BOOST_TEST_MODULE correlator
#include <boost/test/unit_test.hpp>

#include "device_memory.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>

using blade_test::ok;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

struct plan {
    blade_correlator* correlator = nullptr;
    blade_shape shape, out_shape;
    blade_dtype type;
    blade_device device;
    explicit plan(blade_shape s,
                  int64_t integration,
                  int64_t channel_integration = 1,
                  blade_dtype input_type = BLADE_CF32,
                  bool lower_sideband = false,
                  blade_device on = blade_device_cpu(),
                  blade_correlator_path path = BLADE_CORRELATOR_AUTO)
        : shape(s), type(input_type), device(on)
    {
        blade_correlator_config config = blade_correlator_config_default();
        config.input_type = input_type;
        config.path = path;
        config.integration = integration;
        config.channel_integration = channel_integration;
        config.lower_sideband = lower_sideband;
        ok(blade_correlator_create(&correlator, &config, &shape, device), "create");
        out_shape = blade_correlator_output_shape(correlator);
    }
    ~plan() { blade_correlator_destroy(correlator); }
    int64_t outputs() const { return blade_shape_count(&out_shape); }
    void run(const void* in, cf* out)
    {
        blade_tensor input = blade_tensor_make(type, &shape, device, const_cast<void*>(in));
        blade_tensor output = blade_tensor_make(BLADE_CF32, &out_shape, device, out);
        ok(blade_correlator_process(correlator, &input, &output, nullptr), "process");
    }
    std::vector<cf> run(const void* in)
    {
        std::vector<cf> out(outputs(), cf(-1.0f, -1.0f));
        run(in, out.data());
        return out;
    }
};

// Voltages as doubles, whatever their type, for the references.
std::vector<cd> as_complex(const std::vector<uint8_t>& bytes, blade_dtype type)
{
    std::vector<cd> values;
    if (type == BLADE_CI8) {
        const auto* v = reinterpret_cast<const int8_t*>(bytes.data());
        for (size_t k = 0; k + 1 < bytes.size(); k += 2)
            values.emplace_back(v[k], v[k + 1]);
    } else {
        const auto* v = reinterpret_cast<const float*>(bytes.data());
        for (size_t k = 0; k + 1 < bytes.size() / 4; k += 2)
            values.emplace_back(v[k], v[k + 1]);
    }
    return values;
}

// The definition, written independently of the backend's loop order: for every
// output, a fresh sum over its channels and samples of x_i * conj(x_j). `chunks`
// holds K consecutive chunks of [A, F, T, P]; the time axis runs through them.
struct reference {
    std::vector<cd> values;    // [B, F/Fc, windows, P*P]
    std::vector<double> scale; // per output: sum of |x_i||x_j| (the size of the rounding)
};

reference correlate_reference(const std::vector<cd>& chunks,
                              int64_t A,
                              int64_t F,
                              int64_t T,
                              int64_t P,
                              int64_t chunk_count,
                              int64_t integration,
                              int64_t fc,
                              bool lower_sideband = false)
{
    const int64_t total = T * chunk_count; // time samples of all chunks
    const int64_t windows = total / integration, groups = F / fc;
    auto x = [&](int64_t a, int64_t f, int64_t t, int64_t p) {
        const int64_t chunk = t / T, s = t % T;
        return chunks[static_cast<size_t>((((chunk * A + a) * F + f) * T + s) * P + p)];
    };
    reference r;
    for (int64_t i = 0; i < A; i++)
        for (int64_t j = i; j < A; j++)
            for (int64_t g = 0; g < groups; g++)
                for (int64_t w = 0; w < windows; w++)
                    for (int64_t p = 0; p < P; p++)
                        for (int64_t q = 0; q < P; q++) {
                            cd sum = 0;
                            double size = 0;
                            for (int64_t f = g * fc; f < (g + 1) * fc; f++)
                                for (int64_t t = w * integration; t < (w + 1) * integration; t++) {
                                    sum += x(i, f, t, p) * std::conj(x(j, f, t, q));
                                    size += std::abs(x(i, f, t, p)) * std::abs(x(j, f, t, q));
                                }
                            r.values.push_back(lower_sideband ? std::conj(sum) : sum);
                            r.scale.push_back(size);
                        }
    return r;
}

// Every output within float rounding of the reference: half an ulp of the value,
// plus double-precision rounding of the sum (negligible), nothing more.
void expect_close(const std::vector<cf>& got, const reference& want, const std::string& what)
{
    BOOST_TEST_REQUIRE(got.size() == want.values.size(), what);
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < got.size(); k++) {
        const double tolerance = 6.0e-8 * std::abs(want.values[k]) + 1e-13 * want.scale[k];
        const double re = std::abs(got[k].real() - want.values[k].real());
        const double im = std::abs(got[k].imag() - want.values[k].imag());
        if (!(re <= tolerance && im <= tolerance) && bad++ == 0)
            first = k;
    }
    BOOST_TEST(bad == 0,
               what << ": " << bad << " of " << got.size() << " outputs differ, first " << first
                    << " got " << got[first] << " want " << want.values[first]);
}

std::vector<uint8_t> random_voltages(blade_dtype type, int64_t count, uint32_t seed)
{
    if (type == BLADE_CI8)
        return blade_test::random_elements(BLADE_CI8, count, seed);
    return blade_test::random_cf32(count, seed);
}

std::string error_of(const blade_correlator_config& config, blade_shape shape)
{
    blade_correlator* correlator = reinterpret_cast<blade_correlator*>(0x1);
    const blade_status status =
        blade_correlator_create(&correlator, &config, &shape, blade_device_cpu());
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(correlator == nullptr);
    return blade_last_error();
}

// Two antennas, two samples, two polarizations (see the first test).
const std::vector<cf> two_antennas = {
    { 1, 2 }, { 3, -1 }, { -1, 0 }, { 0, 2 },  // antenna 0: (X, Y) at t = 0, 1
    { 0, 1 }, { 1, 1 },  { 2, 0 },  { -1, 0 }, // antenna 1
};

} // namespace

BOOST_AUTO_TEST_CASE(two_antennas_by_hand)
{
    // x0 = (1+2i, 3-i), (-1, 2i); x1 = (i, 1+i), (2, -1). Baselines (0,0), (0,1), (1,1).
    // V01 XX = (1+2i)(-i) + (-1)(2) = (2 - i) - 2 = -i
    //     XY = (1+2i)(1-i) + (-1)(-1) = (3 + i) + 1 = 4 + i
    //     YX = (3-i)(-i) + (2i)(2) = (-1 - 3i) + 4i = -1 + i
    //     YY = (3-i)(1-i) + (2i)(-1) = (2 - 4i) - 2i = 2 - 6i
    // V00 = 6, 1 + 9i, 1 - 9i, 14; V11 = 5, -1 + i, -1 - i, 3
    plan p(blade_shape_aftp(2, 1, 2, 2), 2);
    BOOST_TEST(p.out_shape.dims[0] == 3);
    BOOST_TEST(p.out_shape.dims[1] == 1);
    BOOST_TEST(p.out_shape.dims[2] == 1);
    BOOST_TEST(p.out_shape.dims[3] == 4);
    const std::vector<cf> want = {
        { 6, 0 },  { 1, 9 },  { 1, -9 }, { 14, 0 }, { 0, -1 },  { 4, 1 },
        { -1, 1 }, { 2, -6 }, { 5, 0 },  { -1, 1 }, { -1, -1 }, { 3, 0 }
    };
    const auto got = p.run(two_antennas.data());
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(one_output_per_sample_by_hand)
{
    // I = 1: baseline (0, 1) at t = 0 is (2 - i, 3 + i, -1 - 3i, 2 - 4i), at t = 1
    // (-2, 1, 4i, -2i). Layout [B, F, T, P*P]: baseline 1 starts at 2 * 4.
    plan p(blade_shape_aftp(2, 1, 2, 2), 1);
    BOOST_TEST(p.out_shape.dims[2] == 2);
    const auto got = p.run(two_antennas.data());
    const std::vector<cf> cross(got.begin() + 8, got.begin() + 16);
    const std::vector<cf> want = { { 2, -1 }, { 3, 1 }, { -1, -3 }, { 2, -4 },
                                   { -2, 0 }, { 1, 0 }, { 0, 4 },   { 0, -2 } };
    BOOST_TEST(cross == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_lower_sideband_conjugates_every_output)
{
    plan upper(blade_shape_aftp(2, 1, 2, 2), 2);
    plan lower(blade_shape_aftp(2, 1, 2, 2), 2, 1, BLADE_CF32, true);
    const auto u = upper.run(two_antennas.data()), l = lower.run(two_antennas.data());
    for (size_t k = 0; k < u.size(); k++)
        BOOST_TEST(l[k] == std::conj(u[k]));
    blade_correlator_set_lower_sideband(upper.correlator, true);
    BOOST_TEST(upper.run(two_antennas.data()) == l, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(one_polarization_and_one_antenna)
{
    // A = 1, P = 1: the single autocorrelation, sum |x|^2 = 25 + 1 + 4 = 30 and 0.
    const std::vector<cf> in = { { 3, 4 }, { 1, 0 }, { 0, 2 }, { 0, 0 } };
    plan p(blade_shape_aftp(1, 1, 4, 1), 2);
    BOOST_TEST(p.out_shape.dims[0] == 1);
    BOOST_TEST(p.out_shape.dims[3] == 1);
    const std::vector<cf> want = { { 26, 0 }, { 4, 0 } };
    BOOST_TEST(p.run(in.data()) == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(random_data_against_the_definition_in_double_precision)
{
    // Edge and odd shapes, both types, both polarization counts, time and channel
    // integrations; one chunk each.
    const struct {
        int64_t A, F, T, P, I, Fc;
        blade_dtype type;
    } cases[] = {
        { 1, 3, 8, 2, 8, 1, BLADE_CF32 },    { 2, 2, 6, 2, 3, 2, BLADE_CF32 },
        { 3, 5, 7, 2, 7, 5, BLADE_CF32 },    { 5, 4, 40, 2, 8, 2, BLADE_CI8 },
        { 7, 3, 33, 1, 11, 3, BLADE_CF32 },  { 7, 2, 64, 2, 1, 1, BLADE_CI8 },
        { 64, 2, 37, 2, 37, 1, BLADE_CF32 }, { 64, 4, 16, 2, 4, 2, BLADE_CI8 },
        { 17, 6, 96, 2, 96, 3, BLADE_CF32 }, { 28, 2, 70, 2, 35, 2, BLADE_CF32 },
        { 9, 1, 1, 1, 1, 1, BLADE_CI8 },
    };
    uint32_t seed = 100;
    for (const auto& c : cases) {
        const blade_shape shape = blade_shape_aftp(c.A, c.F, c.T, c.P);
        const auto bytes = random_voltages(c.type, blade_shape_count(&shape), seed++);
        plan p(shape, c.I, c.Fc, c.type);
        BOOST_TEST(p.out_shape.dims[0] == c.A * (c.A + 1) / 2);
        BOOST_TEST(p.out_shape.dims[1] == c.F / c.Fc);
        BOOST_TEST(p.out_shape.dims[2] == c.T / c.I);
        BOOST_TEST(p.out_shape.dims[3] == c.P * c.P);
        char text[64];
        expect_close(
            p.run(bytes.data()),
            correlate_reference(as_complex(bytes, c.type), c.A, c.F, c.T, c.P, 1, c.I, c.Fc),
            std::string(blade_shape_format(&shape, text, sizeof text)) + " I " +
                std::to_string(c.I) + " Fc " + std::to_string(c.Fc) + " " +
                blade_dtype_name(c.type));
    }
}

BOOST_AUTO_TEST_CASE(autocorrelations_are_real_and_cross_hands_conjugate)
{
    const blade_shape shape = blade_shape_aftp(6, 3, 20, 2);
    const auto bytes = blade_test::random_cf32(blade_shape_count(&shape), 7);
    plan p(shape, 10);
    const auto got = p.run(bytes.data());
    const int64_t per_baseline = 3 * 2 * 4;
    for (int64_t a = 0; a < 6; a++) {
        const int64_t b = blade_correlator_baseline_index(6, a, a);
        for (int64_t k = 0; k < per_baseline / 4; k++) {
            const cf* v = &got[static_cast<size_t>(b * per_baseline + 4 * k)];
            BOOST_TEST(v[0].imag() == 0.0f); // XX
            BOOST_TEST(v[3].imag() == 0.0f); // YY
            BOOST_TEST(v[0].real() > 0.0f);
            BOOST_TEST(v[2] == std::conj(v[1])); // YX = conj(XY)
        }
    }
}

BOOST_AUTO_TEST_CASE(integration_across_chunks_sums_distinct_chunks_in_groups)
{
    // K = 3 chunks of T = 4 per output, two groups, different random data in every
    // chunk: each group's output is the definition over its 12 samples, and the
    // steps before the last leave the output untouched.
    const blade_shape shape = blade_shape_aftp(5, 4, 4, 2);
    plan p(shape, 12, 2);
    BOOST_TEST(blade_correlator_steps(p.correlator) == 3);
    BOOST_TEST(p.out_shape.dims[2] == 1);
    const int64_t count = blade_shape_count(&shape);
    for (int group = 0; group < 2; group++) {
        const auto chunks = blade_test::random_cf32(3 * count, 40 + group);
        std::vector<cf> out(p.outputs(), cf(-7.0f, 7.0f));
        for (int k = 0; k < 3; k++) {
            BOOST_TEST(blade_correlator_position(p.correlator) == k);
            p.run(chunks.data() + k * count * 8, out.data());
            if (k < 2)
                BOOST_TEST(
                    std::all_of(out.begin(), out.end(), [](cf v) { return v == cf(-7.0f, 7.0f); }));
        }
        expect_close(out,
                     correlate_reference(as_complex(chunks, BLADE_CF32), 5, 4, 4, 2, 3, 12, 2),
                     "group " + std::to_string(group));
    }
}

BOOST_AUTO_TEST_CASE(integration_across_chunks_of_ci8_and_a_lower_sideband)
{
    const blade_shape shape = blade_shape_aftp(3, 2, 8, 2);
    plan p(shape, 16, 1, BLADE_CI8, true);
    const int64_t count = blade_shape_count(&shape);
    const auto chunks = blade_test::random_elements(BLADE_CI8, 2 * count, 77);
    std::vector<cf> out(p.outputs());
    p.run(chunks.data(), out.data());
    p.run(chunks.data() + 2 * count, out.data());
    expect_close(out,
                 correlate_reference(as_complex(chunks, BLADE_CI8), 3, 2, 8, 2, 2, 16, 1, true),
                 "ci8 LSB");
}

BOOST_AUTO_TEST_CASE(reset_starts_a_new_group)
{
    const blade_shape shape = blade_shape_aftp(1, 1, 1, 1);
    plan p(shape, 2);
    const std::vector<cf> big = { { 100, 0 } }, one = { { 1, 0 } };
    std::vector<cf> out(1);
    p.run(big.data(), out.data());
    blade_correlator_reset(p.correlator);
    BOOST_TEST(blade_correlator_position(p.correlator) == 0);
    p.run(one.data(), out.data());
    p.run(one.data(), out.data());
    BOOST_TEST(out[0] == cf(2.0f, 0.0f));
}

BOOST_AUTO_TEST_CASE(the_emulated_device_gives_the_cpu_bits)
{
    const blade_shape shape = blade_shape_aftp(4, 3, 16, 2);
    const int64_t count = blade_shape_count(&shape);
    const auto chunks = blade_test::random_cf32(2 * count, 5);
    plan cpu(shape, 32, 3);
    std::vector<cf> want(cpu.outputs());
    cpu.run(chunks.data(), want.data());
    cpu.run(chunks.data() + count * 8, want.data());
    blade_device emulated;
    ok(blade_device_parse("emulated", &emulated), "emulated");
    plan emu(shape, 32, 3, BLADE_CF32, false, emulated);
    blade_test::device_memory in(emulated, chunks),
        out(emulated, static_cast<size_t>(emu.outputs()) * 8);
    emu.run(in.data(), static_cast<cf*>(out.data()));
    emu.run(static_cast<char*>(in.data()) + count * 8, static_cast<cf*>(out.data()));
    const auto bytes = out.download();
    BOOST_TEST(std::memcmp(bytes.data(), want.data(), bytes.size()) == 0);
}

BOOST_AUTO_TEST_CASE(repeated_runs_give_identical_bits)
{
    const blade_shape shape = blade_shape_aftp(12, 16, 256, 2); // above the threaded threshold
    const auto bytes = blade_test::random_cf32(blade_shape_count(&shape), 9);
    plan p(shape, 64);
    const auto first = p.run(bytes.data()), second = p.run(bytes.data());
    BOOST_TEST(std::memcmp(first.data(), second.data(), first.size() * sizeof(cf)) == 0);
}

namespace {
bool cpu_has_blas() { return std::string(blade_cpu_blas()) != "none"; }
} // namespace

BOOST_AUTO_TEST_CASE(every_path_but_fp32_computes_the_reference_on_the_cpu)
{
    const blade_shape shape = blade_shape_aftp(3, 2, 4, 2);
    const auto bytes = blade_test::random_cf32(blade_shape_count(&shape), 3);
    std::vector<cf> first;
    for (int path = 0; path < BLADE_CORRELATOR_PATH_COUNT; path++) {
        blade_correlator_config config = blade_correlator_config_default();
        config.integration = 4;
        config.path = static_cast<blade_correlator_path>(path);
        config.operand_scale = 0.5f; // ignored off the tensor cores
        blade_correlator* correlator;
        ok(blade_correlator_create(&correlator, &config, &shape, blade_device_cpu()), "create");
        const bool blas = path == BLADE_CORRELATOR_FP32 && cpu_has_blas();
        BOOST_TEST(blade_correlator_path_used(correlator) ==
                   (blas ? BLADE_CORRELATOR_FP32 : BLADE_CORRELATOR_FP64));
        const blade_shape out_shape = blade_correlator_output_shape(correlator);
        std::vector<cf> out(blade_shape_count(&out_shape));
        blade_tensor input = blade_tensor_make(
            BLADE_CF32, &shape, blade_device_cpu(), const_cast<uint8_t*>(bytes.data()));
        blade_tensor output =
            blade_tensor_make(BLADE_CF32, &out_shape, blade_device_cpu(), out.data());
        ok(blade_correlator_process(correlator, &input, &output, nullptr), "process");
        blade_correlator_destroy(correlator);
        if (path == 0)
            first = out;
        else if (!blas)
            BOOST_TEST(out == first, boost::test_tools::per_element());
    }
}

namespace {
// Every output within the rounding of an n-term float32 sum (the header's fp32
// bound, n = the samples and channels summed per chunk) plus the float output's.
void expect_within_float32_sums(const std::vector<cf>& got,
                                const reference& want,
                                int64_t terms,
                                const std::string& what)
{
    BOOST_TEST_REQUIRE(got.size() == want.values.size(), what);
    size_t bad = 0, first = 0;
    double worst = 0; // error / scale
    for (size_t k = 0; k < got.size(); k++) {
        const double bound = static_cast<double>(terms) * std::ldexp(1.0, -24) * want.scale[k] +
                             6.0e-8 * std::abs(want.values[k]);
        const double error = std::abs(cd(got[k]) - want.values[k]);
        if (want.scale[k] > 0)
            worst = std::max(worst, error / want.scale[k]);
        if (!(error <= bound) && bad++ == 0)
            first = k;
    }
    BOOST_TEST(bad == 0,
               what << ": " << bad << " of " << got.size() << " outputs beyond the bound, first "
                    << first << " got " << got[first] << " want " << want.values[first]);
    BOOST_TEST_MESSAGE(what << ": worst error " << worst << " of sum |x_i||x_j|");
}
} // namespace

BOOST_AUTO_TEST_CASE(the_fp32_path_sums_in_float32_within_its_bound)
{
    if (!cpu_has_blas()) {
        BOOST_TEST_MESSAGE("built without OpenBLAS: fp32 on the CPU is the reference");
        return;
    }
    // Edge and odd shapes, both types, one or two polarizations, windows, channel
    // integration, a lower sideband, more samples than one BLAS block (1024), the
    // ATA node's 28 antennas; integration across 1 or 3 chunks of distinct data.
    const struct {
        int64_t A, F, T, P, I, Fc, K;
        blade_dtype type;
        bool lsb;
    } cases[] = {
        { 1, 3, 8, 2, 8, 1, 1, BLADE_CF32, false },
        { 2, 2, 6, 2, 3, 2, 1, BLADE_CF32, false },
        { 3, 5, 7, 2, 7, 5, 1, BLADE_CF32, true },
        { 5, 4, 40, 2, 8, 2, 1, BLADE_CI8, false },
        { 7, 3, 33, 1, 11, 3, 1, BLADE_CF32, false },
        { 9, 1, 1, 1, 1, 1, 1, BLADE_CI8, false },
        { 28, 2, 2500, 2, 2500, 1, 1, BLADE_CF32, false },
        { 33, 2, 1030, 2, 1030, 2, 1, BLADE_CI8, true },
        { 6, 4, 16, 2, 48, 2, 3, BLADE_CF32, false },
        { 4, 2, 8, 1, 24, 1, 3, BLADE_CI8, true },
    };
    uint32_t seed = 300;
    for (const auto& c : cases) {
        const blade_shape shape = blade_shape_aftp(c.A, c.F, c.T, c.P);
        const int64_t count = blade_shape_count(&shape);
        const auto chunks = random_voltages(c.type, c.K * count, seed++);
        plan p(shape, c.I, c.Fc, c.type, c.lsb, blade_device_cpu(), BLADE_CORRELATOR_FP32);
        BOOST_TEST(blade_correlator_path_used(p.correlator) == BLADE_CORRELATOR_FP32);
        const size_t chunk_bytes = chunks.size() / static_cast<size_t>(c.K);
        std::vector<cf> out(p.outputs(), cf(-1.0f, -1.0f));
        for (int64_t k = 0; k < c.K; k++)
            p.run(chunks.data() + k * chunk_bytes, out.data());
        char text[64];
        // Float32 sums within a chunk (I or T samples of Fc channels); across chunks
        // the sums add in double.
        const int64_t terms = std::min(c.I, c.T) * c.Fc;
        expect_within_float32_sums(
            out,
            correlate_reference(
                as_complex(chunks, c.type), c.A, c.F, c.T, c.P, c.K, c.I, c.Fc, c.lsb),
            terms,
            std::string(blade_shape_format(&shape, text, sizeof text)) + " I " +
                std::to_string(c.I) + " Fc " + std::to_string(c.Fc) + " " +
                blade_dtype_name(c.type) + (c.lsb ? " lsb" : ""));
        if (c.P == 2 && !c.lsb) { // autocorrelations: XX, YY real, YX = conj(XY) exactly
            const int64_t per_baseline = p.out_shape.dims[1] * p.out_shape.dims[2] * 4;
            for (int64_t a = 0; a < c.A; a++) {
                const cf* v = &out[static_cast<size_t>(blade_correlator_baseline_index(c.A, a, a) *
                                                       per_baseline)];
                BOOST_TEST(v[0].imag() == 0.0f);
                BOOST_TEST(v[3].imag() == 0.0f);
                BOOST_TEST(v[2] == std::conj(v[1]));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(the_fp32_path_gives_the_same_bits_with_any_thread_count)
{
    if (!cpu_has_blas())
        return;
    const blade_shape shape = blade_shape_aftp(20, 12, 1536, 2); // above the threaded threshold
    const auto bytes = blade_test::random_cf32(blade_shape_count(&shape), 11);
    std::vector<cf> first;
    for (int threads : { 1, 2, 3, 5 }) {
        blade_cpu_threads_set(threads);
        plan p(shape, 512, 1, BLADE_CF32, false, blade_device_cpu(), BLADE_CORRELATOR_FP32);
        const auto out = p.run(bytes.data());
        if (first.empty())
            first = out;
        else
            BOOST_TEST(std::memcmp(out.data(), first.data(), out.size() * sizeof(cf)) == 0,
                       threads << " threads");
    }
    blade_cpu_threads_set(0);
}

BOOST_AUTO_TEST_CASE(baseline_numbering_runs_row_by_row_over_the_upper_triangle)
{
    BOOST_TEST(blade_correlator_baselines(1) == 1);
    BOOST_TEST(blade_correlator_baselines(28) == 406);
    BOOST_TEST(blade_correlator_baselines(256) == 32896);
    BOOST_TEST(blade_correlator_baselines(0) == 0);
    // A = 3: (0,0) (0,1) (0,2) (1,1) (1,2) (2,2)
    BOOST_TEST(blade_correlator_baseline_index(3, 0, 2) == 2);
    BOOST_TEST(blade_correlator_baseline_index(3, 1, 1) == 3);
    BOOST_TEST(blade_correlator_baseline_index(3, 2, 2) == 5);
    BOOST_TEST(blade_correlator_baseline_index(3, 2, 1) == -1);
    BOOST_TEST(blade_correlator_baseline_index(3, 0, 3) == -1);
    BOOST_TEST(blade_correlator_baseline_index(3, -1, 0) == -1);
    for (int64_t A : { 1, 2, 3, 7, 64, 129 }) {
        int64_t expected = 0;
        for (int64_t i = 0; i < A; i++)
            for (int64_t j = i; j < A; j++, expected++) {
                BOOST_TEST_REQUIRE(blade_correlator_baseline_index(A, i, j) == expected);
                int64_t a = -1, b = -1;
                ok(blade_correlator_baseline_antennas(A, expected, &a, &b), "antennas");
                BOOST_TEST_REQUIRE(a == i);
                BOOST_TEST_REQUIRE(b == j);
            }
        BOOST_TEST(expected == blade_correlator_baselines(A));
        int64_t a, b;
        BOOST_TEST(blade_correlator_baseline_antennas(A, expected, &a, &b) ==
                   BLADE_ERROR_INVALID_ARGUMENT);
    }
    BOOST_TEST(std::string(blade_last_error()).find("outside 0 .. 8384") != std::string::npos,
               blade_last_error());
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_with_reasons)
{
    blade_correlator_config config = blade_correlator_config_default();
    const blade_shape shape = blade_shape_aftp(4, 6, 8, 2);
    auto with = [&](auto change) {
        blade_correlator_config c = config;
        change(c);
        return c;
    };
    std::string message = error_of(with([](auto& c) { c.integration = 3; }), shape);
    BOOST_TEST(message.find("integration 3 does not divide the T = 8") != std::string::npos,
               message);
    message = error_of(with([](auto& c) { c.integration = 12; }), shape);
    BOOST_TEST(message.find("use 8 or 16") != std::string::npos, message);
    message = error_of(with([](auto& c) { c.integration = 0; }), shape);
    BOOST_TEST(message.find("at least 1") != std::string::npos, message);
    message = error_of(with([](auto& c) { c.channel_integration = 4; }), shape);
    BOOST_TEST(message.find("channel integration 4 must be at least 1 and divide the F = 6") !=
                   std::string::npos,
               message);
    message = error_of(with([](auto& c) { c.channel_integration = 0; }), shape);
    BOOST_TEST(message.find("channel integration 0") != std::string::npos, message);
    message = error_of(with([](auto& c) { c.input_type = BLADE_CF16; }), shape);
    BOOST_TEST(message.find("cf32 or ci8, given cf16") != std::string::npos, message);
    message = error_of(with([](auto& c) { c.operand_scale = -1.0f; }), shape);
    BOOST_TEST(message.find("operand_scale -1") != std::string::npos, message);
    message = error_of(with([](auto& c) { c.operand_scale = NAN; }), shape);
    BOOST_TEST(message.find("finite") != std::string::npos, message);
    message =
        error_of(with([](auto& c) { c.path = static_cast<blade_correlator_path>(9); }), shape);
    BOOST_TEST(message.find("unknown path code 9") != std::string::npos, message);
    message = error_of(config, blade_shape_aftp(4, 6, 8, 3));
    BOOST_TEST(message.find("P = 3") != std::string::npos, message);
    message = error_of(config, blade_test::make_shape({ 4, 6, 8 }));
    BOOST_TEST(message.find("[A, F, T, P] (rank 4)") != std::string::npos, message);
    blade_correlator* correlator = nullptr;
    BOOST_TEST(blade_correlator_create(&correlator, nullptr, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    // 2^28 antennas: 2^55 baselines of 4 products do not fit a tensor (2^56 elements).
    message = error_of(config, blade_shape_aftp(int64_t{ 1 } << 28, 1, 1, 2));
    BOOST_TEST(message.find("more than a tensor may hold") != std::string::npos, message);
}

BOOST_AUTO_TEST_CASE(a_gpu_path_on_an_absent_gpu_is_refused)
{
    blade_correlator_config config = blade_correlator_config_default();
    const blade_shape shape = blade_shape_aftp(4, 6, 8, 2);
    blade_correlator* correlator;
    if (blade_gpu_count() > 0) {
        config.path = BLADE_CORRELATOR_FP64;
        BOOST_TEST(blade_correlator_create(&correlator, &config, &shape, blade_test::first_gpu()) ==
                   BLADE_ERROR_INVALID_ARGUMENT);
        BOOST_TEST(std::string(blade_last_error()).find("fp64 is the CPU reference") !=
                   std::string::npos);
    } else {
        BOOST_TEST(blade_correlator_create(&correlator, &config, &shape, blade_test::first_gpu()) ==
                   BLADE_ERROR_NO_DEVICE);
        BOOST_TEST(
            std::string(blade_last_error()).find("GPU 0 is not present (0 CUDA GPUs found)") !=
                std::string::npos,
            blade_last_error());
    }
}

BOOST_AUTO_TEST_CASE(path_names_parse_case_insensitively)
{
    blade_correlator_path path;
    ok(blade_correlator_path_parse("FP16", &path), "parse");
    BOOST_TEST(path == BLADE_CORRELATOR_FP16);
    ok(blade_correlator_path_parse("fp64", &path), "parse");
    BOOST_TEST(path == BLADE_CORRELATOR_FP64);
    BOOST_TEST(blade_correlator_path_parse("int4", &path) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("'int4'") != std::string::npos);
    BOOST_TEST(std::string(blade_correlator_path_name(BLADE_CORRELATOR_FP32)) == "fp32");
    BOOST_TEST(std::string(blade_correlator_path_name(static_cast<blade_correlator_path>(7))) ==
               "unknown");
}

BOOST_AUTO_TEST_CASE(process_refuses_tensors_the_plan_was_not_made_for)
{
    plan p(blade_shape_aftp(2, 1, 4, 2), 2);
    std::vector<cf> in(16), out(64);
    blade_tensor input = blade_tensor_make(BLADE_CF32, &p.shape, blade_device_cpu(), in.data());
    blade_tensor output = blade_tensor_make(BLADE_CF32, &p.shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_correlator_process(p.correlator, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("[3, 1, 2, 4]") != std::string::npos,
               blade_last_error());
    blade_tensor ci8 = blade_tensor_make(BLADE_CI8, &p.shape, blade_device_cpu(), in.data());
    output = blade_tensor_make(BLADE_CF32, &p.out_shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_correlator_process(p.correlator, &ci8, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    // In place: the output laid over the voltages
    std::vector<cf> shared(64);
    input = blade_tensor_make(BLADE_CF32, &p.shape, blade_device_cpu(), shared.data());
    output = blade_tensor_make(BLADE_CF32, &p.out_shape, blade_device_cpu(), shared.data() + 4);
    BOOST_TEST(blade_correlator_process(p.correlator, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("overlaps") != std::string::npos,
               blade_last_error());
}
