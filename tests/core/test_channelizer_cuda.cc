// SPDX-License-Identifier: MIT
// Channelizer on CUDA against the CPU backend: both paths (the single-pass kernel
// for power-of-two N <= 8192 and P, and planarize + cuFFT + reorder otherwise), the
// polyphase filter across chunks, and the benchmark shape. Tolerance: float32
// transforms of length N by two different algorithms differ by about
// 1e-7 * log2(N) of the output RMS; we allow max |cuda - cpu| <= 1e-6 * log2(N)
// * RMS(cpu). Exits 77 (skipped) without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "channelizer_support.h"
#include "test_support.h"

#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>

using blade_test::ok;
using blade_test::random_voltages;
using blade_test::relative_difference;
using cf = std::complex<float>;

namespace {

blade_device gpu() { return blade_device{ BLADE_DEVICE_CUDA, 0 }; }


// One plan on one device fed a sequence of chunks.
struct runner {
    blade_device device;
    blade_shape in_shape, out_shape;
    blade_channelizer* plan = nullptr;
    blade_stream stream = nullptr;
    void *d_in = nullptr, *d_out = nullptr;
    size_t bytes;

    runner(blade_device d, const blade_channelizer_config& config, const blade_shape& shape)
        : device(d), in_shape(shape), bytes(blade_tensor_bytes(BLADE_CF32, &shape))
    {
        ok(blade_channelizer_create(&plan, &config, &in_shape, device), "create");
        out_shape = blade_channelizer_output_shape(plan);
        if (device.kind == BLADE_DEVICE_CUDA) {
            ok(blade_stream_create(device, &stream), "stream");
            ok(blade_device_alloc(device, bytes, &d_in), "alloc in");
            ok(blade_device_alloc(device, bytes, &d_out), "alloc out");
        }
    }
    ~runner()
    {
        blade_channelizer_destroy(plan);
        if (device.kind == BLADE_DEVICE_CUDA) {
            blade_device_free(device, d_in);
            blade_device_free(device, d_out);
            blade_stream_destroy(device, stream);
        }
    }
    std::vector<cf> run(const std::vector<cf>& input)
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::vector<cf> output(input.size(), cf(nan, nan)); // poison: every value must be written
        if (device.kind != BLADE_DEVICE_CUDA) {
            blade_tensor in =
                blade_tensor_make(BLADE_CF32, &in_shape, device, const_cast<cf*>(input.data()));
            blade_tensor out = blade_tensor_make(BLADE_CF32, &out_shape, device, output.data());
            ok(blade_channelizer_process(plan, &in, &out, nullptr), "process");
            return output;
        }
        ok(blade_memcpy(device, d_in, input.data(), bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "upload");
        ok(blade_memcpy(device, d_out, output.data(), bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "poison");
        blade_tensor in = blade_tensor_make(BLADE_CF32, &in_shape, device, d_in);
        blade_tensor out = blade_tensor_make(BLADE_CF32, &out_shape, device, d_out);
        ok(blade_channelizer_process(plan, &in, &out, stream), "process");
        ok(blade_memcpy(device, output.data(), d_out, bytes, BLADE_COPY_DEVICE_TO_HOST, stream),
           "download");
        ok(blade_stream_synchronize(device, stream), "sync");
        return output;
    }
};


void check_parity(const blade_shape& shape,
                  int64_t rate,
                  int taps = 1,
                  blade_channelizer_window window = BLADE_WINDOW_RECTANGULAR,
                  int chunks = 1,
                  uint32_t seed = 1)
{
    const blade_channelizer_config config = { BLADE_CF32, rate, taps, window };
    runner cpu(blade_device_cpu(), config, shape);
    runner cuda(gpu(), config, shape);
    const double tolerance = 1e-6 * std::max(1.0, std::log2(static_cast<double>(rate)));
    char text[64];
    for (int chunk = 0; chunk < chunks; chunk++) {
        const auto input =
            random_voltages(static_cast<size_t>(blade_shape_count(&shape)), seed + chunk);
        const auto expected = cpu.run(input);
        const auto got = cuda.run(input);
        const double difference = relative_difference(got, expected);
        BOOST_TEST(difference < tolerance,
                   blade_shape_format(&shape, text, sizeof text)
                       << " N " << rate << " M " << taps << " chunk " << chunk << ": "
                       << difference);
        if (rate == 1)
            BOOST_TEST(std::memcmp(got.data(), input.data(), input.size() * sizeof(cf)) == 0);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(single_pass_kernel_every_power_of_two)
{
    uint32_t seed = 1;
    for (int log2n = 1; log2n <= 13; log2n++) {
        const int64_t n = int64_t(1) << log2n;
        check_parity(
            blade_shape_aftp(2, 3, 4 * n, 2), n, 1, BLADE_WINDOW_RECTANGULAR, 1, seed += 7);
    }
    check_parity(blade_shape_aftp(1, 3, 48, 4),
                 16,
                 1,
                 BLADE_WINDOW_RECTANGULAR,
                 1,
                 90); // P = 4, S = 3
    check_parity(blade_shape_aftp(3, 5, 8192, 1), 8, 1, BLADE_WINDOW_RECTANGULAR, 1, 91);
}

BOOST_AUTO_TEST_CASE(general_path_other_rates_and_polarizations)
{
    check_parity(blade_shape_aftp(1, 1, 1, 1), 1);
    check_parity(blade_shape_aftp(2, 3, 7, 2), 1, 1, BLADE_WINDOW_RECTANGULAR, 1, 5); // copy
    check_parity(blade_shape_aftp(2, 3, 21, 2), 3, 1, BLADE_WINDOW_RECTANGULAR, 1, 6);
    check_parity(blade_shape_aftp(1, 5, 35, 2), 5, 1, BLADE_WINDOW_RECTANGULAR, 1, 7);
    check_parity(blade_shape_aftp(3, 2, 49, 2), 7, 1, BLADE_WINDOW_RECTANGULAR, 1, 8);
    check_parity(blade_shape_aftp(2, 3, 192, 2), 96, 1, BLADE_WINDOW_RECTANGULAR, 1, 9);
    check_parity(blade_shape_aftp(2, 3, 128, 3), 64, 1, BLADE_WINDOW_RECTANGULAR, 1, 10); // P = 3
    check_parity(blade_shape_aftp(1, 2, 16384, 2), 16384, 1, BLADE_WINDOW_RECTANGULAR, 1, 11);
    check_parity(blade_shape_aftp(1, 2, 3 * 8191, 1), 8191, 1, BLADE_WINDOW_RECTANGULAR, 1, 12);
}

BOOST_AUTO_TEST_CASE(polyphase_filter_across_chunks_on_both_paths)
{
    check_parity(blade_shape_aftp(2, 3, 256, 2), 16, 4, BLADE_WINDOW_HAMMING, 3, 20);
    check_parity(blade_shape_aftp(1, 2, 64, 2),
                 64,
                 8,
                 BLADE_WINDOW_BLACKMAN_HARRIS,
                 4,
                 30); // M N > T
    check_parity(blade_shape_aftp(2, 4, 8192, 2), 8192, 4, BLADE_WINDOW_HANN, 2, 40);
    check_parity(blade_shape_aftp(2, 3, 60, 2), 5, 3, BLADE_WINDOW_BLACKMAN, 3, 50); // general
    check_parity(blade_shape_aftp(1, 2, 192, 3), 96, 2, BLADE_WINDOW_RECTANGULAR, 3,
                 60); // general
}

BOOST_AUTO_TEST_CASE(reset_forgets_the_history_on_the_gpu)
{
    const blade_shape shape = blade_shape_aftp(1, 2, 64, 2);
    const blade_channelizer_config config = { BLADE_CF32, 16, 4, BLADE_WINDOW_HAMMING };
    runner cpu(blade_device_cpu(), config, shape), cuda(gpu(), config, shape);
    const auto first = random_voltages(256, 1), second = random_voltages(256, 2);
    cpu.run(first);
    cuda.run(first);
    ok(blade_channelizer_reset(cuda.plan, cuda.stream), "reset");
    ok(blade_channelizer_reset(cpu.plan, nullptr), "reset");
    BOOST_TEST(relative_difference(cuda.run(second), cpu.run(second)) < 4e-6);
}

BOOST_AUTO_TEST_CASE(benchmark_shapes)
{
    check_parity(blade_shape_aftp(16, 192, 8192, 2), 8192, 1, BLADE_WINDOW_RECTANGULAR, 1, 70);
    check_parity(blade_shape_aftp(2, 192, 8192, 2), 64, 1, BLADE_WINDOW_RECTANGULAR, 2, 71);
    check_parity(blade_shape_aftp(2, 192, 8192, 2), 1024, 4, BLADE_WINDOW_HAMMING, 2, 72);
}

BOOST_AUTO_TEST_CASE(plans_of_one_size_with_different_tiles_coexist)
{
    // Both N = 2 plans use one kernel; the small one must not lower the shared-memory
    // limit the large one needs.
    const blade_channelizer_config config = { BLADE_CF32, 2, 1, BLADE_WINDOW_RECTANGULAR };
    runner large(gpu(), config, blade_shape_aftp(1, 2, 8192, 2));
    runner small(gpu(), config, blade_shape_aftp(1, 1, 2, 1));
    runner cpu(blade_device_cpu(), config, blade_shape_aftp(1, 2, 8192, 2));
    const auto input = random_voltages(2 * 8192 * 2, 3);
    BOOST_TEST(relative_difference(large.run(input), cpu.run(input)) < 1e-6);
    const auto tiny = random_voltages(2, 4);
    const auto out = small.run(tiny);
    // y[k] = x0 + (-1) e^{-i pi k} x1: k = 0 gives x0 - x1, k = 1 gives x0 + x1
    BOOST_TEST(std::abs(out[0] - (tiny[0] - tiny[1])) < 1e-4f);
    BOOST_TEST(std::abs(out[1] - (tiny[0] + tiny[1])) < 1e-4f);
}

bool init_unit_test() { return true; }

int main(int argc, char* argv[])
{
    if (blade_gpu_count() == 0) {
        std::printf("no CUDA GPU: skipped\n");
        return 77;
    }
    return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
}
