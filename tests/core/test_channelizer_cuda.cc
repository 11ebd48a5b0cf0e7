// SPDX-License-Identifier: MIT
// Channelizer on CUDA against the CPU backend: both paths (the single-pass kernel
// for power-of-two N <= 8192 and P, and planarize + cuFFT + reorder otherwise), the
// polyphase filter across chunks, and the benchmark shape. Tolerance: float32
// transforms of length N by two different algorithms differ by about
// 1e-7 * log2(N) of the output RMS; we allow max |cuda - cpu| <= 1e-6 * log2(N)
// * RMS(cpu). cf16 input and output against the CPU's: the float32 difference plus
// one rounding to half on either side. Exits 77 (skipped) without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "channelizer_support.h"
#include "test_support.h"

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

using blade_test::ok;
using blade_test::random_voltages;
using blade_test::relative_difference;
using cf = std::complex<float>;

namespace {

blade_device gpu() { return blade_device{ BLADE_DEVICE_CUDA, 0 }; }


// One plan on one device fed a sequence of chunks.
struct runner {
    blade_device device;
    blade_channelizer_config config;
    blade_shape in_shape, out_shape;
    blade_channelizer* plan = nullptr;
    blade_stream stream = nullptr;
    void *d_in = nullptr, *d_out = nullptr;
    size_t in_bytes, out_bytes;

    runner(blade_device d, const blade_channelizer_config& c, const blade_shape& shape)
        : device(d),
          config(c),
          in_shape(shape),
          in_bytes(blade_tensor_bytes(c.input_type, &shape)),
          out_bytes(blade_tensor_bytes(c.output_type, &shape))
    {
        ok(blade_channelizer_create(&plan, &config, &in_shape, device), "create");
        out_shape = blade_channelizer_output_shape(plan);
        if (device.kind == BLADE_DEVICE_CUDA) {
            ok(blade_stream_create(device, &stream), "stream");
            ok(blade_device_alloc(device, in_bytes, &d_in), "alloc in");
            ok(blade_device_alloc(device, out_bytes, &d_out), "alloc out");
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
    // input and output as raw arrays of the plan's types; the output is poisoned
    // first (NaN floats, 0xFFFF halves: a NaN) so an unwritten value shows
    void run_raw(const void* input, void* output)
    {
        std::memset(output, 0xff, out_bytes);
        if (device.kind != BLADE_DEVICE_CUDA) {
            blade_tensor in =
                blade_tensor_make(config.input_type, &in_shape, device, const_cast<void*>(input));
            blade_tensor out = blade_tensor_make(config.output_type, &out_shape, device, output);
            ok(blade_channelizer_process(plan, &in, &out, nullptr), "process");
            return;
        }
        ok(blade_memcpy(device, d_in, input, in_bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "upload");
        ok(blade_memcpy(device, d_out, output, out_bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "poison");
        blade_tensor in = blade_tensor_make(config.input_type, &in_shape, device, d_in);
        blade_tensor out = blade_tensor_make(config.output_type, &out_shape, device, d_out);
        ok(blade_channelizer_process(plan, &in, &out, stream), "process");
        ok(blade_memcpy(device, output, d_out, out_bytes, BLADE_COPY_DEVICE_TO_HOST, stream),
           "download");
        ok(blade_stream_synchronize(device, stream), "sync");
    }
    std::vector<cf> run(const std::vector<cf>& input) // cf32 plans
    {
        std::vector<cf> output(input.size());
        run_raw(input.data(), output.data());
        return output;
    }
};


void check_parity(const blade_shape& shape,
                  int64_t rate,
                  int taps = 1,
                  blade_channelizer_window window = BLADE_WINDOW_RECTANGULAR,
                  int chunks = 1,
                  uint32_t seed = 1,
                  blade_channelizer_kernel kernel = BLADE_CHANNELIZER_KERNEL_AUTO)
{
    const blade_channelizer_config config = { BLADE_CF32, BLADE_CF32, rate, taps, window, kernel };
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
                       << " N " << rate << " M " << taps << " kernel " << kernel << " chunk "
                       << chunk << ": " << difference);
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
    check_parity(
        blade_shape_aftp(1, 2, 16384, 2),
        16384,
        1,
        BLADE_WINDOW_RECTANGULAR,
        1,
        11,
        BLADE_CHANNELIZER_KERNEL_GENERAL); // auto: the direct tile (only it serves N = 16384)
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
    const blade_channelizer_config config = { BLADE_CF32, BLADE_CF32, 16, 4, BLADE_WINDOW_HAMMING };
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
    const blade_channelizer_config config = {
        BLADE_CF32, BLADE_CF32, 2, 1, BLADE_WINDOW_RECTANGULAR
    };
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

// --- cf16 input and output ---------------------------------------------------------

namespace {

uint16_t to_half(float value)
{
    const _Float16 half = static_cast<_Float16>(value);
    uint16_t bits;
    std::memcpy(&bits, &half, sizeof bits);
    return bits;
}

float from_half(uint16_t bits)
{
    _Float16 half;
    std::memcpy(&half, &bits, sizeof half);
    return static_cast<float>(half);
}

// Values of a cf32 or cf16 array as complex floats.
std::vector<cf> values_of(const std::vector<uint8_t>& raw, blade_dtype type)
{
    std::vector<cf> values(raw.size() / blade_dtype_size(type));
    if (type == BLADE_CF32) {
        std::memcpy(values.data(), raw.data(), raw.size());
    } else {
        const uint16_t* bits = reinterpret_cast<const uint16_t*>(raw.data());
        for (size_t i = 0; i < values.size(); i++)
            values[i] = cf(from_half(bits[2 * i]), from_half(bits[2 * i + 1]));
    }
    return values;
}

// CUDA against the CPU for one pair of types over `chunks` chunks. cf32 output: the
// float32 tolerance of check_parity; cf16 output: every part within that plus one
// half-precision rounding step of the CPU's value (2^-10 of it: each side rounds by
// at most half a step). NaN anywhere fails.
void check_typed_parity(blade_dtype in_type,
                        blade_dtype out_type,
                        const blade_shape& shape,
                        int64_t rate,
                        int taps = 1,
                        blade_channelizer_window window = BLADE_WINDOW_RECTANGULAR,
                        int chunks = 1,
                        uint32_t seed = 1)
{
    const blade_channelizer_config config = { in_type, out_type, rate, taps, window };
    runner cpu(blade_device_cpu(), config, shape);
    runner cuda(gpu(), config, shape);
    const double tolerance = 1e-6 * std::max(1.0, std::log2(static_cast<double>(rate)));
    const size_t count = static_cast<size_t>(blade_shape_count(&shape));
    char text[64];
    for (int chunk = 0; chunk < chunks; chunk++) {
        const auto voltages = random_voltages(count, seed + chunk);
        std::vector<uint8_t> input(count * blade_dtype_size(in_type));
        if (in_type == BLADE_CF32) {
            std::memcpy(input.data(), voltages.data(), input.size());
        } else {
            uint16_t* bits = reinterpret_cast<uint16_t*>(input.data());
            for (size_t i = 0; i < count; i++) {
                bits[2 * i] = to_half(voltages[i].real());
                bits[2 * i + 1] = to_half(voltages[i].imag());
            }
        }
        std::vector<uint8_t> expected_raw(count * blade_dtype_size(out_type));
        std::vector<uint8_t> got_raw(expected_raw.size());
        cpu.run_raw(input.data(), expected_raw.data());
        cuda.run_raw(input.data(), got_raw.data());
        const auto expected = values_of(expected_raw, out_type);
        const auto got = values_of(got_raw, out_type);
        const double difference = relative_difference(got, expected);
        double power = 0.0;
        for (const auto& e : expected)
            power += std::norm(std::complex<double>(e));
        const double rms = std::sqrt(power / static_cast<double>(count));
        size_t outside = 0;
        if (out_type == BLADE_CF16) {
            for (size_t i = 0; i < count; i++) {
                const double parts[2][2] = { { got[i].real(), expected[i].real() },
                                             { got[i].imag(), expected[i].imag() } };
                for (const auto& part : parts)
                    if (!(std::abs(part[0] - part[1]) <=
                          tolerance * rms + std::ldexp(std::abs(part[1]), -10)))
                        outside++;
            }
        }
        BOOST_TEST((out_type == BLADE_CF16 ? outside == 0 : difference < tolerance),
                   blade_dtype_name(in_type)
                       << " -> " << blade_dtype_name(out_type) << " "
                       << blade_shape_format(&shape, text, sizeof text) << " N " << rate << " M "
                       << taps << " chunk " << chunk << ": " << difference << ", " << outside
                       << " parts beyond a rounding step");
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(cf16_input_and_output_on_every_path)
{
    const blade_dtype pairs[3][2] = { { BLADE_CF16, BLADE_CF32 },
                                      { BLADE_CF32, BLADE_CF16 },
                                      { BLADE_CF16, BLADE_CF16 } };
    uint32_t seed = 100;
    for (const auto& types : pairs) {
        const blade_dtype in = types[0], out = types[1];
        // single pass: pols split (N = 8192), many transforms per tile, the filter
        check_typed_parity(in,
                           out,
                           blade_shape_aftp(2, 3, 16384, 2),
                           8192,
                           1,
                           BLADE_WINDOW_RECTANGULAR,
                           1,
                           seed++);
        check_typed_parity(
            in, out, blade_shape_aftp(2, 3, 4096, 2), 64, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
        check_typed_parity(
            in, out, blade_shape_aftp(2, 3, 256, 2), 16, 4, BLADE_WINDOW_HAMMING, 3, seed++);
        check_typed_parity(
            in, out, blade_shape_aftp(1, 2, 8192, 2), 8192, 4, BLADE_WINDOW_HANN, 2, seed++);
        // general path: planarize, cuFFT, reorder; with the filter
        check_typed_parity(
            in, out, blade_shape_aftp(2, 3, 192, 3), 96, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
        check_typed_parity(
            in, out, blade_shape_aftp(2, 3, 60, 2), 5, 3, BLADE_WINDOW_BLACKMAN, 3, seed++);
        // N = 1: a conversion
        check_typed_parity(
            in, out, blade_shape_aftp(2, 3, 7, 2), 1, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    }
}

// --- each CUDA implementation by name ---------------------------------------------

BOOST_AUTO_TEST_CASE(every_kernel_on_the_shapes_it_serves)
{
    const blade_channelizer_kernel kernels[] = { BLADE_CHANNELIZER_KERNEL_SHARED,
                                                 BLADE_CHANNELIZER_KERNEL_DIRECT,
                                                 BLADE_CHANNELIZER_KERNEL_DIRECT_HALF,
                                                 BLADE_CHANNELIZER_KERNEL_GENERAL };
    uint32_t seed = 200;
    for (const auto kernel : kernels) {
        // both polarizations of N = 8192 (direct: one tile; shared: split), N = 4096 with
        // P = 4, many transforms per tile, S = 3, the filter over chunks
        check_parity(
            blade_shape_aftp(2, 3, 16384, 2), 8192, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++, kernel);
        check_parity(
            blade_shape_aftp(1, 3, 8192, 4), 4096, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++, kernel);
        check_parity(
            blade_shape_aftp(2, 3, 8192, 2), 64, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++, kernel);
        check_parity(blade_shape_aftp(2, 3, 3 * 512, 2),
                     512,
                     1,
                     BLADE_WINDOW_RECTANGULAR,
                     1,
                     seed++,
                     kernel);
        check_parity(
            blade_shape_aftp(2, 3, 96, 2), 8, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++, kernel);
        check_parity(
            blade_shape_aftp(2, 4, 8192, 2), 8192, 4, BLADE_WINDOW_HANN, 3, seed++, kernel);
        check_parity(
            blade_shape_aftp(2, 3, 256, 2), 16, 4, BLADE_WINDOW_HAMMING, 3, seed++, kernel);
    }
    // long N: four-step (auto) and general, the filter over chunks, cf16
    check_parity(blade_shape_aftp(1, 2, 1 << 16, 2),
                 1 << 15,
                 1,
                 BLADE_WINDOW_RECTANGULAR,
                 1,
                 seed++,
                 BLADE_CHANNELIZER_KERNEL_FOUR_STEP);
    check_parity(blade_shape_aftp(1, 2, 1 << 16, 2),
                 1 << 15,
                 1,
                 BLADE_WINDOW_RECTANGULAR,
                 1,
                 seed++,
                 BLADE_CHANNELIZER_KERNEL_GENERAL);
    check_parity(
        blade_shape_aftp(2, 3, 1 << 18, 2), 1 << 16, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    check_parity(
        blade_shape_aftp(1, 1, 1 << 20, 2), 1 << 20, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    check_parity(blade_shape_aftp(1, 3, 1 << 16, 1), 1 << 16, 4, BLADE_WINDOW_HAMMING, 3, seed++);
    check_parity(blade_shape_aftp(1, 2, 1 << 17, 4), 1 << 15, 3, BLADE_WINDOW_HANN, 3, seed++);
    check_typed_parity(BLADE_CF16,
                       BLADE_CF16,
                       blade_shape_aftp(1, 2, 1 << 16, 2),
                       1 << 16,
                       4,
                       BLADE_WINDOW_HAMMING,
                       2,
                       seed++);
    // only direct (and general) serve N = 16384
    check_parity(blade_shape_aftp(1, 3, 32768, 2),
                 16384,
                 1,
                 BLADE_WINDOW_RECTANGULAR,
                 1,
                 seed++,
                 BLADE_CHANNELIZER_KERNEL_DIRECT);
    check_parity(blade_shape_aftp(1, 2, 16384, 1),
                 16384,
                 2,
                 BLADE_WINDOW_HAMMING,
                 2,
                 seed++,
                 BLADE_CHANNELIZER_KERNEL_AUTO);
}

BOOST_AUTO_TEST_CASE(a_kernel_that_does_not_serve_the_shape_is_refused)
{
    const blade_shape shape = blade_shape_aftp(1, 1, 32768, 2);
    blade_channelizer_config config = {
        BLADE_CF32, BLADE_CF32, 16384, 1, BLADE_WINDOW_RECTANGULAR, BLADE_CHANNELIZER_KERNEL_SHARED
    };
    blade_channelizer* plan = nullptr;
    BOOST_TEST(blade_channelizer_create(&plan, &config, &shape, gpu()) == BLADE_ERROR_UNSUPPORTED);
    BOOST_TEST(std::string(blade_last_error()).find("the shared kernel does not serve N = 16384") !=
               std::string::npos);
    config.rate = 32768;
    config.kernel = BLADE_CHANNELIZER_KERNEL_DIRECT;
    BOOST_TEST(blade_channelizer_create(&plan, &config, &shape, gpu()) == BLADE_ERROR_UNSUPPORTED);
    config.rate = 3;
    BOOST_TEST(blade_channelizer_create(&plan, &config, &shape, gpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT); // 3 does not divide T: validation first
    config.rate = 12;
    const blade_shape twelve = blade_shape_aftp(1, 1, 24, 2);
    BOOST_TEST(blade_channelizer_create(&plan, &config, &twelve, gpu()) ==
               BLADE_ERROR_UNSUPPORTED); // not a power of two
    BOOST_TEST(plan == nullptr);
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
