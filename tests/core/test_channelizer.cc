// SPDX-License-Identifier: MIT
// Channelizer on the CPU: hand-worked values from the formula of
// include/blade/modules/channelizer.h, a direct-DFT reference in double precision,
// the polyphase filter and its history, and the validation messages.
#define BOOST_TEST_MODULE channelizer
#include <boost/test/unit_test.hpp>

#include "channelizer_support.h"
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>

using blade_test::ok;
using blade_test::relative_difference;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

const double pi = 3.14159265358979323846;

blade_channelizer_config plain(int64_t rate)
{
    return blade_channelizer_config{ BLADE_CF32, BLADE_CF32, rate, 1, BLADE_WINDOW_RECTANGULAR };
}

struct plan {
    blade_channelizer* channelizer = nullptr;
    blade_shape in_shape, out_shape;
    plan(const blade_channelizer_config& config, blade_shape shape) : in_shape(shape)
    {
        ok(blade_channelizer_create(&channelizer, &config, &in_shape, blade_device_cpu()),
           "create");
        out_shape = blade_channelizer_output_shape(channelizer);
    }
    ~plan() { blade_channelizer_destroy(channelizer); }
    std::vector<cf> run(const std::vector<cf>& in)
    {
        std::vector<cf> out(static_cast<size_t>(blade_shape_count(&out_shape)),
                            cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));
        blade_tensor input = blade_tensor_make(
            BLADE_CF32, &in_shape, blade_device_cpu(), const_cast<cf*>(in.data()));
        blade_tensor output =
            blade_tensor_make(BLADE_CF32, &out_shape, blade_device_cpu(), out.data());
        ok(blade_channelizer_process(channelizer, &input, &output, nullptr), "process");
        return out;
    }
};

// Flat offsets of x[a, f, t, p] in [A, F, T, P] and of y[a, f*N + k, s, p] in
// [A, F*N, T/N, P].
size_t in_index(const blade_shape& s, int64_t a, int64_t f, int64_t t, int64_t p)
{
    return static_cast<size_t>(((a * s.dims[1] + f) * s.dims[2] + t) * s.dims[3] + p);
}

// The formula, in double: y[a, f*N + k, s, p] = sum_n (-1)^n e^{-2 pi i k n / N}
// sum_m h[m N + n] xs[(s - M + 1 + m) N + n], with xs the chunks concatenated (zeros
// before the first). Returns the outputs of chunk `which`.
std::vector<cd> reference(const std::vector<std::vector<cf>>& chunks,
                          const blade_shape& shape,
                          int64_t N,
                          int M,
                          blade_channelizer_window window,
                          size_t which)
{
    const int64_t A = shape.dims[0], F = shape.dims[1], T = shape.dims[2], P = shape.dims[3];
    const int64_t S = T / N;
    std::vector<double> h(static_cast<size_t>(M * N));
    ok(blade_channelizer_prototype(N, M, window, h.data()), "prototype");
    std::vector<cd> out(static_cast<size_t>(A * F * T * P));
    auto sample = [&](int64_t a, int64_t f, int64_t tau, int64_t p) -> cd {
        int64_t chunk = static_cast<int64_t>(which);
        while (tau < 0) {
            tau += T;
            chunk--;
        }
        if (chunk < 0)
            return 0.0;
        const cf v = chunks[static_cast<size_t>(chunk)][in_index(shape, a, f, tau, p)];
        return cd(v.real(), v.imag());
    };
    for (int64_t a = 0; a < A; a++)
        for (int64_t f = 0; f < F; f++)
            for (int64_t p = 0; p < P; p++)
                for (int64_t s = 0; s < S; s++)
                    for (int64_t k = 0; k < N; k++) {
                        cd sum = 0.0;
                        for (int64_t n = 0; n < N; n++) {
                            cd branch = 0.0;
                            for (int m = 0; m < M; m++)
                                branch += h[static_cast<size_t>(m * N + n)] *
                                          sample(a, f, (s - M + 1 + m) * N + n, p);
                            const double angle = -2.0 * pi * static_cast<double>((k * n) % N) / N;
                            sum += ((n & 1) ? -1.0 : 1.0) * std::polar(1.0, angle) * branch;
                        }
                        out[static_cast<size_t>((((a * F + f) * N + k) * S + s) * P + p)] = sum;
                    }
    return out;
}

std::string
failure_of(blade_status expected_status, const blade_channelizer_config& config, blade_shape shape)
{
    blade_channelizer* channelizer = reinterpret_cast<blade_channelizer*>(0x1);
    const blade_status status =
        blade_channelizer_create(&channelizer, &config, &shape, blade_device_cpu());
    BOOST_TEST(status == expected_status);
    BOOST_TEST(channelizer == nullptr);
    return blade_last_error();
}

bool contains(const std::string& text, const std::string& part)
{
    if (text.find(part) != std::string::npos)
        return true;
    BOOST_TEST_MESSAGE("'" << text << "' lacks '" << part << "'");
    return false;
}

} // namespace

BOOST_AUTO_TEST_CASE(output_shape_is_a_f_times_n_t_over_n_p)
{
    plan p(plain(8), blade_shape_aftp(3, 5, 24, 2));
    const blade_shape expected = blade_shape_aftp(3, 40, 3, 2);
    BOOST_TEST(blade_shape_equal(&p.out_shape, &expected));
}

BOOST_AUTO_TEST_CASE(an_impulse_gives_the_phase_ramp_of_its_position)
{
    // N = 4, an impulse at n0 = 3 of block s = 1: y[k, 1] = (-1)^3 e^{-2 pi i 3k/4} =
    // -(i)^k, i.e. -1, -i, 1, i; block 0 stays zero.
    const blade_shape shape = blade_shape_aftp(1, 1, 8, 1);
    std::vector<cf> x(8);
    x[4 + 3] = 1.0f;
    plan p(plain(4), shape);
    const auto y = p.run(x); // y[k][s], S = 2
    const cf expected[4] = { { -1, 0 }, { 0, -1 }, { 1, 0 }, { 0, 1 } };
    for (int k = 0; k < 4; k++) {
        BOOST_TEST(std::abs(y[k * 2 + 1] - expected[k]) < 1e-6f,
                   "k = " << k << ": " << y[k * 2 + 1]);
        BOOST_TEST(y[k * 2 + 0] == cf(0.0f, 0.0f));
    }
}

BOOST_AUTO_TEST_CASE(an_impulse_lands_in_its_own_antenna_channel_and_polarization)
{
    // Distinct impulses at n = 0 of every (a, f, p) with value 1 + a + 10 f + 100 p: the
    // flat spectrum of each appears on all N fine channels of that (a, f, p) only. Short
    // transforms (several spectra per unit of work) and long ones (N = 16384: one
    // spectrum per unit, the polarizations split and interleaved in one pass each).
    const struct {
        int64_t A, F, N;
    } cases[] = { { 2, 3, 8 }, { 1, 2, 16384 } };
    for (const auto& c : cases) {
        const int64_t A = c.A, F = c.F, N = c.N, S = 2, T = S * N, P = 2;
        const blade_shape shape = blade_shape_aftp(A, F, T, P);
        std::vector<cf> x(static_cast<size_t>(A * F * T * P));
        for (int64_t a = 0; a < A; a++)
            for (int64_t f = 0; f < F; f++)
                for (int64_t q = 0; q < P; q++)
                    x[in_index(shape, a, f, N, q)] =
                        cf(1.0f + a + 10 * f + 100 * q, 0.0f); // s = 1, n = 0
        plan p(plain(N), shape);
        const auto y = p.run(x);
        int64_t wrong = 0;
        for (int64_t a = 0; a < A; a++)
            for (int64_t f = 0; f < F; f++)
                for (int64_t k = 0; k < N; k++)
                    for (int64_t s = 0; s < S; s++)
                        for (int64_t q = 0; q < P; q++) {
                            const cf got =
                                y[static_cast<size_t>((((a * F + f) * N + k) * S + s) * P + q)];
                            const cf want =
                                s == 1 ? cf(1.0f + a + 10 * f + 100 * q, 0.0f) : cf(0.0f, 0.0f);
                            if (got != want && wrong++ < 5)
                                BOOST_ERROR("N " << N << " a " << a << " f " << f << " k " << k
                                                 << " s " << s << " p " << q << ": " << got
                                                 << " != " << want);
                        }
        BOOST_TEST(wrong == 0, "N " << N << ": " << wrong << " values wrong");
    }
}

BOOST_AUTO_TEST_CASE(a_tone_lands_in_the_fine_channel_of_its_frequency)
{
    // Fine channel k0 is centred at (k0 - N/2)/N of the coarse width: a tone there gives
    // N in channel k0 (times (-1)^s for odd N) and ~0 elsewhere.
    for (const int64_t N : { int64_t(16), int64_t(5) }) {
        const int64_t T = 4 * N, S = 4;
        for (int64_t k0 = 0; k0 < N; k0++) {
            const double nu = (static_cast<double>(k0) - N / 2.0) / N;
            std::vector<cf> x(static_cast<size_t>(T));
            for (int64_t t = 0; t < T; t++)
                x[t] = std::polar(1.0f, static_cast<float>(2 * pi * std::fmod(nu * t, 1.0)));
            plan p(plain(N), blade_shape_aftp(1, 1, T, 1));
            const auto y = p.run(x);
            for (int64_t k = 0; k < N; k++)
                for (int64_t s = 0; s < S; s++) {
                    const cf want = k == k0 ? cf((N % 2 && s % 2) ? -N : N, 0.0f) : cf(0.0f, 0.0f);
                    BOOST_TEST(std::abs(y[k * S + s] - want) < 2e-5f * N,
                               "N " << N << " k0 " << k0 << " k " << k << " s " << s << ": "
                                    << y[k * S + s]);
                }
        }
    }
}

BOOST_AUTO_TEST_CASE(dc_is_the_middle_channel)
{
    const int64_t N = 8;
    std::vector<cf> x(static_cast<size_t>(N), cf(2.0f, -1.0f));
    plan p(plain(N), blade_shape_aftp(1, 1, N, 1));
    const auto y = p.run(x);
    for (int64_t k = 0; k < N; k++)
        BOOST_TEST(std::abs(y[k] - (k == N / 2 ? cf(16.0f, -8.0f) : cf(0.0f, 0.0f))) < 1e-5f);
}

BOOST_AUTO_TEST_CASE(rate_one_is_an_exact_pass_through)
{
    const blade_shape shape = blade_shape_aftp(2, 3, 7, 2);
    const auto x =
        blade_test::random_voltages(static_cast<size_t>(blade_shape_count(&shape)), 3, 10.0f);
    plan p(plain(1), shape);
    BOOST_TEST(blade_shape_equal(&p.out_shape, &shape));
    const auto y = p.run(x);
    BOOST_TEST(std::memcmp(x.data(), y.data(), x.size() * sizeof(cf)) == 0);
}

BOOST_AUTO_TEST_CASE(random_data_match_the_direct_dft)
{
    // rates 2, 3, 5, 7 (prime), 64, T; odd extents; float32 FFTs of length N carry a
    // relative error of about 1e-7 log2(N) of the RMS: 1e-6 * log2(N) bounds it.
    struct shape_rate {
        blade_shape shape;
        int64_t rate;
    };
    const shape_rate cases[] = {
        { blade_shape_aftp(2, 3, 12, 2), 2 },   { blade_shape_aftp(1, 5, 21, 2), 3 },
        { blade_shape_aftp(3, 1, 35, 1), 5 },   { blade_shape_aftp(1, 2, 49, 3), 7 },
        { blade_shape_aftp(2, 3, 128, 2), 64 }, { blade_shape_aftp(1, 3, 96, 2), 96 },
        { blade_shape_aftp(1, 1, 1, 1), 1 },    { blade_shape_aftp(1, 1, 7, 2), 7 },
    };
    uint32_t seed = 10;
    for (const auto& c : cases) {
        const auto x = blade_test::random_voltages(
            static_cast<size_t>(blade_shape_count(&c.shape)), seed++, 10.0f);
        plan p(plain(c.rate), c.shape);
        const auto y = p.run(x);
        const double error = relative_difference(
            y, reference({ x }, c.shape, c.rate, 1, BLADE_WINDOW_RECTANGULAR, 0));
        char text[64];
        BOOST_TEST(error < 1e-6 * std::max(1.0, std::log2(static_cast<double>(c.rate))),
                   blade_shape_format(&c.shape, text, sizeof text)
                       << " N " << c.rate << ": " << error);
    }
}

BOOST_AUTO_TEST_CASE(large_chunks_are_split_across_threads_deterministically)
{
    // [2, 9, 8192, 2] with N = 64 has 2 * 9 * 128 transforms per polarization in
    // 18 * (128 / block) units; a second run gives the same bits.
    const blade_shape shape = blade_shape_aftp(2, 9, 8192, 2);
    const auto x =
        blade_test::random_voltages(static_cast<size_t>(blade_shape_count(&shape)), 77, 10.0f);
    plan p(plain(64), shape);
    const auto first = p.run(x);
    const auto second = p.run(x);
    BOOST_TEST(std::memcmp(first.data(), second.data(), first.size() * sizeof(cf)) == 0);
    // spot check one (a, f) against the direct DFT
    const blade_shape one = blade_shape_aftp(1, 1, 8192, 2);
    std::vector<cf> row(x.begin() + 8192 * 2 * 10,
                        x.begin() + 8192 * 2 * 11); // a = 1, f = 1
    std::vector<cf> got(first.begin() + 8192 * 2 * 10, first.begin() + 8192 * 2 * 11);
    BOOST_TEST(relative_difference(
                   got, reference({ row }, one, 64, 1, BLADE_WINDOW_RECTANGULAR, 0)) < 6e-6);
}

BOOST_AUTO_TEST_CASE(prototype_follows_its_definition)
{
    // M = 2, N = 2, Hann: the window of length 4 is 0, 0.75, 0.75, 0, so whatever the
    // bandwidth factor, h = 0, 1, 1, 0 (two equal taps summing to N = 2).
    double h[4];
    ok(blade_channelizer_prototype(2, 2, BLADE_WINDOW_HANN, h), "prototype");
    const double hann[4] = { 0.0, 1.0, 1.0, 0.0 };
    for (int j = 0; j < 4; j++)
        BOOST_TEST(std::abs(h[j] - hann[j]) < 1e-15);
    // Every window, several sizes: symmetric, sums to N, and the response half a fine
    // channel from the centre is 1/sqrt(2) (-3.01 dB) of the response at the centre.
    for (int w = 0; w < BLADE_WINDOW_COUNT; w++)
        for (const auto& [n, m] :
             { std::pair<int64_t, int>{ 16, 4 }, { 64, 8 }, { 5, 3 }, { 1024, 4 }, { 8, 2 } }) {
            if (m == 2 && w == BLADE_WINDOW_BLACKMAN_HARRIS)
                continue; // the one case here where no factor in [0.5, 2] reaches -3 dB
            std::vector<double> taps(static_cast<size_t>(n * m));
            ok(blade_channelizer_prototype(
                   n, m, static_cast<blade_channelizer_window>(w), taps.data()),
               "prototype");
            double sum = 0;
            cd edge = 0.0;
            for (size_t j = 0; j < taps.size(); j++) {
                sum += taps[j];
                edge += taps[j] *
                        std::polar(1.0, -pi * static_cast<double>(j) / static_cast<double>(n));
                BOOST_TEST(std::abs(taps[j] - taps[taps.size() - 1 - j]) < 1e-12);
            }
            BOOST_TEST(std::abs(sum - static_cast<double>(n)) < 1e-9 * static_cast<double>(n));
            BOOST_TEST(std::abs(std::abs(edge) / sum - std::sqrt(0.5)) < 1e-9,
                       blade_channelizer_window_name(static_cast<blade_channelizer_window>(w))
                           << " N " << n << " M " << m << ": " << std::abs(edge) / sum);
        }
    std::vector<double> ones(8);
    ok(blade_channelizer_prototype(8, 1, BLADE_WINDOW_HANN, ones.data()), "prototype");
    for (double v : ones)
        BOOST_TEST(v == 1.0);
}

BOOST_AUTO_TEST_CASE(polyphase_impulses_worked_by_hand_across_chunks)
{
    // M = 2, N = 2, Hann: h = 0, 1, 1, 0; T = 4 (S = 2 per chunk). Chunk 0 holds 1 at
    // t = 2 (block 1, n = 0) and 2 at t = 3 (block 1, n = 1).
    //  chunk 0, s = 1: branches h[2] x2 = 1 and h[3] x3 = 0 -> y[k] = 1 for k = 0, 1
    //  chunk 1, s = 0: block -1 is chunk 0's block 1, from the history: branches
    //                  h[0] x2 = 0 and h[1] x3 = 2 -> y[k] = -e^{-i pi k} 2 = -2, +2
    //  everything else: 0.
    const blade_channelizer_config config = { BLADE_CF32, BLADE_CF32, 2, 2, BLADE_WINDOW_HANN };
    const blade_shape shape = blade_shape_aftp(1, 1, 4, 1);
    plan p(config, shape);
    std::vector<cf> impulses(4), zeros(4);
    impulses[2] = 1.0f;
    impulses[3] = 2.0f;
    auto y = p.run(impulses); // y[k][s]
    const cf first[4] = { 0.0f, 1.0f, 0.0f, 1.0f };
    for (int i = 0; i < 4; i++)
        BOOST_TEST(std::abs(y[i] - first[i]) < 1e-6f, "chunk 0 [" << i << "] " << y[i]);
    y = p.run(zeros);
    const cf second[4] = { -2.0f, 0.0f, 2.0f, 0.0f };
    for (int i = 0; i < 4; i++)
        BOOST_TEST(std::abs(y[i] - second[i]) < 1e-6f, "chunk 1 [" << i << "] " << y[i]);
    y = p.run(zeros);
    for (const auto& v : y)
        BOOST_TEST(std::abs(v) < 1e-6f);
    // reset forgets: after the impulses and a reset, the next chunk sees zeros before it
    p.run(impulses);
    ok(blade_channelizer_reset(p.channelizer, nullptr), "reset");
    y = p.run(zeros);
    for (const auto& v : y)
        BOOST_TEST(v == cf(0.0f, 0.0f));
}

BOOST_AUTO_TEST_CASE(polyphase_history_spans_chunks_like_one_long_chunk)
{
    // Four chunks through one plan give the outputs of the direct formula over the
    // concatenated stream, for every window; M*N larger than T too (history from
    // several chunks back).
    struct setup {
        blade_shape shape;
        int64_t rate;
        int taps;
        blade_channelizer_window window;
    };
    const setup cases[] = {
        { blade_shape_aftp(2, 3, 32, 2), 8, 4, BLADE_WINDOW_HAMMING },
        { blade_shape_aftp(1, 2, 30, 1), 5, 3, BLADE_WINDOW_HANN },
        { blade_shape_aftp(1, 1, 16, 2), 16, 8, BLADE_WINDOW_BLACKMAN_HARRIS }, // M N = 8 T
        { blade_shape_aftp(1, 2, 12, 3), 4, 5, BLADE_WINDOW_BLACKMAN },
        { blade_shape_aftp(1, 1, 64, 1), 32, 2, BLADE_WINDOW_RECTANGULAR },
    };
    uint32_t seed = 100;
    for (const auto& c : cases) {
        const blade_channelizer_config config = {
            BLADE_CF32, BLADE_CF32, c.rate, c.taps, c.window
        };
        plan p(config, c.shape);
        std::vector<std::vector<cf>> chunks;
        for (int i = 0; i < 4; i++) {
            chunks.push_back(blade_test::random_voltages(
                static_cast<size_t>(blade_shape_count(&c.shape)), seed++, 10.0f));
            const auto y = p.run(chunks.back());
            const double error = relative_difference(
                y, reference(chunks, c.shape, c.rate, c.taps, c.window, chunks.size() - 1));
            BOOST_TEST(error < 2e-6 * std::max(1.0, std::log2(static_cast<double>(c.rate))),
                       "N " << c.rate << " M " << c.taps << " chunk " << i << ": " << error);
        }
    }
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_with_reasons)
{
    const blade_shape shape = blade_shape_aftp(2, 4, 12, 2);
    std::string message = failure_of(BLADE_ERROR_INVALID_ARGUMENT, plain(5), shape);
    BOOST_TEST(contains(message, "rate 5 does not divide T = 12"));
    BOOST_TEST(contains(message, "nearest divisors are 4 and 6"));
    message = failure_of(BLADE_ERROR_INVALID_ARGUMENT, plain(24), shape);
    BOOST_TEST(contains(message, "rate 24 does not divide T = 12"));
    BOOST_TEST(contains(message, "largest is T itself, 12"));
    message = failure_of(BLADE_ERROR_INVALID_ARGUMENT, plain(0), shape);
    BOOST_TEST(contains(message, "rate 0"));
    BOOST_TEST(contains(message, "at least 1"));
    BOOST_TEST(contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, plain(-4), shape), "rate -4"));

    blade_channelizer_config ci8 = plain(4);
    ci8.input_type = BLADE_CI8;
    BOOST_TEST(contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, ci8, shape),
                        "input type ci8; the channelizer takes cf32 or cf16"));

    blade_shape rank3;
    const int64_t dims[3] = { 4, 12, 2 };
    ok(blade_shape_make(dims, 3, &rank3), "shape");
    BOOST_TEST(contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, plain(4), rank3), "rank 3"));
    BOOST_TEST(
        contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, plain(4), blade_shape_aftp(2, 0, 12, 2)),
                 "extent 0 on axis 1"));

    blade_channelizer_config taps = plain(4);
    taps.taps = 0;
    BOOST_TEST(contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, taps, shape), "taps 0"));
    taps.taps = 65;
    BOOST_TEST(
        contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, taps, shape), "1 (plain FFT) to 64"));
    taps.taps = 4;
    taps.window = static_cast<blade_channelizer_window>(9);
    BOOST_TEST(
        contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, taps, shape), "unknown window code 9"));
    blade_channelizer_config kernel = plain(4);
    kernel.kernel = static_cast<blade_channelizer_kernel>(7);
    BOOST_TEST(
        contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, kernel, shape), "unknown kernel code 7"));
    blade_channelizer_config ci8_out = plain(4);
    ci8_out.output_type = BLADE_CI8;
    BOOST_TEST(contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, ci8_out, shape),
                        "output type ci8; the channelizer writes cf32 or cf16"));
    const blade_channelizer_config pfb_rate1 = {
        BLADE_CF32, BLADE_CF32, 1, 4, BLADE_WINDOW_HAMMING
    };
    BOOST_TEST(
        contains(failure_of(BLADE_ERROR_INVALID_ARGUMENT, pfb_rate1, shape), "rate of at least 2"));

    blade_channelizer* none = nullptr;
    BOOST_TEST(blade_channelizer_create(&none, nullptr, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "no configuration"));
}

BOOST_AUTO_TEST_CASE(window_names_parse_both_ways)
{
    blade_channelizer_window window;
    for (int w = 0; w < BLADE_WINDOW_COUNT; w++) {
        const auto expected = static_cast<blade_channelizer_window>(w);
        ok(blade_channelizer_window_parse(blade_channelizer_window_name(expected), &window),
           "parse");
        BOOST_TEST(window == expected);
    }
    ok(blade_channelizer_window_parse("Blackman_Harris", &window), "parse");
    BOOST_TEST(window == BLADE_WINDOW_BLACKMAN_HARRIS);
    ok(blade_channelizer_window_parse("blackmanharris", &window), "parse");
    BOOST_TEST(window == BLADE_WINDOW_BLACKMAN_HARRIS);
    BOOST_TEST(blade_channelizer_window_parse("kaiser", &window) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "unknown window 'kaiser'"));
}

BOOST_AUTO_TEST_CASE(process_refuses_tensors_the_plan_was_not_made_for)
{
    plan p(plain(4), blade_shape_aftp(2, 3, 8, 2));
    std::vector<cf> in(96), out(96);
    blade_tensor input = blade_tensor_make(BLADE_CF32, &p.in_shape, blade_device_cpu(), in.data());
    blade_tensor output =
        blade_tensor_make(BLADE_CF32, &p.in_shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_channelizer_process(p.channelizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(
        contains(blade_last_error(),
                 "output tensor has shape [2, 3, 8, 2] but the plan was made for [2, 12, 2, 2]"));
    output = blade_tensor_make(BLADE_CF32, &p.out_shape, blade_device_cpu(), in.data());
    BOOST_TEST(blade_channelizer_process(p.channelizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "same memory"));
    input = blade_tensor_make(BLADE_CF16, &p.in_shape, blade_device_cpu(), in.data());
    output = blade_tensor_make(BLADE_CF32, &p.out_shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_channelizer_process(p.channelizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "input tensor is cf16"));
}

BOOST_AUTO_TEST_CASE(fine_frequency_axis)
{
    // The axis after a channelizer comes from the observation (io/observation.h), in
    // one place. ATA-like: coarse channel 0 centred at 1000.25 MHz, 0.5 MHz wide, N =
    // 8192; 2 coarse channels from F-engine channel 100, 2 us samples.
    blade_observation coarse = {};
    coarse.freq_first = 1000.25e6;
    coarse.chan_bw = 0.5e6;
    coarse.nchan = 2;
    coarse.nfpc = 1;
    coarse.coarse_first = 100;
    coarse.tsamp = 2e-6;
    blade_observation fine = blade_observation_channelized(&coarse, 8192);
    BOOST_TEST(fine.freq_first == 1000.0e6);
    BOOST_TEST(fine.chan_bw == 0.5e6 / 8192);
    BOOST_TEST(fine.nchan == 2 * 8192);
    BOOST_TEST(fine.nfpc == 8192);
    BOOST_TEST(fine.tsamp == 2e-6 * 8192);
    // the DC channel N/2 of coarse channel 0 is the coarse centre, of coarse channel 1
    // the next; fine channels belong to their coarse channel
    BOOST_TEST(blade_observation_frequency(&fine, 4096) == 1000.25e6);
    BOOST_TEST(blade_observation_frequency(&fine, 8192 + 4096) == 1000.75e6);
    BOOST_TEST(blade_observation_coarse_channel(&fine, 8191) == 100);
    BOOST_TEST(blade_observation_coarse_channel(&fine, 8192) == 101);
    // odd N: channel 0 centred on the lower edge as well
    coarse.freq_first = 100.0;
    coarse.chan_bw = 10.0;
    fine = blade_observation_channelized(&coarse, 5);
    BOOST_TEST(fine.freq_first == 95.0);
    BOOST_TEST(fine.chan_bw == 2.0);
    // descending frequencies (negative width)
    coarse.freq_first = 1400.0;
    coarse.chan_bw = -2.0;
    fine = blade_observation_channelized(&coarse, 4);
    BOOST_TEST(fine.freq_first == 1401.0);
    BOOST_TEST(fine.chan_bw == -0.5);
    // N = 1: the identity
    fine = blade_observation_channelized(&coarse, 1);
    BOOST_TEST(fine.freq_first == 1400.0);
    BOOST_TEST(fine.chan_bw == -2.0);
    BOOST_TEST(fine.nfpc == 1);
}

// --- cf16 input and output ---------------------------------------------------------
// The maths is float32 whatever the types: cf16 in is the exact float of each half,
// cf16 out the float32 result rounded to the nearest half. So a cf16-input plan gives
// the same bits as a cf32 plan fed the same values as floats, and a cf16-output plan
// the cf32 plan's bits rounded; the rounding is checked against the compiler's
// IEEE _Float16 (independent of the library's half.h).

namespace {

#if defined(__FLT16_MAX__) // the compiler has _Float16 on this target
uint16_t to_half(float value)
{
    const _Float16 half = static_cast<_Float16>(value); // round to nearest even
    uint16_t bits;
    std::memcpy(&bits, &half, sizeof bits);
    if (std::isnan(value))
        bits = 0x7e00; // the library's canonical NaN
    return bits;
}

float from_half(uint16_t bits)
{
    _Float16 half;
    std::memcpy(&half, &bits, sizeof half);
    return static_cast<float>(half);
}
#else
// Compilers without _Float16 on this target (clang 14 on x86-64, the sanitizer
// build): the same rounding, written from the IEEE 754 binary16 format (11-bit
// significand, exponents -14 ... 15; ties to even, overflow to infinity).
uint16_t to_half(float value)
{
    if (std::isnan(value))
        return 0x7e00; // the library's canonical NaN
    const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
    const double v = std::fabs(static_cast<double>(value));
    if (v == 0.0)
        return sign;
    if (std::isinf(v))
        return sign | 0x7c00;
    int e = 0;
    std::frexp(v, &e); // v = m 2^e, 0.5 <= m < 1
    const double quantum = std::ldexp(1.0, std::max(e - 1, -14) - 10);
    const double r = std::nearbyint(v / quantum) * quantum; // ties to even
    if (r == 0.0)
        return sign; // below half the smallest subnormal
    if (r > 65504.0)
        return sign | 0x7c00;
    int er = 0;
    std::frexp(r, &er);
    const int exponent = er - 1; // r = 1.f 2^exponent
    if (exponent < -14)          // subnormal: r = k 2^-24
        return sign | static_cast<uint16_t>(std::lround(std::ldexp(r, 24)));
    const long fraction = std::lround(std::ldexp(r, 10 - exponent)) - 1024;
    return sign | static_cast<uint16_t>(((exponent + 15) << 10) | fraction);
}

float from_half(uint16_t bits)
{
    const int exponent = (bits >> 10) & 31, fraction = bits & 1023;
    const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
    if (exponent == 31)
        return fraction ? NAN : sign * INFINITY;
    if (exponent == 0)
        return sign * std::ldexp(static_cast<float>(fraction), -24);
    return sign * std::ldexp(static_cast<float>(1024 + fraction), exponent - 25);
}
#endif

// cf as interleaved half bits, and back.
std::vector<uint16_t> halves_of(const std::vector<cf>& values)
{
    std::vector<uint16_t> bits(2 * values.size());
    for (size_t i = 0; i < values.size(); i++) {
        bits[2 * i] = to_half(values[i].real());
        bits[2 * i + 1] = to_half(values[i].imag());
    }
    return bits;
}

std::vector<cf> floats_of(const std::vector<uint16_t>& bits)
{
    std::vector<cf> values(bits.size() / 2);
    for (size_t i = 0; i < values.size(); i++)
        values[i] = cf(from_half(bits[2 * i]), from_half(bits[2 * i + 1]));
    return values;
}

blade_channelizer_config typed(blade_dtype in,
                               blade_dtype out,
                               int64_t rate,
                               int taps = 1,
                               blade_channelizer_window window = BLADE_WINDOW_RECTANGULAR)
{
    return blade_channelizer_config{ in, out, rate, taps, window };
}

// A plan of any types, on raw arrays (cf16 as pairs of half bits); the output is
// poisoned first so an unwritten value shows (0xFFFF halves, NaN floats).
struct typed_plan {
    blade_channelizer* channelizer = nullptr;
    blade_channelizer_config config;
    blade_shape in_shape, out_shape;
    typed_plan(const blade_channelizer_config& c, blade_shape shape) : config(c), in_shape(shape)
    {
        ok(blade_channelizer_create(&channelizer, &config, &in_shape, blade_device_cpu()),
           "create");
        out_shape = blade_channelizer_output_shape(channelizer);
    }
    ~typed_plan() { blade_channelizer_destroy(channelizer); }
    void run(const void* in, void* out)
    {
        const size_t count = static_cast<size_t>(blade_shape_count(&out_shape));
        std::memset(out, 0xff, count * blade_dtype_size(config.output_type));
        blade_tensor input = blade_tensor_make(
            config.input_type, &in_shape, blade_device_cpu(), const_cast<void*>(in));
        blade_tensor output =
            blade_tensor_make(config.output_type, &out_shape, blade_device_cpu(), out);
        ok(blade_channelizer_process(channelizer, &input, &output, nullptr), "process");
    }
};

struct typed_case {
    blade_shape shape;
    int64_t rate;
    int taps;
    blade_channelizer_window window;
};

// plain FFTs (power of two, prime, T itself, threads over [2, 9, 8192, 2], one
// spectrum per unit of work with contiguous and strided output: N = 8192 with S = 1,
// N = 16384 with S = 2) and polyphase filters (history within and across chunks)
const typed_case typed_cases[] = {
    { blade_shape_aftp(2, 3, 32, 2), 8, 1, BLADE_WINDOW_RECTANGULAR },
    { blade_shape_aftp(1, 5, 21, 2), 7, 1, BLADE_WINDOW_RECTANGULAR },
    { blade_shape_aftp(1, 3, 96, 3), 96, 1, BLADE_WINDOW_RECTANGULAR },
    { blade_shape_aftp(2, 9, 8192, 2), 64, 1, BLADE_WINDOW_RECTANGULAR },
    { blade_shape_aftp(1, 3, 8192, 2), 8192, 1, BLADE_WINDOW_RECTANGULAR },
    { blade_shape_aftp(1, 2, 32768, 2), 16384, 1, BLADE_WINDOW_RECTANGULAR },
    { blade_shape_aftp(2, 3, 32, 2), 8, 4, BLADE_WINDOW_HAMMING },
    { blade_shape_aftp(1, 1, 16, 2), 16, 8, BLADE_WINDOW_BLACKMAN_HARRIS }, // M N = 8 T
    { blade_shape_aftp(1, 2, 30, 1), 5, 3, BLADE_WINDOW_HANN },
};

} // namespace

BOOST_AUTO_TEST_CASE(cf16_input_is_its_exact_float_value)
{
    // cf16 in, cf32 out: the same bits as the cf32 plan on the halves as floats, over
    // three chunks (the history too), and the direct DFT of those values.
    uint32_t seed = 300;
    for (const auto& c : typed_cases) {
        typed_plan half_in(typed(BLADE_CF16, BLADE_CF32, c.rate, c.taps, c.window), c.shape);
        typed_plan full(typed(BLADE_CF32, BLADE_CF32, c.rate, c.taps, c.window), c.shape);
        const size_t count = static_cast<size_t>(blade_shape_count(&c.shape));
        std::vector<std::vector<cf>> chunks;
        for (int chunk = 0; chunk < 3; chunk++) {
            const auto bits = halves_of(blade_test::random_voltages(count, seed++, 10.0f));
            chunks.push_back(floats_of(bits));
            std::vector<cf> got(count), expected(count);
            half_in.run(bits.data(), got.data());
            full.run(chunks.back().data(), expected.data());
            BOOST_TEST(std::memcmp(got.data(), expected.data(), count * sizeof(cf)) == 0,
                       "N " << c.rate << " M " << c.taps << " chunk " << chunk);
            if (count <= 4096) { // the direct DFT of the large case would take seconds
                const double error = relative_difference(
                    got, reference(chunks, c.shape, c.rate, c.taps, c.window, chunks.size() - 1));
                BOOST_TEST(error < 2e-6 * std::max(1.0, std::log2(static_cast<double>(c.rate))),
                           "N " << c.rate << " M " << c.taps << " chunk " << chunk << ": "
                                << error);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(cf16_output_is_the_float32_result_rounded_to_nearest_even)
{
    // cf32 -> cf16 and cf16 -> cf16 against the cf32 plan's output rounded by the
    // compiler's _Float16: every bit equal, over three chunks.
    uint32_t seed = 400;
    for (const auto& c : typed_cases) {
        typed_plan to_half_plan(typed(BLADE_CF32, BLADE_CF16, c.rate, c.taps, c.window), c.shape);
        typed_plan both_half(typed(BLADE_CF16, BLADE_CF16, c.rate, c.taps, c.window), c.shape);
        typed_plan full(typed(BLADE_CF32, BLADE_CF32, c.rate, c.taps, c.window), c.shape);
        typed_plan full_of_halves(typed(BLADE_CF32, BLADE_CF32, c.rate, c.taps, c.window), c.shape);
        const size_t count = static_cast<size_t>(blade_shape_count(&c.shape));
        for (int chunk = 0; chunk < 3; chunk++) {
            const auto x = blade_test::random_voltages(count, seed++, 10.0f);
            const auto x_bits = halves_of(x);
            const auto x_rounded = floats_of(x_bits);
            std::vector<uint16_t> got(2 * count), got_both(2 * count);
            std::vector<cf> expected(count), expected_both(count);
            to_half_plan.run(x.data(), got.data());
            full.run(x.data(), expected.data());
            both_half.run(x_bits.data(), got_both.data());
            full_of_halves.run(x_rounded.data(), expected_both.data());
            BOOST_TEST((got == halves_of(expected)),
                       "cf32 -> cf16 N " << c.rate << " M " << c.taps << " chunk " << chunk);
            BOOST_TEST((got_both == halves_of(expected_both)),
                       "cf16 -> cf16 N " << c.rate << " M " << c.taps << " chunk " << chunk);
        }
    }
}

BOOST_AUTO_TEST_CASE(cf16_output_rounding_overflow_and_nan)
{
    // N = 2, one (a, f, p): y[0] = x0 - x1, y[1] = x0 + x1 (both exact in float).
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: it rounds to even, 1 (0x3C00);
    // 1 + 3 * 2^-11 rounds up to 1 + 2^-9 (0x3C02); 70000 overflows to infinity.
    const blade_shape shape = blade_shape_aftp(1, 1, 2, 1);
    typed_plan p(typed(BLADE_CF32, BLADE_CF16, 2), shape);
    const float tie = 1.0f + std::ldexp(1.0f, -11);
    const cf x[2] = { cf(tie, 35000.0f), cf(0.0f, 35000.0f) };
    uint16_t y[4];
    p.run(x, y);
    BOOST_TEST(y[0] == 0x3C00); // re(x0 - x1) = 1 + 2^-11
    BOOST_TEST(y[1] == 0x0000); // im(x0 - x1) = 0
    BOOST_TEST(y[2] == 0x3C00); // re(x0 + x1)
    BOOST_TEST(y[3] == 0x7C00); // im(x0 + x1) = 70000: +infinity
    const float up = 1.0f + 3.0f * std::ldexp(1.0f, -11);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const cf z[2] = { cf(up, nan), cf(0.0f, 0.0f) };
    p.run(z, y);
    BOOST_TEST(y[0] == 0x3C02);
    BOOST_TEST(y[1] == 0x7E00); // the canonical NaN
}

BOOST_AUTO_TEST_CASE(rate_one_converts_between_types)
{
    // N = 1 is the identity: cf32 -> cf16 rounds, cf16 -> cf32 is exact, cf16 ->
    // cf16 copies every bit (NaN payloads, infinities, subnormals too), also in place.
    const blade_shape shape = blade_shape_aftp(2, 3, 5, 2);
    const size_t count = static_cast<size_t>(blade_shape_count(&shape));
    const auto x = blade_test::random_voltages(count, 500, 1000.0f);
    typed_plan down(typed(BLADE_CF32, BLADE_CF16, 1), shape);
    std::vector<uint16_t> bits(2 * count);
    down.run(x.data(), bits.data());
    BOOST_TEST((bits == halves_of(x)));

    std::vector<uint16_t> every(2 * count);
    for (size_t i = 0; i < every.size(); i++)
        every[i] = static_cast<uint16_t>(i * 2654435761u >> 7); // all kinds of halves
    typed_plan up(typed(BLADE_CF16, BLADE_CF32, 1), shape);
    std::vector<cf> floats(count);
    up.run(every.data(), floats.data());
    for (size_t i = 0; i < count; i++) {
        const float re = from_half(every[2 * i]), im = from_half(every[2 * i + 1]);
        BOOST_TEST(((floats[i].real() == re) || (std::isnan(re) && std::isnan(floats[i].real()))));
        BOOST_TEST(((floats[i].imag() == im) || (std::isnan(im) && std::isnan(floats[i].imag()))));
    }

    typed_plan same(typed(BLADE_CF16, BLADE_CF16, 1), shape);
    std::vector<uint16_t> copy(2 * count);
    same.run(every.data(), copy.data());
    BOOST_TEST((copy == every));
    std::vector<uint16_t> in_place = every;
    blade_tensor input =
        blade_tensor_make(BLADE_CF16, &same.in_shape, blade_device_cpu(), in_place.data());
    blade_tensor output =
        blade_tensor_make(BLADE_CF16, &same.out_shape, blade_device_cpu(), in_place.data());
    ok(blade_channelizer_process(same.channelizer, &input, &output, nullptr), "in place");
    BOOST_TEST((in_place == every));
}

BOOST_AUTO_TEST_CASE(cf16_plans_refuse_cf32_tensors)
{
    typed_plan p(typed(BLADE_CF16, BLADE_CF16, 4), blade_shape_aftp(1, 2, 8, 2));
    std::vector<cf> in(32), out(32);
    blade_tensor input = blade_tensor_make(BLADE_CF32, &p.in_shape, blade_device_cpu(), in.data());
    blade_tensor output =
        blade_tensor_make(BLADE_CF16, &p.out_shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_channelizer_process(p.channelizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "input tensor is cf32 but the plan was made for cf16"));
    input = blade_tensor_make(BLADE_CF16, &p.in_shape, blade_device_cpu(), in.data());
    output = blade_tensor_make(BLADE_CF32, &p.out_shape, blade_device_cpu(), out.data());
    BOOST_TEST(blade_channelizer_process(p.channelizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(
        contains(blade_last_error(), "output tensor is cf32 but the plan was made for cf16"));
    // cf32 -> cf16 with N = 1 may not run in place (the types differ in size)
    typed_plan convert(typed(BLADE_CF32, BLADE_CF16, 1), blade_shape_aftp(1, 2, 8, 2));
    input = blade_tensor_make(BLADE_CF32, &convert.in_shape, blade_device_cpu(), in.data());
    output = blade_tensor_make(BLADE_CF16, &convert.out_shape, blade_device_cpu(), in.data());
    BOOST_TEST(blade_channelizer_process(convert.channelizer, &input, &output, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(contains(blade_last_error(), "same memory"));
}
