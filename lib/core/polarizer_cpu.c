/* SPDX-License-Identifier: MIT */
/*
 * Polarizer on the CPU: one pass over the pairs, which the compiler vectorises (the
 * loop body is additions only, so the result is exact and identical to the GPU's).
 * Large tensors are split across OpenMP threads in fixed chunks. cf16 pairs are
 * widened to float, combined, and rounded to half once per output value, a block at a
 * time (cpu_half.h).
 *
 * cf32 outputs of 64 MiB and more are formed 8 KiB at a time in L1 and written out
 * with streaming stores (cpu_stream.h), one fence per thread's chunk, the input
 * prefetched a block ahead: an ordinary store first reads each output line. On the CI
 * machine's Xeon, [16, 192, 8192, 2]: 56 -> 40 ms on one thread, 28.4 -> 20.4 ms on
 * two (fenced per block it was 46-54 ms; 16 KiB blocks or no prefetch measured
 * slower). The values are the same; only where they are stored from differs.
 */
#include "cpu_half.h"
#include "cpu_simd.h"
#include "cpu_stream.h"
#include "cpu_threads_internal.h"
#include "polarizer_backend.h"

/* Below this many pairs threads cost more than they save. */
#define PARALLEL_THRESHOLD (1 << 17)

/* A range of pairs [begin, end); the tensors are float or half by the function. */
typedef void (*polarize_range_fn)(const void* input, void* output, int64_t begin, int64_t end);

BLADE_CPU_CLONES
static void polarize_range(const void* input_data, void* output_data, int64_t begin, int64_t end)
{
    const float* input = input_data;
    float* output = output_data;
    for (int64_t i = begin; i < end; i++) {
        const float xr = input[4 * i], xi = input[4 * i + 1];
        const float yr = input[4 * i + 2], yi = input[4 * i + 3];
        /* X + iY = (xr - yi) + i(xi + yr);  X - iY = (xr + yi) + i(xi - yr) */
        output[4 * i] = xr - yi;
        output[4 * i + 1] = xi + yr;
        output[4 * i + 2] = xr + yi;
        output[4 * i + 3] = xi - yr;
    }
}

/* cf16 pairs, a block at a time: widened to float (exactly), combined by
 * polarize_range, rounded to half once per value (cpu_half.h). */
static void
polarize_half_range(const void* input_data, void* output_data, int64_t begin, int64_t end)
{
    enum { BLOCK = 512 }; /* pairs: 8 KiB of floats in, 8 out */
    const uint16_t* input = input_data;
    uint16_t* output = output_data;
    float in[4 * BLOCK], out[4 * BLOCK];
    for (int64_t i = begin; i < end; i += BLOCK) {
        const int64_t pairs = end - i < BLOCK ? end - i : BLOCK;
        blade_halves_to_floats(in, input + 4 * i, 4 * pairs);
        polarize_range(in, out, 0, pairs);
        blade_floats_to_halves(output + 4 * i, out, 4 * pairs);
    }
}

/* Pairs of a streamed range formed in L1 at a time (8 KiB of floats). */
#define STREAM_BLOCK_PAIRS 512

/* polarize_range into an L1 block, then out with streaming stores (cpu_stream.h), the
 * input prefetched a block ahead; one fence at the end. */
static void
polarize_streamed_range(const void* input_data, void* output_data, int64_t begin, int64_t end)
{
    const float* input = input_data;
    float* output = output_data;
    float block[4 * STREAM_BLOCK_PAIRS];
    for (int64_t i = begin; i < end; i += STREAM_BLOCK_PAIRS) {
        const int64_t pairs = end - i < STREAM_BLOCK_PAIRS ? end - i : STREAM_BLOCK_PAIRS;
        blade_prefetch(input + 4 * (i + STREAM_BLOCK_PAIRS), pairs * 4 * (int64_t)sizeof(float));
        polarize_range(input + 4 * i, block, 0, pairs);
        blade_stream_copy_unfenced(output + 4 * i, block, (size_t)pairs * 4 * sizeof(float));
    }
    blade_stream_fence();
}

/* Runs range over all pairs: inline when small, else in fixed chunks across threads. */
static void
polarize_dispatch(polarize_range_fn range, const void* input, void* output, int64_t pairs)
{
    if (pairs < PARALLEL_THRESHOLD) {
        range(input, output, 0, pairs);
        return;
    }
    const int64_t chunk = 1 << 15;
    const int64_t chunks = (pairs + chunk - 1) / chunk;
#pragma omp parallel for num_threads(blade_cpu_threads()) schedule(static)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t begin = c * chunk;
        range(input, output, begin, begin + chunk < pairs ? begin + chunk : pairs);
    }
}

void blade_cpu_polarize(const float* input, float* output, int64_t pairs)
{
    const bool stream = blade_stream_pays(pairs * 4 * (int64_t)sizeof(float));
    polarize_dispatch(stream ? polarize_streamed_range : polarize_range, input, output, pairs);
}

void blade_cpu_polarize_half(const uint16_t* input, uint16_t* output, int64_t pairs)
{
    polarize_dispatch(polarize_half_range, input, output, pairs);
}
