// SPDX-License-Identifier: MIT
//
// Detector kernels.
//
// A chunk is seen as `rows` runs of I consecutive time samples (row r starts at
// sample r·I; a sample of two polarizations is one float4). Each row is reduced by
// a group of G lanes of one warp, G the largest power of two that divides I (at
// most 32): lane m of the group sums samples m, m + G, m + 2G, … of the row
// sequentially, turns its sums into the mode's outputs (they are linear in the
// sums), and the G lanes then combine their outputs with shuffles: first a
// reduce-scatter (each exchange halves the outputs a lane holds, so four Stokes
// values over eight lanes cost four shuffles rather than twelve), then a butterfly
// for the lanes left. At every step consecutive lanes read consecutive 16-byte
// samples (coalesced 512-byte warp accesses), and the order of every sum depends on
// I alone: not on the grid, the block size or the GPU. Each output is written by
// one lane, with no atomics, so runs are bit-for-bit repeatable (upstream BLADE
// zeroed its output from several thread blocks at once and raced; here nothing is
// shared).
//
// Three kernels share that scheme and differ only in how they keep loads in
// flight: one sample per lane and row (I = G) streams the chunk like an
// element-wise kernel; a few samples per lane take several adjacent rows per warp;
// long rows keep several samples of one row in flight. The choice depends on I
// alone, and all three add each lane's samples in increasing time.
//
// Half-precision voltages (cf16): the same kernels read 8-byte samples (two
// polarizations; 4 bytes for one) and widen them to float before the mode adds
// them, so the sums are those of the cf32 cast, bit for bit, and stay in float.
//
// Integration across chunks: the output of a step is destination = previous + sum,
// where previous is the plan's accumulator (absent on a group's first step) and
// destination the accumulator or, on the last step, the output.

#include "cuda_check.h"
#include "detector_backend.h"

#include <cuda_fp16.h>
#include <type_traits>
#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int kFlatUnroll = 4;      // samples per lane per pass when a row is one sample per lane
constexpr int kRowsInFlight = 4;    // rows per warp per pass when each lane reads a few samples
constexpr int kSamplesInFlight = 4; // samples per lane per pass along long rows

// Partial sums of one lane: the raw products a mode needs.
template <int N>
struct sums {
    float v[N];
};

// One policy per mode: the sample type read, the sums kept, how a sample adds to
// them, and how sums become the mode's outputs (a linear map, so it may be applied
// to each lane's partial sums before they are combined).
struct total_power_single { // mode I with one polarization
    using sample = float2;
    static constexpr int kept = 1, outputs = 1;
    __device__ static void add(sums<kept>& s, float2 x) { s.v[0] += fmaf(x.x, x.x, x.y * x.y); }
    __device__ static void finish(const sums<kept>& s, float (&out)[outputs]) { out[0] = s.v[0]; }
};

struct total_power_dual { // mode I
    using sample = float4;
    static constexpr int kept = 1, outputs = 1;
    __device__ static void add(sums<kept>& s, float4 v)
    {
        s.v[0] += fmaf(v.x, v.x, v.y * v.y) + fmaf(v.z, v.z, v.w * v.w);
    }
    __device__ static void finish(const sums<kept>& s, float (&out)[outputs]) { out[0] = s.v[0]; }
};

struct dual_powers { // mode XXYY
    using sample = float4;
    static constexpr int kept = 2, outputs = 2;
    __device__ static void add(sums<kept>& s, float4 v)
    {
        s.v[0] += fmaf(v.x, v.x, v.y * v.y);
        s.v[1] += fmaf(v.z, v.z, v.w * v.w);
    }
    __device__ static void finish(const sums<kept>& s, float (&out)[outputs])
    {
        out[0] = s.v[0];
        out[1] = s.v[1];
    }
};

// X·Y* = (xr·yr + xi·yi) + i (xi·yr − xr·yi) with v = (xr, xi, yr, yi)
__device__ inline void add_products(sums<4>& s, float4 v)
{
    s.v[0] += fmaf(v.x, v.x, v.y * v.y);
    s.v[1] += fmaf(v.z, v.z, v.w * v.w);
    s.v[2] += fmaf(v.x, v.z, v.y * v.w);
    s.v[3] += fmaf(v.y, v.z, -(v.x * v.w));
}

// A lower-sideband band's voltages are the sky's conjugates: Im(X·Y*) changes sign.
template <bool LowerSideband>
struct cross_products { // mode cross
    using sample = float4;
    static constexpr int kept = 4, outputs = 4;
    __device__ static void add(sums<kept>& s, float4 v) { add_products(s, v); }
    __device__ static void finish(const sums<kept>& s, float (&out)[outputs])
    {
        out[0] = s.v[0];
        out[1] = s.v[1];
        out[2] = s.v[2];
        out[3] = LowerSideband ? -s.v[3] : s.v[3];
    }
};

template <bool LowerSideband>
struct stokes_iquv { // mode IQUV (IAU, linear feeds)
    using sample = float4;
    static constexpr int kept = 4, outputs = 4;
    __device__ static void add(sums<kept>& s, float4 v) { add_products(s, v); }
    __device__ static void finish(const sums<kept>& s, float (&out)[outputs])
    {
        out[0] = s.v[0] + s.v[1];
        out[1] = s.v[0] - s.v[1];
        out[2] = 2.0f * s.v[2];
        out[3] = LowerSideband ? 2.0f * s.v[3] : -2.0f * s.v[3];
    }
};

// A mode reading cf16: a sample is a uint2 (X and Y as two __half2) or, with one
// polarization, a uint32_t (one __half2), widened to the float sample of Mode.
__device__ inline float2 widen(uint32_t bits)
{
    __half2 h;
    memcpy(&h, &bits, sizeof h);
    return __half22float2(h);
}

__device__ inline float4 widen(uint2 bits)
{
    const float2 x = widen(bits.x), y = widen(bits.y);
    return make_float4(x.x, x.y, y.x, y.y);
}

template <class Mode>
struct half_input_mode : Mode {
    using sample =
        std::conditional_t<std::is_same_v<typename Mode::sample, float4>, uint2, uint32_t>;
    __device__ static void add(sums<Mode::kept>& s, sample v) { Mode::add(s, widen(v)); }
};

// Loads in flight per lane: a cf16 sample is half the bytes of a cf32 one, so the
// kernels keep twice as many in flight for it (as many bytes as for cf32; the order
// of each lane's additions does not change, so neither do the sums).
template <class Mode>
struct loads_factor {
    static constexpr int value = 1;
};
template <class Mode>
struct loads_factor<half_input_mode<Mode>> {
    static constexpr int value = 2;
};

constexpr int log2_of(int n) { return n <= 1 ? 0 : 1 + log2_of(n / 2); }

// Combine the N outputs of the 2^log2_group lanes of each group. Reduce-scatter
// first: at each exchange a lane keeps half of the values it holds (the upper half
// when its bit at that offset is set) and adds its partner's copy of them. When one
// value is left (or the offsets run out) a butterfly finishes the sum. Returns the
// index of the first output the lane now holds in v[0 ...]; it holds
// max(1, N >> log2_group) of them.
template <int N>
__device__ inline int combine_group(float (&v)[N], int log2_group, int lane)
{
    int first = 0;
    int offset = (1 << log2_group) >> 1;
#pragma unroll
    for (int step = 0; step < log2_of(N); step++) {
        if (offset == 0)
            break;
        const int half = N >> (step + 1);
        const bool upper = (lane & offset) != 0;
#pragma unroll
        for (int j = 0; j < half; j++) {
            const float send = upper ? v[j] : v[j + half];
            const float keep = upper ? v[j + half] : v[j];
            v[j] = keep + __shfl_xor_sync(0xffffffffu, send, offset);
        }
        if (upper)
            first += half;
        offset >>= 1;
    }
    for (; offset > 0; offset >>= 1)
        v[0] += __shfl_xor_sync(0xffffffffu, v[0], offset);
    return first;
}

// Write what one lane holds after combine_group(); of the lanes holding the same
// outputs, the one whose remaining offset bits are zero writes.
template <int N>
__device__ inline void store_outputs(const float (&v)[N],
                                     int first,
                                     int64_t row,
                                     int member,
                                     int log2_group,
                                     const float* previous,
                                     float* destination,
                                     float scale)
{
    const int scatter_steps = log2_group < log2_of(N) ? log2_group : log2_of(N);
    const int duplicates = ((1 << log2_group) >> scatter_steps) - 1;
    if ((member & duplicates) != 0)
        return;
    const int held = N >> scatter_steps;
#pragma unroll
    for (int j = 0; j < N; j++) {
        if (j < held) {
            const int64_t at = row * N + first + j;
            const float total = previous ? previous[at] + v[j] : v[j];
            destination[at] = scale == 1.0f ? total : total * scale;
        }
    }
}

// Reduce one row's lane sums and write the row's outputs.
template <class Mode>
__device__ inline void finish_row(const sums<Mode::kept>& s,
                                  bool valid,
                                  int64_t row,
                                  int lane,
                                  int member,
                                  int log2_group,
                                  const float* previous,
                                  float* destination,
                                  float scale)
{
    float out[Mode::outputs];
    Mode::finish(s, out);
    const int first = combine_group(out, log2_group, lane);
    if (valid)
        store_outputs(out, first, row, member, log2_group, previous, destination, scale);
}

// Where a lane stands: its group of G = 2^log2_group lanes in the warp (a row is
// reduced by one group), its place in the group, and the grid's warps.
struct lane_place {
    int log2_group, group_size, lane, member;
    int64_t groups_per_warp, warp, warps;

    __device__ explicit lane_place(int log2)
        : log2_group(log2),
          group_size(1 << log2),
          lane(threadIdx.x & 31),
          member(threadIdx.x & 31 & ((1 << log2) - 1)),
          groups_per_warp(32 >> log2),
          warp((static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5),
          warps((static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5)
    {
    }

    // The group's row among the rows of `task` (a warp's worth of groups).
    __device__ int64_t row_of(int64_t task) const
    {
        return task * groups_per_warp + (lane >> log2_group);
    }
};

// One sample per lane and row (I = G: 1, 2, 4, 8, 16 or 32). Groups of I lanes
// tile each warp's 32 consecutive samples exactly, so the chunk is streamed like
// an element-wise kernel: every thread loads kFlatUnroll samples (twice as many
// cf16 ones) a grid stride
// apart (all loads in flight at once) and each group of lanes combines one row.
template <class Mode>
__global__ void __launch_bounds__(kThreads)
    detect_one_sample_per_lane_kernel(const typename Mode::sample* __restrict__ input,
                                      int64_t samples,
                                      int log2_group,
                                      const float* previous,
                                      float* destination,
                                      float scale)
{
    using sample = typename Mode::sample;
    constexpr int per_pass = kFlatUnroll * loads_factor<Mode>::value;
    const lane_place at(log2_group);
    const int lane = at.lane;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x; // a multiple of 32
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    // (first - lane) is the warp's first sample: the condition is warp-uniform, so
    // the shuffles always see the full warp; lanes past the end add zeros.
    for (int64_t base = first; base - lane < samples; base += per_pass * stride) {
        sample v[per_pass];
#pragma unroll
        for (int u = 0; u < per_pass; u++) {
            const int64_t i = base + u * stride;
            v[u] = i < samples ? __ldcs(&input[i]) : sample{};
        }
#pragma unroll
        for (int u = 0; u < per_pass; u++) {
            const int64_t i = base + u * stride;
            if (i - lane >= samples) // the whole warp is past the end
                break;
            sums<Mode::kept> s = {};
            Mode::add(s, v[u]);
            finish_row<Mode>(s,
                             i < samples,
                             i >> log2_group,
                             lane,
                             at.member,
                             log2_group,
                             previous,
                             destination,
                             scale);
        }
    }
}

// Rows of a few samples per lane (1 < I / G < kSamplesInFlight): each warp takes
// kRowsInFlight adjacent tasks per pass, so that every lane has that many loads in
// flight. Modes with few sums fit in 64 registers, which lets more warps run.
template <class Mode>
__global__ void __launch_bounds__(kThreads, Mode::kept <= 2 ? 4 : 1)
    detect_short_rows_kernel(const typename Mode::sample* __restrict__ input,
                             int64_t rows,
                             int64_t integration,
                             int log2_group,
                             const float* previous,
                             float* destination,
                             float scale)
{
    using sample = typename Mode::sample;
    constexpr int rows_in_flight = kRowsInFlight * loads_factor<Mode>::value;
    const lane_place at(log2_group);
    const int64_t per_lane = integration >> log2_group;
    const int64_t groups = at.groups_per_warp;
    const int64_t passes = (rows + rows_in_flight * groups - 1) / (rows_in_flight * groups);
    // The loop condition is the same for every lane of a warp, so the shuffles
    // below always see the full warp.
    for (int64_t pass = at.warp; pass < passes; pass += at.warps) {
        // The pass's rows u = 0 .. rows_in_flight - 1 follow each other in memory.
        const int64_t row = at.row_of(pass * rows_in_flight);
        const sample* first = input + row * integration + at.member;
        sums<Mode::kept> s[rows_in_flight] = {};
        for (int64_t i = 0; i < per_lane; i++) {
            sample v[rows_in_flight];
#pragma unroll
            for (int u = 0; u < rows_in_flight; u++)
                if (row + u * groups < rows)
                    v[u] = __ldcs(&first[(u * groups) * integration + i * at.group_size]);
#pragma unroll
            for (int u = 0; u < rows_in_flight; u++)
                if (row + u * groups < rows)
                    Mode::add(s[u], v[u]);
        }
#pragma unroll
        for (int u = 0; u < rows_in_flight; u++) {
            const int64_t r = row + u * groups;
            finish_row<Mode>(
                s[u], r < rows, r, at.lane, at.member, log2_group, previous, destination, scale);
        }
    }
}

// Rows of many samples per lane: each warp takes one task per pass and keeps
// kSamplesInFlight loads of its own row in flight. The order of the additions is
// the same as in the other kernels (each lane's samples in increasing time).
template <class Mode>
__global__ void __launch_bounds__(kThreads)
    detect_long_rows_kernel(const typename Mode::sample* __restrict__ input,
                            int64_t rows,
                            int64_t integration,
                            int log2_group,
                            const float* previous,
                            float* destination,
                            float scale)
{
    using sample = typename Mode::sample;
    constexpr int samples_in_flight = kSamplesInFlight * loads_factor<Mode>::value;
    const lane_place at(log2_group);
    const int64_t per_lane = integration >> log2_group;
    const int64_t tasks = (rows + at.groups_per_warp - 1) / at.groups_per_warp;
    for (int64_t task = at.warp; task < tasks; task += at.warps) {
        const int64_t row = at.row_of(task);
        sums<Mode::kept> s = {};
        if (row < rows) {
            const sample* first = input + row * integration + at.member;
            int64_t i = 0;
            for (; i + samples_in_flight <= per_lane; i += samples_in_flight) {
                sample v[samples_in_flight];
#pragma unroll
                for (int u = 0; u < samples_in_flight; u++)
                    v[u] = __ldcs(&first[(i + u) * at.group_size]);
#pragma unroll
                for (int u = 0; u < samples_in_flight; u++)
                    Mode::add(s, v[u]);
            }
            for (; i < per_lane; i++)
                Mode::add(s, __ldcs(&first[i * at.group_size]));
        }
        finish_row<Mode>(
            s, row < rows, row, at.lane, at.member, log2_group, previous, destination, scale);
    }
}

template <class Mode>
blade_status launch(const void* input,
                    int64_t rows,
                    int64_t integration,
                    const float* previous,
                    float* destination,
                    float scale,
                    cudaStream_t stream)
{
    int log2_group = 0;
    while (log2_group < 5 && integration % (int64_t{ 2 } << log2_group) == 0)
        log2_group++;
    const int64_t per_lane = integration >> log2_group;
    const int64_t groups_per_warp = 32 >> log2_group;
    constexpr int per_pass = kFlatUnroll * loads_factor<Mode>::value;
    constexpr int rows_in_flight = kRowsInFlight * loads_factor<Mode>::value;
    const auto* samples = reinterpret_cast<const typename Mode::sample*>(input);
    const int warps_per_block = kThreads / 32;
    // Grids large enough for one pass per warp (no tail of warps doing a second).
    const unsigned limit = 65535u * 8u;
    if (per_lane == 1) {
        const int64_t count = rows * integration;
        const unsigned blocks = blade_grid_size((count + per_pass - 1) / per_pass, kThreads, limit);
        detect_one_sample_per_lane_kernel<Mode><<<blocks, kThreads, 0, stream>>>(
            samples, count, log2_group, previous, destination, scale);
        BLADE_CUDA_CHECK_LAUNCH("detect_one_sample_per_lane_kernel");
    } else if (per_lane < kSamplesInFlight) {
        const int64_t passes =
            (rows + rows_in_flight * groups_per_warp - 1) / (rows_in_flight * groups_per_warp);
        const unsigned blocks = blade_grid_size(passes, warps_per_block, limit);
        detect_short_rows_kernel<Mode><<<blocks, kThreads, 0, stream>>>(
            samples, rows, integration, log2_group, previous, destination, scale);
        BLADE_CUDA_CHECK_LAUNCH("detect_short_rows_kernel");
    } else {
        const int64_t tasks = (rows + groups_per_warp - 1) / groups_per_warp;
        const unsigned blocks = blade_grid_size(tasks, warps_per_block, limit);
        detect_long_rows_kernel<Mode><<<blocks, kThreads, 0, stream>>>(
            samples, rows, integration, log2_group, previous, destination, scale);
        BLADE_CUDA_CHECK_LAUNCH("detect_long_rows_kernel");
    }
    return BLADE_OK;
}

// One call's buffers and shape, as the public entry point received them.
struct launch_args {
    const void* input;
    int64_t rows;
    int64_t integration;
    const float* previous;
    float* destination;
    float scale;
    cudaStream_t stream;
};

// The mode on cf32 voltages, or on cf16 ones widened as they are read.
template <class Mode>
blade_status launch_for(bool half_input, const launch_args& a)
{
    if (half_input)
        return launch<half_input_mode<Mode>>(
            a.input, a.rows, a.integration, a.previous, a.destination, a.scale, a.stream);
    return launch<Mode>(
        a.input, a.rows, a.integration, a.previous, a.destination, a.scale, a.stream);
}

// A mode whose sign depends on the band's sideband: both instances are compiled and
// the sideband picks one at run time.
template <template <bool> class Mode>
blade_status launch_for_sideband(bool lower_sideband, bool half_input, const launch_args& a)
{
    if (lower_sideband)
        return launch_for<Mode<true>>(half_input, a);
    return launch_for<Mode<false>>(half_input, a);
}

} // namespace

extern "C" blade_status blade_cuda_detect(const void* input,
                                          bool half_input,
                                          int64_t rows,
                                          int64_t integration,
                                          int polarizations,
                                          blade_detector_mode mode,
                                          bool lower_sideband,
                                          const float* previous,
                                          float* destination,
                                          float scale,
                                          void* stream_handle)
{
    if (rows <= 0)
        return BLADE_OK;
    const size_t alignment = (polarizations == 2 ? 16 : 8) / (half_input ? 2 : 1);
    if (reinterpret_cast<uintptr_t>(input) % alignment != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: CUDA input must be %zu-byte aligned (cudaMalloc memory "
                          "and gr-blade items are)",
                          alignment);
    const launch_args args = { input,
                               rows,
                               integration,
                               previous,
                               destination,
                               scale,
                               static_cast<cudaStream_t>(stream_handle) };
    if (polarizations == 1) {
        if (mode != BLADE_DETECT_I)
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "detector: mode %s needs two polarizations",
                              blade_detector_mode_name(mode));
        return launch_for<total_power_single>(half_input, args);
    }
    switch (mode) {
    case BLADE_DETECT_I:
        return launch_for<total_power_dual>(half_input, args);
    case BLADE_DETECT_XXYY:
        return launch_for<dual_powers>(half_input, args);
    case BLADE_DETECT_CROSS:
        return launch_for_sideband<cross_products>(lower_sideband, half_input, args);
    case BLADE_DETECT_IQUV:
        return launch_for_sideband<stokes_iquv>(lower_sideband, half_input, args);
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "detector: unknown mode code %d", (int)mode);
}
