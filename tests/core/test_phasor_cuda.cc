// SPDX-License-Identifier: MIT
// Phasors for a CUDA device: the host computes the seeds (an exact phase every
// PHASOR_ANCHOR = 1024 channels, one rotation per beam and antenna) and uploads them,
// a kernel expands them with the host's arithmetic. The device copy must hold exactly
// the CPU plan's bits, after one counted upload per step, also when steps follow each
// other on one stream (the staging memory is reused only after the previous upload),
// for channel counts below, at and across anchors (16; 1024; 2560, whose last anchor
// covers 512 channels; 65536 in 64 coarse channels ×1024). Exits 77 (skipped)
// without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

using blade_test::ok;

namespace {

// `pols` 2 with aligned rows takes the kernel that writes through shared memory; one
// polarization, or rows 8 bytes off a 16-byte boundary, the kernel writing per thread.
void check_channels(int64_t channels, int64_t rate, int pols = 2, bool misaligned = false)
{
    const blade_device gpu{ BLADE_DEVICE_CUDA, 0 };
    const int A = 16, B = 8;
    const double lon = 21.443 * BLADE_PI / 180, lat = -30.713 * BLADE_PI / 180, alt = 1038;
    double reference[3];
    ok(blade_geodetic_to_ecef(lon, lat, alt, reference), "reference");
    std::vector<double> positions, ra, dec;
    for (int a = 0; a < A; a++)
        for (int i = 0; i < 3; i++)
            positions.push_back(reference[i] + std::sin(3.1 * a + i) * 400.0);
    for (int b = 0; b < B; b++) {
        ra.push_back(4.65 + 0.001 * b);
        dec.push_back(-0.5 - 0.0007 * b);
    }
    blade_phasor_config config{};
    config.longitude = lon;
    config.latitude = lat;
    config.altitude = alt;
    config.antennas = A;
    config.antenna_positions = positions.data();
    config.boresight_ra = 4.65;
    config.boresight_dec = -0.5;
    config.beams = B;
    config.beam_ra = ra.data();
    config.beam_dec = dec.data();
    // Channels 8 .. 8 + channels − 1 of 64 recorded around 1.42 GHz (F-engine
    // channel 100 on), channelized by `rate`.
    blade_observation recording{};
    recording.freq_first = 1.42e9 - 31.5 * 0.5e6;
    recording.chan_bw = 0.5e6;
    recording.nchan = 128;
    recording.nfpc = 1;
    recording.coarse_first = 100;
    blade_observation chunks;
    ok(blade_observation_select_channels(&recording, 8, channels, &chunks), "channels");
    config.observation = rate > 1 ? blade_observation_channelized(&chunks, rate) : chunks;
    config.polarizations = pols;

    blade_phasor *cpu = nullptr, *cuda = nullptr;
    ok(blade_phasor_create(&cpu, &config, blade_device_cpu()), "cpu plan");
    ok(blade_phasor_create(&cuda, &config, gpu), "cuda plan");
    const blade_shape shape = blade_phasor_output_shape(cuda);
    const size_t bytes = blade_tensor_bytes(BLADE_CF32, &shape);
    const size_t offset = misaligned ? 8 : 0;
    void* device_memory[3] = { nullptr, nullptr, nullptr };
    for (auto& memory : device_memory)
        ok(blade_device_alloc(gpu, bytes + offset, &memory), "device alloc");
    blade_stream stream = nullptr;
    ok(blade_stream_create(gpu, &stream), "stream");

    blade_copy_stats before, after;
    blade_copy_stats_get(&before);
    const double t0 = 1.7e9;
    for (int step = 0; step < 3; step++) { // queued back to back on one stream
        blade_tensor out = blade_tensor_make(
            BLADE_CF32, &shape, gpu, static_cast<char*>(device_memory[step]) + offset);
        ok(blade_phasor_compute(cuda, t0 + 600.0 * step, 0.1, nullptr, &out, stream), "cuda step");
    }
    ok(blade_stream_synchronize(gpu, stream), "sync");
    blade_copy_stats_get(&after);
    BOOST_TEST(after.count[BLADE_COPY_HOST_TO_DEVICE] - before.count[BLADE_COPY_HOST_TO_DEVICE] ==
               3u);

    std::vector<uint8_t> expected(bytes), got(bytes);
    for (int step = 0; step < 3; step++) {
        blade_tensor host =
            blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), expected.data());
        ok(blade_phasor_compute(cpu, t0 + 600.0 * step, 0.1, nullptr, &host, nullptr), "cpu step");
        ok(blade_memcpy(gpu,
                        got.data(),
                        static_cast<char*>(device_memory[step]) + offset,
                        bytes,
                        BLADE_COPY_DEVICE_TO_HOST,
                        stream),
           "download");
        ok(blade_stream_synchronize(gpu, stream), "sync");
        BOOST_TEST(std::memcmp(expected.data(), got.data(), bytes) == 0,
                   channels << " x " << rate << " channels, " << pols << " pols, offset " << offset
                            << ", step " << step);
    }
    blade_phasor_destroy(cpu);
    blade_phasor_destroy(cuda); // after the stream's last synchronize
    for (auto& memory : device_memory)
        blade_device_free(gpu, memory);
    blade_stream_destroy(gpu, stream);
}

} // namespace

BOOST_AUTO_TEST_CASE(uploaded_phasors_equal_the_cpu_plan_bit_for_bit)
{
    check_channels(16, 1);  // fewer channels than an anchor
    check_channels(16, 64); // one anchor exactly
    check_channels(40, 64); // 2.5 anchors
    check_channels(64, 1024);
    // runs of 1024 and 456 channels in one warp, coarse channels changing mid-run
    check_channels(40, 37);
    check_channels(40, 37, 1);
    check_channels(40, 37, 2, true);
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
