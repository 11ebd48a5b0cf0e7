/* SPDX-License-Identifier: MIT */
/*
 * The CPU's limits, measured in the run that uses them as bounds: STREAM-style
 * memory bandwidth (copy, triad, read-only, write-only and widening passes over every thread asked for) and the FP32 peak
 * (an FMA loop in the widest vector instructions the CPU has, on every thread).
 */
#ifndef BLADE_BENCH_CPU_LIMITS_H
#define BLADE_BENCH_CPU_LIMITS_H

typedef struct cpu_limits {
    int threads;
    double copy;          /* bytes/s of b[i] = a[i], loop or memcpy (8 bytes counted per float) */
    double triad;         /* bytes/s of a[i] = b[i] + s * c[i] (12 bytes counted per float) */
    double read;          /* bytes/s of a pass that only reads (4 bytes counted per float) */
    double write;         /* bytes/s of a pass that only writes (4 bytes counted per float) */
    double widen;         /* bytes/s of b[i] = (float)d[i], d bytes (5 bytes counted per float) */
    double fp32;          /* FLOP/s of independent FMA chains (2 FLOP per lane per FMA) */
    const char* fma_kind; /* "avx512f", "avx2+fma" or "generic" */
} cpu_limits;

/* Measure with `threads` OpenMP threads; `array_bytes` per STREAM array (keep it
 * well above the last-level cache). Returns 0, or -1 when memory is short. */
int cpu_limits_measure(int threads, long long array_bytes, cpu_limits* limits);

/* The memory bandwidths alone (copy, triad, read, write, widen), measured again into `limits`: the
 * bound beside one case, on a machine whose bandwidth moves from minute to minute.
 * Returns 0, or -1 when memory is short (limits then unchanged). */
int cpu_limits_measure_memory(int threads, long long array_bytes, cpu_limits* limits);

#endif
