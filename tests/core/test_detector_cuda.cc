// SPDX-License-Identifier: MIT
// Detector on CUDA against the CPU reference (which sums in double precision): every
// mode, integrations within and across chunks, edge and benchmark shapes, and
// bit-for-bit identical results from repeated runs. Exits 77 without a GPU.
//
// Tolerance: the GPU sums in float32, each lane sequentially over I/G samples and
// then in a tree, so its error is at most about (I/G + 5) * 2^-24 of the summed
// magnitudes; every output is compared within 2e-5 * (XX + YY) of its row, which
// bounds |Re XY*| and |Im XY*| too (Cauchy-Schwarz). Typical errors are ~1e-7.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "device_memory.h"

#include <cmath>

using blade_test::device_memory;
using blade_test::first_gpu;
using blade_test::ok;

namespace {

// Detect `steps` chunks (concatenated cf32 bytes) with one plan on `device`;
// returns the output chunks (one per group), all as floats.
std::vector<float> detect_on(blade_device device,
                             const blade_shape& shape,
                             blade_detector_mode mode,
                             int64_t integration,
                             const std::vector<uint8_t>& chunks,
                             bool lower_sideband = false,
                             blade_dtype type = BLADE_CF32,
                             float scale = 0)
{
    blade_detector* detector;
    const blade_detector_config config = { mode, integration, lower_sideband, scale };
    ok(blade_detector_create(&detector, &config, &shape, device), "create");
    const blade_shape out_shape = blade_detector_output_shape(detector);
    const size_t in_bytes = blade_tensor_bytes(type, &shape);
    const size_t out_bytes = blade_tensor_bytes(BLADE_F32, &out_shape);
    const int64_t nchunks = static_cast<int64_t>(chunks.size() / in_bytes);
    const int64_t steps = blade_detector_steps(detector);
    blade_stream stream = nullptr;
    ok(blade_stream_create(device, &stream), "stream");
    device_memory in(device, chunks);
    device_memory out(device, out_bytes * static_cast<size_t>(nchunks / steps));
    for (int64_t c = 0; c < nchunks; c++) {
        blade_tensor a =
            blade_tensor_make(type, &shape, device, static_cast<char*>(in.data()) + c * in_bytes);
        blade_tensor b =
            blade_tensor_make(BLADE_F32,
                              &out_shape,
                              device,
                              static_cast<char*>(out.data()) + (c / steps) * out_bytes);
        ok(blade_detector_process(detector, &a, &b, stream), "process");
    }
    ok(blade_stream_synchronize(device, stream), "sync");
    blade_stream_destroy(device, stream);
    blade_detector_destroy(detector);
    const auto bytes = out.download();
    std::vector<float> values(bytes.size() / 4);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
}

void check_parity(const blade_shape& shape,
                  blade_detector_mode mode,
                  int64_t integration,
                  int nchunks,
                  uint32_t seed,
                  bool lower_sideband = false,
                  blade_dtype type = BLADE_CF32)
{
    const int64_t values = blade_shape_count(&shape) * nchunks;
    const auto chunks = type == BLADE_CF16 ? blade_test::random_cf16(values, seed)
                                           : blade_test::random_cf32(values, seed);
    const auto cpu =
        detect_on(blade_device_cpu(), shape, mode, integration, chunks, lower_sideband, type);
    const auto gpu = detect_on(first_gpu(), shape, mode, integration, chunks, lower_sideband, type);
    // Total power per row (XX + YY), from the CPU, for the tolerance
    const auto power =
        detect_on(blade_device_cpu(), shape, BLADE_DETECT_I, integration, chunks, false, type);
    const int outputs = blade_detector_mode_outputs(mode);
    char text[64];
    BOOST_TEST_REQUIRE(gpu.size() == cpu.size());
    size_t bad = 0, first = 0;
    double worst = 0;
    for (size_t i = 0; i < cpu.size(); i++) {
        const size_t row = i / outputs;
        const double scale = power[row];
        const double error = std::abs(static_cast<double>(gpu[i]) - cpu[i]);
        worst = std::max(worst, error / scale);
        if (!(error <= 2e-5 * scale) && bad++ == 0)
            first = i;
    }
    BOOST_TEST(bad == 0,
               blade_detector_mode_name(mode)
                   << " I " << integration << " " << blade_shape_format(&shape, text, sizeof text)
                   << ": " << bad << " outputs differ, first " << first << " (gpu " << gpu[first]
                   << ", cpu " << cpu[first] << ")");
    BOOST_TEST_MESSAGE(blade_detector_mode_name(mode)
                       << " I " << integration << " "
                       << blade_shape_format(&shape, text, sizeof text) << ": worst relative error "
                       << worst);
}

} // namespace

BOOST_AUTO_TEST_CASE(every_mode_and_integration_on_edge_shapes)
{
    uint32_t seed = 1;
    for (int mode = 0; mode < 4; mode++) {
        const auto m = static_cast<blade_detector_mode>(mode);
        check_parity(blade_shape_aftp(1, 1, 1, 2), m, 1, 1, seed++);
        // I = 1, 3, 8, 24, 64 and T: group sizes 1, 1, 8, 8, 32, 32; both kernels
        for (int64_t integration : { 1, 3, 8, 24, 64, 192 })
            check_parity(blade_shape_aftp(3, 7, 192, 2), m, integration, 1, seed++);
        check_parity(blade_shape_aftp(2, 5, 4096, 2), m, 4096, 1, seed++); // long rows
        check_parity(blade_shape_aftp(1, 3, 13, 2), m, 13, 1, seed++);     // prime I, one lane
    }
    check_parity(blade_shape_aftp(3, 7, 96, 1), BLADE_DETECT_I, 32, 1, seed++); // one polarization
    check_parity(blade_shape_aftp(3, 7, 96, 1), BLADE_DETECT_I, 3, 1, seed++);
}

BOOST_AUTO_TEST_CASE(integration_across_chunks)
{
    // K = 3 and K = 4 chunks per output, distinct data in every chunk, two groups
    check_parity(blade_shape_aftp(2, 5, 64, 2), BLADE_DETECT_IQUV, 3 * 64, 6, 11);
    check_parity(blade_shape_aftp(2, 5, 64, 2), BLADE_DETECT_CROSS, 4 * 64, 8, 12);
    check_parity(blade_shape_aftp(3, 4, 7, 1), BLADE_DETECT_I, 2 * 7, 4, 13);
}

BOOST_AUTO_TEST_CASE(lower_sideband)
{
    // Im(X·Y*) negated on both backends alike, within and across chunks.
    check_parity(blade_shape_aftp(3, 7, 192, 2), BLADE_DETECT_CROSS, 8, 1, 41, true);
    check_parity(blade_shape_aftp(3, 7, 192, 2), BLADE_DETECT_IQUV, 192, 1, 42, true);
    check_parity(blade_shape_aftp(2, 5, 64, 2), BLADE_DETECT_IQUV, 3 * 64, 6, 43, true);
}

BOOST_AUTO_TEST_CASE(benchmark_shapes)
{
    check_parity(blade_shape_aftp(2, 192, 8192, 2), BLADE_DETECT_CROSS, 8, 1, 21);
    check_parity(blade_shape_aftp(16, 192, 8192, 2), BLADE_DETECT_IQUV, 8, 1, 22);
    check_parity(blade_shape_aftp(16, 192, 8192, 2), BLADE_DETECT_I, 64, 1, 23);
}

BOOST_AUTO_TEST_CASE(repeated_runs_give_identical_bits)
{
    // Same data, two plans, two streams: identical bytes (no atomics, fixed order).
    for (auto [mode, integration] : { std::pair{ BLADE_DETECT_IQUV, int64_t{ 8 } },
                                      std::pair{ BLADE_DETECT_I, int64_t{ 64 } },
                                      std::pair{ BLADE_DETECT_CROSS, int64_t{ 3 * 8192 } } }) {
        const blade_shape shape = blade_shape_aftp(16, 192, 8192, 2);
        const int nchunks = integration > 8192 ? 3 : 1;
        const auto chunks = blade_test::random_cf32(blade_shape_count(&shape) * nchunks, 31);
        const auto first = detect_on(first_gpu(), shape, mode, integration, chunks);
        const auto second = detect_on(first_gpu(), shape, mode, integration, chunks);
        BOOST_TEST(std::memcmp(first.data(), second.data(), first.size() * 4) == 0,
                   blade_detector_mode_name(mode) << " I " << integration);
    }
}

BOOST_AUTO_TEST_CASE(half_voltages_detect_as_their_cast)
{
    // cf16 widened as it is read: on the GPU exactly the bits of the cf32 cast (same
    // kernels, same order of additions), and the CPU's cf16 result within the
    // float32 tolerance above.
    struct run {
        blade_shape shape;
        int64_t integration;
        int chunks;
    };
    const run runs[] = {
        { blade_shape_aftp(3, 7, 192, 2), 1, 1 },     { blade_shape_aftp(3, 7, 192, 2), 24, 1 },
        { blade_shape_aftp(2, 5, 4096, 2), 4096, 1 }, { blade_shape_aftp(1, 3, 13, 2), 13, 1 },
        { blade_shape_aftp(2, 5, 64, 2), 3 * 64, 6 }, { blade_shape_aftp(3, 7, 96, 1), 32, 1 },
        { blade_shape_aftp(16, 192, 8192, 2), 8, 1 }
    };
    uint32_t seed = 61;
    for (const run& r : runs) {
        const int64_t values = blade_shape_count(&r.shape) * r.chunks;
        const auto half = blade_test::random_cf16(values, seed++);
        const auto wide = blade_test::cast_on_cpu(half, BLADE_CF16, BLADE_CF32, values);
        const int modes = r.shape.dims[3] == 1 ? 1 : 4;
        for (int mode = 0; mode < modes; mode++) {
            const auto m = static_cast<blade_detector_mode>(mode);
            const auto gpu_half =
                detect_on(first_gpu(), r.shape, m, r.integration, half, false, BLADE_CF16);
            const auto gpu_cast = detect_on(first_gpu(), r.shape, m, r.integration, wide);
            char text[64];
            BOOST_TEST((gpu_half == gpu_cast),
                       "mode " << mode << " I " << r.integration << " "
                               << blade_shape_format(&r.shape, text, sizeof text));
            const auto cpu_half =
                detect_on(blade_device_cpu(), r.shape, m, r.integration, half, false, BLADE_CF16);
            const auto cpu_cast = detect_on(blade_device_cpu(), r.shape, m, r.integration, wide);
            BOOST_TEST((cpu_half == cpu_cast), "cpu, mode " << mode);
        }
        // and the GPU's float sums against the CPU's double ones, as for cf32
        check_parity(r.shape,
                     r.shape.dims[3] == 1 ? BLADE_DETECT_I : BLADE_DETECT_IQUV,
                     r.integration,
                     r.chunks,
                     seed++,
                     false,
                     BLADE_CF16);
    }
}

BOOST_AUTO_TEST_CASE(the_scale_multiplies_the_outputs_once)
{
    // 2^20 exactly, within and across chunks (the accumulator holds unscaled sums).
    const blade_shape shape = blade_shape_aftp(3, 7, 64, 2);
    const auto half = blade_test::random_cf16(blade_shape_count(&shape) * 4, 71, 0.01f);
    for (int64_t integration : { 8, 128 }) {
        const auto plain =
            detect_on(first_gpu(), shape, BLADE_DETECT_IQUV, integration, half, false, BLADE_CF16);
        const auto scaled = detect_on(
            first_gpu(), shape, BLADE_DETECT_IQUV, integration, half, false, BLADE_CF16, 0x1p20f);
        BOOST_TEST_REQUIRE(plain.size() == scaled.size());
        size_t bad = 0;
        for (size_t i = 0; i < plain.size(); i++)
            bad += scaled[i] != std::ldexp(plain[i], 20);
        BOOST_TEST(bad == 0, "I " << integration);
    }
}

bool init_unit_test() { return true; }

int main(int argc, char* argv[]) { return blade_test::gpu_suite_main(argc, argv, &init_unit_test); }
