// SPDX-License-Identifier: MIT
//
// Detector kernels.
//
// A chunk is seen as `rows` runs of I consecutive time samples (row r starts at
// sample r·I; a sample of two polarizations is one float4). Each row is reduced by
// a group of G lanes of one warp, G the largest power of two that divides I (at
// most 32): lane m of the group sums samples m, m + G, m + 2G, … of the row
// sequentially, then the G partial sums are combined by a butterfly of shuffles.
// So, at every step, consecutive lanes read consecutive 16-byte samples (coalesced
// 512-byte warp accesses), and the order of every sum depends on I alone: not on
// the grid, the block size or the GPU. Each output is written by one lane, with no
// atomics, so runs are bit-for-bit repeatable (upstream BLADE zeroed its output
// from several thread blocks at once and raced; here nothing is shared).
//
// Integration across chunks: the output of a step is destination = previous + sum,
// where previous is the plan's accumulator (absent on a group's first step) and
// destination the accumulator or, on the last step, the output.

#include "cuda_check.h"
#include "detector_backend.h"

#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int kRowsInFlight = 4; // rows per warp per pass when each lane reads few samples
constexpr int kSamplesInFlight = 4; // samples per lane per pass along long rows

// Partial sums of one lane: the raw products a mode needs.
template <int N>
struct sums {
    float v[N];
};

// One policy per mode: the sample type read, the sums kept, how a sample adds to
// them, and how the final sums become the mode's outputs.
struct total_power_single { // mode I with one polarization
    using sample = float2;
    static constexpr int kept = 1, outputs = 1;
    __device__ static void add(sums<kept>& s, float2 x) { s.v[0] += fmaf(x.x, x.x, x.y * x.y); }
    __device__ static float output(const sums<kept>& s, int) { return s.v[0]; }
};

struct total_power_dual { // mode I
    using sample = float4;
    static constexpr int kept = 1, outputs = 1;
    __device__ static void add(sums<kept>& s, float4 v)
    {
        s.v[0] += fmaf(v.x, v.x, v.y * v.y) + fmaf(v.z, v.z, v.w * v.w);
    }
    __device__ static float output(const sums<kept>& s, int) { return s.v[0]; }
};

struct dual_powers { // mode XXYY
    using sample = float4;
    static constexpr int kept = 2, outputs = 2;
    __device__ static void add(sums<kept>& s, float4 v)
    {
        s.v[0] += fmaf(v.x, v.x, v.y * v.y);
        s.v[1] += fmaf(v.z, v.z, v.w * v.w);
    }
    __device__ static float output(const sums<kept>& s, int c) { return s.v[c]; }
};

// X·Y* = (xr·yr + xi·yi) + i (xi·yr − xr·yi) with v = (xr, xi, yr, yi)
__device__ inline void add_products(sums<4>& s, float4 v)
{
    s.v[0] += fmaf(v.x, v.x, v.y * v.y);
    s.v[1] += fmaf(v.z, v.z, v.w * v.w);
    s.v[2] += fmaf(v.x, v.z, v.y * v.w);
    s.v[3] += fmaf(v.y, v.z, -(v.x * v.w));
}

struct cross_products { // mode cross
    using sample = float4;
    static constexpr int kept = 4, outputs = 4;
    __device__ static void add(sums<kept>& s, float4 v) { add_products(s, v); }
    __device__ static float output(const sums<kept>& s, int c) { return s.v[c]; }
};

struct stokes_iquv { // mode IQUV (IAU, linear feeds)
    using sample = float4;
    static constexpr int kept = 4, outputs = 4;
    __device__ static void add(sums<kept>& s, float4 v) { add_products(s, v); }
    __device__ static float output(const sums<kept>& s, int c)
    {
        switch (c) {
        case 0:
            return s.v[0] + s.v[1];
        case 1:
            return s.v[0] - s.v[1];
        case 2:
            return 2.0f * s.v[2];
        default:
            return -2.0f * s.v[3];
        }
    }
};

// Combine the partial sums of the G lanes of each group. After the butterfly every
// lane of a group holds the same total, combined in the same fixed tree.
template <int N>
__device__ inline void combine_group(sums<N>& s, int group_size)
{
    for (int offset = group_size >> 1; offset > 0; offset >>= 1)
#pragma unroll
        for (int k = 0; k < N; k++)
            s.v[k] += __shfl_xor_sync(0xffffffffu, s.v[k], offset);
}

// Lanes of the group share the stores: lane m writes outputs m, m + G, ...
template <class Mode>
__device__ inline void store_row(const sums<Mode::kept>& s,
                                 int64_t row,
                                 int member,
                                 int group_size,
                                 const float* previous,
                                 float* destination)
{
    for (int c = member; c < Mode::outputs; c += group_size) {
        const int64_t at = row * Mode::outputs + c;
        const float value = Mode::output(s, c);
        destination[at] = previous ? previous[at] + value : value;
    }
}

// Rows of few samples per lane (I / G < kSamplesInFlight): each warp takes
// kRowsInFlight tasks per pass, so that every lane has that many loads in flight.
template <class Mode>
__global__ void __launch_bounds__(kThreads) detect_short_rows_kernel(
    const typename Mode::sample* __restrict__ input,
    int64_t rows,
    int64_t integration,
    int log2_group,
    const float* previous,
    float* destination)
{
    using sample = typename Mode::sample;
    const int group_size = 1 << log2_group;
    const int lane = threadIdx.x & 31, member = lane & (group_size - 1);
    const int64_t groups_per_warp = 32 >> log2_group;
    const int64_t per_lane = integration >> log2_group;
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
    const int64_t tasks = (rows + groups_per_warp - 1) / groups_per_warp;
    // The loop condition is the same for every lane of a warp, so the shuffles
    // below always see the full warp.
    for (int64_t task = warp; task < tasks; task += kRowsInFlight * warps) {
        int64_t row[kRowsInFlight];
        sums<Mode::kept> s[kRowsInFlight];
#pragma unroll
        for (int u = 0; u < kRowsInFlight; u++) {
            row[u] = (task + u * warps) * groups_per_warp + (lane >> log2_group);
#pragma unroll
            for (int k = 0; k < Mode::kept; k++)
                s[u].v[k] = 0.0f;
        }
        for (int64_t i = 0; i < per_lane; i++) {
            sample v[kRowsInFlight];
#pragma unroll
            for (int u = 0; u < kRowsInFlight; u++)
                if (row[u] < rows)
                    v[u] = __ldcs(&input[row[u] * integration + i * group_size + member]);
#pragma unroll
            for (int u = 0; u < kRowsInFlight; u++)
                if (row[u] < rows)
                    Mode::add(s[u], v[u]);
        }
#pragma unroll
        for (int u = 0; u < kRowsInFlight; u++) {
            combine_group(s[u], group_size);
            if (row[u] < rows)
                store_row<Mode>(s[u], row[u], member, group_size, previous, destination);
        }
    }
}

// Rows of many samples per lane: each warp takes one task per pass and keeps
// kSamplesInFlight loads of its own row in flight. The order of the additions is
// the same as in the short-row kernel (each lane's samples in increasing time).
template <class Mode>
__global__ void __launch_bounds__(kThreads) detect_long_rows_kernel(
    const typename Mode::sample* __restrict__ input,
    int64_t rows,
    int64_t integration,
    int log2_group,
    const float* previous,
    float* destination)
{
    using sample = typename Mode::sample;
    const int group_size = 1 << log2_group;
    const int lane = threadIdx.x & 31, member = lane & (group_size - 1);
    const int64_t groups_per_warp = 32 >> log2_group;
    const int64_t per_lane = integration >> log2_group;
    const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
    const int64_t tasks = (rows + groups_per_warp - 1) / groups_per_warp;
    for (int64_t task = warp; task < tasks; task += warps) {
        const int64_t row = task * groups_per_warp + (lane >> log2_group);
        sums<Mode::kept> s;
#pragma unroll
        for (int k = 0; k < Mode::kept; k++)
            s.v[k] = 0.0f;
        if (row < rows) {
            const sample* at = input + row * integration + member;
            int64_t i = 0;
            for (; i + kSamplesInFlight <= per_lane; i += kSamplesInFlight) {
                sample v[kSamplesInFlight];
#pragma unroll
                for (int u = 0; u < kSamplesInFlight; u++)
                    v[u] = __ldcs(&at[(i + u) * group_size]);
#pragma unroll
                for (int u = 0; u < kSamplesInFlight; u++)
                    Mode::add(s, v[u]);
            }
            for (; i < per_lane; i++)
                Mode::add(s, __ldcs(&at[i * group_size]));
        }
        combine_group(s, group_size);
        if (row < rows)
            store_row<Mode>(s, row, member, group_size, previous, destination);
    }
}

template <class Mode>
blade_status launch(const float* input,
                    int64_t rows,
                    int64_t integration,
                    const float* previous,
                    float* destination,
                    cudaStream_t stream)
{
    int log2_group = 0;
    while (log2_group < 5 && integration % (int64_t{ 2 } << log2_group) == 0)
        log2_group++;
    const int64_t per_lane = integration >> log2_group;
    const int64_t groups_per_warp = 32 >> log2_group;
    const int64_t tasks = (rows + groups_per_warp - 1) / groups_per_warp;
    const auto* samples = reinterpret_cast<const typename Mode::sample*>(input);
    const int warps_per_block = kThreads / 32;
    const unsigned limit = 16u * blade_cuda_multiprocessors();
    if (per_lane < kSamplesInFlight) {
        const unsigned blocks =
            blade_grid_size((tasks + kRowsInFlight - 1) / kRowsInFlight, warps_per_block, limit);
        detect_short_rows_kernel<Mode><<<blocks, kThreads, 0, stream>>>(
            samples, rows, integration, log2_group, previous, destination);
        BLADE_CUDA_CHECK_LAUNCH("detect_short_rows_kernel");
    } else {
        const unsigned blocks = blade_grid_size(tasks, warps_per_block, limit);
        detect_long_rows_kernel<Mode><<<blocks, kThreads, 0, stream>>>(
            samples, rows, integration, log2_group, previous, destination);
        BLADE_CUDA_CHECK_LAUNCH("detect_long_rows_kernel");
    }
    return BLADE_OK;
}

} // namespace

extern "C" blade_status blade_cuda_detect(const float* input,
                                          int64_t rows,
                                          int64_t integration,
                                          int polarizations,
                                          blade_detector_mode mode,
                                          const float* previous,
                                          float* destination,
                                          void* stream_handle)
{
    if (rows <= 0)
        return BLADE_OK;
    const size_t alignment = polarizations == 2 ? 16 : 8;
    if (reinterpret_cast<uintptr_t>(input) % alignment != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: CUDA input must be %zu-byte aligned (cudaMalloc memory "
                          "and gr-blade items are)",
                          alignment);
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (polarizations == 1) {
        if (mode != BLADE_DETECT_I)
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "detector: mode %s needs two polarizations",
                              blade_detector_mode_name(mode));
        return launch<total_power_single>(input, rows, integration, previous, destination, stream);
    }
    switch (mode) {
    case BLADE_DETECT_I:
        return launch<total_power_dual>(input, rows, integration, previous, destination, stream);
    case BLADE_DETECT_XXYY:
        return launch<dual_powers>(input, rows, integration, previous, destination, stream);
    case BLADE_DETECT_CROSS:
        return launch<cross_products>(input, rows, integration, previous, destination, stream);
    case BLADE_DETECT_IQUV:
        return launch<stokes_iquv>(input, rows, integration, previous, destination, stream);
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "detector: unknown mode code %d", (int)mode);
}
