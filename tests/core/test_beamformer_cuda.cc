// SPDX-License-Identifier: MIT
// Beamformer on CUDA against the CPU reference, for every path (fp32, tf32, tf32x3,
// fp16), at edge shapes and benchmark shapes. Errors are measured per output element as
// |gpu - cpu| / sum_a |x_a||w_a| (the scale of rounding errors; a plain relative error
// is meaningless where the coherent sum cancels) and must stay below each path's
// documented bound:
//   fp32, tf32x3: 1e-5 (float32 sums of at most ~100 terms)
//   tf32:         2^-10 + A 2^-23 (TF32 operands, 2^-11 each, float32 sums)
//   fp16:         1e-5 against the CPU's emulation of the path (the same operands
//                 rounded to half, float32 sums: only the accumulation order differs),
//                 and the RMS error below 1e-5 of the RMS beam
// The measured maxima and RMS values are printed for docs/blocks/beamformer.md.
// Every kernel of a path is checked (direct, staged1, staged2 for fp32; tensor for
// tf32 and tf32x3), and the CUDA-core kernels must give the direct kernel's bits.
// Exits 77 (skipped) without a GPU.
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using blade_test::ok;
using cf = std::complex<float>;

namespace {

blade_device gpu() { return blade_device{ BLADE_DEVICE_CUDA, 0 }; }

struct problem {
    int64_t A, F, T, P, B;
    bool meerkat = false;
    bool incoherent = false;
    bool root = false;
    blade_dtype input_type = BLADE_CF32;
    blade_dtype output_type = BLADE_CF32;

    blade_shape input() const { return blade_shape_aftp(A, F, T, P); }
    blade_shape phasors() const
    {
        blade_shape shape;
        const int64_t full[5] = { B, A, F, 1, P }, broadcast[2] = { B, A };
        ok(blade_shape_make(meerkat ? broadcast : full, meerkat ? 2 : 5, &shape), "phasor shape");
        return shape;
    }
    std::string text() const
    {
        char buffer[200];
        std::snprintf(buffer,
                      sizeof buffer,
                      "(A, F, T, P, B) = (%lld, %lld, %lld, %lld, %lld)%s%s%s %s->%s",
                      (long long)A,
                      (long long)F,
                      (long long)T,
                      (long long)P,
                      (long long)B,
                      meerkat ? " [B, A] phasors" : "",
                      incoherent ? " +incoherent" : "",
                      root ? " (sqrt)" : "",
                      blade_dtype_name(input_type),
                      blade_dtype_name(output_type));
        return buffer;
    }
};

struct data {
    std::vector<uint8_t> x; // input_type elements
    std::vector<cf> w;
};

// `count` elements converted by a CPU cast between cf32 and cf16 (exact to cf32).
std::vector<uint8_t> cpu_cast(blade_dtype from, blade_dtype to, const void* values, int64_t count)
{
    std::vector<uint8_t> out(blade_bytes(to, count));
    const blade_shape shape = blade_test::make_shape({ count });
    blade_cast* cast = nullptr;
    const blade_cast_config config = { from, to };
    ok(blade_cast_create(&cast, &config, &shape, blade_device_cpu()), "cast");
    blade_tensor a = blade_tensor_make(from, &shape, blade_device_cpu(), const_cast<void*>(values));
    blade_tensor b = blade_tensor_make(to, &shape, blade_device_cpu(), out.data());
    ok(blade_cast_process(cast, &a, &b, nullptr), "cast");
    blade_cast_destroy(cast);
    return out;
}

data make_data(const problem& pr, uint32_t seed)
{
    data d;
    const blade_shape in = pr.input(), ph = pr.phasors();
    const int64_t nx = blade_shape_count(&in);
    if (pr.input_type == BLADE_CI8) {
        d.x = blade_test::random_elements(BLADE_CI8, nx, seed);
    } else {
        std::mt19937 rng(seed);
        std::normal_distribution<float> normal(0.0f, 30.0f);
        d.x.resize(nx * sizeof(cf));
        auto* values = reinterpret_cast<cf*>(d.x.data());
        for (int64_t i = 0; i < nx; i++)
            values[i] = cf(normal(rng), normal(rng));
        if (pr.input_type == BLADE_CF16) // the same values rounded to half
            d.x = cpu_cast(BLADE_CF32, BLADE_CF16, d.x.data(), nx);
    }
    std::mt19937 rng(seed + 1000);
    std::normal_distribution<float> normal(0.0f, 0.7f);
    d.w.resize(blade_shape_count(&ph));
    for (auto& v : d.w)
        v = cf(normal(rng), normal(rng));
    return d;
}

// Output as complex floats (cf16 widened), computed on `device` with `path`; the
// pointers are offset by `misalign` bytes on the GPU to exercise the fallbacks.
// A path and the kernel that computes it.
struct variant {
    blade_beamformer_path path;
    blade_beamformer_kernel kernel;
    std::string text() const
    {
        return std::string(blade_beamformer_path_name(path)) + "/" +
               blade_beamformer_kernel_name(kernel);
    }
};

std::vector<cf> beamform(blade_device device,
                         const problem& pr,
                         const data& d,
                         variant how,
                         size_t misalign = 0,
                         variant* used = nullptr,
                         blade_status* processed = nullptr)
{
    blade_beamformer_config config = blade_beamformer_config_default();
    config.input_type = pr.input_type;
    config.output_type = pr.output_type;
    config.incoherent = pr.incoherent;
    config.incoherent_sqrt = pr.root;
    config.path = how.path;
    config.kernel = how.kernel;
    const blade_shape in = pr.input(), ph = pr.phasors();
    blade_beamformer* bf = nullptr;
    ok(blade_beamformer_create(&bf, &config, &in, &ph, device), "create");
    if (used != nullptr)
        *used = variant{ blade_beamformer_path_used(bf), blade_beamformer_kernel_used(bf) };
    const blade_shape out = blade_beamformer_output_shape(bf);
    const size_t out_bytes = blade_tensor_bytes(pr.output_type, &out);
    std::vector<uint8_t> y(out_bytes, 0xA5);
    void *dx = nullptr, *dw = nullptr, *dy = nullptr;
    blade_stream stream = nullptr;
    const size_t wb = d.w.size() * sizeof(cf);
    if (device.kind == BLADE_DEVICE_CUDA) {
        ok(blade_stream_create(device, &stream), "stream");
        ok(blade_device_alloc(device, d.x.size() + misalign, &dx), "alloc x");
        ok(blade_device_alloc(device, wb, &dw), "alloc w");
        ok(blade_device_alloc(device, out_bytes + misalign, &dy), "alloc y");
        dx = static_cast<char*>(dx) + misalign;
        dy = static_cast<char*>(dy) + misalign;
        ok(blade_memcpy(device, dx, d.x.data(), d.x.size(), BLADE_COPY_HOST_TO_DEVICE, stream),
           "up x");
        ok(blade_memcpy(device, dw, d.w.data(), wb, BLADE_COPY_HOST_TO_DEVICE, stream), "up w");
        ok(blade_memcpy(device, dy, y.data(), out_bytes, BLADE_COPY_HOST_TO_DEVICE, stream),
           "poison y");
    } else {
        dx = const_cast<uint8_t*>(d.x.data());
        dw = const_cast<cf*>(d.w.data());
        dy = y.data();
    }
    blade_tensor xt = blade_tensor_make(pr.input_type, &in, device, dx);
    blade_tensor wt = blade_tensor_make(BLADE_CF32, &ph, device, dw);
    blade_tensor yt = blade_tensor_make(pr.output_type, &out, device, dy);
    const blade_status status = blade_beamformer_process(bf, &xt, &wt, &yt, stream);
    if (processed != nullptr)
        *processed = status;
    else
        ok(status, "process");
    if (device.kind == BLADE_DEVICE_CUDA) {
        ok(blade_memcpy(device, y.data(), dy, out_bytes, BLADE_COPY_DEVICE_TO_HOST, stream),
           "down");
        ok(blade_stream_synchronize(device, stream), "sync");
        blade_device_free(device, static_cast<char*>(dx) - misalign);
        blade_device_free(device, dw);
        blade_device_free(device, static_cast<char*>(dy) - misalign);
        blade_stream_destroy(device, stream);
    }
    blade_beamformer_destroy(bf);
    const int64_t n = blade_shape_count(&out);
    std::vector<cf> values(n);
    if (pr.output_type == BLADE_CF32) {
        std::memcpy(values.data(), y.data(), out_bytes);
    } else {
        // cf16 -> float through a one-off CPU cast (exact)
        blade_cast* cast;
        const blade_cast_config cc = { BLADE_CF16, BLADE_CF32 };
        ok(blade_cast_create(&cast, &cc, &out, blade_device_cpu()), "cast");
        blade_tensor h = blade_tensor_make(BLADE_CF16, &out, blade_device_cpu(), y.data());
        blade_tensor f = blade_tensor_make(BLADE_CF32, &out, blade_device_cpu(), values.data());
        ok(blade_cast_process(cast, &h, &f, nullptr), "cast");
        blade_cast_destroy(cast);
    }
    return values;
}

// sum_a |x||w| for every output element (for the incoherent beam: its CPU value).
std::vector<double> error_scale(const problem& pr, const data& d, const std::vector<cf>& cpu)
{
    const int64_t A = pr.A, F = pr.F, T = pr.T, P = pr.P, B = pr.B;
    std::vector<double> scale(cpu.size());
    std::vector<double> ax(A * F * T * P);
    const std::vector<uint8_t> widened =
        pr.input_type == BLADE_CF16 ? cpu_cast(BLADE_CF16, BLADE_CF32, d.x.data(), A * F * T * P)
                                    : std::vector<uint8_t>();
    for (int64_t i = 0; i < A * F * T * P; i++) {
        if (pr.input_type == BLADE_CF16)
            ax[i] = std::abs(reinterpret_cast<const cf*>(widened.data())[i]);
        else if (pr.input_type == BLADE_CI8)
            ax[i] = std::hypot(double(int8_t(d.x[2 * i])), double(int8_t(d.x[2 * i + 1])));
        else
            ax[i] = std::abs(reinterpret_cast<const cf*>(d.x.data())[i]);
    }
    for (int64_t b = 0; b < B; b++)
        for (int64_t a = 0; a < A; a++)
            for (int64_t f = 0; f < F; f++)
                for (int64_t q = 0; q < P; q++) {
                    const double aw =
                        std::abs(pr.meerkat ? d.w[b * A + a] : d.w[((b * A + a) * F + f) * P + q]);
                    for (int64_t t = 0; t < T; t++)
                        scale[((b * F + f) * T + t) * P + q] +=
                            aw * ax[((a * F + f) * T + t) * P + q];
                }
    if (pr.incoherent)
        for (int64_t i = B * F * T * P; i < (B + 1) * F * T * P; i++)
            scale[i] = std::abs(cpu[i]);
    return scale;
}

double tolerance(blade_beamformer_path path, int64_t antennas)
{
    if (path == BLADE_BEAMFORMER_TF32)
        return std::ldexp(1.0, -10) + antennas * std::ldexp(1.0, -23);
    return 1e-5;
}

struct error_stats {
    double max = 0, rms = 0;
};

error_stats compare(const problem& pr,
                    const std::vector<double>& scale,
                    const std::vector<cf>& cpu,
                    const std::vector<cf>& cuda,
                    blade_beamformer_path path)
{
    error_stats stats;
    double sum = 0;
    size_t first_bad = cpu.size();
    const double tol = tolerance(path, pr.A);
    for (size_t i = 0; i < cpu.size(); i++) {
        // (identical values pass, infinities included: a half-precision incoherent beam
        // of ci8 voltages can overflow on both sides)
        double e = cuda[i] == cpu[i]
                       ? 0.0
                       : std::abs(std::complex<double>(cuda[i]) - std::complex<double>(cpu[i])) /
                             std::max(scale[i], 1e-30);
        if (pr.output_type == BLADE_CF16) // both sides rounded to half: one half ulp each
            e = std::max(0.0,
                         e - std::ldexp(1.0, -10) * std::abs(cpu[i]) / std::max(scale[i], 1e-30));
        if (!(e <= tol) && first_bad == cpu.size())
            first_bad = i;
        stats.max = std::max(stats.max, e);
        sum += e * e;
    }
    stats.rms = std::sqrt(sum / std::max<size_t>(1, cpu.size()));
    BOOST_TEST(first_bad == cpu.size(),
               pr.text() << " path " << blade_beamformer_path_name(path) << ": element "
                         << first_bad << " off by " << stats.max << " of sum |x||w| (tolerance "
                         << tol << ")");
    return stats;
}

const variant cpu_reference{ BLADE_BEAMFORMER_FP32, BLADE_BEAMFORMER_KERNEL_DEFAULT };
const variant cpu_fp16{ BLADE_BEAMFORMER_FP16, BLADE_BEAMFORMER_KERNEL_DEFAULT };
const variant direct{ BLADE_BEAMFORMER_FP32, BLADE_BEAMFORMER_KERNEL_DIRECT };

// Every kernel of every path; the direct kernel first (the others are compared with it).
const variant all_variants[] = {
    direct,
    { BLADE_BEAMFORMER_FP32, BLADE_BEAMFORMER_KERNEL_STAGED1 },
    { BLADE_BEAMFORMER_FP32, BLADE_BEAMFORMER_KERNEL_STAGED2 },
    { BLADE_BEAMFORMER_TF32, BLADE_BEAMFORMER_KERNEL_TENSOR },
    { BLADE_BEAMFORMER_TF32X3, BLADE_BEAMFORMER_KERNEL_TENSOR },
    { BLADE_BEAMFORMER_FP16, BLADE_BEAMFORMER_KERNEL_TENSOR },
};

// The fp16 path against the CPU emulation: RMS of |gpu - cpu| over RMS of the coherent
// beams (the brief's "1e-5 of the beam RMS"; float32 accumulation of A products).
double
rms_error_of_beams(const problem& pr, const std::vector<cf>& cpu, const std::vector<cf>& cuda)
{
    const size_t coherent = static_cast<size_t>(pr.B * pr.F * pr.T * pr.P);
    double error = 0, power = 0;
    for (size_t i = 0; i < coherent; i++) {
        if (!std::isfinite(std::abs(cpu[i])))
            continue; // (cf16 output overflow on both sides)
        error += std::norm(std::complex<double>(cuda[i]) - std::complex<double>(cpu[i]));
        power += std::norm(std::complex<double>(cpu[i]));
    }
    return power > 0 ? std::sqrt(error / power) : std::sqrt(error);
}

// Values that differ between two runs that must give the same bits.
size_t count_differences(const std::vector<cf>& a, const std::vector<cf>& b)
{
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); i++)
        differ += std::memcmp(&a[i], &b[i], sizeof(cf)) != 0;
    return differ;
}

void check_all_paths(const problem& pr, uint32_t seed)
{
    const data d = make_data(pr, seed);
    const auto cpu = beamform(blade_device_cpu(), pr, d, cpu_reference);
    const auto cpu16 = beamform(blade_device_cpu(), pr, d, cpu_fp16);
    const auto scale = error_scale(pr, d, cpu);
    std::vector<cf> from_direct;
    for (const variant& how : all_variants) {
        variant used{};
        const auto cuda = beamform(gpu(), pr, d, how, 0, &used);
        BOOST_TEST(used.path == how.path);
        BOOST_TEST(used.kernel == how.kernel);
        const bool half = how.path == BLADE_BEAMFORMER_FP16;
        const error_stats stats = compare(pr, scale, half ? cpu16 : cpu, cuda, how.path);
        if (half) {
            // float32 sums in another order: 1e-5 of the beams. cf16 beams are rounded
            // once more, and where the two sums straddle a rounding boundary the
            // outputs differ by one unit of half's last place (2^-10 of the value at
            // most): the RMS over all values stays far below one rounding, u = 2^-11.
            const double relative = rms_error_of_beams(pr, cpu16, cuda);
            const double bound = pr.output_type == BLADE_CF16 ? 0x1p-11 : 1e-5;
            BOOST_TEST(relative < bound,
                       pr.text() << " fp16: RMS error " << relative << " of the RMS beam");
            std::printf("%-70s %-14s RMS error %.3g of the RMS beam (vs the CPU emulation)\n",
                        pr.text().c_str(),
                        how.text().c_str(),
                        relative);
        }
        if (how.kernel == BLADE_BEAMFORMER_KERNEL_DIRECT)
            from_direct = cuda;
        else if (how.path == BLADE_BEAMFORMER_FP32)
            BOOST_TEST(count_differences(cuda, from_direct) == 0u,
                       pr.text() << " " << how.text()
                                 << ": values differ from the direct kernel's");
        std::printf("%-70s %-14s max %.3g rms %.3g\n",
                    pr.text().c_str(),
                    how.text().c_str(),
                    stats.max,
                    stats.rms);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(edge_shapes_on_every_path)
{
    std::vector<problem> problems = {
        { 1, 1, 1, 1, 1 },
        { 7, 3, 13, 2, 5 },
        { 13, 7, 29, 1, 1 },
        { 2, 11, 131, 2, 9 },
        { 64, 2, 64, 2, 17 },
        { 5, 2, 300, 1, 16 },
        { 3, 5, 7, 2, 300 },
        { 11, 2, 17, 1, 257 },
        { 4, 1031, 1, 2, 3 },
        { 6, 512, 1, 1, 33 },
        { 33, 3, 200, 2, 65 },
        { 70, 2, 130, 1, 70 },
        { 70, 2, 129, 1, 70 },
        { 17, 3, 96, 2, 8 },
        { 20, 4, 256, 2, 1 },
        { 20, 4, 256, 2, 2 },
        // many antennas: the staged kernels' phasors still fit shared memory for 3
        // beams, not for 9 (they fall back to the direct kernel)
        { 600, 2, 16, 2, 3 },
        { 1100, 2, 16, 2, 9 },
        // Mode B after a x1024 channelizer (T = 8): too short a channel for a staged
        // warp (the direct kernel serves it); T = 40 and 200 take fewer warps along time
        { 28, 1536, 8, 2, 8 },
        { 28, 96, 40, 2, 8 },
        { 9, 40, 200, 2, 20 },
    };
    uint32_t seed = 10;
    for (size_t i = 0; i < problems.size(); i++) {
        problem pr = problems[i];
        pr.incoherent = i % 3 != 0;
        pr.root = i % 3 == 2;
        pr.meerkat = i % 4 == 3;
        pr.output_type = i % 5 == 4 ? BLADE_CF16 : BLADE_CF32;
        check_all_paths(pr, seed++);
        pr.input_type = BLADE_CI8;
        check_all_paths(pr, seed++);
        pr.input_type = BLADE_CF16;
        check_all_paths(pr, seed++);
    }
}

BOOST_AUTO_TEST_CASE(cf16_voltages_equal_cast_then_beamform_on_every_path)
{
    // cf16 values are exact in float32 and in TF32: every path gives the bits of the
    // cf32 beamformer on the widened voltages.
    problem pr{ 28, 6, 512, 2, 70 };
    pr.incoherent = true;
    pr.input_type = BLADE_CF16;
    const data d16 = make_data(pr, 78);
    problem pr32 = pr;
    pr32.input_type = BLADE_CF32;
    data d32;
    d32.w = d16.w;
    d32.x = cpu_cast(BLADE_CF16, BLADE_CF32, d16.x.data(), d16.x.size() / 4);
    for (const variant& how : all_variants) {
        const auto fused = beamform(gpu(), pr, d16, how);
        const auto cast_first = beamform(gpu(), pr32, d32, how);
        const size_t differ = count_differences(fused, cast_first);
        BOOST_TEST(differ == 0u, how.text() << ": " << differ << " values differ");
    }
}

BOOST_AUTO_TEST_CASE(ci8_voltages_equal_cast_then_beamform_on_every_path)
{
    problem pr{ 28, 6, 512, 2, 70 };
    pr.incoherent = true;
    pr.input_type = BLADE_CI8;
    const data d8 = make_data(pr, 77);
    problem pr32 = pr;
    pr32.input_type = BLADE_CF32;
    data d32;
    d32.w = d8.w;
    d32.x.resize(d8.x.size() * 4);
    auto* x32 = reinterpret_cast<cf*>(d32.x.data());
    for (size_t i = 0; i < d8.x.size() / 2; i++)
        x32[i] = cf(int8_t(d8.x[2 * i]), int8_t(d8.x[2 * i + 1]));
    for (const variant& how : all_variants) {
        const auto fused = beamform(gpu(), pr, d8, how);
        const auto cast_first = beamform(gpu(), pr32, d32, how);
        const size_t differ = count_differences(fused, cast_first);
        BOOST_TEST(differ == 0u, how.text() << ": " << differ << " values differ");
    }
}

// On a Hopper GPU the fp16 path runs beamformer_fp16_hopper.cu (wgmma) where its
// conditions hold and beamformer_fp16.cu (mma.sync) elsewhere. $BLADE_BEAMFORMER_WGMMA=1
// requires the wgmma kernel (a job it cannot run fails: so these runs are its own),
// =0 keeps to mma.sync. Both against the CPU emulation, on shapes of one and several
// antenna chunks (32) and beam groups (64), times that end inside a 64-time tile, one
// polarization and two, [B, A] phasors, and every input and output type.
static void check_fp16(const problem& pr, uint32_t seed)
{
    const data d = make_data(pr, seed);
    const auto cpu = beamform(blade_device_cpu(), pr, d, cpu_reference);
    const auto cpu16 = beamform(blade_device_cpu(), pr, d, cpu_fp16);
    const auto scale = error_scale(pr, d, cpu);
    const variant fp16{ BLADE_BEAMFORMER_FP16, BLADE_BEAMFORMER_KERNEL_TENSOR };
    const auto cuda = beamform(gpu(), pr, d, fp16);
    compare(pr, scale, cpu16, cuda, BLADE_BEAMFORMER_FP16);
    const double relative = rms_error_of_beams(pr, cpu16, cuda);
    const double bound = pr.output_type == BLADE_CF16 ? 0x1p-11 : 1e-5;
    BOOST_TEST(relative < bound,
               pr.text() << " fp16: RMS error " << relative << " of the RMS beam");
}

BOOST_AUTO_TEST_CASE(fp16_on_hopper_wgmma_and_mma_sync)
{
    blade_gpu_info info;
    if (blade_gpu_info_get(0, &info) != BLADE_OK || info.compute_major != 9) {
        BOOST_TEST_MESSAGE("not a Hopper GPU: the wgmma kernel is not tried");
        return;
    }
    std::vector<problem> problems = {
        { 1, 1, 8, 1, 1 },      { 28, 3, 200, 2, 8 }, { 33, 2, 72, 2, 65 }, { 64, 3, 128, 1, 64 },
        { 70, 2, 136, 2, 130 }, { 96, 2, 64, 2, 3 },  { 5, 40, 16, 2, 3 },  { 128, 2, 64, 2, 64 },
    };
    const blade_dtype types[3][2] = { { BLADE_CI8, BLADE_CF16 },
                                      { BLADE_CF16, BLADE_CF32 },
                                      { BLADE_CF32, BLADE_CF16 } };
    // wgmma with blocks of two warpgroups (where their stages fit, else one), of one,
    // and mma.sync
    const char* kernels[3][2] = { { "1", "2" }, { "1", "1" }, { "0", "2" } };
    uint32_t seed = 900;
    for (const auto& setting : kernels) {
        const char* kernel = setting[0];
        setenv("BLADE_BEAMFORMER_WGMMA", kernel, 1);
        setenv("BLADE_BEAMFORMER_WGMMA_GROUPS", setting[1], 1);
        for (size_t i = 0; i < problems.size(); i++) {
            for (const auto& type : types) {
                problem pr = problems[i];
                pr.input_type = type[0];
                pr.output_type = type[1];
                pr.meerkat = i % 3 == 1;
                pr.incoherent = i % 2 == 1;
                // cf32 voltages of more than 64 antennas with both polarizations: the
                // phasors and the stages exceed a block's shared memory (mma.sync only)
                if (std::strcmp(kernel, "1") == 0 && pr.A > 64 && pr.P == 2 &&
                    type[0] == BLADE_CF32)
                    continue;
                BOOST_TEST_CONTEXT("BLADE_BEAMFORMER_WGMMA=" << kernel
                                                             << ", _GROUPS=" << setting[1])
                check_fp16(pr, seed++);
            }
        }
    }
    // Rows of 13 ci8 samples x 2 polarizations are not whole 16-byte copies: required,
    // the wgmma kernel refuses the job rather than computing something else.
    setenv("BLADE_BEAMFORMER_WGMMA", "1", 1);
    problem odd{ 7, 3, 13, 2, 5 };
    odd.input_type = BLADE_CI8;
    const data d = make_data(odd, 3);
    blade_status status = BLADE_OK;
    beamform(gpu(),
             odd,
             d,
             { BLADE_BEAMFORMER_FP16, BLADE_BEAMFORMER_KERNEL_TENSOR },
             0,
             nullptr,
             &status);
    BOOST_TEST(status == BLADE_ERROR_UNSUPPORTED);
    unsetenv("BLADE_BEAMFORMER_WGMMA");
    unsetenv("BLADE_BEAMFORMER_WGMMA_GROUPS");
}

BOOST_AUTO_TEST_CASE(misaligned_tensors_take_the_general_kernels)
{
    // 8-byte offsets: the CUDA-core kernel's vector loads and the tensor kernel's 16-byte
    // copies and stores cannot be used; the results must not change.
    problem pr{ 40, 3, 130, 2, 40 };
    pr.incoherent = true;
    const data d = make_data(pr, 5);
    const auto cpu = beamform(blade_device_cpu(), pr, d, cpu_reference);
    const auto scale = error_scale(pr, d, cpu);
    const auto cpu16 = beamform(blade_device_cpu(), pr, d, cpu_fp16);
    for (const variant& how : all_variants) {
        const auto cuda = beamform(gpu(), pr, d, how, 8);
        // a misaligned output makes the TF32 paths fall back to fp32 (and the staged
        // kernels to the direct kernel); the fp16 kernel stores element by element
        const bool half = how.path == BLADE_BEAMFORMER_FP16;
        compare(pr, scale, half ? cpu16 : cpu, cuda, BLADE_BEAMFORMER_FP32);
    }
}

BOOST_AUTO_TEST_CASE(auto_path_choice)
{
    problem small{ 28, 4, 256, 2, 8 }, large{ 64, 4, 256, 2, 64 },
        short_chunks{ 64, 256, 16, 2, 64 };
    const data d1 = make_data(small, 1), d2 = make_data(large, 2), d3 = make_data(short_chunks, 3);
    const variant automatic{ BLADE_BEAMFORMER_AUTO, BLADE_BEAMFORMER_KERNEL_DEFAULT };
    variant used{};
    beamform(gpu(), small, d1, automatic, 0, &used);
    BOOST_TEST(used.path == BLADE_BEAMFORMER_FP32);
    BOOST_TEST(used.kernel != BLADE_BEAMFORMER_KERNEL_DEFAULT); // resolved
    beamform(gpu(), large, d2, automatic, 0, &used);
    BOOST_TEST(used.path == BLADE_BEAMFORMER_TF32X3);
    BOOST_TEST(used.kernel == BLADE_BEAMFORMER_KERNEL_TENSOR);
    beamform(gpu(), short_chunks, d3, automatic, 0, &used);
    BOOST_TEST(used.path == BLADE_BEAMFORMER_FP32);
    // an explicit kernel decides between CUDA cores and tensor cores
    beamform(gpu(),
             large,
             d2,
             variant{ BLADE_BEAMFORMER_AUTO, BLADE_BEAMFORMER_KERNEL_STAGED2 },
             0,
             &used);
    BOOST_TEST(used.path == BLADE_BEAMFORMER_FP32);
    BOOST_TEST(used.kernel == BLADE_BEAMFORMER_KERNEL_STAGED2);
    beamform(gpu(),
             small,
             d1,
             variant{ BLADE_BEAMFORMER_AUTO, BLADE_BEAMFORMER_KERNEL_TENSOR },
             0,
             &used);
    BOOST_TEST(used.path == BLADE_BEAMFORMER_TF32X3);
}

BOOST_AUTO_TEST_CASE(benchmark_shapes)
{
    // The ATA shapes of performance.md (channels reduced where the CPU reference
    // would take minutes); these lines give the errors quoted in the docs.
    problem ata{ 20, 192, 8192, 2, 8 };
    ata.incoherent = true;
    ata.input_type = BLADE_CI8;
    {
        const data d = make_data(ata, 11);
        const auto cpu = beamform(blade_device_cpu(), ata, d, cpu_reference);
        const auto scale = error_scale(ata, d, cpu);
        const auto from_direct = beamform(gpu(), ata, d, direct);
        for (const variant& how : all_variants) {
            if (how.path != BLADE_BEAMFORMER_FP32)
                continue;
            const auto cuda = beamform(gpu(), ata, d, how);
            const error_stats s = compare(ata, scale, cpu, cuda, BLADE_BEAMFORMER_FP32);
            BOOST_TEST(count_differences(cuda, from_direct) == 0u,
                       how.text() << ": values differ from direct");
            std::printf("%-70s %-14s max %.3g rms %.3g\n",
                        ata.text().c_str(),
                        how.text().c_str(),
                        s.max,
                        s.rms);
        }
    }
    check_all_paths(problem{ 28, 24, 8192, 2, 32 }, 12);
    check_all_paths(problem{ 64, 12, 8192, 2, 64 }, 13);
    problem ci8_large{ 64, 12, 8192, 2, 64 };
    ci8_large.input_type = BLADE_CI8;
    check_all_paths(ci8_large, 14);
    problem cf16_large{ 64, 12, 8192, 2, 64 };
    cf16_large.input_type = BLADE_CF16;
    check_all_paths(cf16_large, 17);
    check_all_paths(problem{ 64, 4, 2048, 2, 256 }, 15);
    // enough time spans that a block of the staged kernels computes several in a row
    // (its voltage prefetch runs on across spans)
    check_all_paths(problem{ 2, 64, 65536, 2, 3 }, 16);
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
