// SPDX-License-Identifier: MIT
// Dedoppler on CUDA against the CPU reference: path-sum planes, statistics, flags and
// hits for the Taylor tree (shared-memory tiles for T' <= 64, global scratch tiles
// beyond) and brute force, at edge shapes and at the benchmark's, and bit-for-bit
// repeatable runs. Exits 77 without a GPU.
//
// Tolerance: none. Both backends add the same float32 values in the same order
// (the tree), or the same doubles in the same order rounded once (brute force, the
// zero-drift sums, S1 and S2, computed without FMA on the GPU); the MAD statistics are
// order statistics (radix selection on the GPU, quickselect on the host) with the same
// arithmetic around them, the other statistics run on the host for both, and the hit
// selection applies one rule (dedoppler_hit_rule.h) on both: every value must be
// identical.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "device_memory.h"

#include <cmath>
#include <random>

using blade_test::device_memory;
using blade_test::first_gpu;
using blade_test::ok;

namespace {

struct result {
    std::vector<float> plane;
    std::vector<blade_dedoppler_hit> hits;
    int64_t dropped = 0;
    std::vector<float> centres, spreads;
    std::vector<uint8_t> flags;
};

// Noise: normal(100, 1), gamma (kind 1: powers) or small integers −3 … 3 (kind 2:
// negative sums and many ties for the order statistics).
std::vector<float> random_spectrogram(const blade_shape& shape, uint32_t seed, int kind = 0)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(100.0f, 1.0f);
    std::gamma_distribution<float> powers(8.0f, 1.0f);
    std::uniform_int_distribution<int> integers(-3, 3);
    std::vector<float> values(static_cast<size_t>(blade_shape_count(&shape)));
    for (auto& v : values)
        v = kind == 1 ? powers(rng) : kind == 2 ? static_cast<float>(integers(rng)) : normal(rng);
    // a few tones drifting at various rates in every beam
    const int64_t channels = shape.dims[shape.rank - 1], spectra = shape.dims[shape.rank - 2];
    const int64_t beams = shape.rank == 3 ? shape.dims[0] : 1;
    for (int64_t b = 0; b < beams; b++)
        for (int i = 0; i < 3; i++) {
            const int64_t start = (i + 1) * channels / 4 + 5 * b;
            const double rate = (i - 1) * 0.45;
            for (int64_t t = 0; t < spectra; t++) {
                const auto f = static_cast<int64_t>(std::llround(start + rate * t));
                if (f >= 0 && f < channels)
                    values[static_cast<size_t>((b * spectra + t) * channels + f)] += 5.0f;
            }
        }
    return values;
}

result run_on(blade_device device,
              const blade_dedoppler_config& config,
              const blade_shape& shape,
              const std::vector<float>& data,
              bool with_plane)
{
    blade_dedoppler* search;
    ok(blade_dedoppler_create(&search, &config, &shape, device), "create");
    blade_stream stream = nullptr;
    ok(blade_stream_create(device, &stream), "stream");
    std::vector<uint8_t> bytes(data.size() * 4);
    std::memcpy(bytes.data(), data.data(), bytes.size());
    device_memory input(device, bytes);
    blade_tensor in = blade_tensor_make(BLADE_F32, &shape, device, input.data());
    result r;
    if (with_plane) {
        const blade_shape plane_shape = blade_dedoppler_plane_shape(search);
        device_memory plane(device, blade_tensor_bytes(BLADE_F32, &plane_shape));
        blade_tensor out = blade_tensor_make(BLADE_F32, &plane_shape, device, plane.data());
        ok(blade_dedoppler_integrate(search, &in, &out, stream), "integrate");
        ok(blade_stream_synchronize(device, stream), "sync");
        const auto downloaded = plane.download();
        r.plane.resize(downloaded.size() / 4);
        std::memcpy(r.plane.data(), downloaded.data(), downloaded.size());
    }
    r.hits.resize(static_cast<size_t>(config.hit_capacity));
    int64_t count = 0;
    ok(blade_dedoppler_process(search, &in, r.hits.data(), &count, &r.dropped, stream), "process");
    r.hits.resize(static_cast<size_t>(count));
    const auto g = blade_dedoppler_get_geometry(search);
    r.centres.resize(static_cast<size_t>(g.beams * g.coarse_channels));
    r.spreads.resize(r.centres.size());
    r.flags.resize(static_cast<size_t>(g.beams * g.channels));
    ok(blade_dedoppler_last_statistics(search, r.centres.data(), r.spreads.data(), r.flags.data()),
       "statistics");
    blade_stream_destroy(device, stream);
    blade_dedoppler_destroy(search);
    return r;
}

bool same_floats(const std::vector<float>& a, const std::vector<float>& b, size_t* first)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); i++) {
        const bool equal =
            (std::isnan(a[i]) && std::isnan(b[i])) || std::memcmp(&a[i], &b[i], 4) == 0;
        if (!equal) {
            *first = i;
            return false;
        }
    }
    return true;
}

void check_parity(const blade_dedoppler_config& config,
                  const blade_shape& shape,
                  uint32_t seed,
                  bool with_plane = true,
                  int kind = 0)
{
    char text[96];
    blade_shape_format(&shape, text, sizeof text);
    const auto data = random_spectrogram(shape, seed, kind);
    const auto cpu = run_on(blade_device_cpu(), config, shape, data, with_plane);
    const auto gpu = run_on(first_gpu(), config, shape, data, with_plane);
    const std::string what = std::string(text) + " " + blade_dedoppler_method_name(config.method);
    size_t first = 0;
    if (with_plane)
        BOOST_TEST(same_floats(cpu.plane, gpu.plane, &first),
                   what << ": path sums differ from index " << first << " (cpu " << cpu.plane[first]
                        << ", gpu " << gpu.plane[first] << ")");
    BOOST_TEST(same_floats(cpu.centres, gpu.centres, &first), what << ": centres differ");
    BOOST_TEST(same_floats(cpu.spreads, gpu.spreads, &first), what << ": spreads differ");
    BOOST_TEST((cpu.flags == gpu.flags), what << ": flags differ");
    BOOST_TEST(cpu.dropped == gpu.dropped);
    BOOST_TEST_REQUIRE(cpu.hits.size() == gpu.hits.size(),
                       what << ": " << cpu.hits.size() << " vs " << gpu.hits.size());
    BOOST_TEST(
        std::memcmp(cpu.hits.data(), gpu.hits.data(), cpu.hits.size() * sizeof cpu.hits[0]) == 0,
        what << ": hits differ");
    BOOST_TEST_MESSAGE(what << ": " << cpu.hits.size() << " hits alike");
}

blade_dedoppler_config config_of(double max_drift, int64_t nfpc, blade_dedoppler_method method)
{
    blade_dedoppler_config c = blade_dedoppler_config_default();
    c.foff_hz = 1.0;
    c.tsamp_s = 1.0;
    c.nfpc = nfpc;
    c.max_drift_hz_per_s = max_drift;
    c.method = method;
    c.snr_threshold = 8;
    return c;
}

} // namespace

BOOST_AUTO_TEST_CASE(tree_and_brute_force_on_edge_shapes)
{
    uint32_t seed = 1;
    for (auto method : { BLADE_DEDOPPLER_TAYLOR, BLADE_DEDOPPLER_BRUTE_FORCE }) {
        check_parity(config_of(0.0, 97, method), blade_shape_tf(1, 97), seed++); // T = 1
        check_parity(config_of(2.5, 97, method),
                     blade_shape_btf(3, 2, 97),
                     seed++); // T = 2, 3 beams, odd F
        check_parity(config_of(2.5, 111, method), blade_shape_tf(3, 333), seed++); // padded to 4
        check_parity(config_of(1.2, 300, method),
                     blade_shape_btf(2, 12, 600),
                     seed++); // padded to 16
        check_parity(config_of(3.0, 1000, method),
                     blade_shape_tf(16, 3000),
                     seed++); // 4 drift blocks
        check_parity(config_of(0.7, 512, method),
                     blade_shape_tf(32, 2048),
                     seed++); // 32 rows, shared
        check_parity(config_of(0.4, 512, method),
                     blade_shape_tf(64, 1024),
                     seed++); // 64 rows, shared
    }
    // Scratch tiles in global memory
    check_parity(config_of(0.3, 1024, BLADE_DEDOPPLER_TAYLOR), blade_shape_tf(128, 4096), seed++);
    check_parity(
        config_of(0.1, 2048, BLADE_DEDOPPLER_TAYLOR), blade_shape_btf(2, 256, 2048), seed++);
    check_parity(config_of(0.05, 2048, BLADE_DEDOPPLER_TAYLOR),
                 blade_shape_tf(200, 2048),
                 seed++); // padded 256
}

BOOST_AUTO_TEST_CASE(drift_range_bounds_and_signs)
{
    auto c = config_of(8.0, 1024, BLADE_DEDOPPLER_TAYLOR);
    c.min_drift_hz_per_s = 0.9; // no zero drift; |k| 4 ... 33 over blocks 0 ... 2
    c.foff_hz = -2.5;
    c.tsamp_s = 0.7;
    check_parity(c, blade_shape_btf(2, 16, 4096), 31);
    c.method = BLADE_DEDOPPLER_BRUTE_FORCE;
    check_parity(c, blade_shape_btf(2, 16, 4096), 32);
}

BOOST_AUTO_TEST_CASE(normalisations_flagging_and_blanking)
{
    auto c = config_of(0.5, 512, BLADE_DEDOPPLER_TAYLOR);
    c.normalization = BLADE_DEDOPPLER_NORM_TURBO_SETI;
    check_parity(c, blade_shape_btf(2, 16, 2048), 41);
    c.sk_shape = 8;
    c.sk_sigmas = 4;
    c.blank_dc = true;
    check_parity(c, blade_shape_btf(2, 64, 2048), 42, true, 1);
    c.hit_capacity = 2;
    c.snr_threshold = 2;
    check_parity(c, blade_shape_btf(2, 64, 2048), 43, false, 1);
}

BOOST_AUTO_TEST_CASE(benchmark_shapes)
{
    // BL high resolution, two coarse channels of 2^20 at ±4 Hz/s (hits only: the
    // plane would be 783 drifts × 2^21 channels), and an ATA-beam shape with its plane.
    auto c = config_of(4.0, 1 << 20, BLADE_DEDOPPLER_TAYLOR);
    c.foff_hz = 2.7939677238464355;
    c.tsamp_s = 18.253611008;
    check_parity(c, blade_shape_tf(16, 2 << 20), 51, false);
    // ATA Mode B beams: 0.5 MHz coarse channels split 2^18 ways (1.91 Hz, 0.52 s)
    auto ata = config_of(4.0, 1 << 18, BLADE_DEDOPPLER_TAYLOR);
    ata.foff_hz = 0.5e6 / (1 << 18);
    ata.tsamp_s = (1 << 18) / 0.5e6;
    check_parity(ata, blade_shape_btf(3, 16, 2 << 18), 52, false);
}

BOOST_AUTO_TEST_CASE(statistics_and_selection_on_the_device)
{
    // Ties and negative sums for the radix selection; odd and even coarse channels.
    auto c = config_of(0.5, 1001, BLADE_DEDOPPLER_TAYLOR);
    check_parity(c, blade_shape_btf(2, 8, 3003), 71, true, 2);
    c.nfpc = 1000;
    check_parity(c, blade_shape_btf(3, 8, 3000), 72, true, 2);
    // A flood of hits (SNR 2) over more than 1024 spans of the selection's scan
    // (2 × 2^20 channels / 1024), with and without the capacity cutting it.
    auto flood = config_of(0.3, 1 << 16, BLADE_DEDOPPLER_TAYLOR);
    flood.snr_threshold = 2;
    flood.hit_capacity = 1 << 20;
    check_parity(flood, blade_shape_btf(2, 4, 1 << 20), 73, false);
    flood.hit_capacity = 5000;
    check_parity(flood, blade_shape_btf(2, 4, 1 << 20), 74, false);
    // turbo_seti's normalisation (host statistics) with the device's selection
    flood.normalization = BLADE_DEDOPPLER_NORM_TURBO_SETI;
    check_parity(flood, blade_shape_btf(2, 4, 1 << 20), 75, false, 1);
}

BOOST_AUTO_TEST_CASE(repeated_runs_give_identical_bits)
{
    const blade_shape shape = blade_shape_btf(2, 16, 1 << 18);
    const auto config = config_of(1.0, 1 << 16, BLADE_DEDOPPLER_TAYLOR);
    const auto data = random_spectrogram(shape, 61);
    const auto a = run_on(first_gpu(), config, shape, data, true);
    const auto b = run_on(first_gpu(), config, shape, data, true);
    BOOST_TEST(std::memcmp(a.plane.data(), b.plane.data(), a.plane.size() * 4) == 0);
    BOOST_TEST_REQUIRE(a.hits.size() == b.hits.size());
    BOOST_TEST(std::memcmp(a.hits.data(), b.hits.data(), a.hits.size() * sizeof a.hits[0]) == 0);
}

bool init_unit_test() { return true; }

int main(int argc, char* argv[]) { return blade_test::gpu_suite_main(argc, argv, &init_unit_test); }
