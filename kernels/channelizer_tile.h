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

// The direct tile (below): twice the threads and values, the same staging per thread.
constexpr int kDirectThreads = 1024;
constexpr int kDirectCapacity = kDirectThreads * kPerThread; // 16384
constexpr int kDirectMaxLog2N = 14;                          // N = 16384

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

/* What a launch needs: the tensors, the geometry, the tiling and the history ring
 * (input_value). */
struct params {
    const void* input;      // [rows, T, P], cf32 or cf16
    void* output;           // [rows, N, S, P], cf32 or cf16
    bool input_half;        // the input is cf16
    bool output_half;       // the output is cf16
    const float2* twiddles; // twiddles[m] = exp(-2 pi i m / N), m < N
    const float* filter;    // M*N taps, or nullptr
    float2* history;        // [rows, P, R]: the ring of past samples (below), or nullptr
    int64_t T, S, H;
    int64_t R;      // ring length per series (history_ring)
    int64_t hread;  // ring position of the chunk's t = 0 for reading tau < 0
    int64_t hwrite; // ring position of the chunk's t = 0 for writing its last samples
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

/* Tiles of at most `capacity` values (kCapacity for the shared tile, kDirectCapacity
 * for the direct one): all P polarizations when N*P fits, else one. */
inline bool
plan_tiling(int64_t rows, int64_t T, int64_t P, int64_t N, tiling* out, int capacity = kCapacity)
{
    const int log2n = exact_log2(N), log2p = exact_log2(P);
    if (log2n < 1 || (int64_t(1) << log2n) > capacity || log2p < 0 || T % N != 0)
        return false;
    const int64_t S = T / N;
    tiling t{};
    t.log2n = log2n;
    t.log2p = log2p;
    t.log2pb = N * P <= capacity ? log2p : 0;
    // the largest power of two dividing S that keeps the tile within capacity
    t.log2sb = 0;
    while (S % (int64_t(2) << t.log2sb) == 0 &&
           (int64_t(2) << (t.log2sb + t.log2pb + log2n)) <= capacity)
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

/* v[r] *= twiddles[r * m] for r = 1 .. 15 (15 m below the table's length): the
 * twiddles of one radix-16 butterfly from two reads of the table (r = 1 and 4) and
 * products. The fifteen reads it replaces fall m apart for lanes m apart, each on its
 * own cache line for the large m of the last passes: they were most of a tile's L1
 * traffic (about 11 500 wavefronts per 8192-point transform against 5000 for every
 * shared-memory access). Each product adds about one rounding: the largest error,
 * measured 3.2e-7 (for every m of N = 512 ... 65536), against 6e-8 for the table. */
BLADE_TILE_FN void apply_twiddles16(float2* v, const float2* twiddles, int m)
{
    const float2 w1 = twiddles[m];
    const float2 w4 = twiddles[4 * m];
    const float2 w2 = cmul(w1, w1);
    const float2 w3 = cmul(w2, w1);
    v[1] = cmul(v[1], w1);
    v[2] = cmul(v[2], w2);
    v[3] = cmul(v[3], w3);
    float2 w = w4; // w^(4a), a = 1, 2, 3
    BLADE_UNROLL
    for (int a = 1; a < 4; a++) {
        if (a > 1)
            w = cmul(w, w4);
        v[4 * a] = cmul(v[4 * a], w);
        v[4 * a + 1] = cmul(v[4 * a + 1], cmul(w, w1));
        v[4 * a + 2] = cmul(v[4 * a + 2], cmul(w, w2));
        v[4 * a + 3] = cmul(v[4 * a + 3], cmul(w, w3));
    }
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

/* The polyphase history is a ring per series (row, pol) of R samples: the H samples
 * before the chunk, at ring positions hread - H ... hread - 1 (mod R), are read; the
 * chunk's last min(T, H) samples are written, as the tiles load them, to positions
 * hwrite + t (mod R), which are none of those, and become the next chunk's past.
 * With T < H the ring is R = H + T long and hwrite = hread (the stream itself, mod
 * R); with T >= H it is R = 2H long and hwrite = hread + H - T (two halves used in
 * turn). No pass of its own, no copy, and one chunk's reads and writes never meet.
 * history_ring gives R and the next chunk's positions. */
struct history_ring {
    int64_t R;     // ring length per series
    int64_t start; // ring position of the H past samples' first

    static history_ring make(int64_t T, int64_t H)
    {
        return history_ring{ T < H ? H + T : 2 * H, 0 };
    }
    int64_t read_base(int64_t H) const { return start + H; }
    int64_t write_base(int64_t T, int64_t H) const { return start + H - (T > H ? T - H : 0); }
    void advance(int64_t T, int64_t H) { start = (start + (T < H ? T : H)) % R; }
};

BLADE_TILE_FN int64_t ring_index(const params& p, int64_t series, int64_t position)
{
    return series * p.R + (position >= p.R ? position - p.R : position); // position < 2R
}

/* The value the transform takes at time t (branch n = t mod N) of polarization pol of
 * the tile's row: x itself, or with the polyphase filter the sum of the M taps, tap m
 * weighing the sample (M-1-m) blocks before t (from the chunk, or the history ring,
 * to which the last tap, x(t) itself, is also written when it is among the chunk's
 * last H samples). Each (t, pol) of a chunk is loaded by exactly one thread. */
template <int LOG2N, bool FILTER>
BLADE_TILE_FN float2 input_value(const params& p, const origin& o, int pol, int64_t t, int n)
{
    const int64_t row_base = (o.row * p.T) << p.log2P;
    if constexpr (!FILTER) {
        return load_sample(p.input, p.input_half, row_base + (t << p.log2P) + pol);
    } else {
        float2 v = make_float2(0.0f, 0.0f);
        const int64_t series = (o.row << p.log2P) + pol;
        for (int m = 0; m < p.M; m++) {
            const int64_t tau = t - (static_cast<int64_t>(p.M - 1 - m) << LOG2N);
            const float2 x =
                tau >= 0 ? load_sample(p.input, p.input_half, row_base + (tau << p.log2P) + pol)
                         : p.history[ring_index(p, series, p.hread + tau)];
            const float h = p.filter[(m << LOG2N) + n];
            v.x += h * x.x;
            v.y += h * x.y;
            if (m == p.M - 1 && t >= p.T - p.H)
                p.history[ring_index(p, series, p.hwrite + t)] = x;
        }
        return v;
    }
}

/* Loads in flight per thread in the shared tile's load (two batches of its 16 values:
 * all 16 at once spilled registers in the FFT passes). */
constexpr int kLoadBatch = kPerThread / 2;

/* v[q] = sample (e >> log2pb, e & pb_mask) of a tile starting at `base`, for the
 * values e = first + q * kThreads below `values`, every load issued before any is
 * used. */
template <bool HALF>
BLADE_TILE_FN void load_run(const void* input,
                            int64_t base,
                            int first,
                            int values,
                            int pb_mask,
                            int log2pb,
                            int log2P,
                            float2 (&v)[kLoadBatch])
{
    BLADE_UNROLL
    for (int q = 0; q < kLoadBatch; q++) {
        const int e = first + q * kThreads;
        if (e < values)
            v[q] = load_sample(input, HALF, base + (((e >> log2pb) << log2P) + (e & pb_mask)));
    }
}

/* Step 1, for one thread: values e = thread, thread + kThreads, ... of the tile, in
 * global order (t, p). */
template <int LOG2N, bool FILTER>
BLADE_TILE_FN void load(const params& p, const origin& o, float2* smem, int thread)
{
    constexpr int N = 1 << LOG2N;
    constexpr int RS = row_stride(N);
    const int values = 1 << (p.log2pb + p.log2sb + LOG2N);
    const int pb_mask = (1 << p.log2pb) - 1;
    if constexpr (!FILTER) {
        /* All of a thread's loads first, then the stores to shared memory: with a
         * loop of unknown length the compiler kept four loads in flight per thread,
         * 32 KB per SM, too few to cover the memory's latency; here eight. Offsets
         * from the tile's first sample fit 32 bits. */
        const int64_t base = ((o.row * p.T + (o.s0 << LOG2N)) << p.log2P) + o.p0;
        BLADE_UNROLL
        for (int half = 0; half < 2; half++) {
            float2 v[kLoadBatch];
            const int first = thread + half * kLoadBatch * kThreads;
            if (p.input_half)
                load_run<true>(p.input, base, first, values, pb_mask, p.log2pb, p.log2P, v);
            else
                load_run<false>(p.input, base, first, values, pb_mask, p.log2pb, p.log2P, v);
            BLADE_UNROLL
            for (int q = 0; q < kLoadBatch; q++) {
                const int e = first + q * kThreads;
                if (e < values) {
                    const int pl = e & pb_mask, tl = e >> p.log2pb;
                    smem[((pl << p.log2sb) + (tl >> LOG2N)) * RS + pad(tl & (N - 1))] = v[q];
                }
            }
        }
    } else {
        for (int e = thread; e < values; e += kThreads) {
            const int pl = e & pb_mask;
            const int tl = e >> p.log2pb;
            const int n = tl & (N - 1);
            const int sl = tl >> LOG2N;
            const int64_t t = (o.s0 << LOG2N) + tl;
            smem[((pl << p.log2sb) + sl) * RS + pad(n)] =
                input_value<LOG2N, FILTER>(p, o, o.p0 + pl, t, n);
        }
    }
}

/* Calls body(q, b) for each butterfly q of this thread, b = thread + q * THREADS,
 * among the first `butterflies` of a pass: the loop of every pass's read and write. */
template <int kButterflies, int THREADS, typename Body>
BLADE_TILE_FN void for_each_butterfly(int thread, int butterflies, Body&& body)
{
    BLADE_UNROLL
    for (int q = 0; q < kButterflies; q++) {
        const int b = thread + q * THREADS;
        if (b < butterflies)
            body(q, b);
    }
}

/* The radix of the first pass of a 2^log2n-point transform: 2^(log2n mod 4), or 16
 * when log2n is a multiple of 4; the passes after it are radix 16. */
BLADE_TILE_FN constexpr int first_radix_log2(int log2n) { return log2n % 4 != 0 ? log2n % 4 : 4; }

/* Step 2: one Stockham pass of radix R = 2^LOG2R over every row, after passes that
 * have combined NS = 2^LOG2NS points. Butterfly j of a row reads the R points
 * j + r*N/R, twiddles them by exp(-2 pi i r (j mod NS) / (NS R)), transforms them,
 * and writes them to (j / NS) * NS * R + (j mod NS) + r*NS. */
template <int LOG2N, int LOG2R, int LOG2NS, int THREADS = kThreads, int RS = row_stride(1 << LOG2N)>
struct radix_pass {
    static constexpr int N = 1 << LOG2N, R = 1 << LOG2R, NS = 1 << LOG2NS;
    static constexpr int kPerRowLog2 = LOG2N - LOG2R;   // butterflies per row
    static constexpr int kButterflies = kPerThread / R; // per thread
    static_assert(LOG2NS + LOG2R <= LOG2N, "passes overrun the transform");
    static_assert(kPerThread % R == 0, "radix larger than the staging");

    // Butterfly b: row b / (N/R), butterfly j = b mod N/R of the row.
    template <typename Body>
    BLADE_TILE_FN static void for_each(int rows, int thread, Body&& body)
    {
        for_each_butterfly<kButterflies, THREADS>(thread, rows << kPerRowLog2, [&](int q, int b) {
            body(q, b >> kPerRowLog2, b & ((1 << kPerRowLog2) - 1));
        });
    }

    BLADE_TILE_FN static void
    read(const float2* smem, int rows, const float2* twiddles, int thread, float2 (&v)[kPerThread])
    {
        for_each(rows, thread, [&](int q, int row, int j) {
            const float2* in = smem + row * RS;
            BLADE_UNROLL
            for (int r = 0; r < R; r++)
                v[q * R + r] = in[pad(j + (r << kPerRowLog2))];
            if constexpr (NS > 1) {
                const int jm = j & (NS - 1);
                if constexpr (R == 16) {
                    apply_twiddles16(v + q * R, twiddles, jm << (LOG2N - LOG2NS - LOG2R));
                } else {
                    BLADE_UNROLL
                    for (int r = 1; r < R; r++)
                        v[q * R + r] =
                            cmul(v[q * R + r], twiddles[(r * jm) << (LOG2N - LOG2NS - LOG2R)]);
                }
            }
            dft<LOG2R>(v + q * R);
        });
    }

    BLADE_TILE_FN static void
    write(float2* smem, int rows, int thread, const float2 (&v)[kPerThread])
    {
        for_each(rows, thread, [&](int q, int row, int j) {
            const int base = ((j >> LOG2NS) << (LOG2NS + LOG2R)) + (j & (NS - 1));
            float2* out = smem + row * RS;
            BLADE_UNROLL
            for (int r = 0; r < R; r++)
                out[pad(base + (r << LOG2NS))] = v[q * R + r];
        });
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
            constexpr int LOG2R = LOG2NS == 0 ? first_radix_log2(LOG2N) : 4;
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


/* --- the direct tile ------------------------------------------------------------
 *
 * The same transform with two shared-memory round trips and four barriers fewer:
 * the first pass reads its points straight from global memory into registers (the
 * filter taps summed there), the last pass writes its results straight to y. With
 * kDirectThreads threads and tiles of up to kDirectCapacity values, N = 8192 with
 * P = 2 keeps both polarizations in one tile, so every sector a block loads is
 * used whole. Between the passes shared memory holds the tile as in the shared tile.
 * N <= 16 is a single pass, global memory to registers to global memory.
 *
 * Butterflies are dealt to threads (lane_split) so that each half-warp takes 16
 * consecutive points (first pass: times t) or outputs (last pass: output samples s,
 * or fine channels k when a tile has one s) of one polarization, and the other
 * half-warp the same ones of the next polarization: a warp's 8-byte accesses then
 * cover whole 32-byte sectors of the interleaved [t][p] or [k][s][p] data, and each
 * half-warp, which shared memory serves as one request, stays in one row at
 * consecutive (padded) addresses: no bank conflicts.
 *
 * Passes: the radix-2, 4 or 8 pass first when log2(N) is not a multiple of 4 (else
 * radix 16), from global memory, with no twiddles; radix 16 in shared memory;
 * radix 16 last, to global memory.
 */

/* Butterfly b of a direct pass as (polarization pl, index u): the lowest
 * min(4, log2u) bits of b are the lowest bits of u, the next log2pb bits pl, the
 * rest the rest of u (u < 2^log2u). A bijection of [0, 2^(log2pb + log2u)). */
BLADE_TILE_FN void lane_split(int b, int log2pb, int log2u, int& pl, int& u)
{
    const int low = log2u < 4 ? log2u : 4;
    pl = (b >> low) & ((1 << log2pb) - 1);
    u = (b & ((1 << low) - 1)) | ((b >> (low + log2pb)) << low);
}

/* for_each_butterfly over the `butterflies` of a direct pass, butterfly b decoded by
 * Pass::decode (lane_split) into polarization pl, butterfly j and output sample sl:
 * body(q, pl, j, sl). */
template <class Pass, int THREADS, typename Body>
BLADE_TILE_FN void for_each_lane(const params& p, int thread, int butterflies, Body&& body)
{
    for_each_butterfly<Pass::kButterflies, THREADS>(thread, butterflies, [&](int q, int b) {
        int pl, j, sl;
        Pass::decode(p, b, pl, j, sl);
        body(q, pl, j, sl);
    });
}

/* A first pass's results to shared memory (radix_pass::write with NS = 1): butterfly
 * j's R outputs go to points j*R + r of its row (rows of stride RS). */
template <int LOG2R, int RS>
BLADE_TILE_FN void write_first_outputs(float2* smem, int row, int j, const float2* v)
{
    float2* out = smem + row * RS;
    BLADE_UNROLL
    for (int r = 0; r < (1 << LOG2R); r++)
        out[pad((j << LOG2R) + r)] = v[r];
}

/* The first pass (NS = 1) of radix R = 2^LOG2R, from global memory. u = j + sl*N/R:
 * butterfly j of row (pl, sl) takes the points t = j + r*N/R of output sample sl. */
template <int LOG2N, int LOG2R, bool FILTER, int THREADS = kDirectThreads>
struct first_pass {
    static constexpr int N = 1 << LOG2N, R = 1 << LOG2R;
    static constexpr int kPerRowLog2 = LOG2N - LOG2R; // butterflies per row
    static constexpr int kButterflies = kPerThread / R;
    static constexpr int RS = row_stride(N);
    static_assert(kPerThread % R == 0, "radix larger than the staging");

    BLADE_TILE_FN static void decode(const params& p, int b, int& pl, int& j, int& sl)
    {
        int u;
        lane_split(b, p.log2pb, kPerRowLog2 + p.log2sb, pl, u);
        j = u & ((1 << kPerRowLog2) - 1);
        sl = u >> kPerRowLog2;
    }

    template <typename Body>
    BLADE_TILE_FN static void for_each(const params& p, int thread, Body&& body)
    {
        for_each_lane<first_pass, THREADS>(p, thread, tile_rows(p) << kPerRowLog2, body);
    }

    BLADE_TILE_FN static void
    read(const params& p, const origin& o, int thread, float2 (&v)[kPerThread])
    {
        for_each(p, thread, [&](int q, int pl, int j, int sl) {
            const int64_t t0 = ((o.s0 + sl) << LOG2N) + j;
            BLADE_UNROLL
            for (int r = 0; r < R; r++)
                v[q * R + r] = input_value<LOG2N, FILTER>(
                    p, o, o.p0 + pl, t0 + (r << kPerRowLog2), j + (r << kPerRowLog2));
            dft<LOG2R>(v + q * R);
        });
    }

    BLADE_TILE_FN static void
    write(float2* smem, const params& p, int thread, const float2 (&v)[kPerThread])
    {
        for_each(p, thread, [&](int q, int pl, int j, int sl) {
            write_first_outputs<LOG2R, RS>(smem, (pl << p.log2sb) + sl, j, v + q * R);
        });
    }
};

/* y[row][k][s0 + sl][p0 + pl] = X[m] with k = (m + N/2) mod N: the (-1)^n of the
 * formula as a shift of the output index. */
BLADE_TILE_FN void
store_value(const params& p, const origin& o, int log2n, int pl, int sl, int m, float2 v)
{
    const int n = 1 << log2n;
    const int64_t k = (m + n / 2) & (n - 1);
    const int64_t row_base = (o.row * p.T) << p.log2P;
    store_sample(
        p.output, p.output_half, row_base + ((k * p.S + o.s0 + sl) << p.log2P) + o.p0 + pl, v);
}

/* Butterfly j < NS of a last radix-16 pass (NS = L/16) over the row at `in`: its 16
 * points j + r*NS, twiddled by exp(-2 pi i r j / L), transformed. */
template <int LOG2NS>
BLADE_TILE_FN void last_butterfly(const float2* in, const float2* twiddles, int j, float2* v)
{
    BLADE_UNROLL
    for (int r = 0; r < 16; r++)
        v[r] = in[pad(j + (r << LOG2NS))];
    apply_twiddles16(v, twiddles, j);
    dft<4>(v);
}

/* The last pass, radix 16 (NS = N/16), to global memory. u = sl + j*sb: butterfly j
 * of row (pl, sl) writes the outputs m = j + r*NS of output sample sl. */
template <int LOG2N, int THREADS = kDirectThreads>
struct last_pass {
    static constexpr int N = 1 << LOG2N, LOG2R = 4, R = 16, LOG2NS = LOG2N - LOG2R;
    static constexpr int kButterflies = kPerThread / R;
    static constexpr int RS = row_stride(N);

    BLADE_TILE_FN static void decode(const params& p, int b, int& pl, int& j, int& sl)
    {
        int u;
        lane_split(b, p.log2pb, LOG2NS + p.log2sb, pl, u);
        sl = u & ((1 << p.log2sb) - 1);
        j = u >> p.log2sb;
    }

    template <typename Body>
    BLADE_TILE_FN static void for_each(const params& p, int thread, Body&& body)
    {
        for_each_lane<last_pass, THREADS>(p, thread, tile_rows(p) << LOG2NS, body);
    }

    BLADE_TILE_FN static void read(const float2* smem,
                                   const params& p,
                                   const float2* twiddles,
                                   int thread,
                                   float2 (&v)[kPerThread])
    {
        for_each(p, thread, [&](int q, int pl, int j, int sl) {
            last_butterfly<LOG2NS>(smem + ((pl << p.log2sb) + sl) * RS, twiddles, j, v + q * R);
        });
    }

    BLADE_TILE_FN static void
    store(const params& p, const origin& o, int thread, const float2 (&v)[kPerThread])
    {
        for_each(p, thread, [&](int q, int pl, int j, int sl) {
            BLADE_UNROLL
            for (int r = 0; r < R; r++)
                store_value(p, o, LOG2N, pl, sl, j + (r << LOG2NS), v[q * R + r]);
        });
    }
};

/* N <= 16: the whole transform in registers, one butterfly per (pl, sl). */
template <int LOG2N, bool FILTER, int THREADS = kDirectThreads>
struct single_pass {
    using first = first_pass<LOG2N, LOG2N, FILTER, THREADS>;
    static constexpr int R = 1 << LOG2N;

    BLADE_TILE_FN static void
    read(const params& p, const origin& o, int thread, float2 (&v)[kPerThread])
    {
        first::read(p, o, thread, v);
    }

    BLADE_TILE_FN static void
    store(const params& p, const origin& o, int thread, const float2 (&v)[kPerThread])
    {
        first::for_each(p, thread, [&](int q, int pl, int j, int sl) { // j = 0
            BLADE_UNROLL
            for (int r = 0; r < R; r++)
                store_value(p, o, LOG2N, pl, sl, r, v[q * R + r]);
        });
    }
};

/* Shared-memory passes of the direct tile: radix 16 from NS = 2^LOG2NS while one
 * more would leave at least the last pass's 16. */
template <int LOG2N, int LOG2NS, int THREADS = kDirectThreads>
struct direct_middle {
    template <typename Exec>
    BLADE_TILE_FN static void run(Exec& exec)
    {
        if constexpr (LOG2NS + 4 < LOG2N) {
            exec.template pass<radix_pass<LOG2N, 4, LOG2NS, THREADS>>();
            direct_middle<LOG2N, LOG2NS + 4, THREADS>::run(exec);
        }
    }
};

/* The passes of the direct tile. Exec (the kernel, or the CPU emulation) provides
 * first<Pass>() (global -> registers -> shared, then a barrier), pass<Pass>() (as for
 * the shared tile), last<Pass>() (shared -> registers -> global) and only<Pass>()
 * (global -> registers -> global). THREADS: kDirectThreads (tiles of up to 16384
 * values, one block per SM), or kThreads, the half tile (up to 8192 values, the
 * shared tile's size: two blocks per SM, one polarization per tile at N = 8192). */
template <int LOG2N, bool FILTER, int THREADS = kDirectThreads>
struct direct_passes {
    template <typename Exec>
    BLADE_TILE_FN static void run(Exec& exec)
    {
        if constexpr (LOG2N <= 4) {
            exec.template only<single_pass<LOG2N, FILTER, THREADS>>();
        } else {
            constexpr int LOG2R1 = first_radix_log2(LOG2N);
            exec.template first<first_pass<LOG2N, LOG2R1, FILTER, THREADS>>();
            direct_middle<LOG2N, LOG2R1, THREADS>::run(exec);
            exec.template last<last_pass<LOG2N, THREADS>>();
        }
    }
};

/* Shared memory of a direct tile of `rows` transforms: none for N <= 16. */
inline std::size_t direct_shared_bytes(int log2n, int rows)
{
    return log2n <= 4 ? 0 : shared_bytes(log2n, rows);
}

} // namespace blade_tile

#endif
