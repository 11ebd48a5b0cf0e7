// SPDX-License-Identifier: MIT
// In-place operation on CUDA: the polarizer, the cast between types of one size (its
// own kernel, without __restrict__) and the channelizer with T = N on every kernel
// that serves the shape give exactly the out-of-place bits of the same GPU. Exits 77
// (skipped) without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "in_place_support.h"

#include <string>

using blade_test::check_in_place_matches;
using blade_test::first_gpu;
using blade_test::random_chunks;

BOOST_AUTO_TEST_CASE(polarizer_in_place_on_the_gpu)
{
    for (const blade_shape& shape : { blade_shape_aftp(1, 1, 1, 2),
                                      blade_shape_aftp(3, 7, 13, 2),
                                      blade_shape_aftp(8, 192, 8192, 2) }) {
        const int64_t count = blade_shape_count(&shape);
        check_in_place_matches(first_gpu(),
                               blade_test::polarizer_plans(shape, BLADE_CF32),
                               random_chunks(BLADE_CF32, count, 1, 1),
                               static_cast<size_t>(count) * 8,
                               "polarizer cf32");
        check_in_place_matches(first_gpu(),
                               blade_test::polarizer_plans(shape, BLADE_CF16),
                               random_chunks(BLADE_CF16, count, 1, 2),
                               static_cast<size_t>(count) * 4,
                               "polarizer cf16");
    }
}

BOOST_AUTO_TEST_CASE(cast_in_place_on_the_gpu)
{
    for (const blade_shape& shape :
         { blade_shape_aftp(3, 7, 13, 2), blade_shape_aftp(16, 192, 8192, 2) }) {
        const int64_t count = blade_shape_count(&shape);
        check_in_place_matches(first_gpu(),
                               blade_test::cast_plans(shape, BLADE_CF32, BLADE_CF32, 0.25f),
                               random_chunks(BLADE_CF32, count, 1, 3),
                               static_cast<size_t>(count) * 8,
                               "cast cf32 x 0.25");
        check_in_place_matches(first_gpu(),
                               blade_test::cast_plans(shape, BLADE_CI16, BLADE_CF16, 0.0f),
                               random_chunks(BLADE_CI16, count, 1, 4),
                               static_cast<size_t>(count) * 4,
                               "cast ci16 -> cf16");
        check_in_place_matches(first_gpu(),
                               blade_test::cast_plans(shape, BLADE_CF16, BLADE_CI16, 0.0f),
                               random_chunks(BLADE_CF16, count, 1, 5),
                               static_cast<size_t>(count) * 4,
                               "cast cf16 -> ci16");
    }
}

BOOST_AUTO_TEST_CASE(channelizer_in_place_on_every_kernel)
{
    const blade_channelizer_kernel kernels[] = {
        BLADE_CHANNELIZER_KERNEL_SHARED,      BLADE_CHANNELIZER_KERNEL_DIRECT,
        BLADE_CHANNELIZER_KERNEL_GENERAL,     BLADE_CHANNELIZER_KERNEL_FOUR_STEP,
        BLADE_CHANNELIZER_KERNEL_DIRECT_HALF,
    };
    const char* names[] = { "auto", "shared", "direct", "general", "four-step", "direct-half" };
    // T = N: short, Mode H's 8192, the direct tile's 16384, four-step's 2^15 and
    // Mode BH's whole gathered axis 2^16; plain FFTs and a 4-tap PFB over 3 chunks.
    int served = 0;
    for (int64_t n : { 64, 8192, 16384, 32768, 65536 }) {
        const blade_shape shape = blade_shape_aftp(2, 3, n, 2);
        const int64_t count = blade_shape_count(&shape);
        for (blade_channelizer_kernel kernel : kernels) {
            for (int taps : { 1, 4 }) {
                for (blade_dtype type : { BLADE_CF32, BLADE_CF16 }) {
                    blade_channelizer* probe = nullptr;
                    blade_channelizer_config config = { type,  type, n, taps, BLADE_WINDOW_HAMMING,
                                                        kernel };
                    if (blade_channelizer_create(&probe, &config, &shape, first_gpu()) != BLADE_OK)
                        continue; // this kernel does not serve N
                    blade_channelizer_destroy(probe);
                    served++;
                    const std::string what = std::string("channelizer ") + names[kernel] +
                                             " N = " + std::to_string(n) + ", taps " +
                                             std::to_string(taps) + ", " + blade_dtype_name(type);
                    check_in_place_matches(
                        first_gpu(),
                        blade_test::channelizer_plans(shape, type, n, taps, kernel),
                        random_chunks(type, count, 3, static_cast<uint32_t>(n + taps)),
                        static_cast<size_t>(count) * (type == BLADE_CF16 ? 4 : 8),
                        what);
                }
            }
        }
    }
    // at least: general for every N, four-step for 2^15 and 2^16 (x 2 taps x 2 types)
    BOOST_TEST_MESSAGE(served << " (kernel, N, taps, type) cases served");
    BOOST_TEST(served >= 28);
}

bool init_unit_test() { return true; }

int main(int argc, char* argv[]) { return blade_test::gpu_suite_main(argc, argv, &init_unit_test); }
