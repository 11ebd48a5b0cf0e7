// SPDX-License-Identifier: MIT
// Helpers shared by the core test suites.
#ifndef BLADE_TEST_SUPPORT_H
#define BLADE_TEST_SUPPORT_H

#include <blade/blade.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h> // mkdtemp

namespace blade_test {

// Throw with the core's message when a call fails, so a test shows why.
inline void ok(blade_status status, const char* what)
{
    if (status != BLADE_OK)
        throw std::runtime_error(std::string(what) + ": " + blade_last_error());
}

// Bytes of random content for `count` elements of `type`: full-range integers;
// floats drawn from a wide, signed range with rounding ties, values beyond the
// int8/half ranges, subnormal halves, zeros, NaN and infinities mixed in.
inline std::vector<uint8_t> random_elements(blade_dtype type, int64_t count, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<uint8_t> bytes(blade_bytes(type, count));
    const int64_t values = blade_dtype_is_complex(type) ? 2 * count : count;
    auto special = [&](int64_t i) -> double {
        static const double table[] = { 0.5,     1.5,   2.5,  -0.5, -2.5, 127.5,
                                        -128.5,  300.0, -1e5, 7.5,  -8.5, 65504.0,
                                        70000.0, 6e-8,  1e-6, -0.0, 0.0,  3.0e38 };
        return table[i % (sizeof table / sizeof table[0])];
    };
    std::uniform_real_distribution<double> uniform(-200.0, 200.0);
    switch (type) {
    case BLADE_CI4:
    case BLADE_CI8:
    case BLADE_CI16:
        for (auto& b : bytes)
            b = static_cast<uint8_t>(rng());
        break;
    case BLADE_CF16:
    case BLADE_F16: {
        auto* h = reinterpret_cast<uint16_t*>(bytes.data());
        for (int64_t i = 0; i < values; i++)
            h[i] = static_cast<uint16_t>(rng()); // every bit pattern, NaNs included
        break;
    }
    case BLADE_CF32:
    case BLADE_F32: {
        auto* f = reinterpret_cast<float*>(bytes.data());
        for (int64_t i = 0; i < values; i++)
            f[i] = static_cast<float>(i % 5 == 0 ? special(i / 5) : uniform(rng));
        break;
    }
    case BLADE_CF64:
    case BLADE_F64: {
        auto* d = reinterpret_cast<double*>(bytes.data());
        for (int64_t i = 0; i < values; i++)
            d[i] = i % 5 == 0 ? special(i / 5) : uniform(rng);
        break;
    }
    default:
        break;
    }
    return bytes;
}

// A temporary folder for tests that write files, removed with everything in it.
struct temp_dir {
    std::string path;
    temp_dir()
    {
        char name[] = "/tmp/blade_testXXXXXX";
        path = mkdtemp(name);
    }
    ~temp_dir() { std::system(("rm -rf '" + path + "'").c_str()); }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

// A shape from a list of extents (any rank), throwing with the core's message.
inline blade_shape make_shape(const std::vector<int64_t>& dims)
{
    blade_shape shape;
    ok(blade_shape_make(dims.data(), static_cast<int>(dims.size()), &shape), "shape");
    return shape;
}

} // namespace blade_test

#endif
