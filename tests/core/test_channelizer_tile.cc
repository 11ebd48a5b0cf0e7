// SPDX-License-Identifier: MIT
// The CUDA single-pass channelizer kernel (kernels/channelizer_tile.h) run on the
// CPU: the same code, with the threads of a block executed one after the other
// between barriers. It must agree with the CPU backend (FFTW) for every N it
// serves, every tiling (several transforms per tile, polarizations split across
// tiles), and with the polyphase filter across chunks. This checks the kernel's
// indexing, padding and FFT passes without a GPU; test_channelizer_cuda checks the
// real thing on one.
#define BOOST_TEST_MODULE channelizer_tile
#include <boost/test/unit_test.hpp>

#include "channelizer_support.h"
#include "channelizer_tile.h"
#include "half.h"
#include "test_support.h"

#include <cmath>
#include <complex>
#include <limits>

using blade_test::ok;
using blade_test::random_voltages;
using blade_test::relative_difference;
using cf = std::complex<float>;
namespace bt = blade_tile;

namespace {

struct staged {
    float2 values[bt::kPerThread];
};

// Runs one pass on every emulated thread: all read, (barrier), all write.
struct host_exec {
    float2* smem;
    int rows;
    const float2* twiddles;

    template <typename Pass>
    void pass()
    {
        std::vector<staged> registers(bt::kThreads);
        for (int thread = 0; thread < bt::kThreads; thread++)
            Pass::read(smem, rows, twiddles, thread, registers[thread].values);
        for (int thread = 0; thread < bt::kThreads; thread++)
            Pass::write(smem, rows, thread, registers[thread].values);
    }
};

// NaN guard values around every buffer the kernel touches: a read outside makes the
// output NaN (caught by the comparison), a write outside breaks a guard.
constexpr size_t kGuard = 64;
constexpr uint16_t kHalfNaN = 0x7e00;

bool guards_intact(const std::vector<float2>& buffer)
{
    for (size_t i = 0; i < kGuard; i++)
        if (!std::isnan(buffer[i].x) || !std::isnan(buffer[buffer.size() - 1 - i].x))
            return false;
    return true;
}

template <int LOG2N, bool FILTER>
void run_block(const bt::params& p, int64_t tile, std::vector<float2>& smem)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::fill(smem.begin(), smem.end(), make_float2(nan, nan)); // unwritten reads show up as NaN
    float2* shared = smem.data() + kGuard;
    const bt::origin o = bt::tile_origin(p, tile);
    for (int thread = 0; thread < bt::kThreads; thread++)
        bt::load<LOG2N, FILTER>(p, o, shared, thread);
    host_exec exec{ shared, bt::tile_rows(p), p.twiddles };
    bt::fft_passes<LOG2N>::run(exec);
    for (int thread = 0; thread < bt::kThreads; thread++)
        bt::store<LOG2N>(p, o, shared, thread);
    BOOST_REQUIRE(guards_intact(smem));
}

template <int LOG2N>
void run_grid(const bt::params& p, int64_t tiles, std::vector<float2>& smem)
{
    for (int64_t tile = 0; tile < tiles; tile++) {
        if (p.filter != nullptr)
            run_block<LOG2N, true>(p, tile, smem);
        else
            run_block<LOG2N, false>(p, tile, smem);
    }
}

void dispatch(int log2n, const bt::params& p, int64_t tiles, std::vector<float2>& smem)
{
    switch (log2n) {
    case 1:
        return run_grid<1>(p, tiles, smem);
    case 2:
        return run_grid<2>(p, tiles, smem);
    case 3:
        return run_grid<3>(p, tiles, smem);
    case 4:
        return run_grid<4>(p, tiles, smem);
    case 5:
        return run_grid<5>(p, tiles, smem);
    case 6:
        return run_grid<6>(p, tiles, smem);
    case 7:
        return run_grid<7>(p, tiles, smem);
    case 8:
        return run_grid<8>(p, tiles, smem);
    case 9:
        return run_grid<9>(p, tiles, smem);
    case 10:
        return run_grid<10>(p, tiles, smem);
    case 11:
        return run_grid<11>(p, tiles, smem);
    case 12:
        return run_grid<12>(p, tiles, smem);
    case 13:
        return run_grid<13>(p, tiles, smem);
    default:
        throw std::logic_error("no tile kernel for this size");
    }
}

// The emulated kernel over chunks of one stream; history kept as the CUDA backend
// keeps it ([rows][P][H], the H samples before the chunk).
struct emulated_plan {
    int64_t rows, T, P, N, M, H;
    bt::tiling tiling;
    std::vector<float2> twiddles, history;
    std::vector<float> filter;
    bool input_half = false, output_half = false; // cf16 tensors (values exact in half)

    emulated_plan(const blade_shape& shape, int64_t rate, int taps, blade_channelizer_window window)
        : rows(shape.dims[0] * shape.dims[1]),
          T(shape.dims[2]),
          P(shape.dims[3]),
          N(rate),
          M(taps),
          H((taps - 1) * rate)
    {
        if (!bt::plan_tiling(rows, T, P, N, &tiling))
            throw std::logic_error("the single-pass kernel does not serve this geometry");
        twiddles.resize(static_cast<size_t>(N));
        bt::make_twiddles(N, twiddles.data());
        if (M > 1) {
            std::vector<double> exact(static_cast<size_t>(M * N));
            ok(blade_channelizer_prototype(N, M, window, exact.data()), "prototype");
            filter.assign(exact.begin(), exact.end());
            history.assign(static_cast<size_t>(rows * P * H), make_float2(0, 0));
        }
    }

    std::vector<cf> run(const std::vector<cf>& input)
    {
        // every buffer between NaN guards: every value written, nothing read or
        // written beyond
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::vector<float2> output(input.size() + 2 * kGuard, make_float2(nan, nan));
        std::vector<float2> guarded_input(input.size() + 2 * kGuard, make_float2(nan, nan));
        for (size_t i = 0; i < input.size(); i++)
            guarded_input[kGuard + i] = make_float2(input[i].real(), input[i].imag());
        // cf16 copies: pairs of half bits, NaN (0x7E00) guards
        std::vector<uint16_t> half_output(2 * (input.size() + 2 * kGuard), kHalfNaN);
        std::vector<uint16_t> half_input(2 * (input.size() + 2 * kGuard), kHalfNaN);
        for (size_t i = 0; i < input.size(); i++) {
            half_input[2 * (kGuard + i)] = blade_half_from_float(input[i].real());
            half_input[2 * (kGuard + i) + 1] = blade_half_from_float(input[i].imag());
        }
        std::vector<float2> guarded_twiddles(twiddles.size() + 2 * kGuard, make_float2(nan, nan));
        std::copy(twiddles.begin(), twiddles.end(), guarded_twiddles.begin() + kGuard);
        std::vector<float2> guarded_history(history.size() + 2 * kGuard, make_float2(nan, nan));
        std::copy(history.begin(), history.end(), guarded_history.begin() + kGuard);
        std::vector<float> guarded_filter(filter.size() + 2 * kGuard, nan);
        std::copy(filter.begin(), filter.end(), guarded_filter.begin() + kGuard);
        bt::params p{};
        p.input = input_half ? static_cast<const void*>(half_input.data() + 2 * kGuard)
                             : guarded_input.data() + kGuard;
        p.output = output_half ? static_cast<void*>(half_output.data() + 2 * kGuard)
                               : output.data() + kGuard;
        p.input_half = input_half;
        p.output_half = output_half;
        p.twiddles = guarded_twiddles.data() + kGuard;
        p.filter = M > 1 ? guarded_filter.data() + kGuard : nullptr;
        p.history = M > 1 ? guarded_history.data() + kGuard : nullptr;
        p.T = T;
        p.S = T / N;
        p.H = H;
        p.M = static_cast<int>(M);
        p.log2P = tiling.log2p;
        p.log2pb = tiling.log2pb;
        p.log2sb = tiling.log2sb;
        p.pgroups = tiling.pgroups;
        p.sgroups = tiling.sgroups;
        const size_t rows_per_tile = size_t(1) << (tiling.log2pb + tiling.log2sb);
        std::vector<float2> smem(bt::shared_bytes(tiling.log2n, static_cast<int>(rows_per_tile)) /
                                     sizeof(float2) +
                                 2 * kGuard);
        dispatch(tiling.log2n, p, tiling.tiles, smem);
        BOOST_REQUIRE(guards_intact(output));
        for (size_t i = 0; i < 2 * kGuard; i++)
            BOOST_REQUIRE((half_output[i] == kHalfNaN &&
                           half_output[half_output.size() - 1 - i] == kHalfNaN));
        if (M > 1) // the next chunk's history: the last H samples of the stream
            for (int64_t series = 0; series < rows * P; series++)
                for (int64_t j = 0; j < H; j++) {
                    const int64_t row = series / P, pol = series % P, t = T - H + j;
                    float2& slot = history[static_cast<size_t>(series * H + j)];
                    slot = t >= 0 ? make_float2(
                                        input[static_cast<size_t>((row * T + t) * P + pol)].real(),
                                        input[static_cast<size_t>((row * T + t) * P + pol)].imag())
                                  : history[static_cast<size_t>(series * H + j + T)];
                }
        std::vector<cf> result(input.size());
        for (size_t i = 0; i < result.size(); i++)
            result[i] = output_half ? cf(blade_half_to_float(half_output[2 * (kGuard + i)]),
                                         blade_half_to_float(half_output[2 * (kGuard + i) + 1]))
                                    : cf(output[kGuard + i].x, output[kGuard + i].y);
        return result;
    }
};

std::vector<cf>
cpu_run(blade_channelizer* plan, const blade_shape& shape, const std::vector<cf>& input)
{
    const blade_shape out_shape = blade_channelizer_output_shape(plan);
    std::vector<cf> output(input.size());
    blade_tensor in =
        blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), const_cast<cf*>(input.data()));
    blade_tensor out = blade_tensor_make(BLADE_CF32, &out_shape, blade_device_cpu(), output.data());
    ok(blade_channelizer_process(plan, &in, &out, nullptr), "process");
    return output;
}

// max |a - b| / RMS(b); NaN anywhere fails.


// The values rounded to half and back: what a cf16 tensor can hold.
std::vector<cf> rounded_to_half(const std::vector<cf>& values)
{
    std::vector<cf> rounded(values.size());
    for (size_t i = 0; i < values.size(); i++)
        rounded[i] = cf(blade_half_to_float(blade_half_from_float(values[i].real())),
                        blade_half_to_float(blade_half_from_float(values[i].imag())));
    return rounded;
}

// Parts of got further from expected than the float32 tolerance plus one rounding
// to half (2^-10 of the value: each side rounds by at most half a step).
size_t
beyond_a_half_step(const std::vector<cf>& got, const std::vector<cf>& expected, double tolerance)
{
    double power = 0.0;
    for (const auto& e : expected)
        power += std::norm(std::complex<double>(e));
    const double rms = std::sqrt(power / static_cast<double>(expected.size()));
    size_t outside = 0;
    for (size_t i = 0; i < got.size(); i++) {
        const double parts[2][2] = { { got[i].real(), expected[i].real() },
                                     { got[i].imag(), expected[i].imag() } };
        for (const auto& part : parts)
            if (!(std::abs(part[0] - part[1]) <=
                  tolerance * rms + std::ldexp(std::abs(part[1]), -10)))
                outside++;
    }
    return outside;
}

// The emulated kernel against the CPU backend over `chunks` chunks, cf32 or cf16 in
// and out: cf16 input is compared on the values it holds; cf16 output against the
// CPU's float32 output within a rounding step.
void check_against_cpu(const blade_shape& shape,
                       int64_t rate,
                       int taps,
                       blade_channelizer_window window,
                       int chunks,
                       uint32_t seed,
                       bool input_half = false,
                       bool output_half = false)
{
    const blade_channelizer_config config = { BLADE_CF32, BLADE_CF32, rate, taps, window };
    blade_channelizer* cpu = nullptr;
    ok(blade_channelizer_create(&cpu, &config, &shape, blade_device_cpu()), "create");
    emulated_plan emulated(shape, rate, taps, window);
    emulated.input_half = input_half;
    emulated.output_half = output_half;
    // float32 transforms differ by ~1e-7 log2(N) of the RMS between two FFT algorithms
    const double tolerance = 1e-6 * std::max(1.0, std::log2(static_cast<double>(rate)));
    char text[64];
    for (int chunk = 0; chunk < chunks; chunk++) {
        auto input = random_voltages(static_cast<size_t>(blade_shape_count(&shape)), seed + chunk);
        if (input_half)
            input = rounded_to_half(input);
        const auto expected = cpu_run(cpu, shape, input);
        const auto got = emulated.run(input);
        const double difference = relative_difference(got, expected);
        const size_t outside = output_half ? beyond_a_half_step(got, expected, tolerance) : 0;
        BOOST_TEST((output_half ? outside == 0 : difference < tolerance),
                   blade_shape_format(&shape, text, sizeof text)
                       << (input_half ? " cf16" : " cf32") << " -> "
                       << (output_half ? "cf16" : "cf32") << " N " << rate << " M " << taps
                       << " chunk " << chunk << " tiling pb 2^" << emulated.tiling.log2pb
                       << " sb 2^" << emulated.tiling.log2sb << ": " << difference << ", "
                       << outside << " parts beyond a half step");
    }
    blade_channelizer_destroy(cpu);
}

} // namespace

BOOST_AUTO_TEST_CASE(tiling_choices)
{
    bt::tiling t;
    BOOST_TEST(bt::plan_tiling(3072, 8192, 2, 8192, &t)); // the benchmark: pols split
    BOOST_TEST(t.log2pb == 0);
    BOOST_TEST(t.log2sb == 0);
    BOOST_TEST(t.tiles == 3072 * 2);
    BOOST_TEST(bt::plan_tiling(384, 8192, 2, 64, &t)); // 64 blocks of 2 pols per tile
    BOOST_TEST(t.log2pb == 1);
    BOOST_TEST(t.log2sb == 6);
    BOOST_TEST(t.tiles == 384 * 2);
    BOOST_TEST(bt::plan_tiling(1, 24, 2, 8, &t)); // S = 3: one block per tile
    BOOST_TEST(t.log2sb == 0);
    BOOST_TEST(!bt::plan_tiling(1, 24, 2, 6, &t));        // N not a power of two
    BOOST_TEST(!bt::plan_tiling(1, 16384, 2, 16384, &t)); // N above 8192
    BOOST_TEST(!bt::plan_tiling(1, 64, 3, 8, &t));        // P not a power of two
    BOOST_TEST(!bt::plan_tiling(1, 64, 2, 1, &t));        // N = 1 is a copy
}

BOOST_AUTO_TEST_CASE(every_power_of_two_matches_fftw)
{
    uint32_t seed = 1;
    for (int log2n = 1; log2n <= 13; log2n++) {
        const int64_t n = int64_t(1) << log2n;
        check_against_cpu(
            blade_shape_aftp(1, 2, 2 * n, 2), n, 1, BLADE_WINDOW_RECTANGULAR, 1, seed += 10);
    }
}

BOOST_AUTO_TEST_CASE(tilings_with_many_rows_split_polarizations_and_odd_counts)
{
    uint32_t seed = 500;
    // many transforms per tile (sb = 64, pb = 2)
    check_against_cpu(blade_shape_aftp(2, 3, 8192, 2), 64, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    // S = 3 (odd): one block per tile; P = 4
    check_against_cpu(blade_shape_aftp(1, 3, 48, 4), 16, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    // N * P above a tile: one polarization per tile (stride-P loads and stores)
    check_against_cpu(
        blade_shape_aftp(1, 2, 8192, 2), 8192, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    check_against_cpu(
        blade_shape_aftp(1, 1, 2 * 4096, 4), 4096, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    // P = 1, tiny shapes
    check_against_cpu(blade_shape_aftp(1, 1, 2, 1), 2, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    check_against_cpu(blade_shape_aftp(3, 1, 96, 1), 32, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
    // S = 6: sb = 2 of 6
    check_against_cpu(
        blade_shape_aftp(1, 2, 6 * 512, 2), 512, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++);
}

BOOST_AUTO_TEST_CASE(polyphase_filter_across_chunks)
{
    uint32_t seed = 900;
    check_against_cpu(blade_shape_aftp(2, 2, 256, 2), 16, 4, BLADE_WINDOW_HAMMING, 3, seed += 10);
    check_against_cpu(blade_shape_aftp(1, 2, 64, 2),
                      64,
                      8,
                      BLADE_WINDOW_BLACKMAN_HARRIS,
                      4,
                      seed += 10); // M N > T
    check_against_cpu(blade_shape_aftp(1, 1, 8192, 2), 8192, 2, BLADE_WINDOW_HANN, 2, seed += 10);
    check_against_cpu(blade_shape_aftp(1, 3, 96, 1), 2, 3, BLADE_WINDOW_BLACKMAN, 3, seed += 10);
}

BOOST_AUTO_TEST_CASE(cf16_input_and_output)
{
    // cf16 loads (plain and through the filter, history across chunks) and stores,
    // on the pols-split, many-rows and filtered tilings.
    uint32_t seed = 1300;
    for (int types = 1; types < 4; types++) {
        const bool in = types & 1, out = types & 2;
        check_against_cpu(
            blade_shape_aftp(1, 2, 8192, 2), 8192, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++, in, out);
        check_against_cpu(
            blade_shape_aftp(2, 3, 1024, 2), 64, 1, BLADE_WINDOW_RECTANGULAR, 1, seed++, in, out);
        check_against_cpu(
            blade_shape_aftp(2, 2, 256, 2), 16, 4, BLADE_WINDOW_HAMMING, 3, seed++, in, out);
    }
}
