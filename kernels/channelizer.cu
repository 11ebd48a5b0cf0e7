// SPDX-License-Identifier: MIT
//
// Channelizer on CUDA. Two paths, chosen at creation:
//
// * Single pass (power-of-two N from 2 to 8192, power-of-two P): one kernel loads
//   a tile of x into shared memory, transforms it there and writes y
//   (channelizer_tile.h). Global memory sees 8 bytes read and 8 bytes written per
//   complex sample: one pass, the least any channelizer can move. Expected on the
//   H200 for [16, 192, 8192, 2], N = 8192 (805 MB, 6144 tiles of one 8192-point
//   transform): 0.19 ms of memory traffic at the 4.28 TB/s device-copy rate; the
//   FFT arithmetic (about 1000 flops per thread per tile, ~0.15 ms over the GPU) runs
//   while the other block on each SM moves data, so 0.21-0.30 ms, i.e. 65-90 % of
//   copy bandwidth (target 0.25 ms; upstream BLADE 0.761 ms, which planarizes, runs
//   cuFFT and shifts in separate passes). With a polyphase filter each tile also
//   reads the M-1 earlier blocks of every branch (mostly L2 hits, as neighbouring
//   tiles read them too) and a small kernel copies the last (M-1)*N samples of each
//   series into the history: about (M-1)*N/T of a pass more.
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
#include "channelizer_tile.h"
#include "cuda_check.h"
#include "cufft_loader.h"

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

// --- general path --------------------------------------------------------------

struct general_params {
    const void* input; // [rows, T, P], cf32 or cf16
    float2* work;      // [rows, P, S, N]
    void* output;      // [rows, N, S, P], cf32 or cf16
    bool input_half, output_half;
    const float* filter;   // M*N or nullptr
    const float2* history; // [rows, P, H] or nullptr
    int64_t rows, T, P, N, S, H;
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
            v = make_float2(0.0f, 0.0f);
            for (int m = 0; m < g.M; m++) {
                const int64_t tau = t - static_cast<int64_t>(g.M - 1 - m) * g.N;
                const float2 s = tau >= 0
                                     ? blade_tile::load_sample(g.input, g.input_half, x + tau * g.P)
                                     : g.history[series * g.H + g.H + tau];
                const float h = g.filter[m * g.N + n];
                v.x += h * s.x;
                v.y += h * s.y;
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

// next[row][p][j] = xs[T - H + j]: from the chunk, or from the previous history
// when the chunk is shorter than H.
__global__ void carry_history(const void* input,
                              bool input_half,
                              const float2* previous,
                              float2* next,
                              int64_t series_count,
                              int64_t T,
                              int64_t P,
                              int64_t H)
{
    const int64_t count = series_count * H;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
        const int64_t series = i / H, j = i - series * H;
        const int64_t row = series / P, pol = series - row * P;
        const int64_t t = T - H + j;
        next[i] = t >= 0 ? blade_tile::load_sample(input, input_half, (row * T + t) * P + pol)
                         : previous[i + T];
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
    bool single_pass = false;
    blade_tile::tiling tiling{};
    tile_kernel kernel = nullptr;
    size_t shared_bytes = 0;
    float2* twiddles = nullptr;                // single pass: N values
    float* filter = nullptr;                   // M*N taps, when M > 1
    float2* history[2] = { nullptr, nullptr }; // ping-pong [rows, P, H]
    int current = 0;        // history[current] holds the samples before the next chunk
    float2* work = nullptr; // general path: [rows, P, S, N]
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
        const size_t history = static_cast<size_t>(g.rows * g.P * g.H) * sizeof(float2);
        BLADE_TRY(allocate(taps, reinterpret_cast<void**>(&self->filter), "filter"));
        BLADE_CUDA_TRY(cudaMemcpy(self->filter, filter, taps, cudaMemcpyHostToDevice));
        for (auto& buffer : self->history) {
            BLADE_TRY(allocate(history, reinterpret_cast<void**>(&buffer), "filter history"));
            BLADE_CUDA_TRY(cudaMemset(buffer, 0, history));
        }
    }

    // The single pass needs up to ~98 KB of shared memory per block (sm_80 and newer
    // offer 163-227 KB; Turing's 64 KB takes the general path), and one block per tile
    // (more tiles than a grid holds would be a tensor of over 100 TB).
    int shared_limit = 0;
    BLADE_CUDA_TRY(cudaDeviceGetAttribute(
        &shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, self->device));
    self->single_pass =
        blade_tile::plan_tiling(g.rows, g.T, g.P, g.N, &self->tiling) &&
        self->tiling.tiles <= 0x7fffffff &&
        blade_tile::shared_bytes(self->tiling.log2n, blade_tile::kCapacity >> self->tiling.log2n) <=
            static_cast<size_t>(shared_limit);
    if (self->single_pass) {
        std::vector<float2> twiddles(static_cast<size_t>(g.N));
        blade_tile::make_twiddles(g.N, twiddles.data());
        const size_t bytes = twiddles.size() * sizeof(float2);
        BLADE_TRY(allocate(bytes, reinterpret_cast<void**>(&self->twiddles), "twiddles"));
        BLADE_CUDA_TRY(cudaMemcpy(self->twiddles, twiddles.data(), bytes, cudaMemcpyHostToDevice));
        self->kernel = select_tile_kernel(self->tiling.log2n, g.M > 1);
        self->shared_bytes = blade_tile::shared_bytes(
            self->tiling.log2n, 1 << (self->tiling.log2pb + self->tiling.log2sb));
        // The limit is per kernel, shared by every plan of this N: allow a full tile.
        const size_t full = blade_tile::shared_bytes(self->tiling.log2n,
                                                     blade_tile::kCapacity >> self->tiling.log2n);
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
    const float2* history = g.M > 1 ? self->history[self->current] : nullptr;

    if (self->single_pass) {
        const blade_tile::tiling& t = self->tiling;
        blade_tile::params p{};
        p.input = input;
        p.output = output;
        p.input_half = g.input_half != 0;
        p.output_half = g.output_half != 0;
        p.twiddles = self->twiddles;
        p.filter = self->filter;
        p.history = history;
        p.T = g.T;
        p.S = g.S;
        p.H = g.H;
        p.M = g.M;
        p.log2P = t.log2p;
        p.log2pb = t.log2pb;
        p.log2sb = t.log2sb;
        p.pgroups = t.pgroups;
        p.sgroups = t.sgroups;
        self->kernel<<<static_cast<unsigned>(t.tiles),
                       blade_tile::kThreads,
                       self->shared_bytes,
                       stream>>>(p);
        BLADE_CUDA_CHECK_LAUNCH("channelize_tiles");
    } else {
        general_params p{};
        p.input = input;
        p.input_half = g.input_half != 0;
        p.work = self->work;
        p.output = output;
        p.output_half = g.output_half != 0;
        p.filter = self->filter;
        p.history = history;
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

    if (g.M > 1) {
        // Stream order: the kernels above read history[current] before this writes
        // the other buffer; the next call reads the one written here.
        const int next = 1 - self->current;
        const int64_t values = g.rows * g.P * g.H;
        carry_history<<<grid_for(values), kThreads, 0, stream>>>(input,
                                                                 g.input_half != 0,
                                                                 self->history[self->current],
                                                                 self->history[next],
                                                                 g.rows * g.P,
                                                                 g.T,
                                                                 g.P,
                                                                 g.H);
        BLADE_CUDA_CHECK_LAUNCH("carry_history");
        self->current = next;
    }
    return BLADE_OK;
}

extern "C" blade_status blade_cuda_channelizer_reset(blade_cuda_channelizer* self,
                                                     void* stream_handle)
{
    if (self->g.M < 2 || self->g.N == 1)
        return BLADE_OK;
    const size_t bytes = static_cast<size_t>(self->g.rows * self->g.P * self->g.H) * sizeof(float2);
    BLADE_CUDA_TRY(cudaMemsetAsync(
        self->history[self->current], 0, bytes, static_cast<cudaStream_t>(stream_handle)));
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
    cudaFree(self->history[0]);
    cudaFree(self->history[1]);
    cudaFree(self->work);
    (void)cudaGetLastError();
    delete self;
}
