// SPDX-License-Identifier: MIT
// The CPU backend's libraries and threads: FFTW wisdom kept across runs (a bad file
// is ignored, a measured plan is saved and gives the formula's values), every way the
// beamformer forms its products (hand loop, cgemm, AVX2 and AVX-512 register tiles)
// against a double-precision sum of the formula at edge shapes (one sample, a time
// block and one more, one polarization, cf16 output, incoherent beam, the tiles'
// partial rows and vectors), and results that are identical bits for 1, 2 and 3
// threads.
#define BOOST_TEST_MODULE cpu_backend
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <blade/blade.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using blade_test::ok;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

std::vector<cf> random_values(size_t count, uint32_t seed, float scale)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<cf> values(count);
    for (auto& v : values)
        v = cf(normal(rng), normal(rng));
    return values;
}

blade_shape shape_of(std::initializer_list<int64_t> dims)
{
    blade_shape shape;
    ok(blade_shape_make(dims.begin(), static_cast<int>(dims.size()), &shape), "shape");
    return shape;
}

// y of a plain channelizer (taps = 1) of x [A, F, T, P]: the N-point DFT of
// (-1)^n x[s N + n], at y[a, f N + k, s, p], computed in double.
std::vector<cd> channelize_reference(
    const std::vector<cf>& x, int64_t A, int64_t F, int64_t T, int64_t P, int64_t N)
{
    const int64_t S = T / N;
    std::vector<cd> y(x.size());
    for (int64_t a = 0; a < A; a++)
        for (int64_t f = 0; f < F; f++)
            for (int64_t s = 0; s < S; s++)
                for (int64_t p = 0; p < P; p++)
                    for (int64_t k = 0; k < N; k++) {
                        cd sum = 0;
                        for (int64_t n = 0; n < N; n++) {
                            const cf v = x[((a * F + f) * T + s * N + n) * P + p];
                            sum += (n % 2 ? -1.0 : 1.0) * cd(v.real(), v.imag()) *
                                   std::polar(1.0, -2.0 * M_PI * double(n * k) / double(N));
                        }
                        y[((a * F * N + f * N + k) * S + s) * P + p] = sum;
                    }
    return y;
}

std::vector<cf> channelize(const std::vector<cf>& x, blade_shape shape, int64_t N, int taps)
{
    const blade_channelizer_config config = {
        BLADE_CF32, BLADE_CF32, N, taps, BLADE_WINDOW_HAMMING
    };
    blade_channelizer* plan = nullptr;
    ok(blade_channelizer_create(&plan, &config, &shape, blade_device_cpu()), "channelizer");
    const blade_shape out_shape = blade_channelizer_output_shape(plan);
    std::vector<cf> y(static_cast<size_t>(blade_shape_count(&out_shape)));
    blade_tensor in =
        blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), const_cast<cf*>(x.data()));
    blade_tensor out = blade_tensor_make(BLADE_CF32, &out_shape, blade_device_cpu(), y.data());
    ok(blade_channelizer_process(plan, &in, &out, nullptr), "channelize");
    blade_channelizer_destroy(plan);
    return y;
}

// `count` elements of `from` cast to `to` by the cast module.
blade_status
cast_host(const void* input, blade_dtype from, void* output, blade_dtype to, int64_t count)
{
    const blade_cast_config config = { from, to };
    const blade_shape shape = shape_of({ count });
    blade_cast* plan = nullptr;
    blade_status status = blade_cast_create(&plan, &config, &shape, blade_device_cpu());
    if (status != BLADE_OK)
        return status;
    blade_tensor in = blade_tensor_make(from, &shape, blade_device_cpu(), const_cast<void*>(input));
    blade_tensor out = blade_tensor_make(to, &shape, blade_device_cpu(), output);
    status = blade_cast_process(plan, &in, &out, nullptr);
    blade_cast_destroy(plan);
    return status;
}

struct beams {
    blade_beamformer_config config = blade_beamformer_config_default();
    int64_t A, F, T, P, B;
    beams(int64_t a, int64_t f, int64_t t, int64_t p, int64_t b) : A(a), F(f), T(t), P(p), B(b) {}

    // Output as complex doubles (cf32 or cf16 widened).
    std::vector<cd> run(const std::vector<cf>& x, const std::vector<cf>& w) const
    {
        blade_beamformer* bf = nullptr;
        const blade_shape input = blade_shape_aftp(A, F, T, P);
        const blade_shape phasors = shape_of({ B, A, F, 1, P });
        ok(blade_beamformer_create(&bf, &config, &input, &phasors, blade_device_cpu()), "create");
        const blade_shape out = blade_beamformer_output_shape(bf);
        const int64_t count = blade_shape_count(&out);
        std::vector<uint8_t> bytes(blade_bytes(config.output_type, count));
        blade_tensor xt =
            blade_tensor_make(BLADE_CF32, &input, blade_device_cpu(), const_cast<cf*>(x.data()));
        blade_tensor wt =
            blade_tensor_make(BLADE_CF32, &phasors, blade_device_cpu(), const_cast<cf*>(w.data()));
        blade_tensor yt =
            blade_tensor_make(config.output_type, &out, blade_device_cpu(), bytes.data());
        ok(blade_beamformer_process(bf, &xt, &wt, &yt, nullptr), "process");
        blade_beamformer_destroy(bf);
        std::vector<cd> y(static_cast<size_t>(count));
        if (config.output_type == BLADE_CF16) {
            std::vector<float> widened(2 * static_cast<size_t>(count));
            ok(cast_host(bytes.data(), BLADE_F16, widened.data(), BLADE_F32, 2 * count), "widen");
            for (int64_t i = 0; i < count; i++)
                y[i] = cd(widened[2 * i], widened[2 * i + 1]);
        } else {
            const cf* values = reinterpret_cast<const cf*>(bytes.data());
            for (int64_t i = 0; i < count; i++)
                y[i] = cd(values[i].real(), values[i].imag());
        }
        return y;
    }
};

} // namespace

// First in this file: the wisdom file is read once per process, at the first plan.
BOOST_AUTO_TEST_CASE(fftw_wisdom_bad_file_is_ignored_then_replaced_by_measured_plans)
{
    char directory[] = "/tmp/blade-wisdom-XXXXXX";
    BOOST_REQUIRE(mkdtemp(directory) != nullptr);
    const std::string path = std::string(directory) + "/nested/fftw3f.wisdom";
    BOOST_REQUIRE(mkdir((std::string(directory) + "/nested").c_str(), 0755) == 0);
    {
        std::ofstream bad(path);
        bad << "(not fftw wisdom at all";
    }
    setenv("BLADE_FFTW_WISDOM", path.c_str(), 1);
    setenv("BLADE_FFTW_PLANNING", "measure", 1);
    const int64_t A = 2, F = 3, T = 48, P = 2, N = 16;
    const auto x = random_values(static_cast<size_t>(A * F * T * P), 5, 3.0f);
    const auto y = channelize(x, blade_shape_aftp(A, F, T, P), N, 1);
    const auto want = channelize_reference(x, A, F, T, P, N);
    double largest = 0, error = 0;
    for (size_t i = 0; i < y.size(); i++) {
        largest = std::max(largest, std::abs(want[i]));
        error = std::max(error, std::abs(cd(y[i].real(), y[i].imag()) - want[i]));
    }
    BOOST_TEST(error < 2e-6 * largest, "measured plan error " << error << " of " << largest);
    std::ifstream saved(path);
    std::stringstream text;
    text << saved.rdbuf();
    BOOST_TEST(text.str().find("fftwf_wisdom") != std::string::npos,
               "saved: " << text.str().substr(0, 80));
    unsetenv("BLADE_FFTW_PLANNING");
    unsetenv("BLADE_FFTW_WISDOM");
    std::remove(path.c_str());
    rmdir((std::string(directory) + "/nested").c_str());
    rmdir(directory);
}

BOOST_AUTO_TEST_CASE(every_cpu_beamformer_product_matches_the_formula_at_edge_shapes)
{
    // Each way of forming the products (BLADE_CPU_BEAMFORMER; one this CPU or build
    // lacks runs the automatic choice, which must pass too) against a float64 sum.
    // Shapes for the register tiles' edges: beams past a multiple of 4 (AVX-512 rows)
    // and of 2 (AVX2), times past a multiple of 16 and 8 (their blocks of values) and
    // of 256 (the packed blocks), one sample, one polarization.
    struct shape {
        int64_t A, F, T, P, B;
        bool incoherent;
        blade_dtype output;
    };
    const shape cases[] = {
        { 12, 3, 257, 2, 16, true, BLADE_CF32 }, // a time block and one sample
        { 5, 2, 1, 2, 4, false, BLADE_CF32 },    // one sample
        { 7, 1, 300, 1, 9, true, BLADE_CF32 },   // one polarization
        { 33, 2, 64, 2, 65, true, BLADE_CF16 },  // odd A and B, half output
        { 3, 2, 23, 2, 1, false, BLADE_CF32 },   // one beam; 16 + 7 times
        { 9, 1, 41, 2, 3, true, BLADE_CF32 },    // 3 beams; 2 x 16 + 9 times
        { 4, 2, 15, 1, 6, false, BLADE_CF32 },   // 4 + 2 beams; 8 + 7 times
        { 1, 1, 525, 2, 7, false, BLADE_CF32 },  // one antenna; 2 blocks + 13 times
    };
    const char* products[] = { "loop", "cgemm", "tiles256", "tiles512" };
    uint32_t seed = 40;
    for (const auto& c : cases) {
        beams plan(c.A, c.F, c.T, c.P, c.B);
        plan.config.incoherent = c.incoherent;
        plan.config.output_type = c.output;
        // cf16 output: small voltages, so that the incoherent power stays finite
        const float sigma = c.output == BLADE_CF16 ? 4.0f : 20.0f;
        const auto x = random_values(static_cast<size_t>(c.A * c.F * c.T * c.P), seed++, sigma);
        const auto w = random_values(static_cast<size_t>(c.B * c.A * c.F * c.P), seed++, 1.0f);
        std::vector<std::vector<cd>> outputs;
        for (const char* product : products) {
            setenv("BLADE_CPU_BEAMFORMER", product, 1);
            outputs.push_back(plan.run(x, w));
            // the packed paths' streaming stores (for outputs past the caches): same bits
            setenv("BLADE_STREAM_MIN_BYTES", "0", 1);
            BOOST_TEST((plan.run(x, w) == outputs.back()), product << " streamed: other bits");
            unsetenv("BLADE_STREAM_MIN_BYTES");
            unsetenv("BLADE_CPU_BEAMFORMER");
        }
        const double tolerance = c.output == BLADE_CF16 ? 2e-3 : 1e-5;
        for (size_t k = 0; k < outputs.size(); k++) {
            const auto& y = outputs[k];
            int bad = 0;
            for (int64_t b = 0; b <= c.B - (c.incoherent ? 0 : 1); b++)
                for (int64_t f = 0; f < c.F; f++)
                    for (int64_t t = 0; t < c.T; t++)
                        for (int64_t p = 0; p < c.P; p++) {
                            cd sum = 0;
                            double scale = 0; // Σ |w| |x|: the size float rounding is relative to
                            for (int64_t a = 0; a < c.A; a++) {
                                const cf xv = x[((a * c.F + f) * c.T + t) * c.P + p];
                                const cf wv =
                                    w[((std::min(b, c.B - 1) * c.A + a) * c.F + f) * c.P + p];
                                const cd xd(xv.real(), xv.imag());
                                const cd wd(wv.real(), wv.imag());
                                if (b < c.B) {
                                    sum += wd * xd;
                                    scale += std::abs(wd) * std::abs(xd);
                                } else { // incoherent: Σ |w[0]|² |x|²
                                    const cf w0 = w[((0 * c.A + a) * c.F + f) * c.P + p];
                                    const double gain = std::norm(cd(w0.real(), w0.imag()));
                                    sum += gain * std::norm(xd);
                                    scale += gain * std::norm(xd);
                                }
                            }
                            const cd got = y[((b * c.F + f) * c.T + t) * c.P + p];
                            if (std::abs(got - sum) > tolerance * scale + 1e-30)
                                bad++;
                        }
            BOOST_TEST(bad == 0,
                       products[k] << ": A " << c.A << " T " << c.T << " P " << c.P << " B " << c.B
                                   << ": " << bad << " values off");
        }
        // The tiles' arithmetic per value does not depend on the register width.
        BOOST_TEST((outputs[2] == outputs[3]),
                   "tiles256 and tiles512 differ: A " << c.A << " T " << c.T << " B " << c.B);
    }
}

BOOST_AUTO_TEST_CASE(thread_count_is_set_and_results_do_not_depend_on_it)
{
    blade_cpu_threads_set(3);
    BOOST_TEST(blade_cpu_threads() == 3);
    blade_cpu_threads_set(0);
    BOOST_TEST(blade_cpu_threads() >= 1);
    BOOST_TEST(std::string(blade_cpu_blas()).size() > 0);

    // Shapes above every module's threading threshold.
    const int64_t A = 8, F = 16, T = 2048, P = 2, B = 8;
    const auto x = random_values(static_cast<size_t>(A * F * T * P), 77, 10.0f);
    const auto w = random_values(static_cast<size_t>(B * A * F * P), 78, 1.0f);
    const auto raw = blade_test::random_elements(BLADE_CI8, A * F * T * P, 79);
    // Each count with ordinary stores, then with the streaming stores that outputs
    // larger than the caches take (cast ci8 -> cf32, channelizer N = T), forced here
    // on this small shape: 6 runs, every one the same bits as the first.
    std::vector<std::vector<uint8_t>> results[6];
    for (int run = 0; run < 6; run++) {
        const int threads = run % 3 + 1;
        const bool streamed = run >= 3;
        if (streamed)
            setenv("BLADE_STREAM_MIN_BYTES", "0", 1);
        else
            unsetenv("BLADE_STREAM_MIN_BYTES");
        blade_cpu_threads_set(threads);
        auto& r = results[run];
        beams bf(A, F, T, P, B);
        bf.config.incoherent = true;
        const auto y = bf.run(x, w);
        r.emplace_back(reinterpret_cast<const uint8_t*>(y.data()),
                       reinterpret_cast<const uint8_t*>(y.data() + y.size()));

        std::vector<float> cast(2 * static_cast<size_t>(A * F * T * P));
        ok(cast_host(raw.data(), BLADE_CI8, cast.data(), BLADE_CF32, A * F * T * P), "cast");
        r.emplace_back(reinterpret_cast<const uint8_t*>(cast.data()),
                       reinterpret_cast<const uint8_t*>(cast.data() + cast.size()));

        blade_detector_config dc = { BLADE_DETECT_IQUV, 8, false };
        const blade_shape shape = blade_shape_aftp(A, F, T, P);
        blade_detector* det = nullptr;
        ok(blade_detector_create(&det, &dc, &shape, blade_device_cpu()), "detector");
        const blade_shape dshape = blade_detector_output_shape(det);
        std::vector<float> power(static_cast<size_t>(blade_shape_count(&dshape)));
        blade_tensor in =
            blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), const_cast<cf*>(x.data()));
        blade_tensor out = blade_tensor_make(BLADE_F32, &dshape, blade_device_cpu(), power.data());
        ok(blade_detector_process(det, &in, &out, nullptr), "detect");
        blade_detector_destroy(det);
        r.emplace_back(reinterpret_cast<const uint8_t*>(power.data()),
                       reinterpret_cast<const uint8_t*>(power.data() + power.size()));

        const auto spectra = channelize(x, shape, 64, 4);
        r.emplace_back(reinterpret_cast<const uint8_t*>(spectra.data()),
                       reinterpret_cast<const uint8_t*>(spectra.data() + spectra.size()));
        // N = T: one spectrum per unit of work (the split and interleaved passes)
        const auto long_spectra = channelize(x, shape, T, 1);
        r.emplace_back(reinterpret_cast<const uint8_t*>(long_spectra.data()),
                       reinterpret_cast<const uint8_t*>(long_spectra.data() + long_spectra.size()));
    }
    blade_cpu_threads_set(0);
    unsetenv("BLADE_STREAM_MIN_BYTES");
    const char* names[] = { "beamformer", "cast", "detector", "channelizer", "channelizer N = T" };
    for (int m = 0; m < 5; m++)
        for (int run = 1; run < 6; run++)
            BOOST_TEST(results[run][m] == results[0][m],
                       names[m] << ": " << run % 3 + 1 << " threads"
                                << (run >= 3 ? ", streamed," : "") << " differ from 1 thread");
}
