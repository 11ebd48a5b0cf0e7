// SPDX-License-Identifier: MIT
//
// Channelizer on CUDA. Four implementations, chosen at creation
// (blade_channelizer_kernel; auto picks by shape):
//
// * Shared tile (power-of-two N from 2 to 8192, power-of-two P): one kernel loads a
//   tile of x into shared memory, transforms it there and writes y
//   (channelizer_tile.h). Global memory sees 8 bytes read and 8 bytes written per
//   complex sample: one pass, the least any channelizer can move. 512 threads, two
//   blocks per SM. Measured on the H200 for [16, 192, 8192, 2], N = 8192: 0.620 ms
//   (31 % of copy): a tile there holds one polarization, so each block uses half of
//   every sector it loads, and the tile crosses shared memory 10 times.
//
// * Direct tile (N up to 16384; auto where N*P > 8192): the first FFT pass reads
//   global memory straight into registers and the last writes straight into y
//   (6 shared-memory crossings at N = 8192 instead of 10), 1024 threads, tiles of
//   16384 values (both polarizations of N = 8192).
//
// * Four-step (power-of-two N from 2^15 to 2^22; channelizer_four_step.h, its
//   kernels in channelizer_four_step.cu): N = N1*N2, pass A transforms columns of N2
//   points and rotates them into a workspace, pass B transforms rows of N1 points
//   into y: two passes over memory.
//
//   With a polyphase filter every kernel reads the M-1 earlier blocks of each branch
//   (from the chunk, mostly L2 hits, or from the history ring) and writes the chunk's
//   last (M-1)*N samples of each series into the ring as it loads them
//   (blade_tile::input_value): no history pass of its own.
//
// * General (any other N or P): three passes. A planarizing kernel writes
//   (-1)^n x (or the filtered, modulated x) as contiguous [row][p][s][n] blocks, a
//   batched in-place cuFFT transforms them at near copy speed (contiguous
//   transforms; with polarizations interleaved cuFFT is 2.7x slower), and a
//   reordering kernel (tiled transpose) writes y[row][k][s][p]. About 3x the
//   single-pass time.
//
// cf16 input or output (either, both): converted to float as loaded, rounded to the
// nearest half as stored (blade_tile::load_sample / store_sample), in every kernel
// that touches the tensors; the transforms, the filter sums and the history are
// float32.
//
// cuFFT is opened at run time (cufft_loader.h) and only by plans that need it.

#include "channelizer_backend.h"
#include "channelizer_four_step.h"
#include "channelizer_tile.h"
#include "cuda_check.h"
#include "cufft_loader.h"

#include <blade/modules/channelizer.h>

#include <cstdint>
#include <new>
#include <vector>

namespace {

constexpr int kThreads = 256; // elementwise kernels of the general path

// --- single pass -------------------------------------------------------------

// Runs one FFT pass on every thread of the block, with a barrier between the
// reading and the writing half (passes work in place).
struct block_exec {
    float2* smem;
    int rows;
    const float2* twiddles;

    template <typename Pass>
    __device__ __forceinline__ void pass()
    {
        float2 staged[blade_tile::kPerThread];
        Pass::read(smem, rows, twiddles, threadIdx.x, staged);
        __syncthreads();
        Pass::write(smem, rows, threadIdx.x, staged);
        __syncthreads();
    }
};

// One tile per block. (A grid-stride loop over tiles lets the compiler hoist every
// thread's shared-memory addresses out of the loop, which spills registers.)
template <int LOG2N, bool FILTER>
__global__ void __launch_bounds__(blade_tile::kThreads, 2) channelize_tiles(blade_tile::params p)
{
    extern __shared__ float2 smem[];
    const blade_tile::origin o = blade_tile::tile_origin(p, blockIdx.x);
    blade_tile::load<LOG2N, FILTER>(p, o, smem, threadIdx.x);
    __syncthreads();
    block_exec exec{ smem, blade_tile::tile_rows(p), p.twiddles };
    blade_tile::fft_passes<LOG2N>::run(exec); // ends with a barrier
    blade_tile::store<LOG2N>(p, o, smem, threadIdx.x);
}

// The direct tile's steps on the threads of a block (blade_tile::direct_passes).
struct direct_exec {
    const blade_tile::params& p;
    const blade_tile::origin& o;
    float2* smem;

    template <typename Pass>
    __device__ __forceinline__ void first()
    {
        float2 v[blade_tile::kPerThread];
        Pass::read(p, o, threadIdx.x, v);
        Pass::write(smem, p, threadIdx.x, v); // fresh shared memory: no barrier before
        __syncthreads();
    }

    template <typename Pass>
    __device__ __forceinline__ void pass()
    {
        float2 v[blade_tile::kPerThread];
        Pass::read(smem, blade_tile::tile_rows(p), p.twiddles, threadIdx.x, v);
        __syncthreads();
        Pass::write(smem, blade_tile::tile_rows(p), threadIdx.x, v);
        __syncthreads();
    }

    template <typename Pass>
    __device__ __forceinline__ void last()
    {
        float2 v[blade_tile::kPerThread];
        Pass::read(smem, p, p.twiddles, threadIdx.x, v);
        Pass::store(p, o, threadIdx.x, v);
    }

    template <typename Pass>
    __device__ __forceinline__ void only()
    {
        float2 v[blade_tile::kPerThread];
        Pass::read(p, o, threadIdx.x, v);
        Pass::store(p, o, threadIdx.x, v);
    }
};

// One direct tile per block: 1024 threads and up to 137 KB of shared memory (one
// block per SM), or the half tile, 512 threads and up to 70 KB (two); 64 registers
// per thread at most either way.
template <int LOG2N, bool FILTER, int THREADS>
__global__ void __launch_bounds__(THREADS, blade_tile::kDirectThreads / THREADS)
    channelize_direct(blade_tile::params p)
{
    extern __shared__ float2 smem[];
    const blade_tile::origin o = blade_tile::tile_origin(p, blockIdx.x);
    direct_exec exec{ p, o, smem };
    blade_tile::direct_passes<LOG2N, FILTER, THREADS>::run(exec);
}

using tile_kernel = void (*)(blade_tile::params);

template <int LOG2N>
tile_kernel tile_kernel_for(bool filter)
{
    return filter ? channelize_tiles<LOG2N, true> : channelize_tiles<LOG2N, false>;
}

tile_kernel select_tile_kernel(int log2n, bool filter)
{
    switch (log2n) {
    case 1:
        return tile_kernel_for<1>(filter);
    case 2:
        return tile_kernel_for<2>(filter);
    case 3:
        return tile_kernel_for<3>(filter);
    case 4:
        return tile_kernel_for<4>(filter);
    case 5:
        return tile_kernel_for<5>(filter);
    case 6:
        return tile_kernel_for<6>(filter);
    case 7:
        return tile_kernel_for<7>(filter);
    case 8:
        return tile_kernel_for<8>(filter);
    case 9:
        return tile_kernel_for<9>(filter);
    case 10:
        return tile_kernel_for<10>(filter);
    case 11:
        return tile_kernel_for<11>(filter);
    case 12:
        return tile_kernel_for<12>(filter);
    case 13:
        return tile_kernel_for<13>(filter);
    default:
        return nullptr;
    }
}
static_assert(blade_tile::kMaxLog2N == 13, "select_tile_kernel lists every size");

template <int LOG2N>
tile_kernel direct_kernel_for(bool filter, bool half)
{
    if constexpr (LOG2N <= blade_tile::kMaxLog2N)
        if (half)
            return filter ? channelize_direct<LOG2N, true, blade_tile::kThreads>
                          : channelize_direct<LOG2N, false, blade_tile::kThreads>;
    return filter ? channelize_direct<LOG2N, true, blade_tile::kDirectThreads>
                  : channelize_direct<LOG2N, false, blade_tile::kDirectThreads>;
}

// half: the half tile (N <= 8192)
tile_kernel select_direct_kernel(int log2n, bool filter, bool half)
{
    switch (log2n) {
    case 1:
        return direct_kernel_for<1>(filter, half);
    case 2:
        return direct_kernel_for<2>(filter, half);
    case 3:
        return direct_kernel_for<3>(filter, half);
    case 4:
        return direct_kernel_for<4>(filter, half);
    case 5:
        return direct_kernel_for<5>(filter, half);
    case 6:
        return direct_kernel_for<6>(filter, half);
    case 7:
        return direct_kernel_for<7>(filter, half);
    case 8:
        return direct_kernel_for<8>(filter, half);
    case 9:
        return direct_kernel_for<9>(filter, half);
    case 10:
        return direct_kernel_for<10>(filter, half);
    case 11:
        return direct_kernel_for<11>(filter, half);
    case 12:
        return direct_kernel_for<12>(filter, half);
    case 13:
        return direct_kernel_for<13>(filter, half);
    case 14:
        return direct_kernel_for<14>(filter, false);
    default:
        return nullptr;
    }
}
static_assert(blade_tile::kDirectMaxLog2N == 14, "select_direct_kernel lists every size");

// --- general path --------------------------------------------------------------

struct general_params {
    const void* input; // [rows, T, P], cf32 or cf16
    float2* work;      // [rows, P, S, N]
    void* output;      // [rows, N, S, P], cf32 or cf16
    bool input_half, output_half;
    const float* filter; // M*N or nullptr
    float2* history;     // the ring of blade_tile::params, or nullptr
    int64_t rows, T, P, N, S, H;
    int64_t R, hread, hwrite; // as blade_tile::params
    int M;
};

// work[row][p][s][n] = (-1)^n * (x or the filtered x)[row][s*N + n][p]
template <bool FILTER>
__global__ void planarize(general_params g)
{
    const int64_t count = g.rows * g.T * g.P;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
        const int64_t n = i % g.N;
        const int64_t series = i / g.T; // row * P + p
        const int64_t t = i - series * g.T;
        const int64_t row = series / g.P, pol = series - row * g.P;
        const int64_t x = row * g.T * g.P + pol; // sample index of (row, t = 0, pol)
        float2 v;
        if constexpr (!FILTER) {
            v = blade_tile::load_sample(g.input, g.input_half, x + t * g.P);
        } else {
            // as blade_tile::input_value, with the same ring
            v = make_float2(0.0f, 0.0f);
            for (int m = 0; m < g.M; m++) {
                const int64_t tau = t - static_cast<int64_t>(g.M - 1 - m) * g.N;
                const int64_t read = g.hread + tau;
                const float2 s = tau >= 0
                                     ? blade_tile::load_sample(g.input, g.input_half, x + tau * g.P)
                                     : g.history[series * g.R + (read >= g.R ? read - g.R : read)];
                const float h = g.filter[m * g.N + n];
                v.x += h * s.x;
                v.y += h * s.y;
                if (m == g.M - 1 && t >= g.T - g.H) {
                    const int64_t write = g.hwrite + t;
                    g.history[series * g.R + (write >= g.R ? write - g.R : write)] = s;
                }
            }
        }
        const float sign = (n & 1) ? -1.0f : 1.0f;
        g.work[i] = make_float2(sign * v.x, sign * v.y);
    }
}

// y[row][k][s][p] = work[row][p][s][k], a transpose per row: the work row is a
// matrix [P*S][N], the output row a matrix [N][S*P] whose column c = s*P + p reads
// work row p*S + s. 32 x 32 tiles through shared memory keep both the reads (along
// k) and the writes (along c) coalesced.
constexpr int kTile = 32, kTileRows = 8;

__global__ void reorder(general_params g)
{
    __shared__ float2 tile[kTile][kTile + 1]; // +1: no bank conflicts on the transpose
    const int64_t columns = g.S * g.P;
    const int64_t c0 = static_cast<int64_t>(blockIdx.x) * kTile;
    for (int64_t row = blockIdx.z; row < g.rows; row += gridDim.z)
        for (int64_t k0 = static_cast<int64_t>(blockIdx.y) * kTile; k0 < g.N;
             k0 += static_cast<int64_t>(gridDim.y) * kTile) {
            const float2* work = g.work + row * g.T * g.P;
            const int64_t out = row * g.T * g.P; // sample index of the output row
            for (int i = threadIdx.y; i < kTile; i += kTileRows) {
                const int64_t c = c0 + i, k = k0 + threadIdx.x;
                if (c < columns && k < g.N) {
                    const int64_t s = c / g.P, pol = c - s * g.P;
                    tile[i][threadIdx.x] = work[(pol * g.S + s) * g.N + k];
                }
            }
            __syncthreads();
            for (int i = threadIdx.y; i < kTile; i += kTileRows) {
                const int64_t k = k0 + i, c = c0 + threadIdx.x;
                if (c < columns && k < g.N)
                    blade_tile::store_sample(
                        g.output, g.output_half, out + k * columns + c, tile[threadIdx.x][i]);
            }
            __syncthreads();
        }
}

// N = 1 between different types: y = x converted (cf32 <-> cf16).
__global__ void convert(const void* input, bool input_half, void* output, int64_t count)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride)
        blade_tile::store_sample(
            output, !input_half, i, blade_tile::load_sample(input, input_half, i));
}

unsigned grid_for(int64_t count) { return blade_grid_size(count, kThreads, 65535u * 16u); }

} // namespace

struct blade_cuda_channelizer {
    blade_channelizer_geometry g{};
    int device = 0;
    bool single_pass = false; // the shared or the direct tile kernel
    blade_tile::tiling tiling{};
    tile_kernel kernel = nullptr;
    int threads = 0; // per block of the tile kernel
    size_t shared_bytes = 0;
    float2* twiddles = nullptr; // single pass: N values
    float* filter = nullptr;    // M*N taps, when M > 1
    float2* history = nullptr;  // the ring [rows, P, R] (blade_tile::history_ring)
    blade_tile::history_ring ring{};
    float2* work = nullptr; // general path: [rows, P, S, N]; four-step: [rows, S, N2, N1, P]
    bool four_step = false;
    blade_tile::four_step steps{};
    float2* tables = nullptr; // four-step: N2 + N1 twiddles, then the N2 + N1 rotations
    const blade_cufft_api* cufft = nullptr;
    cufftHandle plan = 0;
    bool has_plan = false;
};

namespace {

blade_status cufft_check(cufftResult result, const char* call)
{
    if (result == CUFFT_SUCCESS)
        return BLADE_OK;
    return blade_fail(result == CUFFT_ALLOC_FAILED ? BLADE_ERROR_OUT_OF_MEMORY : BLADE_ERROR_DEVICE,
                      "channelizer: %s failed: %s (%d)",
                      call,
                      blade_cufft_result_name(result),
                      static_cast<int>(result));
}

blade_status allocate(size_t bytes, void** pointer, const char* what)
{
    const cudaError_t error = cudaMalloc(pointer, bytes);
    if (error == cudaSuccess)
        return BLADE_OK;
    (void)cudaGetLastError();
    *pointer = nullptr;
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    return blade_fail(error == cudaErrorMemoryAllocation ? BLADE_ERROR_OUT_OF_MEMORY
                                                         : BLADE_ERROR_DEVICE,
                      "channelizer: allocating %zu bytes of GPU memory for the %s failed: %s "
                      "(%zu bytes free)",
                      bytes,
                      what,
                      cudaGetErrorString(error),
                      free_bytes);
}

blade_status create(blade_cuda_channelizer* self, const float* filter)
{
    const blade_channelizer_geometry& g = self->g;
    BLADE_CUDA_TRY(cudaSetDevice(self->device));
    if (g.N == 1)
        return BLADE_OK; // a copy

    if (g.M > 1) {
        const size_t taps = static_cast<size_t>(g.M * g.N) * sizeof(float);
        self->ring = blade_tile::history_ring::make(g.T, g.H);
        const size_t history = static_cast<size_t>(g.rows * g.P * self->ring.R) * sizeof(float2);
        BLADE_TRY(allocate(taps, reinterpret_cast<void**>(&self->filter), "filter"));
        BLADE_CUDA_TRY(cudaMemcpy(self->filter, filter, taps, cudaMemcpyHostToDevice));
        BLADE_TRY(allocate(history, reinterpret_cast<void**>(&self->history), "filter history"));
        BLADE_CUDA_TRY(cudaMemset(self->history, 0, history));
    }

    // The tile kernels need up to 98 KB (shared) or 136 KB (direct) of shared memory
    // per block (sm_80 and newer offer 163-227 KB; Turing's 64 KB takes the general
    // path), and one block per tile (more tiles than a grid holds would be a tensor of
    // over 100 TB).
    int shared_limit = 0;
    BLADE_CUDA_TRY(cudaDeviceGetAttribute(
        &shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, self->device));
    const size_t limit = static_cast<size_t>(shared_limit);
    blade_tile::tiling shared_tiling{}, direct_tiling{};
    const bool shared_fits =
        blade_tile::plan_tiling(g.rows, g.T, g.P, g.N, &shared_tiling) &&
        shared_tiling.tiles <= 0x7fffffff &&
        blade_tile::shared_bytes(shared_tiling.log2n,
                                 blade_tile::kCapacity >> shared_tiling.log2n) <= limit;
    const bool direct_fits =
        blade_tile::plan_tiling(
            g.rows, g.T, g.P, g.N, &direct_tiling, blade_tile::kDirectCapacity) &&
        direct_tiling.tiles <= 0x7fffffff &&
        blade_tile::direct_shared_bytes(
            direct_tiling.log2n, blade_tile::kDirectCapacity >> direct_tiling.log2n) <= limit;
    blade_tile::four_step steps{};
    const bool four_step_fits = blade_tile::plan_four_step(g.rows, g.T, g.P, g.N, &steps) &&
                                steps.a_tiles <= 0x7fffffff && steps.b_tiles <= 0x7fffffff &&
                                blade_tile::kFourStepSharedBytes <= limit;
    // Auto: the shared tile wherever it serves; the direct tile where only it does
    // (N = 16384); four-step for longer N; else general. (On the H200 at 3c692701 the
    // shared tile beat the direct one where both serve: [16, 192, 8192, 2] N = 8192
    // 0.615 against 0.651 ms, with a PFB of 4 taps 1.386 against 1.587 ms; the
    // direct tile keeps both polarizations in one block but runs one block per SM.)
    int kernel = g.kernel;
    if (kernel == BLADE_CHANNELIZER_KERNEL_AUTO) {
        if (shared_fits)
            kernel = BLADE_CHANNELIZER_KERNEL_SHARED;
        else if (direct_fits)
            kernel = BLADE_CHANNELIZER_KERNEL_DIRECT;
        else if (four_step_fits)
            kernel = BLADE_CHANNELIZER_KERNEL_FOUR_STEP;
        else
            kernel = BLADE_CHANNELIZER_KERNEL_GENERAL;
    }
    const char* const names[] = {
        "auto", "shared", "direct", "general", "four-step", "direct-half"
    };
    const char* const lengths[] = { "", "up to 8192",        "up to 16384",
                                    "", "from 2^15 to 2^22", "up to 8192" };
    if (((kernel == BLADE_CHANNELIZER_KERNEL_SHARED ||
          kernel == BLADE_CHANNELIZER_KERNEL_DIRECT_HALF) &&
         !shared_fits) ||
        (kernel == BLADE_CHANNELIZER_KERNEL_DIRECT && !direct_fits) ||
        (kernel == BLADE_CHANNELIZER_KERNEL_FOUR_STEP && !four_step_fits))
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "channelizer: the %s kernel does not serve N = %lld, P = %lld on this "
                          "GPU (it takes power-of-two P and N %s, and up to %d KB of shared "
                          "memory per block; the GPU offers %d KB): ask for auto",
                          names[kernel],
                          static_cast<long long>(g.N),
                          static_cast<long long>(g.P),
                          lengths[kernel],
                          kernel == BLADE_CHANNELIZER_KERNEL_DIRECT ||
                                  kernel == BLADE_CHANNELIZER_KERNEL_FOUR_STEP
                              ? 137
                              : 70,
                          shared_limit / 1024);
    if (kernel == BLADE_CHANNELIZER_KERNEL_FOUR_STEP) {
        self->four_step = true;
        self->steps = steps;
        const int64_t n1 = int64_t(1) << steps.log2n1, n2 = int64_t(1) << steps.log2n2;
        std::vector<float2> tables(static_cast<size_t>(2 * (n1 + n2)));
        blade_tile::make_twiddles(n2, tables.data());
        blade_tile::make_twiddles(n1, tables.data() + n2);
        blade_tile::make_rotations(
            steps.log2n1, steps.log2n2, tables.data() + n1 + n2, tables.data() + n1 + 2 * n2);
        const size_t bytes = tables.size() * sizeof(float2);
        BLADE_TRY(allocate(bytes, reinterpret_cast<void**>(&self->tables), "FFT tables"));
        BLADE_CUDA_TRY(cudaMemcpy(self->tables, tables.data(), bytes, cudaMemcpyHostToDevice));
        const size_t work = static_cast<size_t>(g.rows * g.T * g.P) * sizeof(float2);
        BLADE_TRY(allocate(work, reinterpret_cast<void**>(&self->work), "FFT workspace"));
        BLADE_CUDA_TRY(blade_tile::four_step_prepare(steps.log2n, g.M > 1));
        return BLADE_OK;
    }
    self->single_pass = kernel != BLADE_CHANNELIZER_KERNEL_GENERAL;
    if (self->single_pass) {
        const bool direct = kernel == BLADE_CHANNELIZER_KERNEL_DIRECT;
        const bool half = kernel == BLADE_CHANNELIZER_KERNEL_DIRECT_HALF; // shared's tiles
        self->tiling = direct ? direct_tiling : shared_tiling;
        const blade_tile::tiling& t = self->tiling;
        std::vector<float2> twiddles(static_cast<size_t>(g.N));
        blade_tile::make_twiddles(g.N, twiddles.data());
        const size_t bytes = twiddles.size() * sizeof(float2);
        BLADE_TRY(allocate(bytes, reinterpret_cast<void**>(&self->twiddles), "twiddles"));
        BLADE_CUDA_TRY(cudaMemcpy(self->twiddles, twiddles.data(), bytes, cudaMemcpyHostToDevice));
        const int rows = 1 << (t.log2pb + t.log2sb);
        size_t full; // the limit is per kernel, shared by every plan of this N: a full tile
        if (direct || half) {
            const int capacity = direct ? blade_tile::kDirectCapacity : blade_tile::kCapacity;
            self->kernel = select_direct_kernel(t.log2n, g.M > 1, half);
            self->threads = direct ? blade_tile::kDirectThreads : blade_tile::kThreads;
            self->shared_bytes = blade_tile::direct_shared_bytes(t.log2n, rows);
            full = blade_tile::direct_shared_bytes(t.log2n, capacity >> t.log2n);
        } else {
            self->kernel = select_tile_kernel(t.log2n, g.M > 1);
            self->threads = blade_tile::kThreads;
            self->shared_bytes = blade_tile::shared_bytes(t.log2n, rows);
            full = blade_tile::shared_bytes(t.log2n, blade_tile::kCapacity >> t.log2n);
        }
        BLADE_CUDA_TRY(cudaFuncSetAttribute(reinterpret_cast<const void*>(self->kernel),
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(full)));
        return BLADE_OK;
    }

    const size_t work = static_cast<size_t>(g.rows * g.T * g.P) * sizeof(float2);
    BLADE_TRY(allocate(work, reinterpret_cast<void**>(&self->work), "FFT workspace"));
    BLADE_TRY(blade_cufft_load(&self->cufft));
    BLADE_TRY(cufft_check(self->cufft->create(&self->plan), "cufftCreate"));
    self->has_plan = true;
    long long length = g.N;
    size_t workspace = 0;
    BLADE_TRY(cufft_check(self->cufft->make_plan_many64(self->plan,
                                                        1,
                                                        &length,
                                                        nullptr,
                                                        1,
                                                        g.N,
                                                        nullptr,
                                                        1,
                                                        g.N,
                                                        CUFFT_C2C,
                                                        g.rows * g.P * g.S,
                                                        &workspace),
                          "cufftMakePlanMany64"));
    return BLADE_OK;
}

// What the tile kernels (the single-pass tile and both four-step passes) take alike
// from a call: its tensors, the filter and the history ring.
blade_tile::params
tile_params(const blade_cuda_channelizer* self, const void* input, void* output, int log2p)
{
    const blade_channelizer_geometry& g = self->g;
    blade_tile::params p{};
    p.input = input;
    p.output = output;
    p.input_half = g.input_half != 0;
    p.output_half = g.output_half != 0;
    p.filter = self->filter;
    p.history = self->history;
    p.T = g.T;
    p.S = g.S;
    p.H = g.H;
    p.R = self->ring.R;
    p.hread = self->ring.read_base(g.H);
    p.hwrite = self->ring.write_base(g.T, g.H);
    p.M = g.M;
    p.log2P = log2p;
    return p;
}

} // namespace

extern "C" blade_status blade_cuda_channelizer_create(const blade_channelizer_geometry* geometry,
                                                      const float* filter,
                                                      int device_index,
                                                      blade_cuda_channelizer** backend)
{
    *backend = nullptr;
    auto* self = new (std::nothrow) blade_cuda_channelizer;
    if (self == nullptr)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "channelizer: out of host memory");
    self->g = *geometry;
    self->device = device_index;
    const blade_status status = create(self, filter);
    if (status != BLADE_OK) {
        blade_cuda_channelizer_destroy(self);
        return status;
    }
    *backend = self;
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_channelizer_process(blade_cuda_channelizer* self,
                                                       const void* input,
                                                       void* output,
                                                       void* stream_handle)
{
    const blade_channelizer_geometry& g = self->g;
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    const int64_t count = g.rows * g.T * g.P;
    if (g.N == 1) {
        if (g.input_half != g.output_half) {
            convert<<<grid_for(count), kThreads, 0, stream>>>(input, g.input_half, output, count);
            BLADE_CUDA_CHECK_LAUNCH("convert");
        } else if (input != output) {
            const size_t bytes = static_cast<size_t>(count) * (g.input_half ? 4 : 8);
            BLADE_CUDA_TRY(cudaMemcpyAsync(output, input, bytes, cudaMemcpyDeviceToDevice, stream));
        }
        return BLADE_OK;
    }
    const blade_tile::history_ring& ring = self->ring;

    if (self->four_step) {
        const blade_tile::four_step& f = self->steps;
        const int64_t n1 = int64_t(1) << f.log2n1, n2 = int64_t(1) << f.log2n2;
        blade_tile::four_step_params q{};
        q.p = tile_params(self, input, output, f.log2p);
        q.work = self->work;
        q.twiddles_a = self->tables;
        q.twiddles_b = self->tables + n2;
        q.rotation_lo = self->tables + n1 + n2;
        q.rotation_hi = self->tables + n1 + 2 * n2;
        q.f = f;
        BLADE_CUDA_TRY(blade_tile::four_step_launch(q, g.M > 1, stream));
    } else if (self->single_pass) {
        const blade_tile::tiling& t = self->tiling;
        blade_tile::params p = tile_params(self, input, output, t.log2p);
        p.twiddles = self->twiddles;
        p.log2pb = t.log2pb;
        p.log2sb = t.log2sb;
        p.pgroups = t.pgroups;
        p.sgroups = t.sgroups;
        self->kernel<<<static_cast<unsigned>(t.tiles), self->threads, self->shared_bytes, stream>>>(
            p);
        BLADE_CUDA_CHECK_LAUNCH("channelize_tiles");
    } else {
        general_params p{};
        p.input = input;
        p.input_half = g.input_half != 0;
        p.work = self->work;
        p.output = output;
        p.output_half = g.output_half != 0;
        p.filter = self->filter;
        p.history = self->history;
        p.R = ring.R;
        p.hread = ring.read_base(g.H);
        p.hwrite = ring.write_base(g.T, g.H);
        p.rows = g.rows;
        p.T = g.T;
        p.P = g.P;
        p.N = g.N;
        p.S = g.S;
        p.H = g.H;
        p.M = g.M;
        if (g.M > 1)
            planarize<true><<<grid_for(count), kThreads, 0, stream>>>(p);
        else
            planarize<false><<<grid_for(count), kThreads, 0, stream>>>(p);
        BLADE_CUDA_CHECK_LAUNCH("planarize");
        BLADE_TRY(cufft_check(self->cufft->set_stream(self->plan, stream), "cufftSetStream"));
        BLADE_TRY(cufft_check(self->cufft->exec_c2c(self->plan,
                                                    reinterpret_cast<cufftComplex*>(self->work),
                                                    reinterpret_cast<cufftComplex*>(self->work),
                                                    CUFFT_FORWARD),
                              "cufftExecC2C"));
        const int64_t column_tiles = (g.S * g.P + kTile - 1) / kTile;
        const int64_t k_tiles = (g.N + kTile - 1) / kTile;
        if (column_tiles > 0x7fffffff)
            return blade_fail(BLADE_ERROR_UNSUPPORTED,
                              "channelizer: %lld spectra per row are too many",
                              static_cast<long long>(g.S));
        const dim3 grid(static_cast<unsigned>(column_tiles),
                        static_cast<unsigned>(k_tiles < 65535 ? k_tiles : 65535),
                        static_cast<unsigned>(g.rows < 65535 ? g.rows : 65535));
        reorder<<<grid, dim3(kTile, kTileRows), 0, stream>>>(p);
        BLADE_CUDA_CHECK_LAUNCH("reorder");
    }

    // The kernels above wrote the chunk's last H samples into the ring; the next
    // chunk (queued after them on the stream) finds its H past samples from here.
    if (g.M > 1)
        self->ring.advance(g.T, g.H);
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_channelizer_reset(blade_cuda_channelizer* self,
                                                     void* stream_handle)
{
    if (self->g.M < 2 || self->g.N == 1)
        return BLADE_OK;
    const size_t bytes =
        static_cast<size_t>(self->g.rows * self->g.P * self->ring.R) * sizeof(float2);
    BLADE_CUDA_TRY(
        cudaMemsetAsync(self->history, 0, bytes, static_cast<cudaStream_t>(stream_handle)));
    self->ring.start = 0;
    return BLADE_OK;
}

extern "C" void blade_cuda_channelizer_destroy(blade_cuda_channelizer* self)
{
    if (self == nullptr)
        return;
    cudaSetDevice(self->device);
    if (self->has_plan && self->cufft != nullptr)
        self->cufft->destroy(self->plan);
    cudaFree(self->twiddles);
    cudaFree(self->filter);
    cudaFree(self->history);
    cudaFree(self->work);
    cudaFree(self->tables);
    (void)cudaGetLastError();
    delete self;
}
