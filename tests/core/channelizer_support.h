// SPDX-License-Identifier: MIT
// Helpers shared by the channelizer test suites: random voltages and the error
// measure their tolerances are stated in.
#ifndef BLADE_TEST_CHANNELIZER_SUPPORT_H
#define BLADE_TEST_CHANNELIZER_SUPPORT_H

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace blade_test {

// Gaussian complex voltages (sigma per part), reproducible from the seed.
inline std::vector<std::complex<float>>
random_voltages(size_t count, uint32_t seed, float sigma = 30.0f)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, sigma);
    std::vector<std::complex<float>> values(count);
    for (auto& v : values)
        v = std::complex<float>(normal(rng), normal(rng));
    return values;
}

// max |got - expected| / RMS(expected): FFT errors scale with the signal, so
// tolerances are relative to the output RMS. A NaN anywhere (an unwritten value)
// makes it infinite.
template <typename Expected>
double relative_difference(const std::vector<std::complex<float>>& got,
                           const std::vector<Expected>& expected)
{
    double power = 0.0, worst = 0.0;
    for (const auto& e : expected)
        power += std::norm(std::complex<double>(e));
    const double rms = std::sqrt(power / static_cast<double>(expected.size()));
    for (size_t i = 0; i < got.size(); i++) {
        const double d = std::abs(std::complex<double>(got[i]) - std::complex<double>(expected[i]));
        if (!(d <= worst))
            worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
    }
    return worst / (rms > 0 ? rms : 1.0);
}

} // namespace blade_test

#endif
