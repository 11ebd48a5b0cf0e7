/* SPDX-License-Identifier: MIT */
/*
 * blade-module-bench: times each core module at the benchmark shapes of
 * performance.md, on the CPU or a GPU, and reports every figure as a fraction of
 * the limit it is bound by (memory bandwidth measured by a device copy in the same
 * run, or the FP32 peak). Each module contributes its cases in bench_<module>.c.
 */
#ifndef BLADE_BENCH_H
#define BLADE_BENCH_H

#include <blade/blade.h>

#include <stdbool.h>
#include <stddef.h>

typedef enum bench_bound {
    BENCH_MEMORY = 0, /* bytes moved / copy bandwidth (on the CPU: and read, write rates) */
    BENCH_FP32 = 1,   /* flops / FP32 peak */
    BENCH_TENSOR = 2  /* flops / tensor-core peak (given by the case) */
} bench_bound;

typedef struct bench_case bench_case;

/* One timed case. `setup` allocates and fills inputs on the device and makes the
 * plan; `run` queues one execution on the stream; `teardown` frees. */
struct bench_case {
    const char* module; /* "cast" */
    char label[96];     /* "ci8->cf32 A=16" */
    double bytes;       /* fewest bytes the case must move (read + write) */
    double written;     /* of `bytes`, those written; on the CPU the bound takes the reads and
                           writes that pair up at the copy rate, the rest at the read-only or
                           write-only rate (a detector reads 8 to 64 times what it writes, a
                           cast writes 4 times what it reads); 0: as many written as read */
    double samples;     /* input samples (complex elements) per run */
    double flops;       /* floating-point operations per run (0: memory bound) */
    double macs;        /* complex multiply-accumulates per run (beamformer) */
    bench_bound bound;
    double upstream_ms; /* upstream BLADE on the H200 (performance.md), 0 if none */
    double target_ms;   /* our target on the H200 (performance.md), 0 if none */
    double duration_s;  /* seconds of signal one run's input holds (real-time factor), 0 if none */
    double
        tensor_peak; /* BENCH_TENSOR: the nominal tensor-core FLOP/s the case is measured against */
    const char* skipped; /* set by setup (returning BLADE_OK): why the case is not timed on this
                             device; printed, not a failure */
    char note[200];      /* set by teardown: a line printed under the case's figures */
    void* state;
    blade_status (*setup)(bench_case* self, blade_device device, blade_stream stream, int shrink);
    blade_status (*run)(bench_case* self, blade_stream stream);
    void (*teardown)(bench_case* self, blade_device device);
    /* opaque parameters of the case */
    long long p[8];
};

/* Device memory filled with reproducible random bytes (a host pattern uploaded). */
blade_status bench_random_device(blade_device device, size_t bytes, unsigned seed, void** out);

/* Device memory holding `count` reproducible floats in [-scale, scale) (random bytes
 * would be NaNs and denormals, which slow a CPU down). */
blade_status
bench_random_floats(blade_device device, size_t count, float scale, unsigned seed, void** out);

/* Registration: each bench_<module>.c defines one of these. */
typedef void (*bench_register_fn)(bench_case** cases, int* count);
void bench_add(bench_case** cases, int* count, const bench_case* one);

void bench_register_cast(bench_case** cases, int* count);
void bench_register_beamformer(bench_case** cases, int* count);
void bench_register_polarizer(bench_case** cases, int* count);
void bench_register_detector(bench_case** cases, int* count);
void bench_register_correlator(bench_case** cases, int* count);
void bench_register_gather(bench_case** cases, int* count);
void bench_register_channelizer(bench_case** cases, int* count);
void bench_register_duplicate(bench_case** cases, int* count);
void bench_register_permutation(bench_case** cases, int* count);
void bench_register_dedoppler(bench_case** cases, int* count);

#endif
