// SPDX-License-Identifier: MIT
// Device memory for the GPU parity suites: upload host data, run, download. Each
// buffer is filled with a poison byte first, so a test sees any element a kernel
// failed to write.
#ifndef BLADE_TEST_DEVICE_MEMORY_H
#define BLADE_TEST_DEVICE_MEMORY_H

#include "test_support.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace blade_test {

inline blade_device first_gpu() { return blade_device{ BLADE_DEVICE_CUDA, 0 }; }

// A block of memory on `device` (for the CPU: host memory) of `bytes`.
class device_memory
{
public:
    device_memory(blade_device device, size_t bytes, uint8_t poison = 0xA5)
        : d_device(device), d_bytes(bytes)
    {
        ok(blade_device_alloc(device, bytes ? bytes : 1, &d_data), "device_memory alloc");
        const std::vector<uint8_t> fill(bytes, poison);
        upload(fill.data(), bytes);
    }
    device_memory(blade_device device, const std::vector<uint8_t>& contents)
        : device_memory(device, contents.size())
    {
        upload(contents.data(), contents.size());
    }
    ~device_memory() { blade_device_free(d_device, d_data); }
    device_memory(const device_memory&) = delete;
    device_memory& operator=(const device_memory&) = delete;

    void* data() const { return d_data; }
    size_t bytes() const { return d_bytes; }

    void upload(const void* host, size_t bytes, size_t offset = 0)
    {
        ok(blade_memcpy(
               d_device, static_cast<char*>(d_data) + offset, host, bytes, kind(true), nullptr),
           "upload");
        ok(blade_stream_synchronize(d_device, nullptr), "upload sync");
    }
    std::vector<uint8_t> download() const
    {
        std::vector<uint8_t> host(d_bytes);
        ok(blade_memcpy(d_device, host.data(), d_data, d_bytes, kind(false), nullptr), "download");
        ok(blade_stream_synchronize(d_device, nullptr), "download sync");
        return host;
    }

private:
    blade_copy_kind kind(bool up) const
    {
        if (d_device.kind != BLADE_DEVICE_CUDA)
            return BLADE_COPY_HOST_TO_HOST;
        return up ? BLADE_COPY_HOST_TO_DEVICE : BLADE_COPY_DEVICE_TO_HOST;
    }
    blade_device d_device;
    size_t d_bytes;
    void* d_data = nullptr;
};

// Bytes of `count` random cf32 samples with components uniform in [-scale, scale).
inline std::vector<uint8_t> random_cf32(int64_t count, uint32_t seed, float scale = 100.0f)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-scale, scale);
    std::vector<uint8_t> bytes(static_cast<size_t>(count) * 8);
    auto* f = reinterpret_cast<float*>(bytes.data());
    for (int64_t i = 0; i < 2 * count; i++)
        f[i] = uniform(rng);
    return bytes;
}

// `count` complex values of `from` converted to `to` by the CPU cast module (round to
// nearest even), e.g. cf32 bytes to the cf16 a half-precision chain carries.
inline std::vector<uint8_t>
cast_on_cpu(const std::vector<uint8_t>& bytes, blade_dtype from, blade_dtype to, int64_t count)
{
    const blade_shape shape = blade_shape_aftp(1, 1, count, 1);
    blade_cast* cast = nullptr;
    const blade_cast_config config = { from, to };
    ok(blade_cast_create(&cast, &config, &shape, blade_device_cpu()), "cast create");
    std::vector<uint8_t> out(static_cast<size_t>(count) * blade_dtype_size(to));
    blade_tensor in =
        blade_tensor_make(from, &shape, blade_device_cpu(), const_cast<uint8_t*>(bytes.data()));
    blade_tensor converted = blade_tensor_make(to, &shape, blade_device_cpu(), out.data());
    ok(blade_cast_process(cast, &in, &converted, nullptr), "cast");
    blade_cast_destroy(cast);
    return out;
}

// Bytes of `count` random cf16 samples: random_cf32() rounded to half.
inline std::vector<uint8_t> random_cf16(int64_t count, uint32_t seed, float scale = 100.0f)
{
    return cast_on_cpu(random_cf32(count, seed, scale), BLADE_CF32, BLADE_CF16, count);
}

// main() of a GPU suite: exit 77 (ctest: skipped) where no CUDA GPU is present.
inline int gpu_suite_main(int argc, char* argv[], bool (*init)())
{
    if (blade_gpu_count() == 0) {
        std::printf("no CUDA GPU: skipped\n");
        return 77;
    }
    return boost::unit_test::unit_test_main(init, argc, argv);
}

} // namespace blade_test

#endif
