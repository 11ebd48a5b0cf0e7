/* SPDX-License-Identifier: MIT */
/*
 * The long-N channelizer: N = N1 * N2 points (2^15 ... 2^22) as a four-step FFT in two
 * kernels of direct tiles (channelizer_tile.h), for N beyond what one tile holds.
 *
 * With n = n1 + N1*n2 and k = k2 + N2*k1 (n1, k1 < N1; n2, k2 < N2),
 *
 *     X[k2 + N2 k1] = sum_{n1} W_N1^(n1 k1) * [ W_N^(n1 k2) * sum_{n2} W_N2^(n2 k2) x[n1 + N1 n2] ]
 *
 * (W_L = exp(-2 pi i / L)):
 *   pass A ("columns") transforms, for every n1, the N2 points n1 + N1*n2 of a block
 *     (stride N1 in time), rotates the result by W_N^(n1 k2) and writes the workspace
 *     Z[row][s][k2][n1][p]; with a polyphase filter it sums the taps as it loads
 *     (blade_tile::input_value, the history ring included);
 *   pass B ("rows") transforms, for every k2, the N1 values Z[..][k2][n1][p] and
 *     writes y[row][k][s][p] with k = (k2 + N2 k1 + N/2) mod N (the (-1)^n modulation).
 * Global memory sees x read and Z written, Z read and y written: twice the one-pass
 * minimum, against about five times for planarize + cuFFT (two or three passes at
 * these lengths) + reorder.
 *
 * Both passes are direct tiles: the first FFT pass reads global memory straight into
 * registers, the last writes straight to global memory, radix-16 passes in shared
 * memory between (1024 threads, up to 16384 values per tile). Tiles are chosen so
 * that every warp access is a run of at least 128 contiguous bytes where the data
 * allow: pass A takes ga consecutive n1 of pa polarizations (its loads of x are runs
 * of ga*pa samples, at N = 2^20 8 * 2: 128 bytes), pass B takes g2 consecutive k2 and
 * gs consecutive output samples (its stores of y are runs of gs*pb samples, or
 * g2*gs*pb when the tile holds all S). Lanes are dealt butterflies accordingly:
 * (polarization, n1) fastest in pass A, the time index in pass B's loads, and
 * (polarization, s, k2) in pass B's stores; rows are numbered in the same order, so
 * a half-warp in shared memory touches consecutive rows (odd row stride: distinct
 * banks) or consecutive points of one row.
 *
 * The rotation W_N^m, m = n1 k2 < N, is the product of two tables computed in double
 * and rounded: lo[m mod N2] = W_N^(m mod N2), hi[m / N2] = W_N1^(m / N2).
 *
 * Everything is __host__ __device__, for the CPU emulation in
 * tests/core/test_channelizer_tile.cc. Not installed.
 */
#ifndef BLADE_KERNELS_CHANNELIZER_FOUR_STEP_H
#define BLADE_KERNELS_CHANNELIZER_FOUR_STEP_H

#include "channelizer_tile.h"

namespace blade_tile {

constexpr int kFourStepMinLog2N = 15; // above the direct tile's 16384
constexpr int kFourStepMaxLog2N = 22; // 4 Mi points: N1 = 2048, N2 = 2048
// Shared memory of the largest tile of either pass: 16384 values, the padding of
// row_stride and at most 128 rows (transforms of at least 128 points).
constexpr std::size_t kFourStepSharedBytes =
    (kDirectCapacity + kDirectCapacity / 16 + kDirectCapacity / 128) * sizeof(float2);

/* The two passes' tiles. */
struct four_step {
    int log2n, log2n1, log2n2; // N = N1 * N2, N1 <= N2
    int log2p;
    // pass A: (row, s, n1 group, pol group); ga n1 and pa polarizations per tile
    int log2pa, log2ga;
    int64_t a_n1_groups, a_p_groups, a_tiles;
    // pass B: (row, s group, k2 group, pol group); gs samples, g2 k2, pb polarizations
    int log2pb, log2gs, log2g2;
    int64_t b_s_groups, b_k2_groups, b_p_groups, b_tiles;
};

/* The largest power of two dividing value, at most limit (a power of two). */
inline int64_t pow2_divisor(int64_t value, int64_t limit)
{
    int64_t d = 1;
    while (d < limit && value % (2 * d) == 0)
        d *= 2;
    return d;
}

/* The four-step tiling of a geometry, or false when N, P or T do not suit it. */
inline bool plan_four_step(int64_t rows, int64_t T, int64_t P, int64_t N, four_step* out)
{
    const int log2n = exact_log2(N), log2p = exact_log2(P);
    if (log2n < kFourStepMinLog2N || log2n > kFourStepMaxLog2N || log2p < 0 || T % N != 0)
        return false;
    const int64_t S = T / N;
    four_step f{};
    f.log2n = log2n;
    f.log2n1 = log2n / 2;
    f.log2n2 = log2n - f.log2n1;
    f.log2p = log2p;
    const int64_t cap = kDirectCapacity, n1 = int64_t(1) << f.log2n1, n2 = int64_t(1) << f.log2n2;
    // pass A: all polarizations if they fit, then as many n1 as fit
    const int64_t pa = P * n2 <= cap ? P : 1;
    const int64_t ga = cap / (pa * n2) < n1 ? cap / (pa * n2) : n1;
    f.log2pa = exact_log2(pa);
    f.log2ga = exact_log2(ga);
    f.a_n1_groups = n1 / ga;
    f.a_p_groups = P / pa;
    f.a_tiles = rows * S * f.a_n1_groups * f.a_p_groups;
    // pass B: all polarizations if they fit, then output samples, then k2
    const int64_t pb = P * n1 <= cap ? P : 1;
    const int64_t gs = pow2_divisor(S, cap / (pb * n1));
    const int64_t g2 = cap / (pb * n1 * gs) < n2 ? cap / (pb * n1 * gs) : n2;
    f.log2pb = exact_log2(pb);
    f.log2gs = exact_log2(gs);
    f.log2g2 = exact_log2(g2);
    f.b_s_groups = S / gs;
    f.b_k2_groups = n2 / g2;
    f.b_p_groups = P / pb;
    f.b_tiles = rows * f.b_s_groups * f.b_k2_groups * f.b_p_groups;
    *out = f;
    return true;
}

/* The rotation tables: lo[i] = W_N^i (i < N2), hi[i] = W_N1^i (i < N1). */
inline void make_rotations(int log2n1, int log2n2, float2* lo, float2* hi)
{
    const double pi = 3.14159265358979323846;
    const double n = std::ldexp(1.0, log2n1 + log2n2), n1 = std::ldexp(1.0, log2n1);
    for (int64_t i = 0; i < (int64_t(1) << log2n2); i++)
        lo[i] = make_float2(static_cast<float>(std::cos(-2.0 * pi * static_cast<double>(i) / n)),
                            static_cast<float>(std::sin(-2.0 * pi * static_cast<double>(i) / n)));
    for (int64_t i = 0; i < (int64_t(1) << log2n1); i++)
        hi[i] = make_float2(static_cast<float>(std::cos(-2.0 * pi * static_cast<double>(i) / n1)),
                            static_cast<float>(std::sin(-2.0 * pi * static_cast<double>(i) / n1)));
}

/* What both passes need: the tensors and ring (p, as for the tiles: input, output,
 * filter, history, T, S, H, M, log2P, R, hread, hwrite), the workspace and tables. */
struct four_step_params {
    params p;
    float2* work;             // Z [rows][S][N2][N1][P]
    const float2* twiddles_a; // N2-point twiddles (make_twiddles)
    const float2* twiddles_b; // N1-point twiddles
    const float2* rotation_lo;
    const float2* rotation_hi;
    four_step f;
};

/* --- what both passes share ---------------------------------------------------- */

/* Calls body(k, row, j) for each butterfly k this thread holds, b = thread + k *
 * kDirectThreads, of the 2^(log2rows + log2per_row) of a pass whose butterfly b is (row:
 * the lowest log2rows bits of b, then j): consecutive lanes take consecutive rows. */
template <int kButterflies, typename Body>
BLADE_TILE_FN void for_each_row_major(int thread, int log2rows, int log2per_row, Body&& body)
{
    for_each_butterfly<kButterflies, kDirectThreads>(
        thread, 1 << (log2rows + log2per_row), [&](int k, int b) {
            body(k, b & ((1 << log2rows) - 1), b >> log2rows);
        });
}

/* A last pass's loads (radix 16, NS = L/16, rows of stride RS, row-major butterflies):
 * butterfly j reads points j + r*NS of its row, twiddles them by W_L^(r j) and
 * transforms them. */
template <int LOG2NS, int RS>
BLADE_TILE_FN void read_last_inputs(
    const float2* smem, int log2rows, const float2* twiddles, int thread, float2 (&v)[kPerThread])
{
    constexpr int R = 16;
    for_each_row_major<kPerThread / R>(thread, log2rows, LOG2NS, [&](int k, int row, int j) {
        last_butterfly<LOG2NS>(smem + row * RS, twiddles, j, v + k * R);
    });
}

/* --- pass A: columns ---------------------------------------------------------- */

struct origin_a {
    origin o;    // row, s0 (the block), p0
    int64_t n10; // first n1
};

BLADE_TILE_FN origin_a tile_origin_a(const four_step_params& q, int64_t tile)
{
    const four_step& f = q.f;
    origin_a a;
    const int64_t per_s = f.a_n1_groups * f.a_p_groups, per_row = per_s * q.p.S;
    a.o.row = tile / per_row;
    int64_t rest = tile - a.o.row * per_row;
    a.o.s0 = rest / per_s;
    rest -= a.o.s0 * per_s;
    a.o.p0 = static_cast<int>(rest / f.a_n1_groups) << f.log2pa;
    a.n10 = (rest % f.a_n1_groups) << f.log2ga;
    return a;
}

/* Rows of a pass-A tile: row = g * pa + pl for n1 = n10 + g. Butterfly b: (pl, g) its
 * lowest bits, then j. */
template <int LOG2N, int LOG2N2, int LOG2R, bool FILTER>
struct columns_first {
    static constexpr int LOG2N1 = LOG2N - LOG2N2;
    static constexpr int R = 1 << LOG2R, kPerRowLog2 = LOG2N2 - LOG2R;
    static constexpr int kButterflies = kPerThread / R;
    static constexpr int RS = row_stride(1 << LOG2N2);

    BLADE_TILE_FN static void
    read(const four_step_params& q, const origin_a& a, int thread, float2 (&v)[kPerThread])
    {
        const int log2rows = q.f.log2pa + q.f.log2ga;
        const int butterflies = 1 << (log2rows + kPerRowLog2);
        BLADE_UNROLL
        for (int k = 0; k < kButterflies; k++) {
            const int b = thread + k * kDirectThreads;
            if (b < butterflies) {
                const int row = b & ((1 << log2rows) - 1), j = b >> log2rows;
                const int pl = row & ((1 << q.f.log2pa) - 1), g = row >> q.f.log2pa;
                const int64_t n1 = a.n10 + g;
                BLADE_UNROLL
                for (int r = 0; r < R; r++) {
                    const int64_t n = n1 + (static_cast<int64_t>(j + (r << kPerRowLog2)) << LOG2N1);
                    v[k * R + r] = input_value<LOG2N, FILTER>(
                        q.p, a.o, a.o.p0 + pl, (a.o.s0 << LOG2N) + n, static_cast<int>(n));
                }
                dft<LOG2R>(v + k * R);
            }
        }
    }

    BLADE_TILE_FN static void
    write(float2* smem, const four_step_params& q, int thread, const float2 (&v)[kPerThread])
    {
        for_each_row_major<kButterflies>(
            thread, q.f.log2pa + q.f.log2ga, kPerRowLog2, [&](int k, int row, int j) {
                write_first_outputs<LOG2R, RS>(smem, row, j, v + k * R);
            });
    }
};

template <int LOG2N, int LOG2N2>
struct columns_last {
    static constexpr int LOG2N1 = LOG2N - LOG2N2;
    static constexpr int R = 16, LOG2NS = LOG2N2 - 4;
    static constexpr int kButterflies = kPerThread / R;
    static constexpr int RS = row_stride(1 << LOG2N2);

    BLADE_TILE_FN static void
    read(const float2* smem, const four_step_params& q, int thread, float2 (&v)[kPerThread])
    {
        read_last_inputs<LOG2NS, RS>(smem, q.f.log2pa + q.f.log2ga, q.twiddles_a, thread, v);
    }

    // Z[row][s][k2][n1][p] = Y[n1][k2] * W_N^(n1 k2), k2 = j + r*NS
    BLADE_TILE_FN static void
    store(const four_step_params& q, const origin_a& a, int thread, const float2 (&v)[kPerThread])
    {
        const int64_t z_block = ((a.o.row * q.p.S + a.o.s0) << LOG2N) << q.p.log2P;
        for_each_row_major<kButterflies>(
            thread, q.f.log2pa + q.f.log2ga, LOG2NS, [&](int k, int row, int j) {
                const int pl = row & ((1 << q.f.log2pa) - 1), g = row >> q.f.log2pa;
                const int64_t n1 = a.n10 + g;
                BLADE_UNROLL
                for (int r = 0; r < R; r++) {
                    const int64_t k2 = j + (r << LOG2NS);
                    const int64_t m = n1 * k2; // < N
                    const float2 w = cmul(q.rotation_lo[m & ((int64_t(1) << LOG2N2) - 1)],
                                          q.rotation_hi[m >> LOG2N2]);
                    q.work[z_block + ((((k2 << LOG2N1) + n1) << q.p.log2P) + a.o.p0 + pl)] =
                        cmul(v[k * R + r], w);
                }
            });
    }
};

/* --- pass B: rows --------------------------------------------------------------- */

struct origin_b {
    int64_t row, s0, k20;
    int p0;
};

BLADE_TILE_FN origin_b tile_origin_b(const four_step_params& q, int64_t tile)
{
    const four_step& f = q.f;
    origin_b o;
    const int64_t per_row = f.b_s_groups * f.b_k2_groups * f.b_p_groups;
    o.row = tile / per_row;
    int64_t rest = tile - o.row * per_row;
    o.p0 = static_cast<int>(rest / (f.b_s_groups * f.b_k2_groups)) << f.log2pb;
    rest %= f.b_s_groups * f.b_k2_groups;
    o.k20 = (rest / f.b_s_groups) << f.log2g2;
    o.s0 = (rest % f.b_s_groups) << f.log2gs;
    return o;
}

/* Rows of a pass-B tile: row = (g2 * gs_count + gs) * pb + pl. */
BLADE_TILE_FN void split_row_b(const four_step& f, int row, int& pl, int& gs, int& g2)
{
    pl = row & ((1 << f.log2pb) - 1);
    gs = (row >> f.log2pb) & ((1 << f.log2gs) - 1);
    g2 = row >> (f.log2pb + f.log2gs);
}

/* First pass: butterfly b = lane_split over (pl; u = j + (gs, g2) * N1/R), so that a
 * half-warp reads 16 consecutive n1 of one polarization. */
template <int LOG2N, int LOG2N1, int LOG2R>
struct rows_first {
    static constexpr int LOG2N2 = LOG2N - LOG2N1;
    static constexpr int R = 1 << LOG2R, kPerRowLog2 = LOG2N1 - LOG2R;
    static constexpr int kButterflies = kPerThread / R;
    static constexpr int RS = row_stride(1 << LOG2N1);

    BLADE_TILE_FN static void decode(const four_step& f, int b, int& row, int& j)
    {
        int pl, u;
        lane_split(b, f.log2pb, kPerRowLog2 + f.log2gs + f.log2g2, pl, u);
        j = u & ((1 << kPerRowLog2) - 1);
        row = ((u >> kPerRowLog2) << f.log2pb) + pl;
    }

    template <typename Body>
    BLADE_TILE_FN static void for_each(const four_step& f, int thread, Body&& body)
    {
        for_each_butterfly<kButterflies, kDirectThreads>(
            thread, 1 << (f.log2pb + f.log2gs + f.log2g2 + kPerRowLog2), [&](int k, int b) {
                int row, j;
                decode(f, b, row, j);
                body(k, row, j);
            });
    }

    BLADE_TILE_FN static void
    read(const four_step_params& q, const origin_b& o, int thread, float2 (&v)[kPerThread])
    {
        const four_step& f = q.f;
        for_each(f, thread, [&](int k, int row, int j) {
            int pl, gs, g2;
            split_row_b(f, row, pl, gs, g2);
            const int64_t s = o.s0 + gs, k2 = o.k20 + g2;
            const int64_t z = ((((o.row * q.p.S + s) << LOG2N2) + k2) << LOG2N1) << q.p.log2P;
            BLADE_UNROLL
            for (int r = 0; r < R; r++)
                v[k * R + r] =
                    q.work[z + ((static_cast<int64_t>(j + (r << kPerRowLog2)) << q.p.log2P) + o.p0 +
                                pl)];
            dft<LOG2R>(v + k * R);
        });
    }

    BLADE_TILE_FN static void
    write(float2* smem, const four_step_params& q, int thread, const float2 (&v)[kPerThread])
    {
        for_each(q.f, thread, [&](int k, int row, int j) {
            write_first_outputs<LOG2R, RS>(smem, row, j, v + k * R);
        });
    }
};

/* Last pass: butterfly b = (row: pl, gs, g2) lowest, then j; outputs k1 = j + r*NS. */
template <int LOG2N, int LOG2N1>
struct rows_last {
    static constexpr int LOG2N2 = LOG2N - LOG2N1;
    static constexpr int R = 16, LOG2NS = LOG2N1 - 4;
    static constexpr int kButterflies = kPerThread / R;
    static constexpr int RS = row_stride(1 << LOG2N1);

    BLADE_TILE_FN static void
    read(const float2* smem, const four_step_params& q, int thread, float2 (&v)[kPerThread])
    {
        const four_step& f = q.f;
        read_last_inputs<LOG2NS, RS>(smem, f.log2pb + f.log2gs + f.log2g2, q.twiddles_b, thread, v);
    }

    // y[row][k][s][p], k = (k2 + N2 k1 + N/2) mod N
    BLADE_TILE_FN static void
    store(const four_step_params& q, const origin_b& o, int thread, const float2 (&v)[kPerThread])
    {
        const four_step& f = q.f;
        const int64_t row_base = (o.row * q.p.T) << q.p.log2P;
        constexpr int64_t N = int64_t(1) << LOG2N;
        for_each_row_major<kButterflies>(
            thread, f.log2pb + f.log2gs + f.log2g2, LOG2NS, [&](int k, int row, int j) {
                int pl, gs, g2;
                split_row_b(f, row, pl, gs, g2);
                const int64_t s = o.s0 + gs, k2 = o.k20 + g2;
                BLADE_UNROLL
                for (int r = 0; r < R; r++) {
                    const int64_t k1 = j + (r << LOG2NS);
                    const int64_t channel = (k2 + (k1 << LOG2N2) + N / 2) & (N - 1);
                    store_sample(q.p.output,
                                 q.p.output_half,
                                 row_base + ((channel * q.p.S + s) << q.p.log2P) + o.p0 + pl,
                                 v[k * R + r]);
                }
            });
    }
};

/* The radix-16 passes of an L-point row transform between its first pass and its
 * last are the direct tile's (direct_middle, kDirectThreads threads). */
template <int LOG2L, int LOG2NS>
using four_step_middle = direct_middle<LOG2L, LOG2NS>;

/* Pass A of N = 2^LOG2N: Exec provides first<Pass>(), pass<Pass>(), last<Pass>() as
 * for the direct tile, with the four-step passes' signatures. */
template <int LOG2N, bool FILTER>
struct columns_passes {
    static constexpr int LOG2N1 = LOG2N / 2, LOG2N2 = LOG2N - LOG2N1;
    static constexpr int LOG2R1 = first_radix_log2(LOG2N2);

    template <typename Exec>
    BLADE_TILE_FN static void run(Exec& exec)
    {
        exec.template first<columns_first<LOG2N, LOG2N2, LOG2R1, FILTER>>();
        four_step_middle<LOG2N2, LOG2R1>::run(exec);
        exec.template last<columns_last<LOG2N, LOG2N2>>();
    }
};

template <int LOG2N>
struct rows_passes {
    static constexpr int LOG2N1 = LOG2N / 2;
    static constexpr int LOG2R1 = first_radix_log2(LOG2N1);

    template <typename Exec>
    BLADE_TILE_FN static void run(Exec& exec)
    {
        exec.template first<rows_first<LOG2N, LOG2N1, LOG2R1>>();
        four_step_middle<LOG2N1, LOG2R1>::run(exec);
        exec.template last<rows_last<LOG2N, LOG2N1>>();
    }
};

/* Shared memory of the passes' tiles: (rows) * row_stride(L). */
inline std::size_t four_step_shared_bytes(const four_step& f, bool pass_a)
{
    const int log2rows = pass_a ? f.log2pa + f.log2ga : f.log2pb + f.log2gs + f.log2g2;
    return shared_bytes(pass_a ? f.log2n2 : f.log2n1, 1 << log2rows);
}

#if defined(__CUDACC__)
/* The two kernels (channelizer_four_step.cu): allow their shared memory (once per
 * kernel), then queue pass A and pass B on `stream`. */
cudaError_t four_step_prepare(int log2n, bool filter);
cudaError_t four_step_launch(const four_step_params& q, bool filter, cudaStream_t stream);
#endif

} // namespace blade_tile

#endif
