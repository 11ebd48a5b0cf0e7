// SPDX-License-Identifier: MIT
// Correlator on CUDA against the CPU reference (double products and sums): the fp32
// path within float32 rounding, the fp16 tensor-core path within its stated bound,
// every shape class the kernels treat differently (antenna tiles, P = 1, ci8, time
// slices, channel and across-chunk integration, lower sideband), and bit-for-bit
// repeatable results. Exits 77 without a GPU.
//
// Tolerances, per output V_ij[p, q] summed over n samples, with the scale
// S = sqrt(V_ii[p, p] V_jj[q, q]) >= sum |x_i||x_j| (Cauchy-Schwarz; the autos are the
// CPU's):
// - fp32: each output is a sequential float32 sum of n products, whose rounding error
//   grows like sqrt(n) 2^-24 S for noise-like data: |error| <= 1e-5 S (n <= 4096),
//   scaled by sqrt(n / 4096) beyond (rtol about 1e-5, as the brief of the module asks).
// - fp16: the header's bound (2^-10 + 2^-22 + n 2^-23) S (the tensor cores' float32
//   accumulation may truncate, hence 2^-23 per addition rather than 2^-24), and an
//   RMS over all outputs below 2^-12 S, which a wrong operand would exceed; ci8
//   operands are exact, so then only n 2^-23 S.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "device_memory.h"

#include <initializer_list>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <vector>

using blade_test::device_memory;
using blade_test::first_gpu;
using blade_test::ok;
using cf = std::complex<float>;

namespace {

struct job {
    blade_shape shape;
    int64_t integration = 1, channel_integration = 1;
    blade_dtype type = BLADE_CF32;
    blade_correlator_path path = BLADE_CORRELATOR_FP32;
    float operand_scale = 1.0f;
    bool lower_sideband = false;
    size_t input_offset = 0; // bytes before the first chunk in device memory (alignment)
};

// Correlate `chunks` (concatenated input bytes) with one plan on `device`; returns the
// output chunks (one per group).
std::vector<cf> correlate_on(blade_device device, const job& j, const std::vector<uint8_t>& chunks)
{
    blade_correlator_config config = blade_correlator_config_default();
    config.input_type = j.type;
    config.integration = j.integration;
    config.channel_integration = j.channel_integration;
    config.path = j.path;
    config.operand_scale = j.operand_scale;
    config.lower_sideband = j.lower_sideband;
    blade_correlator* correlator;
    ok(blade_correlator_create(&correlator, &config, &j.shape, device), "create");
    const blade_shape out_shape = blade_correlator_output_shape(correlator);
    const size_t in_bytes = blade_tensor_bytes(j.type, &j.shape);
    const size_t out_bytes = blade_tensor_bytes(BLADE_CF32, &out_shape);
    const int64_t nchunks = static_cast<int64_t>(chunks.size() / in_bytes);
    const int64_t steps = blade_correlator_steps(correlator);
    blade_stream stream = nullptr;
    ok(blade_stream_create(device, &stream), "stream");
    std::vector<uint8_t> placed(j.input_offset, 0);
    placed.insert(placed.end(), chunks.begin(), chunks.end());
    device_memory in(device, placed);
    device_memory out(device, out_bytes * static_cast<size_t>(nchunks / steps));
    for (int64_t c = 0; c < nchunks; c++) {
        blade_tensor a =
            blade_tensor_make(j.type,
                              &j.shape,
                              device,
                              static_cast<char*>(in.data()) + j.input_offset + c * in_bytes);
        blade_tensor b =
            blade_tensor_make(BLADE_CF32,
                              &out_shape,
                              device,
                              static_cast<char*>(out.data()) + (c / steps) * out_bytes);
        ok(blade_correlator_process(correlator, &a, &b, stream), "process");
    }
    ok(blade_stream_synchronize(device, stream), "sync");
    blade_stream_destroy(device, stream);
    blade_correlator_destroy(correlator);
    const auto bytes = out.download();
    std::vector<cf> values(bytes.size() / sizeof(cf));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
}

std::vector<uint8_t> random_input(const job& j, int nchunks, uint32_t seed, float scale = 100.0f)
{
    const int64_t count = blade_shape_count(&j.shape) * nchunks;
    if (j.type == BLADE_CI8)
        return blade_test::random_elements(BLADE_CI8, count, seed);
    return blade_test::random_cf32(count, seed, scale);
}

struct errors {
    double worst = 0, rms = 0; // relative to each output's scale S
};

// Compare GPU outputs with the CPU's; `bound(n)` is the largest error allowed per
// unit of S for sums of n samples. The vectors hold `outputs` output chunks, each
// [baselines, cells, P²]: S of an output is that chunk's autocorrelations.
template <class Bound>
errors compare(const job& j,
               const std::vector<cf>& cpu,
               const std::vector<cf>& gpu,
               int64_t outputs,
               int64_t samples,
               Bound bound,
               const std::string& what)
{
    BOOST_TEST_REQUIRE(gpu.size() == cpu.size(), what);
    BOOST_TEST_REQUIRE(outputs >= 1, what);
    const int64_t A = j.shape.dims[0], P = j.shape.dims[3], products = P * P;
    const int64_t per_output = static_cast<int64_t>(cpu.size()) / outputs;
    const int64_t cells = per_output / blade_correlator_baselines(A) / products; // (channel, time)
    errors e;
    size_t bad = 0, first = 0;
    double first_error = 0, first_allowed = 0;
    const double allowed = bound(samples);
    for (int64_t o = 0; o < outputs; o++) {
        for (int64_t i = 0; i < A; i++) {
            for (int64_t k = i; k < A; k++) {
                const int64_t b = blade_correlator_baseline_index(A, i, k);
                const int64_t bi = blade_correlator_baseline_index(A, i, i),
                              bk = blade_correlator_baseline_index(A, k, k);
                for (int64_t cell = 0; cell < cells; cell++) {
                    for (int64_t p = 0; p < P; p++) {
                        for (int64_t q = 0; q < P; q++) {
                            const auto at = [&](int64_t baseline, int64_t product) {
                                return static_cast<size_t>(o * per_output +
                                                           (baseline * cells + cell) * products +
                                                           product);
                            };
                            const double scale =
                                std::sqrt(static_cast<double>(cpu[at(bi, p * P + p)].real()) *
                                          cpu[at(bk, q * P + q)].real());
                            const size_t x = at(b, p * P + q);
                            const double error = std::abs(std::complex<double>(gpu[x]) -
                                                          std::complex<double>(cpu[x]));
                            const double relative =
                                scale > 0 ? error / scale : (error > 0 ? INFINITY : 0);
                            e.worst = std::max(e.worst, relative);
                            e.rms += relative * relative;
                            if (!(relative <= allowed) && bad++ == 0) {
                                first = x;
                                first_error = error;
                                first_allowed = allowed * scale;
                            }
                        }
                    }
                }
            }
        }
    }
    e.rms = std::sqrt(e.rms / static_cast<double>(cpu.size()));
    BOOST_TEST(bad == 0,
               what << ": " << bad << " of " << cpu.size() << " outputs beyond the bound, first "
                    << first << " (gpu " << gpu[first] << ", cpu " << cpu[first] << ", error "
                    << first_error << " > " << first_allowed << ")");
    BOOST_TEST_MESSAGE(what << ": worst error " << e.worst << " of S, RMS " << e.rms
                            << " of S (bound " << allowed << ")");
    return e;
}

std::string describe(const job& j)
{
    char text[64];
    return std::string(blade_correlator_path_name(j.path)) + " " +
           blade_shape_format(&j.shape, text, sizeof text) + " " + blade_dtype_name(j.type) +
           " I " + std::to_string(j.integration) + " Fc " + std::to_string(j.channel_integration) +
           (j.lower_sideband ? " LSB" : "");
}

// Samples summed per output.
int64_t samples_of(const job& j) { return j.integration * j.channel_integration; }

// Input chunks per output chunk: I / T when the integration spans chunks.
int64_t steps_of(const job& j)
{
    const int64_t T = j.shape.dims[2];
    return j.integration > T ? j.integration / T : 1;
}

double fp32_bound(int64_t n) { return 1e-5 * std::max(1.0, std::sqrt(n / 4096.0)); }

double fp16_bound(int64_t n)
{
    return std::ldexp(1.0, -10) + std::ldexp(1.0, -22) + n * std::ldexp(1.0, -23);
}

double exact_operand_bound(int64_t n)
{
    return std::max(1.0, static_cast<double>(n)) * std::ldexp(1.0, -23);
}

errors check(const job& j, int nchunks, uint32_t seed, float scale = 100.0f)
{
    const auto chunks = random_input(j, nchunks, seed, scale);
    job reference = j; // the fp64 reference, not the CPU's float32 fp32 path
    reference.path = BLADE_CORRELATOR_FP64;
    const auto cpu = correlate_on(blade_device_cpu(), reference, chunks);
    const auto gpu = correlate_on(first_gpu(), j, chunks);
    const int64_t outputs = nchunks / steps_of(j);
    if (j.path == BLADE_CORRELATOR_FP32)
        return compare(j, cpu, gpu, outputs, samples_of(j), fp32_bound, describe(j));
    const auto e = compare(j,
                           cpu,
                           gpu,
                           outputs,
                           samples_of(j),
                           j.type == BLADE_CI8 ? exact_operand_bound : fp16_bound,
                           describe(j));
    if (j.type != BLADE_CI8)
        BOOST_TEST(e.rms <= std::ldexp(1.0, -12),
                   describe(j) << ": RMS error " << e.rms << " of S");
    return e;
}

bool tensor_cores_present()
{
    blade_gpu_info info;
    return blade_gpu_info_get(0, &info) == BLADE_OK && info.compute_major >= 8;
}

const blade_correlator_path both_paths[] = { BLADE_CORRELATOR_FP32, BLADE_CORRELATOR_FP16 };

} // namespace

BOOST_AUTO_TEST_CASE(antenna_counts_across_tile_edges)
{
    // 1, 2, odd, a tile (16 and 32 antennas per tile side), a tile plus one, 64.
    uint32_t seed = 1;
    for (auto path : both_paths) {
        if (path == BLADE_CORRELATOR_FP16 && !tensor_cores_present())
            continue;
        for (int64_t A : { 1, 2, 3, 15, 16, 17, 28, 31, 32, 33, 64, 65 }) {
            job j;
            j.shape = blade_shape_aftp(A, 3, 256, 2);
            j.integration = 256;
            j.path = path;
            check(j, 1, seed++);
        }
    }
}

BOOST_AUTO_TEST_CASE(one_polarization_ci8_and_ragged_windows)
{
    uint32_t seed = 100;
    for (auto path : both_paths) {
        if (path == BLADE_CORRELATOR_FP16 && !tensor_cores_present())
            continue;
        job j;
        j.path = path;
        j.shape = blade_shape_aftp(5, 4, 96, 1); // P = 1
        j.integration = 96;
        check(j, 1, seed++);
        j.shape = blade_shape_aftp(20, 4, 96, 2);
        j.type = BLADE_CI8;
        check(j, 1, seed++);
        j.integration = 3; // windows shorter than a tile of samples
        check(j, 1, seed++);
        j.type = BLADE_CF32;
        j.shape = blade_shape_aftp(9, 2, 77, 2); // a prime number of samples
        j.integration = 77;
        check(j, 1, seed++);
        j.integration = 7;
        check(j, 1, seed++);
    }
}

BOOST_AUTO_TEST_CASE(channel_and_across_chunk_integration_and_lower_sideband)
{
    uint32_t seed = 200;
    for (auto path : both_paths) {
        if (path == BLADE_CORRELATOR_FP16 && !tensor_cores_present())
            continue;
        job j;
        j.path = path;
        j.shape = blade_shape_aftp(12, 8, 128, 2);
        j.integration = 3 * 128; // K = 3, two groups of distinct chunks
        j.channel_integration = 4;
        check(j, 6, seed++);
        j.lower_sideband = true;
        check(j, 6, seed++);
        j.type = BLADE_CI8;
        j.integration = 64;
        j.channel_integration = 2;
        check(j, 1, seed++);
    }
}

BOOST_AUTO_TEST_CASE(long_windows_split_into_time_slices)
{
    // Few channels and one window per chunk: the kernels split the window among
    // thread blocks and add the slices in a fixed order afterwards.
    uint32_t seed = 300;
    for (auto path : both_paths) {
        if (path == BLADE_CORRELATOR_FP16 && !tensor_cores_present())
            continue;
        job j;
        j.path = path;
        j.shape = blade_shape_aftp(8, 1, 65536, 2);
        j.integration = 65536;
        check(j, 1, seed++);
        j.shape = blade_shape_aftp(28, 2, 16384, 2);
        j.integration = 2 * 16384;
        check(j, 2, seed++);
    }
}

BOOST_AUTO_TEST_CASE(ata_node_shape_with_fewer_channels)
{
    // The ATA node (A = 28, T = 8192) on 16 of its 192 channels (the CPU reference in
    // double precision takes long at 192), and a large array.
    uint32_t seed = 400;
    for (auto path : both_paths) {
        if (path == BLADE_CORRELATOR_FP16 && !tensor_cores_present())
            continue;
        job j;
        j.path = path;
        j.shape = blade_shape_aftp(28, 16, 8192, 2);
        j.integration = 8192;
        check(j, 1, seed++);
        j.type = BLADE_CI8;
        check(j, 1, seed++);
        j.shape = blade_shape_aftp(128, 2, 1024, 2);
        j.integration = 1024;
        check(j, 1, seed++);
    }
}

// More than 64 inputs run a 128-input kernel when a window's samples are whole 16-byte
// copies and the input is 16-byte aligned: on a Hopper GPU the wgmma kernel
// (correlator_tensor_hopper.cu), elsewhere or with $BLADE_CORRELATOR_WGMMA=0 the
// mma.sync one (correlator_tensor_wide.cu); $BLADE_CORRELATOR_WGMMA=fp16 keeps ci8 on
// Hopper's fp16 operands rather than int8. Each of their variants (cf32 and ci8, P = 1
// and 2), with partly filled and diagonal tiles, time slices, channel and across-chunk
// integration, a lower sideband and the operand scale, and the fallbacks to the
// 64-input kernel (a window of 6 ci8 samples, an input 8 bytes off alignment) must all
// agree with the CPU.
static void check_wide_tiles(uint32_t seed)
{
    job j;
    j.path = BLADE_CORRELATOR_FP16;
    j.shape = blade_shape_aftp(70, 3, 128, 1); // P = 1: 70 inputs, two tiles a side
    j.integration = 64;
    check(j, 1, seed++);
    j.type = BLADE_CI8;
    j.shape = blade_shape_aftp(131, 2, 64, 1); // ci8 P = 1: copies of 8 samples
    j.integration = 64;
    check(j, 1, seed++);
    j.shape = blade_shape_aftp(40, 4, 96, 2); // ci8 P = 2: copies of 4 samples
    j.integration = 32;
    check(j, 1, seed++);
    j.integration = 6; // not whole copies: the 64-input kernel
    check(j, 1, seed++);
    j.type = BLADE_CF32;
    j.shape = blade_shape_aftp(48, 8, 128, 2);
    j.integration = 3 * 128; // across three chunks, two groups
    j.channel_integration = 4;
    j.lower_sideband = true;
    check(j, 6, seed++);
    j.lower_sideband = false;
    j.channel_integration = 1;
    j.shape = blade_shape_aftp(96, 1, 16384, 2); // one block a tile: time slices
    j.integration = 16384;
    check(j, 1, seed++);
    j.shape = blade_shape_aftp(40, 2, 256, 2);
    j.integration = 256;
    j.input_offset = 8; // cf32-aligned, not 16-byte aligned: the 64-input kernel
    check(j, 1, seed++);
    j.input_offset = 0;
    j.operand_scale = 1.0f / 64;
    check(j, 1, seed++, 1e6f);
    j.operand_scale = 1.0f;
    j.shape = blade_shape_aftp(64, 4, 4096, 2); // repeatable bits
    j.integration = 4096;
    const auto chunks = random_input(j, 1, seed++);
    const auto first = correlate_on(first_gpu(), j, chunks);
    const auto second = correlate_on(first_gpu(), j, chunks);
    BOOST_TEST(std::memcmp(first.data(), second.data(), first.size() * sizeof(cf)) == 0,
               describe(j));
}

BOOST_AUTO_TEST_CASE(large_arrays_on_the_wide_tensor_tile)
{
    if (!tensor_cores_present())
        return;
    check_wide_tiles(700); // the GPU's own choice: on Hopper wgmma, int8 for ci8
    setenv("BLADE_CORRELATOR_WGMMA", "fp16", 1);
    check_wide_tiles(710); // on Hopper wgmma with fp16 operands for ci8 too
    setenv("BLADE_CORRELATOR_WGMMA", "0", 1);
    check_wide_tiles(720); // mma.sync everywhere
    unsetenv("BLADE_CORRELATOR_WGMMA");
}

namespace {

// A tensor-core job per shape (one window: the whole chunk) under each setting of
// BLADE_CORRELATOR_WGMMA, each against the fp64 reference.
struct wide_shape {
    int64_t antennas, channels, times, pols, channel_integration;
    blade_dtype type;
};

void check_under_wgmma(const std::vector<wide_shape>& shapes,
                       std::initializer_list<const char*> settings,
                       uint32_t first_seed)
{
    for (const char* wgmma : settings) {
        setenv("BLADE_CORRELATOR_WGMMA", wgmma, 1);
        uint32_t seed = first_seed;
        for (const wide_shape& s : shapes) {
            job j;
            j.path = BLADE_CORRELATOR_FP16;
            j.type = s.type;
            j.shape = blade_shape_aftp(s.antennas, s.channels, s.times, s.pols);
            j.integration = s.times;
            j.channel_integration = s.channel_integration;
            BOOST_TEST_CONTEXT("BLADE_CORRELATOR_WGMMA=" << wgmma) check(j, 1, seed++);
        }
    }
    unsetenv("BLADE_CORRELATOR_WGMMA");
}

} // namespace

BOOST_AUTO_TEST_CASE(the_wide_tile_over_many_stages_and_channels)
{
    // The wgmma kernel keeps three fp16 stages in a ring and one stage's products in
    // flight while the next stage's are issued. A block walks its channels' stages in
    // turn, so summing all F channels (F = 3 .. 7) gives each block 3 .. 7 stages or
    // more, and the ring ends at each of its positions; a window of 300 samples ends
    // in a partly filled stage. Every 128-input kernel.
    if (!tensor_cores_present())
        return;
    check_under_wgmma({ { 72, 5, 160, 2, 5, BLADE_CF32 },
                        { 72, 6, 192, 2, 6, BLADE_CI8 },
                        { 72, 7, 224, 2, 7, BLADE_CF32 },
                        { 72, 3, 300, 2, 3, BLADE_CF32 },
                        { 72, 4, 416, 2, 4, BLADE_CI8 } },
                      { "1", "0" },
                      740);
}

BOOST_AUTO_TEST_CASE(one_tile_grids_over_long_rings)
{
    // 65 to 128 inputs make one 128-input tile, diagonal: the Hopper kernel copies one
    // side a stage and keeps twice as many raw stages in flight (8 ci8, 4 cf32). Many
    // stages a block (channels summed, a window ending in a partly filled stage, time
    // slices) wrap that ring at each of its positions; P = 1 and 2, ci8 and cf32, and
    // the wgmma kernels' operand choices.
    if (!tensor_cores_present())
        return;
    check_under_wgmma({ { 64, 3, 1000, 2, 3, BLADE_CI8 },
                        { 33, 2, 1312, 2, 1, BLADE_CI8 },
                        { 64, 5, 416, 2, 5, BLADE_CF32 },
                        { 48, 1, 4096, 2, 1, BLADE_CF32 },
                        { 100, 3, 608, 1, 3, BLADE_CI8 },
                        { 128, 2, 480, 1, 1, BLADE_CF32 } },
                      { "1", "fp16", "0" },
                      750);
}

BOOST_AUTO_TEST_CASE(ci8_sums_on_the_wide_tile_are_exact)
{
    // ci8 products are exact in every tensor-core kernel, and sums of up to 512 of them
    // (|sum| <= 512 x 2 x 128^2 = 2^24) are exact in float32 too: every kernel must
    // give the fp64 reference's bits. The extremes -128 and 127 are in each input, and
    // the last case is all -128 (the int8 kernel's complement plane then holds 127).
    if (!tensor_cores_present())
        return;
    for (const char* wgmma : { "1", "fp16", "0" }) {
        setenv("BLADE_CORRELATOR_WGMMA", wgmma, 1);
        uint32_t seed = 760;
        for (int variant = 0; variant < 4; variant++) {
            job j;
            j.path = BLADE_CORRELATOR_FP16;
            j.type = BLADE_CI8;
            j.shape =
                variant == 1 ? blade_shape_aftp(131, 2, 256, 1) : blade_shape_aftp(72, 3, 512, 2);
            j.integration = j.shape.dims[2];
            j.lower_sideband = variant == 2;
            auto chunks = random_input(j, 1, seed++);
            for (size_t k = 0; k < chunks.size(); k += 97)
                chunks[k] = k % 2 == 0 ? 0x80 : 0x7f; // -128, 127
            if (variant == 3)
                std::fill(chunks.begin(), chunks.end(), uint8_t{ 0x80 });
            job reference = j;
            reference.path = BLADE_CORRELATOR_FP64;
            const auto cpu = correlate_on(blade_device_cpu(), reference, chunks);
            const auto gpu = correlate_on(first_gpu(), j, chunks);
            BOOST_TEST(std::memcmp(cpu.data(), gpu.data(), cpu.size() * sizeof(cf)) == 0,
                       describe(j) << " with BLADE_CORRELATOR_WGMMA=" << wgmma);
        }
    }
    unsetenv("BLADE_CORRELATOR_WGMMA");
}

BOOST_AUTO_TEST_CASE(a_ci8_window_longer_than_int32_sums_hold)
{
    // 65600 samples of -128 - 128j: each autocorrelation is 65600 x 2 x 128^2 > 2^31,
    // which the int8 kernel's int32 sums would wrap; its windows are cut into slices of
    // at most 32768 samples (then added in float32).
    if (!tensor_cores_present())
        return;
    job j;
    j.path = BLADE_CORRELATOR_FP16;
    j.type = BLADE_CI8;
    j.shape = blade_shape_aftp(40, 1, 65600, 2);
    j.integration = 65600;
    const std::vector<uint8_t> chunks(blade_tensor_bytes(BLADE_CI8, &j.shape), 0x80);
    job reference = j;
    reference.path = BLADE_CORRELATOR_FP64;
    const auto cpu = correlate_on(blade_device_cpu(), reference, chunks);
    const auto gpu = correlate_on(first_gpu(), j, chunks);
    compare(j, cpu, gpu, 1, samples_of(j), exact_operand_bound, describe(j));
    BOOST_TEST(cpu[0].real() == 65600.0f * 2 * 128 * 128);
}

BOOST_AUTO_TEST_CASE(the_operand_scale_keeps_large_voltages_in_fp16_range)
{
    if (!tensor_cores_present())
        return;
    // Components up to 1e6 (a channelizer's output of int8 voltages at N = 8192)
    // overflow fp16 (65504); scaled by 2^-6 they fit, and the sums come back scaled
    // by 2^12.
    job j;
    j.path = BLADE_CORRELATOR_FP16;
    j.shape = blade_shape_aftp(6, 2, 256, 2);
    j.integration = 256;
    j.operand_scale = 1.0f / 64;
    check(j, 1, 500, 1e6f);
    j.operand_scale = 1.0f;
    const auto chunks = random_input(j, 1, 501, 1e6f);
    const auto gpu = correlate_on(first_gpu(), j, chunks);
    BOOST_TEST(std::any_of(gpu.begin(), gpu.end(), [](cf v) { return !std::isfinite(v.real()); }),
               "without a scale, fp16 overflows as documented");
}

BOOST_AUTO_TEST_CASE(repeated_runs_give_identical_bits)
{
    for (auto path : both_paths) {
        if (path == BLADE_CORRELATOR_FP16 && !tensor_cores_present())
            continue;
        job j;
        j.path = path;
        j.shape = blade_shape_aftp(28, 8, 8192, 2);
        j.integration = 2 * 8192;
        j.channel_integration = 2;
        const auto chunks = random_input(j, 2, 600);
        const auto first = correlate_on(first_gpu(), j, chunks);
        const auto second = correlate_on(first_gpu(), j, chunks);
        BOOST_TEST(std::memcmp(first.data(), second.data(), first.size() * sizeof(cf)) == 0,
                   describe(j));
    }
}

BOOST_AUTO_TEST_CASE(path_resolution_on_a_gpu)
{
    const blade_shape shape = blade_shape_aftp(4, 2, 16, 2);
    blade_correlator_config config = blade_correlator_config_default();
    blade_correlator* correlator;
    ok(blade_correlator_create(&correlator, &config, &shape, first_gpu()), "create");
    BOOST_TEST(blade_correlator_path_used(correlator) == BLADE_CORRELATOR_FP32);
    blade_correlator_destroy(correlator);
    config.path = BLADE_CORRELATOR_FP16;
    const blade_status status = blade_correlator_create(&correlator, &config, &shape, first_gpu());
    if (tensor_cores_present()) {
        ok(status, "create fp16");
        BOOST_TEST(blade_correlator_path_used(correlator) == BLADE_CORRELATOR_FP16);
        blade_correlator_destroy(correlator);
    } else {
        BOOST_TEST(status == BLADE_ERROR_UNSUPPORTED);
        BOOST_TEST(std::string(blade_last_error()).find("compute capability 8.0") !=
                   std::string::npos);
    }
}

bool init_unit_test() { return true; }

int main(int argc, char* argv[]) { return blade_test::gpu_suite_main(argc, argv, &init_unit_test); }
