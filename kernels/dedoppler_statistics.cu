// SPDX-License-Identifier: MIT
//
// The dedoppler's MAD statistics on the device: the median of each coarse channel's
// zero-drift sums, then the median of their absolute deviations from it, by radix
// selection. Each statistic is an order statistic (or the mean of two), an exact
// element of its set, so the device finds the very values the host's quickselect
// does (lib/core/dedoppler_statistics.c) and, with the same double arithmetic around
// them (no FMA), the same centres and spreads bit for bit, without downloading the
// sums (256 MB per search for a GBT node).
//
// A selection keeps, per segment and rank, the key prefix found so far and the rank
// left within it; each pass histograms the next 8 bits of the keys that share the
// prefix (shared-memory counts, merged into global ones), and a small kernel picks
// the digit. Floats take 4 passes (order-preserving 32-bit keys), the deviations,
// doubles ≥ 0, 8. Both ranks of an even median ((n−1)/2 and n/2) are selected at once.

#include "cuda_check.h"
#include "dedoppler_backend.h"

#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int64_t kValuesPerBlock = 16 * kThreads;
constexpr double kMadToSigma = 1.482602218505602; // 1 / Φ⁻¹(3/4), as the host's

struct selection {
    unsigned long long prefix[2]; // keys' bits found so far (above the current digit)
    long long rank[2];            // rank left among the keys sharing the prefix
    double median;                // the first statistic, for the deviations
};

// Order-preserving keys in the high 32 bits: negative floats reversed, positive ones
// above them.
__device__ unsigned long long float_key(float value)
{
    unsigned bits = __float_as_uint(value);
    bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    return static_cast<unsigned long long>(bits) << 32;
}

__device__ float key_float(unsigned long long key)
{
    unsigned bits = static_cast<unsigned>(key >> 32);
    bits = (bits & 0x80000000u) ? (bits & 0x7fffffffu) : ~bits;
    return __uint_as_float(bits);
}

// Deviations are doubles ≥ 0: their bits order them.
__device__ unsigned long long deviation_key(float value, double median)
{
    return static_cast<unsigned long long>(
        __double_as_longlong(fabs(__dsub_rn(static_cast<double>(value), median))));
}

__global__ void start_kernel(selection* state, int64_t segments, int64_t n, bool keep_median)
{
    const int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= segments)
        return;
    for (int r = 0; r < 2; r++) {
        state[s].prefix[r] = 0;
        state[s].rank[r] = r == 0 ? (n - 1) / 2 : n / 2;
    }
    if (!keep_median)
        state[s].median = 0;
}

template <bool kDeviations>
__global__ void __launch_bounds__(kThreads) histogram_kernel(const float* __restrict__ values,
                                                             int64_t n,
                                                             int64_t blocks_per_segment,
                                                             const selection* __restrict__ state,
                                                             unsigned* counts,
                                                             int shift)
{
    __shared__ unsigned local[2][256];
    const int64_t segment = blockIdx.x / blocks_per_segment;
    const int64_t part = blockIdx.x % blocks_per_segment;
    for (int j = threadIdx.x; j < 512; j += kThreads)
        local[j / 256][j % 256] = 0;
    __syncthreads();
    const selection& own = state[segment];
    const unsigned long long above = shift + 8 >= 64 ? 0ull : ~0ull << (shift + 8);
    const unsigned long long prefix0 = own.prefix[0], prefix1 = own.prefix[1];
    const double median = own.median;
    const float* segment_values = values + segment * n;
    const int64_t first = part * kValuesPerBlock;
    const int64_t end = first + kValuesPerBlock < n ? first + kValuesPerBlock : n;
    for (int64_t i = first + threadIdx.x; i < end; i += kThreads) {
        const float value = __ldg(&segment_values[i]);
        const unsigned long long key =
            kDeviations ? deviation_key(value, median) : float_key(value);
        const unsigned digit = static_cast<unsigned>(key >> shift) & 255u;
        if (((key ^ prefix0) & above) == 0)
            atomicAdd(&local[0][digit], 1u);
        if (((key ^ prefix1) & above) == 0)
            atomicAdd(&local[1][digit], 1u);
    }
    __syncthreads();
    unsigned* global = counts + segment * 512;
    for (int j = threadIdx.x; j < 512; j += kThreads) {
        const unsigned count = local[j / 256][j % 256];
        if (count)
            atomicAdd(&global[j], count);
    }
}

// One thread per (segment, rank): the digit where the rank falls; clears its counts
// for the next pass.
__global__ void choose_kernel(selection* state, unsigned* counts, int64_t segments, int shift)
{
    const int64_t item = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (item >= 2 * segments)
        return;
    const int64_t segment = item / 2;
    const int r = static_cast<int>(item % 2);
    unsigned* row = counts + segment * 512 + r * 256;
    long long rank = state[segment].rank[r];
    unsigned digit = 255;
    for (unsigned d = 0; d < 256; d++) {
        if (rank < static_cast<long long>(row[d])) {
            digit = d;
            break;
        }
        rank -= row[d];
    }
    state[segment].rank[r] = rank;
    state[segment].prefix[r] |= static_cast<unsigned long long>(digit) << shift;
    for (int d = 0; d < 256; d++)
        row[d] = 0;
}

// The host's median_of: the middle value, or the mean of the two middle values.
__device__ double middle(double lower, double upper, int64_t n)
{
    return n % 2 == 1 ? upper : __ddiv_rn(__dadd_rn(lower, upper), 2.0);
}

__global__ void median_kernel(selection* state, int64_t segments, int64_t n)
{
    const int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= segments)
        return;
    state[s].median = middle(static_cast<double>(key_float(state[s].prefix[0])),
                             static_cast<double>(key_float(state[s].prefix[1])),
                             n);
}

__global__ void
finish_kernel(const selection* state, int64_t segments, int64_t n, float* centres, float* spreads)
{
    const int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= segments)
        return;
    const double mad = middle(__longlong_as_double(static_cast<long long>(state[s].prefix[0])),
                              __longlong_as_double(static_cast<long long>(state[s].prefix[1])),
                              n);
    centres[s] = static_cast<float>(state[s].median);
    spreads[s] = static_cast<float>(__dmul_rn(kMadToSigma, mad));
}

size_t counts_bytes(int64_t segments)
{
    return static_cast<size_t>(segments) * 512 * sizeof(unsigned);
}

} // namespace

extern "C" size_t blade_cuda_dedoppler_mad_scratch_bytes(int64_t segments)
{
    return counts_bytes(segments) + static_cast<size_t>(segments) * sizeof(selection);
}

extern "C" blade_status blade_cuda_dedoppler_mad(const float* zero_drift,
                                                 int64_t segments,
                                                 int64_t nfpc,
                                                 float* centres,
                                                 float* spreads,
                                                 void* scratch,
                                                 void* stream_handle)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (segments < 1 || nfpc < 1)
        return BLADE_OK;
    unsigned* counts = static_cast<unsigned*>(scratch);
    selection* state =
        reinterpret_cast<selection*>(static_cast<char*>(scratch) + counts_bytes(segments));
    const int64_t per_segment = (nfpc + kValuesPerBlock - 1) / kValuesPerBlock;
    if (segments * per_segment > 0x7fffffffLL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: %lld coarse channels are too many for the statistics",
                          static_cast<long long>(segments));
    const unsigned histogram_blocks = static_cast<unsigned>(segments * per_segment);
    const unsigned segment_blocks = blade_grid_size(segments, kThreads, 0x7fffffffu);
    const unsigned choose_blocks = blade_grid_size(2 * segments, kThreads, 0x7fffffffu);
    BLADE_CUDA_TRY(cudaMemsetAsync(counts, 0, counts_bytes(segments), stream));

    start_kernel<<<segment_blocks, kThreads, 0, stream>>>(state, segments, nfpc, false);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler statistics start_kernel");
    for (int shift = 56; shift >= 32; shift -= 8) { // the sums: 32-bit keys
        histogram_kernel<false><<<histogram_blocks, kThreads, 0, stream>>>(
            zero_drift, nfpc, per_segment, state, counts, shift);
        BLADE_CUDA_CHECK_LAUNCH("dedoppler statistics histogram_kernel");
        choose_kernel<<<choose_blocks, kThreads, 0, stream>>>(state, counts, segments, shift);
        BLADE_CUDA_CHECK_LAUNCH("dedoppler statistics choose_kernel");
    }
    median_kernel<<<segment_blocks, kThreads, 0, stream>>>(state, segments, nfpc);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler statistics median_kernel");

    start_kernel<<<segment_blocks, kThreads, 0, stream>>>(state, segments, nfpc, true);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler statistics start_kernel");
    for (int shift = 56; shift >= 0; shift -= 8) { // the deviations: 64-bit keys
        histogram_kernel<true><<<histogram_blocks, kThreads, 0, stream>>>(
            zero_drift, nfpc, per_segment, state, counts, shift);
        BLADE_CUDA_CHECK_LAUNCH("dedoppler statistics histogram_kernel");
        choose_kernel<<<choose_blocks, kThreads, 0, stream>>>(state, counts, segments, shift);
        BLADE_CUDA_CHECK_LAUNCH("dedoppler statistics choose_kernel");
    }
    finish_kernel<<<segment_blocks, kThreads, 0, stream>>>(state, segments, nfpc, centres, spreads);
    BLADE_CUDA_CHECK_LAUNCH("dedoppler statistics finish_kernel");
    return BLADE_OK;
}
