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

#include "channelizer_four_step.h"
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

// Runs one pass on every emulated thread: all read, (barrier), all write.
template <int THREADS>
struct host_exec {
    float2* smem;
    int rows;
    const float2* twiddles;

    template <typename Pass>
    void pass()
    {
        std::vector<staged> registers(THREADS);
        for (int thread = 0; thread < THREADS; thread++)
            Pass::read(smem, rows, twiddles, thread, registers[thread].values);
        for (int thread = 0; thread < THREADS; thread++)
            Pass::write(smem, rows, thread, registers[thread].values);
    }
};

// The direct tile's steps (blade_tile::direct_passes) on every emulated thread, in
// the order the kernel's barriers allow: the threads' halves of a step run one
// thread after the other, all of one half before any of the next.
template <int THREADS>
struct host_direct_exec : host_exec<THREADS> {
    const bt::params& p;
    const bt::origin& o;
    std::vector<staged> registers = std::vector<staged>(THREADS);

    host_direct_exec(const bt::params& params, const bt::origin& origin, float2* shared)
        : host_exec<THREADS>{ shared, bt::tile_rows(params), params.twiddles }, p(params), o(origin)
    {
    }

    template <typename Pass>
    void first()
    {
        for (int thread = 0; thread < THREADS; thread++)
            Pass::read(p, o, thread, registers[thread].values);
        for (int thread = 0; thread < THREADS; thread++)
            Pass::write(this->smem, p, thread, registers[thread].values);
    }

    template <typename Pass>
    void last()
    {
        for (int thread = 0; thread < THREADS; thread++)
            Pass::read(this->smem, p, p.twiddles, thread, registers[thread].values);
        for (int thread = 0; thread < THREADS; thread++)
            Pass::store(p, o, thread, registers[thread].values);
    }

    template <typename Pass>
    void only()
    {
        for (int thread = 0; thread < THREADS; thread++)
            Pass::read(p, o, thread, registers[thread].values);
        for (int thread = 0; thread < THREADS; thread++)
            Pass::store(p, o, thread, registers[thread].values);
    }
};

enum class kernel_kind { shared, direct, direct_half, four_step };

// A four-step pass's steps on every emulated thread (as host_direct_exec).
template <typename Origin>
struct host_four_step_exec : host_exec<bt::kDirectThreads> {
    const bt::four_step_params& q;
    const Origin& o;
    std::vector<staged> registers = std::vector<staged>(bt::kDirectThreads);

    host_four_step_exec(const bt::four_step_params& params,
                        const Origin& origin,
                        float2* shared,
                        int rows,
                        const float2* twiddles)
        : host_exec<bt::kDirectThreads>{ shared, rows, twiddles }, q(params), o(origin)
    {
    }

    template <typename Pass>
    void first()
    {
        for (int thread = 0; thread < bt::kDirectThreads; thread++)
            Pass::read(q, o, thread, registers[thread].values);
        for (int thread = 0; thread < bt::kDirectThreads; thread++)
            Pass::write(smem, q, thread, registers[thread].values);
    }

    template <typename Pass>
    void last()
    {
        for (int thread = 0; thread < bt::kDirectThreads; thread++)
            Pass::read(smem, q, thread, registers[thread].values);
        for (int thread = 0; thread < bt::kDirectThreads; thread++)
            Pass::store(q, o, thread, registers[thread].values);
    }
};

// Both passes of the four-step kernels over every tile, pass A before pass B.
template <int LOG2N>
void run_four_step(const bt::four_step_params& q, std::vector<float2>& smem)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    float2* shared = smem.data() + kGuard;
    for (int64_t tile = 0; tile < q.f.a_tiles; tile++) {
        std::fill(smem.begin(), smem.end(), make_float2(nan, nan));
        const bt::origin_a a = bt::tile_origin_a(q, tile);
        host_four_step_exec<bt::origin_a> exec(
            q, a, shared, 1 << (q.f.log2pa + q.f.log2ga), q.twiddles_a);
        if (q.p.filter != nullptr)
            bt::columns_passes<LOG2N, true>::run(exec);
        else
            bt::columns_passes<LOG2N, false>::run(exec);
        BOOST_REQUIRE(guards_intact(smem));
    }
    for (int64_t tile = 0; tile < q.f.b_tiles; tile++) {
        std::fill(smem.begin(), smem.end(), make_float2(nan, nan));
        const bt::origin_b o = bt::tile_origin_b(q, tile);
        host_four_step_exec<bt::origin_b> exec(
            q, o, shared, 1 << (q.f.log2pb + q.f.log2gs + q.f.log2g2), q.twiddles_b);
        bt::rows_passes<LOG2N>::run(exec);
        BOOST_REQUIRE(guards_intact(smem));
    }
}

void dispatch_four_step(const bt::four_step_params& q, std::vector<float2>& smem)
{
    switch (q.f.log2n) {
    case 15:
        return run_four_step<15>(q, smem);
    case 16:
        return run_four_step<16>(q, smem);
    case 17:
        return run_four_step<17>(q, smem);
    case 18:
        return run_four_step<18>(q, smem);
    case 19:
        return run_four_step<19>(q, smem);
    case 20:
        return run_four_step<20>(q, smem);
    case 21:
        return run_four_step<21>(q, smem);
    case 22:
        return run_four_step<22>(q, smem);
    default:
        throw std::logic_error("no four-step kernel for this size");
    }
}

template <int LOG2N, bool FILTER>
void run_block(kernel_kind kind, const bt::params& p, int64_t tile, std::vector<float2>& smem)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::fill(smem.begin(), smem.end(), make_float2(nan, nan)); // unwritten reads show up as NaN
    float2* shared = smem.data() + kGuard;
    const bt::origin o = bt::tile_origin(p, tile);
    if (kind == kernel_kind::direct) {
        host_direct_exec<bt::kDirectThreads> exec(p, o, shared);
        bt::direct_passes<LOG2N, FILTER>::run(exec);
    } else if constexpr (LOG2N <= bt::kMaxLog2N) {
        if (kind == kernel_kind::direct_half) {
            host_direct_exec<bt::kThreads> exec(p, o, shared);
            bt::direct_passes<LOG2N, FILTER, bt::kThreads>::run(exec);
            BOOST_REQUIRE(guards_intact(smem));
            return;
        }
        for (int thread = 0; thread < bt::kThreads; thread++)
            bt::load<LOG2N, FILTER>(p, o, shared, thread);
        host_exec<bt::kThreads> exec{ shared, bt::tile_rows(p), p.twiddles };
        bt::fft_passes<LOG2N>::run(exec);
        for (int thread = 0; thread < bt::kThreads; thread++)
            bt::store<LOG2N>(p, o, shared, thread);
    }
    BOOST_REQUIRE(guards_intact(smem));
}

template <int LOG2N>
void run_grid(kernel_kind kind, const bt::params& p, int64_t tiles, std::vector<float2>& smem)
{
    for (int64_t tile = 0; tile < tiles; tile++) {
        if (p.filter != nullptr)
            run_block<LOG2N, true>(kind, p, tile, smem);
        else
            run_block<LOG2N, false>(kind, p, tile, smem);
    }
}

void dispatch(
    int log2n, kernel_kind kind, const bt::params& p, int64_t tiles, std::vector<float2>& smem)
{
    switch (log2n) {
    case 1:
        return run_grid<1>(kind, p, tiles, smem);
    case 2:
        return run_grid<2>(kind, p, tiles, smem);
    case 3:
        return run_grid<3>(kind, p, tiles, smem);
    case 4:
        return run_grid<4>(kind, p, tiles, smem);
    case 5:
        return run_grid<5>(kind, p, tiles, smem);
    case 6:
        return run_grid<6>(kind, p, tiles, smem);
    case 7:
        return run_grid<7>(kind, p, tiles, smem);
    case 8:
        return run_grid<8>(kind, p, tiles, smem);
    case 9:
        return run_grid<9>(kind, p, tiles, smem);
    case 10:
        return run_grid<10>(kind, p, tiles, smem);
    case 11:
        return run_grid<11>(kind, p, tiles, smem);
    case 12:
        return run_grid<12>(kind, p, tiles, smem);
    case 13:
        return run_grid<13>(kind, p, tiles, smem);
    case 14:
        return run_grid<14>(kind, p, tiles, smem);
    default:
        throw std::logic_error("no tile kernel for this size");
    }
}

// The emulated kernel over chunks of one stream; history kept as the CUDA backend
// keeps it (a ring [rows][P][R] the kernel reads and writes: bt::history_ring).
struct emulated_plan {
    int64_t rows, T, P, N, M, H;
    kernel_kind kind;
    bt::tiling tiling{};
    bt::four_step steps{};
    bt::history_ring ring{};
    std::vector<float2> twiddles, history;
    std::vector<float> filter;
    bool input_half = false, output_half = false; // cf16 tensors (values exact in half)

    emulated_plan(const blade_shape& shape,
                  int64_t rate,
                  int taps,
                  blade_channelizer_window window,
                  kernel_kind k = kernel_kind::shared)
        : rows(shape.dims[0] * shape.dims[1]),
          T(shape.dims[2]),
          P(shape.dims[3]),
          N(rate),
          M(taps),
          H((taps - 1) * rate),
          kind(k)
    {
        const int capacity = kind == kernel_kind::direct ? bt::kDirectCapacity : bt::kCapacity;
        if (kind == kernel_kind::four_step) {
            if (!bt::plan_four_step(rows, T, P, N, &steps))
                throw std::logic_error("the four-step kernels do not serve this geometry");
            // the tables as the CUDA backend lays them out: twiddles of N2, of N1,
            // then the rotations lo (N2) and hi (N1)
            const int64_t n1 = int64_t(1) << steps.log2n1, n2 = int64_t(1) << steps.log2n2;
            twiddles.resize(static_cast<size_t>(2 * (n1 + n2)));
            bt::make_twiddles(n2, twiddles.data());
            bt::make_twiddles(n1, twiddles.data() + n2);
            bt::make_rotations(steps.log2n1,
                               steps.log2n2,
                               twiddles.data() + n1 + n2,
                               twiddles.data() + n1 + 2 * n2);
        } else {
            if (!bt::plan_tiling(rows, T, P, N, &tiling, capacity))
                throw std::logic_error("the single-pass kernel does not serve this geometry");
            twiddles.resize(static_cast<size_t>(N));
            bt::make_twiddles(N, twiddles.data());
        }
        if (M > 1) {
            std::vector<double> exact(static_cast<size_t>(M * N));
            ok(blade_channelizer_prototype(N, M, window, exact.data()), "prototype");
            filter.assign(exact.begin(), exact.end());
            ring = bt::history_ring::make(T, H);
            history.assign(static_cast<size_t>(rows * P * ring.R), make_float2(0, 0));
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
        p.R = ring.R;
        p.hread = ring.read_base(H);
        p.hwrite = ring.write_base(T, H);
        p.M = static_cast<int>(M);
        if (kind == kernel_kind::four_step) {
            p.log2P = steps.log2p;
            const int64_t n1 = int64_t(1) << steps.log2n1, n2 = int64_t(1) << steps.log2n2;
            std::vector<float2> work(input.size() + 2 * kGuard, make_float2(nan, nan));
            bt::four_step_params q{};
            q.p = p;
            q.work = work.data() + kGuard;
            q.twiddles_a = p.twiddles;
            q.twiddles_b = p.twiddles + n2;
            q.rotation_lo = p.twiddles + n1 + n2;
            q.rotation_hi = p.twiddles + n1 + 2 * n2;
            q.f = steps;
            std::vector<float2> smem(bt::kFourStepSharedBytes / sizeof(float2) + 2 * kGuard);
            dispatch_four_step(q, smem);
            BOOST_REQUIRE(guards_intact(work));
            return finish(input, output, half_output, guarded_history);
        }
        p.log2P = tiling.log2p;
        p.log2pb = tiling.log2pb;
        p.log2sb = tiling.log2sb;
        p.pgroups = tiling.pgroups;
        p.sgroups = tiling.sgroups;
        const int rows_per_tile = 1 << (tiling.log2pb + tiling.log2sb);
        const size_t shared_bytes = kind != kernel_kind::shared
                                        ? bt::direct_shared_bytes(tiling.log2n, rows_per_tile)
                                        : bt::shared_bytes(tiling.log2n, rows_per_tile);
        std::vector<float2> smem(shared_bytes / sizeof(float2) + 2 * kGuard);
        dispatch(tiling.log2n, kind, p, tiling.tiles, smem);
        return finish(input, output, half_output, guarded_history);
    }

    // The guards of the outputs, the ring kept for the next chunk, the result.
    std::vector<cf> finish(const std::vector<cf>& input,
                           const std::vector<float2>& output,
                           const std::vector<uint16_t>& half_output,
                           const std::vector<float2>& guarded_history)
    {
        BOOST_REQUIRE(guards_intact(output));
        for (size_t i = 0; i < 2 * kGuard; i++)
            BOOST_REQUIRE((half_output[i] == kHalfNaN &&
                           half_output[half_output.size() - 1 - i] == kHalfNaN));
        if (M > 1) { // the kernel wrote the next chunk's past into the ring
            BOOST_REQUIRE(guards_intact(guarded_history));
            std::copy(
                guarded_history.begin() + kGuard, guarded_history.end() - kGuard, history.begin());
            ring.advance(T, H);
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
                       bool output_half = false,
                       kernel_kind kind = kernel_kind::shared)
{
    const blade_channelizer_config config = { BLADE_CF32, BLADE_CF32, rate, taps, window };
    blade_channelizer* cpu = nullptr;
    ok(blade_channelizer_create(&cpu, &config, &shape, blade_device_cpu()), "create");
    emulated_plan emulated(shape, rate, taps, window, kind);
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
                       << (kind == kernel_kind::direct        ? " direct"
                           : kind == kernel_kind::direct_half ? " direct-half"
                           : kind == kernel_kind::four_step   ? " four-step"
                                                              : " shared")
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

// --- the direct tile ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(direct_tiling_keeps_both_polarizations_of_8192)
{
    bt::tiling t;
    BOOST_TEST(bt::plan_tiling(3072, 8192, 2, 8192, &t, bt::kDirectCapacity)); // the benchmark
    BOOST_TEST(t.log2pb == 1);
    BOOST_TEST(t.log2sb == 0);
    BOOST_TEST(t.tiles == 3072);
    BOOST_TEST(bt::plan_tiling(1, 16384, 2, 16384, &t, bt::kDirectCapacity)); // pols split
    BOOST_TEST(t.log2pb == 0);
    BOOST_TEST(t.tiles == 2);
    BOOST_TEST(!bt::plan_tiling(1, 32768, 1, 32768, &t, bt::kDirectCapacity));
    BOOST_TEST(bt::direct_shared_bytes(13, 2) <= size_t(140) * 1024);
    BOOST_TEST(bt::direct_shared_bytes(4, 1024) == 0); // N <= 16: registers only
    // lanes: 16 values of one polarization, then the same of the next
    int pl, u;
    bt::lane_split(17, 1, 12, pl, u);
    BOOST_TEST(pl == 1);
    BOOST_TEST(u == 1);
    bt::lane_split(32, 1, 12, pl, u);
    BOOST_TEST(pl == 0);
    BOOST_TEST(u == 16);
    bt::lane_split(5, 1, 2, pl, u); // 4 values per polarization
    BOOST_TEST(pl == 1);
    BOOST_TEST(u == 5 - 4);
}

BOOST_AUTO_TEST_CASE(direct_every_power_of_two_matches_fftw)
{
    // every pass structure: one pass (N <= 16), first + last (32 ... 128), with the
    // radix-2/4/8 pass and radix-16 passes between (256 ... 16384)
    uint32_t seed = 2000;
    for (int log2n = 1; log2n <= bt::kDirectMaxLog2N; log2n++) {
        const int64_t n = int64_t(1) << log2n;
        check_against_cpu(blade_shape_aftp(1, 2, 2 * n, 2),
                          n,
                          1,
                          BLADE_WINDOW_RECTANGULAR,
                          1,
                          seed += 10,
                          false,
                          false,
                          kernel_kind::direct);
    }
}

BOOST_AUTO_TEST_CASE(direct_tilings_and_the_filter)
{
    uint32_t seed = 2500;
    const auto direct = kernel_kind::direct;
    // many transforms per tile (pb = 2, sb = 128), partial tiles (S = 3, 6), P = 1, 4
    check_against_cpu(blade_shape_aftp(2, 3, 8192, 2),
                      64,
                      1,
                      BLADE_WINDOW_RECTANGULAR,
                      1,
                      seed++,
                      false,
                      false,
                      direct);
    check_against_cpu(blade_shape_aftp(1, 3, 48, 4),
                      16,
                      1,
                      BLADE_WINDOW_RECTANGULAR,
                      1,
                      seed++,
                      false,
                      false,
                      direct);
    check_against_cpu(blade_shape_aftp(1, 2, 6 * 512, 2),
                      512,
                      1,
                      BLADE_WINDOW_RECTANGULAR,
                      1,
                      seed++,
                      false,
                      false,
                      direct);
    check_against_cpu(blade_shape_aftp(3, 1, 96, 1),
                      32,
                      1,
                      BLADE_WINDOW_RECTANGULAR,
                      1,
                      seed++,
                      false,
                      false,
                      direct);
    check_against_cpu(blade_shape_aftp(1, 1, 2 * 8192, 4),
                      8192,
                      1,
                      BLADE_WINDOW_RECTANGULAR,
                      1,
                      seed++,
                      false,
                      false,
                      direct); // N * P above a tile: pols split
    check_against_cpu(blade_shape_aftp(2, 2, 4 * 8, 2),
                      8,
                      1,
                      BLADE_WINDOW_RECTANGULAR,
                      1,
                      seed++,
                      false,
                      false,
                      direct);
    // the polyphase filter over chunks: in the first pass from global memory
    check_against_cpu(blade_shape_aftp(2, 2, 256, 2),
                      16,
                      4,
                      BLADE_WINDOW_HAMMING,
                      3,
                      seed++,
                      false,
                      false,
                      direct);
    check_against_cpu(blade_shape_aftp(1, 2, 64, 2),
                      64,
                      8,
                      BLADE_WINDOW_BLACKMAN_HARRIS,
                      4,
                      seed++,
                      false,
                      false,
                      direct); // M N > T
    check_against_cpu(blade_shape_aftp(1, 1, 8192, 2),
                      8192,
                      4,
                      BLADE_WINDOW_HANN,
                      2,
                      seed++,
                      false,
                      false,
                      direct);
    check_against_cpu(blade_shape_aftp(1, 3, 96, 1),
                      2,
                      3,
                      BLADE_WINDOW_BLACKMAN,
                      3,
                      seed++,
                      false,
                      false,
                      direct);
    // cf16 in and out
    for (int types = 1; types < 4; types++)
        check_against_cpu(blade_shape_aftp(1, 1, 8192, 2),
                          8192,
                          4,
                          BLADE_WINDOW_HAMMING,
                          2,
                          seed++,
                          types & 1,
                          types & 2,
                          direct);
}

BOOST_AUTO_TEST_CASE(history_ring_positions)
{
    // T < H: the ring is the stream mod H + T; T >= H: two halves of H in turn.
    auto short_chunks = bt::history_ring::make(8, 24);
    BOOST_TEST(short_chunks.R == 32);
    BOOST_TEST(short_chunks.read_base(24) == 24);
    BOOST_TEST(short_chunks.write_base(8, 24) == 24);
    short_chunks.advance(8, 24);
    BOOST_TEST(short_chunks.start == 8);
    auto long_chunks = bt::history_ring::make(100, 24);
    BOOST_TEST(long_chunks.R == 48);
    BOOST_TEST(long_chunks.write_base(100, 24) == 24 - 76); // t = 76 ... 99 -> 24 ... 47
    long_chunks.advance(100, 24);
    BOOST_TEST(long_chunks.start == 24);
    long_chunks.advance(100, 24);
    BOOST_TEST(long_chunks.start == 0);
}

BOOST_AUTO_TEST_CASE(polyphase_filter_over_many_chunks_of_every_length)
{
    // the ring over 6 chunks, T < H, T = H, H < T < 2H and T >= 2H, on both tiles
    uint32_t seed = 3000;
    for (const auto kind : { kernel_kind::shared, kernel_kind::direct }) {
        check_against_cpu(blade_shape_aftp(1, 2, 32, 2),
                          32,
                          4,
                          BLADE_WINDOW_HAMMING,
                          6,
                          seed++,
                          false,
                          false,
                          kind); // T = N, H = 3T
        check_against_cpu(blade_shape_aftp(1, 2, 96, 2),
                          32,
                          4,
                          BLADE_WINDOW_HAMMING,
                          6,
                          seed++,
                          false,
                          false,
                          kind); // T = H
        check_against_cpu(blade_shape_aftp(1, 2, 160, 2),
                          32,
                          4,
                          BLADE_WINDOW_HAMMING,
                          6,
                          seed++,
                          false,
                          false,
                          kind); // H < T < 2H
        check_against_cpu(blade_shape_aftp(1, 2, 256, 1),
                          32,
                          3,
                          BLADE_WINDOW_HANN,
                          6,
                          seed++,
                          false,
                          false,
                          kind); // T > 2H
    }
}

// --- the four-step kernels (long N) -------------------------------------------------

BOOST_AUTO_TEST_CASE(four_step_tilings)
{
    bt::four_step f;
    BOOST_TEST(bt::plan_four_step(64, 1 << 20, 2, 1 << 20, &f)); // GBT node, N = 2^20
    BOOST_TEST(f.log2n1 == 10);
    BOOST_TEST(f.log2n2 == 10);
    BOOST_TEST(f.log2pa == 1); // both pols, 8 n1: loads of 128 contiguous bytes
    BOOST_TEST(f.log2ga == 3);
    BOOST_TEST(f.log2pb == 1); // both pols, 8 k2: stores of 128 contiguous bytes
    BOOST_TEST(f.log2gs == 0);
    BOOST_TEST(f.log2g2 == 3);
    BOOST_TEST(f.a_tiles == 64 * 128);
    BOOST_TEST(f.b_tiles == 64 * 128);
    BOOST_TEST(bt::plan_four_step(64, 1 << 20, 2, 1 << 16, &f)); // N = 65536, S = 16
    BOOST_TEST(f.log2ga == 5);
    BOOST_TEST(f.log2gs == 4); // all 16 spectra of a k2: stores of 512 contiguous bytes
    BOOST_TEST(f.log2g2 == 1);
    BOOST_TEST(!bt::plan_four_step(1, 1 << 14, 2, 1 << 14, &f)); // the direct tile's
    BOOST_TEST(!bt::plan_four_step(1, 3 << 15, 2, 3 << 15, &f)); // not a power of two
    BOOST_TEST(!bt::plan_four_step(1, 1 << 23, 1, 1 << 23, &f)); // beyond 2^22
    for (int log2n = bt::kFourStepMinLog2N; log2n <= bt::kFourStepMaxLog2N; log2n++)
        for (int64_t P = 1; P <= 4; P *= 2) {
            BOOST_TEST(bt::plan_four_step(1, int64_t(1) << log2n, P, int64_t(1) << log2n, &f));
            BOOST_TEST(bt::four_step_shared_bytes(f, true) <= bt::kFourStepSharedBytes);
            BOOST_TEST(bt::four_step_shared_bytes(f, false) <= bt::kFourStepSharedBytes);
        }
}

BOOST_AUTO_TEST_CASE(four_step_matches_fftw)
{
    struct four_step_case {
        blade_shape shape;
        int64_t rate;
        int taps;
        blade_channelizer_window window;
        int chunks;
        bool half; // cf16 input and output
    };
    const four_step_case cases[] = {
        // both splits (N1 = N2, N1 = N2 / 2), P = 1, 2, 4, S = 4 (several spectra per tile)
        { blade_shape_aftp(1, 1, 1 << 15, 2), 1 << 15, 1, BLADE_WINDOW_RECTANGULAR, 1, false },
        { blade_shape_aftp(1, 2, 1 << 16, 1), 1 << 16, 1, BLADE_WINDOW_RECTANGULAR, 1, false },
        { blade_shape_aftp(1, 1, 1 << 17, 4), 1 << 15, 1, BLADE_WINDOW_RECTANGULAR, 1, false },
        { blade_shape_aftp(1, 1, 1 << 20, 2), 1 << 20, 1, BLADE_WINDOW_RECTANGULAR, 1, false },
        // the polyphase filter over chunks (the history ring), T = N and T = 2N; cf16
        { blade_shape_aftp(1, 1, 1 << 15, 2), 1 << 15, 4, BLADE_WINDOW_HAMMING, 3, false },
        { blade_shape_aftp(1, 1, 1 << 16, 1), 1 << 15, 3, BLADE_WINDOW_HANN, 3, false },
        { blade_shape_aftp(1, 1, 1 << 15, 2), 1 << 15, 2, BLADE_WINDOW_HAMMING, 2, true },
    };
    uint32_t seed = 4000;
    for (const four_step_case& c : cases)
        check_against_cpu(c.shape,
                          c.rate,
                          c.taps,
                          c.window,
                          c.chunks,
                          seed++,
                          c.half,
                          c.half,
                          kernel_kind::four_step);
}

BOOST_AUTO_TEST_CASE(direct_half_tile)
{
    // the direct passes on the shared tile's tiling (512 threads, 8192 values): one
    // polarization per tile at N = 8192, every N, the filter, cf16
    uint32_t seed = 5000;
    const auto half = kernel_kind::direct_half;
    for (int log2n = 1; log2n <= bt::kMaxLog2N; log2n++) {
        const int64_t n = int64_t(1) << log2n;
        check_against_cpu(blade_shape_aftp(1, 2, 2 * n, 2),
                          n,
                          1,
                          BLADE_WINDOW_RECTANGULAR,
                          1,
                          seed += 10,
                          false,
                          false,
                          half);
    }
    check_against_cpu(blade_shape_aftp(2, 3, 8192, 2),
                      64,
                      1,
                      BLADE_WINDOW_RECTANGULAR,
                      1,
                      seed++,
                      false,
                      false,
                      half);
    check_against_cpu(blade_shape_aftp(1, 3, 48, 4),
                      16,
                      1,
                      BLADE_WINDOW_RECTANGULAR,
                      1,
                      seed++,
                      false,
                      false,
                      half);
    check_against_cpu(
        blade_shape_aftp(1, 1, 8192, 2), 8192, 4, BLADE_WINDOW_HANN, 3, seed++, false, false, half);
    check_against_cpu(
        blade_shape_aftp(2, 2, 256, 2), 16, 4, BLADE_WINDOW_HAMMING, 3, seed++, true, true, half);
}
