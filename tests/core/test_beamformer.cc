// SPDX-License-Identifier: MIT
// Beamformer on the CPU: values worked out by hand from the spec, the equivalences the
// spec promises (ci8 and cf16 = cast then beamform, [B, A] = broadcast phasors), and every
// refusal with its message.
#define BOOST_TEST_MODULE beamformer
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using blade_test::ok;
using cf = std::complex<float>;

namespace {

blade_shape shape_of(std::initializer_list<int64_t> dims)
{
    blade_shape shape;
    ok(blade_shape_make(dims.begin(), static_cast<int>(dims.size()), &shape), "shape");
    return shape;
}

struct plan {
    blade_beamformer* bf = nullptr;
    blade_beamformer_config config = blade_beamformer_config_default();
    blade_shape input, phasors;
    plan(blade_shape in,
         blade_shape w,
         bool incoherent = false,
         bool root = false,
         blade_dtype input_type = BLADE_CF32,
         blade_dtype output_type = BLADE_CF32,
         blade_beamformer_path path = BLADE_BEAMFORMER_AUTO)
        : input(in), phasors(w)
    {
        config.path = path;
        config.input_type = input_type;
        config.output_type = output_type;
        config.incoherent = incoherent;
        config.incoherent_sqrt = root;
        ok(blade_beamformer_create(&bf, &config, &input, &phasors, blade_device_cpu()), "create");
    }
    ~plan() { blade_beamformer_destroy(bf); }

    int64_t output_count() const
    {
        const blade_shape out = blade_beamformer_output_shape(bf);
        return blade_shape_count(&out);
    }

    template <typename In, typename Out>
    void run(const std::vector<In>& x, const std::vector<cf>& w, std::vector<Out>& y)
    {
        const blade_shape out = blade_beamformer_output_shape(bf);
        y.assign(static_cast<size_t>(blade_shape_count(&out)) *
                     (sizeof(cf) / sizeof(Out) == 1 ? 1 : 2),
                 Out{});
        blade_tensor xt = blade_tensor_make(
            config.input_type, &input, blade_device_cpu(), const_cast<In*>(x.data()));
        blade_tensor wt =
            blade_tensor_make(BLADE_CF32, &phasors, blade_device_cpu(), const_cast<cf*>(w.data()));
        blade_tensor yt = blade_tensor_make(config.output_type, &out, blade_device_cpu(), y.data());
        ok(blade_beamformer_process(bf, &xt, &wt, &yt, nullptr), "process");
    }
};

std::vector<cf> random_values(size_t count, uint32_t seed, float scale)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<cf> values(count);
    for (auto& v : values)
        v = cf(normal(rng), normal(rng));
    return values;
}

std::string create_error(blade_shape input, blade_shape phasors, blade_beamformer_config config)
{
    blade_beamformer* bf = nullptr;
    const blade_status status =
        blade_beamformer_create(&bf, &config, &input, &phasors, blade_device_cpu());
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(bf == nullptr);
    return blade_last_error();
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

// Elements of `values` converted by a CPU cast (to cf16 as its raw halves, or back).
std::vector<uint16_t> cast_to_cf16(const std::vector<cf>& values)
{
    std::vector<uint16_t> halves(2 * values.size());
    const blade_shape shape = shape_of({ static_cast<int64_t>(values.size()) });
    blade_cast* cast = nullptr;
    const blade_cast_config config = { BLADE_CF32, BLADE_CF16 };
    ok(blade_cast_create(&cast, &config, &shape, blade_device_cpu()), "cast");
    blade_tensor from =
        blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), const_cast<cf*>(values.data()));
    blade_tensor to = blade_tensor_make(BLADE_CF16, &shape, blade_device_cpu(), halves.data());
    ok(blade_cast_process(cast, &from, &to, nullptr), "cast");
    blade_cast_destroy(cast);
    return halves;
}

std::vector<cf> cast_from_cf16(const std::vector<uint16_t>& halves)
{
    std::vector<cf> values(halves.size() / 2);
    const blade_shape shape = shape_of({ static_cast<int64_t>(values.size()) });
    blade_cast* cast = nullptr;
    const blade_cast_config config = { BLADE_CF16, BLADE_CF32 };
    ok(blade_cast_create(&cast, &config, &shape, blade_device_cpu()), "cast");
    blade_tensor from = blade_tensor_make(
        BLADE_CF16, &shape, blade_device_cpu(), const_cast<uint16_t*>(halves.data()));
    blade_tensor to = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), values.data());
    ok(blade_cast_process(cast, &from, &to, nullptr), "cast");
    blade_cast_destroy(cast);
    return values;
}

// The spec's sums in float64: beams y [B (+1), F, T, P] for voltages x [A, F, T, P] and
// phasors w [B, A, F, 1, P], with the incoherent power (beam 0's gains) appended.
std::vector<std::complex<double>> reference_beams(const std::vector<cf>& x,
                                                  const std::vector<cf>& w,
                                                  int64_t A,
                                                  int64_t F,
                                                  int64_t T,
                                                  int64_t P,
                                                  int64_t B,
                                                  bool incoherent)
{
    std::vector<std::complex<double>> y((B + (incoherent ? 1 : 0)) * F * T * P);
    for (int64_t b = 0; b < B; b++)
        for (int64_t a = 0; a < A; a++)
            for (int64_t f = 0; f < F; f++)
                for (int64_t t = 0; t < T; t++)
                    for (int64_t q = 0; q < P; q++) {
                        const std::complex<double> wv(w[((b * A + a) * F + f) * P + q]);
                        const std::complex<double> xv(x[((a * F + f) * T + t) * P + q]);
                        y[((b * F + f) * T + t) * P + q] += wv * xv;
                        if (incoherent && b == 0)
                            y[((B * F + f) * T + t) * P + q] += std::norm(wv) * std::norm(xv);
                    }
    return y;
}

// sum_a |w||x| for each coherent output (the scale of float32 rounding errors).
std::vector<double> error_scale(const std::vector<cf>& x,
                                const std::vector<cf>& w,
                                int64_t A,
                                int64_t F,
                                int64_t T,
                                int64_t P,
                                int64_t B)
{
    std::vector<double> scale(B * F * T * P);
    for (int64_t b = 0; b < B; b++)
        for (int64_t a = 0; a < A; a++)
            for (int64_t f = 0; f < F; f++)
                for (int64_t t = 0; t < T; t++)
                    for (int64_t q = 0; q < P; q++)
                        scale[((b * F + f) * T + t) * P + q] +=
                            std::abs(std::complex<double>(w[((b * A + a) * F + f) * P + q])) *
                            std::abs(std::complex<double>(x[((a * F + f) * T + t) * P + q]));
    return scale;
}

} // namespace

BOOST_AUTO_TEST_CASE(hand_worked_beam_and_incoherent_power)
{
    // x[a, t] = [[1+2i, 3-i], [i, -2]], w[0, a] = [1+i, -i] (no conjugation):
    // y = (1+2i)(1+i) + i(-i) = 3i and (3-i)(1+i) + (-2)(-i) = 4+4i;
    // incoherent: |1+i|^2 |x_0|^2 + |-i|^2 |x_1|^2 = 2*5 + 1 = 11 and 2*10 + 4 = 24.
    const std::vector<cf> x = { { 1, 2 }, { 3, -1 }, { 0, 1 }, { -2, 0 } };
    const std::vector<cf> w = { { 1, 1 }, { 0, -1 } };
    for (bool root : { false, true }) {
        plan p(blade_shape_aftp(2, 1, 2, 1), shape_of({ 1, 2, 1, 1, 1 }), true, root);
        std::vector<cf> y;
        p.run(x, w, y);
        BOOST_TEST(y.size() == 4u);
        BOOST_TEST(y[0] == cf(0, 3));
        BOOST_TEST(y[1] == cf(4, 4));
        BOOST_TEST(y[2] == cf(root ? std::sqrt(11.0f) : 11.0f, 0));
        BOOST_TEST(y[3] == cf(root ? std::sqrt(24.0f) : 24.0f, 0));
    }
}

BOOST_AUTO_TEST_CASE(each_polarization_and_channel_uses_its_own_phasor)
{
    // One antenna, x = 1 everywhere: y[b, f, t, p] is exactly w[b, 0, f, 0, p].
    const int64_t F = 3, T = 5, P = 2, B = 2;
    const std::vector<cf> x(F * T * P, cf(1, 0));
    std::vector<cf> w(B * F * P);
    for (size_t i = 0; i < w.size(); i++)
        w[i] = cf(static_cast<float>(i + 1), -static_cast<float>(i));
    plan p(blade_shape_aftp(1, F, T, P), shape_of({ B, 1, F, 1, P }));
    std::vector<cf> y;
    p.run(x, w, y);
    for (int64_t b = 0; b < B; b++)
        for (int64_t f = 0; f < F; f++)
            for (int64_t t = 0; t < T; t++)
                for (int64_t q = 0; q < P; q++)
                    BOOST_TEST(y[((b * F + f) * T + t) * P + q] == w[(b * F + f) * P + q]);
}

BOOST_AUTO_TEST_CASE(meerkat_weights_equal_broadcast_phasors)
{
    const int64_t A = 5, F = 3, T = 17, P = 2, B = 11;
    const auto x = random_values(A * F * T * P, 1, 20.0f);
    const auto w = random_values(B * A, 2, 1.0f);
    std::vector<cf> full(B * A * F * P);
    for (int64_t b = 0; b < B; b++)
        for (int64_t a = 0; a < A; a++)
            for (int64_t i = 0; i < F * P; i++)
                full[(b * A + a) * F * P + i] = w[b * A + a];
    plan meerkat(blade_shape_aftp(A, F, T, P), shape_of({ B, A }), true);
    plan general(blade_shape_aftp(A, F, T, P), shape_of({ B, A, F, 1, P }), true);
    std::vector<cf> y1, y2;
    meerkat.run(x, w, y1);
    general.run(x, full, y2);
    BOOST_TEST(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(cf)) == 0);
}

BOOST_AUTO_TEST_CASE(ci8_voltages_give_the_bits_of_cast_then_beamform)
{
    const int64_t A = 7, F = 2, T = 129, P = 2, B = 9;
    const auto raw = blade_test::random_elements(BLADE_CI8, A * F * T * P, 3);
    std::vector<int8_t> x8(raw.begin(), raw.end());
    std::vector<cf> x32(A * F * T * P);
    for (size_t i = 0; i < x32.size(); i++)
        x32[i] = cf(x8[2 * i], x8[2 * i + 1]);
    const auto w = random_values(B * A * F * P, 4, 1.0f);
    plan fused(blade_shape_aftp(A, F, T, P), shape_of({ B, A, F, 1, P }), true, false, BLADE_CI8);
    plan plain(blade_shape_aftp(A, F, T, P), shape_of({ B, A, F, 1, P }), true, false, BLADE_CF32);
    std::vector<cf> y1, y2;
    fused.run(x8, w, y1);
    plain.run(x32, w, y2);
    BOOST_TEST(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(cf)) == 0);
}

BOOST_AUTO_TEST_CASE(cf16_voltages_give_the_bits_of_cast_then_beamform)
{
    // B = 2 and 9: a partial and whole register tiles (without AVX2, the hand loop and
    // cgemm); both with the incoherent beam.
    const int64_t A = 7, F = 2, T = 129, P = 2;
    for (int64_t B : { 2, 9 }) {
        const auto x16 = cast_to_cf16(random_values(A * F * T * P, 31, 40.0f));
        const auto x32 = cast_from_cf16(x16);
        const auto w = random_values(B * A * F * P, 32, 1.0f);
        plan fused(
            blade_shape_aftp(A, F, T, P), shape_of({ B, A, F, 1, P }), true, false, BLADE_CF16);
        plan plain(
            blade_shape_aftp(A, F, T, P), shape_of({ B, A, F, 1, P }), true, false, BLADE_CF32);
        std::vector<cf> y1, y2;
        fused.run(x16, w, y1);
        plain.run(x32, w, y2);
        BOOST_TEST(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(cf)) == 0, "B = " << B);
    }
}

BOOST_AUTO_TEST_CASE(cf16_voltages_against_a_float64_reference)
{
    // Odd shapes, one polarization and two, both CPU implementations; cf16 output too.
    struct {
        int64_t A, F, T, P, B;
        blade_dtype output_type;
    } cases[] = {
        { 1, 1, 1, 1, 1, BLADE_CF32 },    { 5, 3, 17, 1, 3, BLADE_CF32 },
        { 13, 2, 131, 2, 1, BLADE_CF32 }, { 20, 3, 300, 2, 8, BLADE_CF32 },
        { 9, 2, 65, 2, 5, BLADE_CF16 },
    };
    uint32_t seed = 40;
    for (const auto& c : cases) {
        const int64_t A = c.A, F = c.F, T = c.T, P = c.P, B = c.B;
        // (smaller voltages for cf16 output: the incoherent power must stay below 65504)
        const float rms = c.output_type == BLADE_CF16 ? 10.0f : 60.0f;
        const auto x16 = cast_to_cf16(random_values(A * F * T * P, seed++, rms));
        const auto x = cast_from_cf16(x16); // the exact values the beamformer reads
        const auto w = random_values(B * A * F * P, seed++, 1.0f);
        plan p(blade_shape_aftp(A, F, T, P),
               shape_of({ B, A, F, 1, P }),
               true,
               false,
               BLADE_CF16,
               c.output_type);
        std::vector<cf> y;
        if (c.output_type == BLADE_CF16) {
            std::vector<uint16_t> h;
            p.run(x16, w, h);
            y = cast_from_cf16(h);
        } else {
            p.run(x16, w, y);
        }
        const auto expected = reference_beams(x, w, A, F, T, P, B, true);
        const auto scale = error_scale(x, w, A, F, T, P, B);
        // float32 sums of A terms: 1e-5 of sum |w||x|; a cf16 output adds half an ulp
        // of half precision (2^-11 of the value).
        const double half_ulp = c.output_type == BLADE_CF16 ? std::ldexp(1.0, -11) : 0.0;
        size_t bad = 0;
        for (size_t i = 0; i < expected.size(); i++) {
            const bool coherent = i < scale.size();
            const double bound = coherent ? 1e-5 * scale[i] + half_ulp * std::abs(expected[i])
                                          : (1e-5 + half_ulp) * std::abs(expected[i]);
            bad += std::abs(std::complex<double>(y[i]) - expected[i]) > bound;
        }
        BOOST_TEST(bad == 0u,
                   "(A, F, T, P, B) = (" << A << ", " << F << ", " << T << ", " << P << ", " << B
                                         << "): " << bad << " of " << expected.size()
                                         << " beyond tolerance");
    }
}

// Round to the nearest half (ties to even; overflow to infinity), written from the
// IEEE 754 binary16 format (11-bit significand, exponents -14 ... 15) independently of
// the library's conversion.
double round_to_half(double v)
{
    if (!std::isfinite(v) || v == 0.0)
        return v;
    int e = 0;
    std::frexp(v, &e); // |v| = m 2^e, 0.5 <= m < 1: the leading bit is 2^(e - 1)
    const double quantum = std::ldexp(1.0, std::max(e - 1, -14) - 10);
    const double r = std::nearbyint(v / quantum) * quantum; // ties to even
    return std::abs(r) > 65504.0 ? std::copysign(INFINITY, v) : r;
}

cf round_to_half(cf v)
{
    return cf(static_cast<float>(round_to_half(double(v.real()))),
              static_cast<float>(round_to_half(double(v.imag()))));
}

std::vector<cf> rounded_to_half(std::vector<cf> values)
{
    for (auto& v : values)
        v = round_to_half(v);
    return values;
}

// Beams of `p` for voltages given as complex floats, converted to the plan's input type.
std::vector<cf> run_as(plan& p, const std::vector<cf>& x, const std::vector<cf>& w)
{
    std::vector<cf> y;
    if (p.config.input_type == BLADE_CF16) {
        p.run(cast_to_cf16(x), w, y);
    } else if (p.config.input_type == BLADE_CI8) {
        std::vector<int8_t> x8(2 * x.size());
        for (size_t i = 0; i < x.size(); i++) {
            x8[2 * i] = static_cast<int8_t>(x[i].real());
            x8[2 * i + 1] = static_cast<int8_t>(x[i].imag());
        }
        p.run(x8, w, y);
    } else {
        p.run(x, w, y);
    }
    return y;
}

BOOST_AUTO_TEST_CASE(fp16_path_is_the_float32_sum_of_operands_rounded_to_half)
{
    // The CPU emulation of the fp16 path against float64 sums of the operands rounded
    // to half (by this file's own rounding): float32 accumulation, 1e-5 of
    // sum |x||w|. Voltages cf32 (rounded), cf16 and ci8 (already halves); B = 2 and 9
    // (register tiles of a partial and of whole rows; without AVX2 the hand loop and
    // cgemm); the incoherent beam stays the fp32 path's bits.
    const int64_t A = 11, F = 3, T = 133, P = 2;
    uint32_t seed = 60;
    for (blade_dtype input_type : { BLADE_CF32, BLADE_CF16, BLADE_CI8 })
        for (int64_t B : { 2, 9 }) {
            std::vector<cf> x = random_values(A * F * T * P, seed++, 30.0f);
            if (input_type == BLADE_CI8)
                for (auto& v : x)
                    v = cf(std::clamp(std::nearbyint(v.real()), -128.0f, 127.0f),
                           std::clamp(std::nearbyint(v.imag()), -128.0f, 127.0f));
            if (input_type == BLADE_CF16)
                x = rounded_to_half(x);
            const auto w = random_values(B * A * F * P, seed++, 1.0f);
            const blade_shape in = blade_shape_aftp(A, F, T, P), ws = shape_of({ B, A, F, 1, P });
            plan half(in, ws, true, false, input_type, BLADE_CF32, BLADE_BEAMFORMER_FP16);
            plan full(in, ws, true, false, input_type, BLADE_CF32, BLADE_BEAMFORMER_FP32);
            BOOST_TEST(blade_beamformer_path_used(half.bf) == BLADE_BEAMFORMER_FP16);
            BOOST_TEST(blade_beamformer_path_used(full.bf) == BLADE_BEAMFORMER_FP32);
            const auto y16 = run_as(half, x, w);
            const auto y32 = run_as(full, x, w);

            const auto xr = rounded_to_half(x), wr = rounded_to_half(w);
            const auto expected = reference_beams(xr, wr, A, F, T, P, B, false);
            const auto scale = error_scale(xr, wr, A, F, T, P, B);
            size_t bad = 0;
            double unrounded_difference = 0;
            for (size_t i = 0; i < expected.size(); i++) {
                bad += std::abs(std::complex<double>(y16[i]) - expected[i]) > 1e-5 * scale[i];
                unrounded_difference =
                    std::max(unrounded_difference, double(std::abs(y16[i] - y32[i])) / scale[i]);
            }
            BOOST_TEST(bad == 0u,
                       blade_dtype_name(input_type)
                           << " B = " << B << ": " << bad << " beams off the rounded-operand sums");
            // the rounding happened: ~2^-11 of sum |x||w| away from the fp32 path
            BOOST_TEST(unrounded_difference > 1e-5, blade_dtype_name(input_type) << " B = " << B);
            const size_t coherent = static_cast<size_t>(B * F * T * P);
            BOOST_TEST(std::memcmp(y16.data() + coherent,
                                   y32.data() + coherent,
                                   (y16.size() - coherent) * sizeof(cf)) == 0,
                       "incoherent beam: the fp32 path's bits");
        }
}

BOOST_AUTO_TEST_CASE(fp16_error_against_float64_for_the_docs)
{
    // The accuracy of the fp16 path (docs/blocks/beamformer.md): relative RMS error
    // sqrt(sum |y - y64|^2 / sum |y64|^2) of the coherent beams against float64 sums of
    // the unrounded operands, A = 64, unit-modulus phasors, ci8 voltages (Gaussian,
    // sigma 30, rounded and clipped) and cf32 voltages (Gaussian, sigma 30).
    const int64_t A = 64, F = 4, T = 256, P = 2, B = 16;
    std::mt19937 rng(70);
    std::uniform_real_distribution<float> phase(-3.14159265f, 3.14159265f);
    std::vector<cf> w(B * A * F * P);
    for (auto& v : w)
        v = std::polar(1.0f, phase(rng));
    for (blade_dtype input_type : { BLADE_CI8, BLADE_CF32 }) {
        std::vector<cf> x = random_values(A * F * T * P, 71, 30.0f);
        if (input_type == BLADE_CI8)
            for (auto& v : x)
                v = cf(std::clamp(std::nearbyint(v.real()), -128.0f, 127.0f),
                       std::clamp(std::nearbyint(v.imag()), -128.0f, 127.0f));
        const auto exact = reference_beams(x, w, A, F, T, P, B, false);
        const blade_shape in = blade_shape_aftp(A, F, T, P), ws = shape_of({ B, A, F, 1, P });
        for (blade_beamformer_path path : { BLADE_BEAMFORMER_FP32, BLADE_BEAMFORMER_FP16 }) {
            plan p(in, ws, false, false, input_type, BLADE_CF32, path);
            const auto y = run_as(p, x, w);
            double error = 0, power = 0;
            for (size_t i = 0; i < exact.size(); i++) {
                error += std::norm(std::complex<double>(y[i]) - exact[i]);
                power += std::norm(exact[i]);
            }
            const double relative = std::sqrt(error / power);
            std::printf("fp16 accuracy: %s voltages, path %s: relative RMS error %.3g\n",
                        blade_dtype_name(input_type),
                        blade_beamformer_path_name(path),
                        relative);
            // operands rounded to 11 bits: ~2^-11 / sqrt(3) per rounded operand
            BOOST_TEST(relative < (path == BLADE_BEAMFORMER_FP16 ? 1e-3 : 1e-6));
        }
    }
}

BOOST_AUTO_TEST_CASE(output_shapes_and_paths)
{
    plan p(blade_shape_aftp(4, 3, 8, 2), shape_of({ 6, 4, 3, 1, 2 }), true);
    const blade_shape out = blade_beamformer_output_shape(p.bf);
    BOOST_TEST(out.rank == 4);
    BOOST_TEST(out.dims[0] == 7);
    BOOST_TEST(out.dims[3] == 2);
    BOOST_TEST(blade_beamformer_beams(p.bf) == 6);
    BOOST_TEST(blade_beamformer_path_used(p.bf) == BLADE_BEAMFORMER_FP32);
    blade_beamformer_path path;
    ok(blade_beamformer_path_parse("TF32x3", &path), "parse");
    BOOST_TEST(path == BLADE_BEAMFORMER_TF32X3);
    BOOST_TEST(std::string(blade_beamformer_path_name(BLADE_BEAMFORMER_TF32)) == "tf32");
    BOOST_TEST(blade_beamformer_path_parse("fast", &path) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(),
                        "unknown path 'fast' (expected auto, fp32, tf32, tf32x3 or fp16)"));
    ok(blade_beamformer_path_parse("FP16", &path), "parse");
    BOOST_TEST(path == BLADE_BEAMFORMER_FP16);
    BOOST_TEST(std::string(blade_beamformer_path_name(BLADE_BEAMFORMER_FP16)) == "fp16");
    // On the CPU every path but fp16 computes float32 sums; fp16 is emulated.
    const blade_beamformer_path paths[] = { BLADE_BEAMFORMER_AUTO,
                                            BLADE_BEAMFORMER_FP32,
                                            BLADE_BEAMFORMER_TF32,
                                            BLADE_BEAMFORMER_TF32X3,
                                            BLADE_BEAMFORMER_FP16 };
    for (blade_beamformer_path asked : paths) {
        plan q(blade_shape_aftp(4, 3, 8, 2),
               shape_of({ 6, 4, 3, 1, 2 }),
               false,
               false,
               BLADE_CF32,
               BLADE_CF32,
               asked);
        BOOST_TEST(
            blade_beamformer_path_used(q.bf) ==
            (asked == BLADE_BEAMFORMER_FP16 ? BLADE_BEAMFORMER_FP16 : BLADE_BEAMFORMER_FP32));
    }
    blade_beamformer_destroy(nullptr);
}

BOOST_AUTO_TEST_CASE(phasor_shapes_that_do_not_fit_are_refused_by_axis)
{
    const blade_shape input = blade_shape_aftp(20, 192, 64, 2);
    const blade_beamformer_config config = blade_beamformer_config_default();
    struct {
        blade_shape phasors;
        const char* reason;
    } cases[] = {
        { shape_of({ 8, 21, 192, 1, 2 }),
          "phasors [8, 21, 192, 1, 2] do not fit the voltages [20, 192, 64, 2]: A (antennas) (axis "
          "1) is 21, "
          "expected 20" },
        { shape_of({ 8, 20, 96, 1, 2 }), "F (channels) (axis 2) is 96, expected 192" },
        { shape_of({ 8, 20, 192, 64, 2 }),
          "the time axis (one phasor per chunk) (axis 3) is 64, expected 1" },
        { shape_of({ 8, 20, 192, 1, 1 }), "P (polarizations) (axis 4) is 1, expected 2" },
        { shape_of({ 8, 2 }), "A (antennas) (axis 1) is 2, expected 20" },
        { shape_of({ 8, 20, 192 }),
          "phasors must be [B, A, F, 1, P] = [B, 20, 192, 1, 2] or, one weight per "
          "beam and antenna, [B, A] = [B, 20]; given [8, 20, 192] (rank 3)" },
    };
    for (const auto& c : cases) {
        const std::string message = create_error(input, c.phasors, config);
        BOOST_TEST(contains(message, c.reason), message);
    }
}

BOOST_AUTO_TEST_CASE(bad_voltages_types_and_options_are_refused)
{
    const blade_shape w = shape_of({ 2, 4, 3, 1, 2 });
    blade_beamformer_config config = blade_beamformer_config_default();
    BOOST_TEST(contains(create_error(shape_of({ 4, 3, 8 }), w, config),
                        "voltages must be [A, F, T, P] (rank 4), given [4, 3, 8] (rank 3)"));
    BOOST_TEST(
        contains(create_error(blade_shape_aftp(4, 3, 8, 4), shape_of({ 2, 4, 3, 1, 4 }), config),
                 "P (polarizations, axis 3 of the voltages [4, 3, 8, 4]) must be 1 or 2, given 4"));
    config.input_type = BLADE_CI16;
    BOOST_TEST(contains(create_error(blade_shape_aftp(4, 3, 8, 2), w, config),
                        "voltages must be cf32, cf16 or ci8"));
    config = blade_beamformer_config_default();
    config.output_type = BLADE_F32;
    BOOST_TEST(contains(create_error(blade_shape_aftp(4, 3, 8, 2), w, config),
                        "beams are written as cf32 or cf16, given f32"));
    config = blade_beamformer_config_default();
    config.incoherent_sqrt = true;
    BOOST_TEST(
        contains(create_error(blade_shape_aftp(4, 3, 8, 2), w, config), "set incoherent too"));
    config = blade_beamformer_config_default();
    config.path = static_cast<blade_beamformer_path>(17);
    BOOST_TEST(
        contains(create_error(blade_shape_aftp(4, 3, 8, 2), w, config), "unknown path code 17"));
    config = blade_beamformer_config_default();
    config.kernel = static_cast<blade_beamformer_kernel>(-2);
    BOOST_TEST(
        contains(create_error(blade_shape_aftp(4, 3, 8, 2), w, config), "unknown kernel code -2"));
}

BOOST_AUTO_TEST_CASE(kernels_are_named_and_must_compute_their_path)
{
    blade_beamformer_kernel kernel;
    ok(blade_beamformer_kernel_parse("Staged2", &kernel), "parse");
    BOOST_TEST(kernel == BLADE_BEAMFORMER_KERNEL_STAGED2);
    const char* names[] = { "default", "direct", "staged1", "staged2", "tensor" };
    for (int i = 0; i < BLADE_BEAMFORMER_KERNEL_COUNT; i++) {
        BOOST_TEST(std::string(blade_beamformer_kernel_name(
                       static_cast<blade_beamformer_kernel>(i))) == names[i]);
        ok(blade_beamformer_kernel_parse(names[i], &kernel), "parse");
        BOOST_TEST(kernel == i);
    }
    BOOST_TEST(std::string(blade_beamformer_kernel_name(BLADE_BEAMFORMER_KERNEL_COUNT)) ==
               "unknown");
    BOOST_TEST(blade_beamformer_kernel_parse("fastest", &kernel) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(
        blade_last_error(),
        "unknown kernel 'fastest' (expected default, direct, staged1, staged2 or tensor)"));

    // A CUDA-core kernel with a tensor-core path and the reverse are refused on every
    // device (the configuration is wrong, whatever runs it).
    const blade_shape x = blade_shape_aftp(4, 3, 8, 2), w = shape_of({ 2, 4, 3, 1, 2 });
    blade_beamformer_config config = blade_beamformer_config_default();
    config.path = BLADE_BEAMFORMER_TF32X3;
    config.kernel = BLADE_BEAMFORMER_KERNEL_STAGED1;
    BOOST_TEST(
        contains(create_error(x, w, config),
                 "beamformer: kernel staged1 runs on CUDA cores, path tf32x3 on tensor cores"));
    config.path = BLADE_BEAMFORMER_FP32;
    config.kernel = BLADE_BEAMFORMER_KERNEL_TENSOR;
    BOOST_TEST(contains(create_error(x, w, config),
                        "beamformer: kernel tensor runs on tensor cores, path fp32 on CUDA cores"));

    // On the CPU every kernel computes the float32 sums; none is reported as used.
    for (int k = 0; k < BLADE_BEAMFORMER_KERNEL_COUNT; k++) {
        config = blade_beamformer_config_default();
        config.kernel = static_cast<blade_beamformer_kernel>(k);
        blade_beamformer* bf = nullptr;
        ok(blade_beamformer_create(&bf, &config, &x, &w, blade_device_cpu()), "create");
        BOOST_TEST(blade_beamformer_path_used(bf) == BLADE_BEAMFORMER_FP32);
        BOOST_TEST(blade_beamformer_kernel_used(bf) == BLADE_BEAMFORMER_KERNEL_DEFAULT);
        blade_beamformer_destroy(bf);
    }
}

BOOST_AUTO_TEST_CASE(tensors_that_differ_from_the_plan_are_refused)
{
    const int64_t A = 4, F = 3, T = 8, P = 2, B = 8;
    plan p(blade_shape_aftp(A, F, T, P), shape_of({ B, A, F, 1, P }));
    std::vector<cf> x(A * F * T * P), w(16 * A * F * P), y(B * F * T * P);
    const blade_shape out = blade_beamformer_output_shape(p.bf);
    const blade_shape four_beams = shape_of({ 4, A, F, 1, P });
    blade_tensor xt = blade_tensor_make(BLADE_CF32, &p.input, blade_device_cpu(), x.data());
    blade_tensor wt = blade_tensor_make(BLADE_CF32, &four_beams, blade_device_cpu(), w.data());
    blade_tensor yt = blade_tensor_make(BLADE_CF32, &out, blade_device_cpu(), y.data());
    BOOST_TEST(blade_beamformer_process(p.bf, &xt, &wt, &yt, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(
        contains(blade_last_error(),
                 "beamformer: phasor tensor has shape [4, 4, 3, 1, 2] but the plan was made for "
                 "[8, 4, 3, 1, 2]"));
    wt = blade_tensor_make(BLADE_CF16, &p.phasors, blade_device_cpu(), w.data());
    BOOST_TEST(blade_beamformer_process(p.bf, &xt, &wt, &yt, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(
        contains(blade_last_error(), "phasor tensor is cf16 but the plan was made for cf32"));
    // In place: the beams would overwrite voltages still to be read.
    wt = blade_tensor_make(BLADE_CF32, &p.phasors, blade_device_cpu(), w.data());
    std::vector<cf> shared(B * F * T * P);
    xt.data = shared.data();
    yt.data = shared.data();
    BOOST_TEST(blade_beamformer_process(p.bf, &xt, &wt, &yt, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "the output tensor overlaps the voltage tensor"));
}

BOOST_AUTO_TEST_CASE(a_gpu_that_is_absent_is_a_clear_error)
{
    if (blade_gpu_count() > 0)
        return;
    blade_device gpu;
    BOOST_TEST(blade_device_parse("cuda:0", &gpu) == BLADE_ERROR_NO_DEVICE);
    blade_beamformer* bf = nullptr;
    const blade_beamformer_config config = blade_beamformer_config_default();
    const blade_shape input = blade_shape_aftp(2, 2, 2, 2), w = shape_of({ 1, 2 });
    const blade_status status =
        blade_beamformer_create(&bf, &config, &input, &w, blade_device{ BLADE_DEVICE_CUDA, 0 });
    BOOST_TEST(status != BLADE_OK);
    BOOST_TEST(bf == nullptr);
}
