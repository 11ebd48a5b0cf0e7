// SPDX-License-Identifier: MIT
// Device names, discovery, memory and copy accounting.
#define BOOST_TEST_MODULE device
#include <boost/test/unit_test.hpp>

#include <blade/blade.h>

#include <cstring>
#include <string>
#include <vector>

BOOST_AUTO_TEST_CASE(parse_device_names)
{
    blade_device device;
    BOOST_TEST(blade_device_parse("cpu", &device) == BLADE_OK);
    BOOST_TEST(device.kind == BLADE_DEVICE_CPU);
    BOOST_TEST(blade_device_parse("emulated", &device) == BLADE_OK);
    BOOST_TEST(device.kind == BLADE_DEVICE_EMULATED);
    BOOST_TEST(blade_device_is_gpu_like(device));

    BOOST_TEST(blade_device_parse("auto", &device) == BLADE_OK);
    BOOST_TEST(device.kind == (blade_gpu_count() > 0 ? BLADE_DEVICE_CUDA : BLADE_DEVICE_CPU));

    BOOST_TEST(blade_device_parse("tpu", &device) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("'tpu'") != std::string::npos);
    BOOST_TEST(blade_device_parse("cuda:x", &device) == BLADE_ERROR_INVALID_ARGUMENT);

    char text[32];
    blade_device cuda3 = { BLADE_DEVICE_CUDA, 3 };
    BOOST_TEST(std::string(blade_device_format(cuda3, text, sizeof text)) == "cuda:3");
}

BOOST_AUTO_TEST_CASE(absent_gpu_is_a_clear_error)
{
    const int count = blade_gpu_count();
    blade_device device;
    const std::string absent = "cuda:" + std::to_string(count);
    BOOST_TEST(blade_device_parse(absent.c_str(), &device) == BLADE_ERROR_NO_DEVICE);
    const std::string message = blade_last_error();
    BOOST_TEST(message.find(absent) != std::string::npos);
    BOOST_TEST(message.find("'cpu'") != std::string::npos); // says what to use instead
    blade_gpu_info info;
    BOOST_TEST(blade_gpu_info_get(count, &info) == BLADE_ERROR_NO_DEVICE);
    if (count == 0) {
        BOOST_TEST(blade_device_parse("cuda", &device) == BLADE_ERROR_NO_DEVICE);
    }
}

BOOST_AUTO_TEST_CASE(emulated_memory_counts_copies)
{
    blade_device device;
    BOOST_REQUIRE(blade_device_parse("emulated", &device) == BLADE_OK);
    blade_copy_stats_reset();
    void *host = nullptr, *dev = nullptr;
    BOOST_REQUIRE(blade_host_alloc(device, 1000, &host) == BLADE_OK);
    BOOST_REQUIRE(blade_device_alloc(device, 1000, &dev) == BLADE_OK);
    BOOST_TEST(reinterpret_cast<uintptr_t>(dev) % BLADE_ITEM_ALIGNMENT == 0u);
    std::vector<unsigned char> pattern(1000);
    for (size_t i = 0; i < pattern.size(); i++)
        pattern[i] = static_cast<unsigned char>(i * 7 + 3);
    std::memcpy(host, pattern.data(), pattern.size());
    BOOST_TEST(blade_memcpy(device, dev, host, 1000, BLADE_COPY_HOST_TO_DEVICE, nullptr) ==
               BLADE_OK);
    std::memset(host, 0, 1000);
    BOOST_TEST(blade_memcpy(device, host, dev, 1000, BLADE_COPY_DEVICE_TO_HOST, nullptr) ==
               BLADE_OK);
    BOOST_TEST(std::memcmp(host, pattern.data(), 1000) == 0);
    BOOST_TEST(blade_memset_zero(device, dev, 1000, nullptr) == BLADE_OK);
    BOOST_TEST(static_cast<unsigned char*>(dev)[999] == 0);

    blade_copy_stats stats;
    blade_copy_stats_get(&stats);
    BOOST_TEST(stats.count[BLADE_COPY_HOST_TO_DEVICE] == 1u);
    BOOST_TEST(stats.count[BLADE_COPY_DEVICE_TO_HOST] == 1u);
    BOOST_TEST(stats.bytes[BLADE_COPY_HOST_TO_DEVICE] == 1000u);
    BOOST_TEST(stats.count[BLADE_COPY_DEVICE_TO_DEVICE] == 0u);
    blade_copy_stats_reset();
    blade_copy_stats_get(&stats);
    BOOST_TEST(stats.count[BLADE_COPY_HOST_TO_DEVICE] == 0u);
    blade_device_free(device, dev);
    blade_host_free(device, host);
}

BOOST_AUTO_TEST_CASE(cpu_streams_are_null_and_synchronous)
{
    blade_stream stream = reinterpret_cast<blade_stream>(0x1);
    BOOST_TEST(blade_stream_create(blade_device_cpu(), &stream) == BLADE_OK);
    BOOST_TEST(stream == nullptr);
    BOOST_TEST(blade_stream_synchronize(blade_device_cpu(), stream) == BLADE_OK);
    blade_stream_destroy(blade_device_cpu(), stream);
}

BOOST_AUTO_TEST_CASE(gpu_listing_matches_count)
{
    const int count = blade_gpu_count();
    BOOST_TEST(count >= 0);
    if (!blade_has_cuda_backend())
        BOOST_TEST(count == 0);
    for (int i = 0; i < count; i++) {
        blade_gpu_info info;
        BOOST_TEST(blade_gpu_info_get(i, &info) == BLADE_OK);
        BOOST_TEST(std::strlen(info.name) > 0u);
        BOOST_TEST(info.total_memory > 0u);
        BOOST_TEST(info.free_memory <= info.total_memory);
    }
}

// The duplex probe: bad arguments name themselves; on a host device a round is the
// two copies, so it takes some time; on a GPU the round waits for both directions.
BOOST_AUTO_TEST_CASE(duplex_transfer_probe)
{
    double seconds = -1;
    const blade_device cpu = blade_device_cpu();
    BOOST_TEST(blade_measure_duplex_transfer(cpu, 0, 0, 3, &seconds) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("0 bytes up, 0 down") != std::string::npos);
    BOOST_TEST(seconds == 0.0);
    BOOST_TEST(blade_measure_duplex_transfer(cpu, 1024, 1024, 0, &seconds) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    const blade_device missing = { BLADE_DEVICE_CUDA, 63 };
    BOOST_TEST(blade_measure_duplex_transfer(missing, 1024, 0, 1, &seconds) ==
               BLADE_ERROR_NO_DEVICE);
    BOOST_TEST(std::string(blade_last_error()).find("GPU 63") != std::string::npos);

    BOOST_TEST(blade_measure_duplex_transfer(cpu, 4 << 20, 1 << 20, 3, &seconds) == BLADE_OK);
    BOOST_TEST(seconds > 0.0);
    BOOST_TEST(blade_measure_duplex_transfer(cpu, 0, 1 << 20, 2, &seconds) == BLADE_OK);
    BOOST_TEST(seconds > 0.0);
    if (blade_gpu_count() > 0) {
        const blade_device gpu = { BLADE_DEVICE_CUDA, 0 };
        double up_only = 0, both = 0;
        BOOST_TEST(blade_measure_duplex_transfer(gpu, 64 << 20, 0, 5, &up_only) == BLADE_OK);
        BOOST_TEST(blade_measure_duplex_transfer(gpu, 64 << 20, 16 << 20, 5, &both) == BLADE_OK);
        BOOST_TEST(up_only > 0.0);
        // Adding a download never makes the round faster than the upload alone
        // (10 % slack for the timing's own noise).
        BOOST_TEST(both > 0.9 * up_only);
    }
}
