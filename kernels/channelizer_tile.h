/* SPDX-License-Identifier: MIT */
/*
 * The single-pass channelizer tile, for power-of-two N <= 8192 and power-of-two P.
 *
 * One thread block owns a tile: one (a, f) row, `pb` polarizations (all P when
 * N*P fits, else one) and `sb` consecutive output samples s (a power of two
 * dividing S), i.e. pb*sb transforms of N points, at most kCapacity values. It
 *   1. loads the tile's input into shared memory, planar [p][s][n] (contiguous in
 *      global memory when pb = P; with a polyphase filter, the M taps of every
 *      branch are summed here, reading older blocks from the chunk or the history),
 *   2. transforms every row in shared memory: a Stockham autosort FFT of radix-16
 *      passes (and one radix-2, 4 or 8 pass first when log2(N) is not a multiple
 *      of 4); each thread stages kPerThread values in registers per pass, so the
 *      passes work in place with two barriers each,
 *   3. stores y[a, f*N + k, s, p] = X[(k + N/2) mod N]: the (-1)^n modulation of the
 *      formula is, for even N, exactly this circular shift of the output index, so
 *      it costs nothing. Runs over (s, p) are contiguous in global memory.
 * Global memory therefore sees one read of x and one write of y: one pass.
 * Either may be cf16 (params::input_half, output_half): converted to float as it is
 * loaded, rounded to the nearest half as it is stored (sample_io below); the FFT and
 * the polyphase sums are float32.
 *
 * Shared-memory layout: element i of FFT row r sits at r*row_stride(N) + pad(i),
 * pad(i) = i + i/16. The padding breaks the 16-way bank conflicts of the strided
 * accesses of the first pass; the odd row stride those of the many-rows tiles of
 * small N in the store step.
 *
 * Everything here is __host__ __device__ and free of CUDA runtime calls, so that a
 * CPU test (tests/core/test_channelizer_tile.cc) can run the exact code with the
 * threads of a block emulated one after the other between barriers. Not installed.
 */
#ifndef BLADE_KERNELS_CHANNELIZER_TILE_H
#define BLADE_KERNELS_CHANNELIZER_TILE_H

#include <cmath>
#include <cstddef>
#include <cstdint>

#include <vector_functions.h>
#include <vector_types.h>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif
#include "half.h" // the CPU's conversions, which the emulation uses (bit-exact with CUDA's)

#if defined(__CUDACC__)
#define BLADE_TILE_FN __host__ __device__ __forceinline__
#define BLADE_UNROLL _Pragma("unroll")
#else
#define BLADE_TILE_FN inline
#define BLADE_UNROLL
#endif

namespace blade_tile {

constexpr int kThreads = 512;                    // threads per block
constexpr int kCapacity = 8192;                  // complex values per tile
constexpr int kPerThread = kCapacity / kThreads; // values staged per thread per pass
constexpr int kMaxLog2N = 13;                    // N = 8192 = kCapacity

BLADE_TILE_FN constexpr int pad(int i) { return i + (i >> 4); }
BLADE_TILE_FN constexpr int row_stride(int n) { return (n + (n >> 4)) | 1; }

/* Shared memory of a tile of `rows` transforms of 2^log2n points. */
inline std::size_t shared_bytes(int log2n, int rows)
{
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(row_stride(1 << log2n)) *
           sizeof(float2);
}

/* twiddles[m] = exp(-2 pi i m / n), m < n, computed in double and rounded once. */
inline void make_twiddles(int64_t n, float2* twiddles)
{
    const double pi = 3.14159265358979323846;
    for (int64_t m = 0; m < n; m++) {
        const double angle = -2.0 * pi * static_cast<double>(m) / static_cast<double>(n);
        twiddles[m] =
            make_float2(static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle)));
    }
}

/* --- cf32 / cf16 samples in global memory ---------------------------------- */

/* Complex sample i of a cf32 (half = false) or cf16 array, as float2. */
BLADE_TILE_FN float2 load_sample(const void* data, bool half, int64_t i)
{
    if (!half)
        return static_cast<const float2*>(data)[i];
#if defined(__CUDA_ARCH__)
    return __half22float2(static_cast<const __half2*>(data)[i]);
#else
    const uint16_t* parts = static_cast<const uint16_t*>(data) + 2 * i;
    return make_float2(blade_half_to_float(parts[0]), blade_half_to_float(parts[1]));
#endif
}

/* Store v as complex sample i of a cf32 or cf16 array; to half: round to nearest
 * even, NaN as the canonical 0x7E00 (as the CPU backend). */
BLADE_TILE_FN void store_sample(void* data, bool half, int64_t i, float2 v)
{
    if (!half) {
        static_cast<float2*>(data)[i] = v;
        return;
    }
#if defined(__CUDA_ARCH__)
    __half re = __float2half_rn(v.x), im = __float2half_rn(v.y);
    if (__hisnan(re))
        re = __ushort_as_half(0x7e00);
    if (__hisnan(im))
        im = __ushort_as_half(0x7e00);
    static_cast<__half2*>(data)[i] = __halves2half2(re, im);
#else
    uint16_t* parts = static_cast<uint16_t*>(data) + 2 * i;
    parts[0] = blade_half_from_float(v.x);
    parts[1] = blade_half_from_float(v.y);
#endif
}

/* What a launch needs: the tensors, the geometry and the tiling. */
struct params {
    const void* input;      // [rows, T, P], cf32 or cf16
    void* output;           // [rows, N, S, P], cf32 or cf16
    bool input_half;        // the input is cf16
    bool output_half;       // the output is cf16
    const float2* twiddles; // twiddles[m] = exp(-2 pi i m / N), m < N
    const float* filter;    // M*N taps, or nullptr
    const float2* history;  // [rows, P, H]: the H samples before the chunk, or nullptr
    int64_t T, S, H;
    int M;
    int log2P;                // P = 2^log2P
    int log2pb;               // polarizations per tile
    int log2sb;               // output samples per tile
    int64_t pgroups, sgroups; // tiles per row = pgroups * sgroups
};

/* The tiling of a geometry, or false when the single-pass kernel does not apply. */
struct tiling {
    int log2n, log2p, log2pb, log2sb;
    int64_t pgroups, sgroups, tiles;
};

inline int exact_log2(int64_t value)
{
    if (value < 1 || (value & (value - 1)) != 0)
        return -1;
    int log2 = 0;
    while ((int64_t(1) << log2) < value)
        log2++;
    return log2;
}

inline bool plan_tiling(int64_t rows, int64_t T, int64_t P, int64_t N, tiling* out)
{
    const int log2n = exact_log2(N), log2p = exact_log2(P);
    if (log2n < 1 || log2n > kMaxLog2N || log2p < 0 || T % N != 0)
        return false;
    const int64_t S = T / N;
    tiling t{};
    t.log2n = log2n;
    t.log2p = log2p;
    t.log2pb = N * P <= kCapacity ? log2p : 0;
    // the largest power of two dividing S that keeps the tile within capacity
    t.log2sb = 0;
    while (S % (int64_t(2) << t.log2sb) == 0 &&
           (int64_t(2) << (t.log2sb + t.log2pb + log2n)) <= kCapacity)
        t.log2sb++;
    t.pgroups = P >> t.log2pb;
    t.sgroups = S >> t.log2sb;
    t.tiles = rows * t.pgroups * t.sgroups;
    *out = t;
    return true;
}

/* --- complex arithmetic ----------------------------------------------------- */

BLADE_TILE_FN float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
BLADE_TILE_FN float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
BLADE_TILE_FN float2 cmul(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* d * exp(-2 pi i m / 16), m = 0..7, with the constants correctly rounded. */
BLADE_TILE_FN float2 rotate16(float2 d, int m)
{
    constexpr float c1 = 0.923879532511286756f; // cos(pi/8)
    constexpr float s1 = 0.382683432365089772f; // sin(pi/8)
    constexpr float h = 0.707106781186547524f;  // cos(pi/4)
    switch (m) {
    case 0:
        return d;
    case 1:
        return cmul(d, make_float2(c1, -s1));
    case 2:
        return cmul(d, make_float2(h, -h));
    case 3:
        return cmul(d, make_float2(s1, -c1));
    case 4:
        return make_float2(d.y, -d.x); // times -i
    case 5:
        return cmul(d, make_float2(-s1, -c1));
    case 6:
        return cmul(d, make_float2(-h, -h));
    default:
        return cmul(d, make_float2(-c1, -s1));
    }
}

/* The lowest `bits` (<= 4) bits of value in reverse order. Loop-free, so that it
 * folds to a constant wherever value is one after unrolling. */
BLADE_TILE_FN constexpr int bit_reverse(int value, int bits)
{
    return (((value & 1) << 3) | ((value & 2) << 1) | ((value & 4) >> 1) | ((value & 8) >> 3)) >>
           (4 - bits);
}

/* In-register DFT of R = 2^LOG2R <= 16 points, natural order in and out
 * (radix-2 decimation in frequency, then the bit-reversal permutation, which
 * unrolling turns into register renaming). */
template <int LOG2R>
BLADE_TILE_FN void dft(float2* v)
{
    constexpr int R = 1 << LOG2R;
    // Constant trip counts on every loop, so that unrolling leaves only constant
    // indices and v stays in registers.
    BLADE_UNROLL
    for (int stage = 0; stage < LOG2R; stage++) {
        const int log2half = LOG2R - 1 - stage;
        BLADE_UNROLL
        for (int i = 0; i < R / 2; i++) {
            const int j = i & ((1 << log2half) - 1);
            const int top = ((i >> log2half) << (log2half + 1)) + j;
            const int bottom = top + (1 << log2half);
            const float2 a = v[top], b = v[bottom];
            v[top] = cadd(a, b);
            // exp(-2 pi i j / (2 half)) = exp(-2 pi i m / 16)
            v[bottom] = rotate16(csub(a, b), j << (3 - log2half));
        }
    }
    float2 ordered[R];
    BLADE_UNROLL
    for (int k = 0; k < R; k++)
        ordered[k] = v[bit_reverse(k, LOG2R)];
    BLADE_UNROLL
    for (int k = 0; k < R; k++)
        v[k] = ordered[k];
}

/* --- the three steps ---------------------------------------------------------- */

struct origin {
    int64_t row; // (a, f)
    int64_t s0;  // first output sample
    int p0;      // first polarization
};

BLADE_TILE_FN origin tile_origin(const params& p, int64_t tile)
{
    const int64_t per_row = p.pgroups * p.sgroups;
    origin o;
    o.row = tile / per_row;
    const int64_t rest = tile - o.row * per_row;
    o.p0 = static_cast<int>(rest / p.sgroups) << p.log2pb;
    o.s0 = (rest % p.sgroups) << p.log2sb;
    return o;
}

BLADE_TILE_FN int tile_rows(const params& p) { return 1 << (p.log2pb + p.log2sb); }

/* Step 1, for one thread: values e = thread, thread + kThreads, ... of the tile, in
 * global order (t, p). */
template <int LOG2N, bool FILTER>
BLADE_TILE_FN void load(const params& p, const origin& o, float2* smem, int thread)
{
    constexpr int N = 1 << LOG2N;
    constexpr int RS = row_stride(N);
    const int values = 1 << (p.log2pb + p.log2sb + LOG2N);
    const int pb_mask = (1 << p.log2pb) - 1;
    const int64_t row_base = (o.row * p.T) << p.log2P;
    for (int e = thread; e < values; e += kThreads) {
        const int pl = e & pb_mask;
        const int tl = e >> p.log2pb;
        const int n = tl & (N - 1);
        const int sl = tl >> LOG2N;
        const int64_t t = (o.s0 << LOG2N) + tl;
        const int pol = o.p0 + pl;
        float2 v;
        if constexpr (!FILTER) {
            v = load_sample(p.input, p.input_half, row_base + (t << p.log2P) + pol);
        } else {
            // tap m weighs the sample (M-1-m) blocks before t
            v = make_float2(0.0f, 0.0f);
            const int64_t series = ((o.row << p.log2P) + pol) * p.H;
            for (int m = 0; m < p.M; m++) {
                const int64_t tau = t - static_cast<int64_t>(p.M - 1 - m) * N;
                const float2 x =
                    tau >= 0 ? load_sample(p.input, p.input_half, row_base + (tau << p.log2P) + pol)
                             : p.history[series + p.H + tau];
                const float h = p.filter[m * N + n];
                v.x += h * x.x;
                v.y += h * x.y;
            }
        }
        smem[((pl << p.log2sb) + sl) * RS + pad(n)] = v;
    }
}

/* Step 2: one Stockham pass of radix R = 2^LOG2R over every row, after passes that
 * have combined NS = 2^LOG2NS points. Butterfly j of a row reads the R points
 * j + r*N/R, twiddles them by exp(-2 pi i r (j mod NS) / (NS R)), transforms them,
 * and writes them to (j / NS) * NS * R + (j mod NS) + r*NS. */
template <int LOG2N, int LOG2R, int LOG2NS>
struct radix_pass {
    static constexpr int N = 1 << LOG2N, R = 1 << LOG2R, NS = 1 << LOG2NS;
    static constexpr int kPerRowLog2 = LOG2N - LOG2R;   // butterflies per row
    static constexpr int kButterflies = kPerThread / R; // per thread
    static constexpr int RS = row_stride(N);
    static_assert(LOG2NS + LOG2R <= LOG2N, "passes overrun the transform");
    static_assert(kPerThread % R == 0, "radix larger than the staging");

    BLADE_TILE_FN static void
    read(const float2* smem, int rows, const float2* twiddles, int thread, float2 (&v)[kPerThread])
    {
        const int butterflies = rows << kPerRowLog2;
        BLADE_UNROLL
        for (int q = 0; q < kButterflies; q++) {
            const int b = thread + q * kThreads;
            if (b < butterflies) {
                const int row = b >> kPerRowLog2;
                const int j = b & ((1 << kPerRowLog2) - 1);
                const float2* in = smem + row * RS;
                BLADE_UNROLL
                for (int r = 0; r < R; r++)
                    v[q * R + r] = in[pad(j + (r << kPerRowLog2))];
                if constexpr (NS > 1) {
                    const int jm = j & (NS - 1);
                    BLADE_UNROLL
                    for (int r = 1; r < R; r++)
                        v[q * R + r] =
                            cmul(v[q * R + r], twiddles[(r * jm) << (LOG2N - LOG2NS - LOG2R)]);
                }
                dft<LOG2R>(v + q * R);
            }
        }
    }

    BLADE_TILE_FN static void
    write(float2* smem, int rows, int thread, const float2 (&v)[kPerThread])
    {
        const int butterflies = rows << kPerRowLog2;
        BLADE_UNROLL
        for (int q = 0; q < kButterflies; q++) {
            const int b = thread + q * kThreads;
            if (b < butterflies) {
                const int row = b >> kPerRowLog2;
                const int j = b & ((1 << kPerRowLog2) - 1);
                const int base = ((j >> LOG2NS) << (LOG2NS + LOG2R)) + (j & (NS - 1));
                float2* out = smem + row * RS;
                BLADE_UNROLL
                for (int r = 0; r < R; r++)
                    out[pad(base + (r << LOG2NS))] = v[q * R + r];
            }
        }
    }
};

/* The passes of an N-point transform: first radix 2^(log2 N mod 4) if that is not
 * 1, then radix 16. `Exec::pass<Pass>()` runs one pass on all threads with the
 * barriers around it (a kernel, or the CPU emulation of the tests). */
template <int LOG2N, int LOG2NS = 0>
struct fft_passes {
    template <typename Exec>
    BLADE_TILE_FN static void run(Exec& exec)
    {
        if constexpr (LOG2NS < LOG2N) {
            constexpr int LOG2R = (LOG2NS == 0 && LOG2N % 4 != 0) ? LOG2N % 4 : 4;
            exec.template pass<radix_pass<LOG2N, LOG2R, LOG2NS>>();
            fft_passes<LOG2N, LOG2NS + LOG2R>::run(exec);
        }
    }
};

/* Step 3, for one thread: y[row][k][s0 + sl][p0 + pl] = X[(k + N/2) mod N], values in
 * global order (k, s, p). */
template <int LOG2N>
BLADE_TILE_FN void store(const params& p, const origin& o, const float2* smem, int thread)
{
    constexpr int N = 1 << LOG2N;
    constexpr int RS = row_stride(N);
    const int values = 1 << (p.log2pb + p.log2sb + LOG2N);
    const int pb_mask = (1 << p.log2pb) - 1, sb_mask = (1 << p.log2sb) - 1;
    const int64_t row_base = (o.row * p.T) << p.log2P;
    for (int e = thread; e < values; e += kThreads) {
        const int pl = e & pb_mask;
        const int q = e >> p.log2pb;
        const int sl = q & sb_mask;
        const int k = q >> p.log2sb;
        const float2 v = smem[((pl << p.log2sb) + sl) * RS + pad((k + N / 2) & (N - 1))];
        store_sample(p.output,
                     p.output_half,
                     row_base + ((static_cast<int64_t>(k) * p.S + o.s0 + sl) << p.log2P) + o.p0 +
                         pl,
                     v);
    }
}

} // namespace blade_tile

#endif
