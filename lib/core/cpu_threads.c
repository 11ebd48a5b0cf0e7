/* SPDX-License-Identifier: MIT */
/*
 * The CPU backend's thread count (cpu_threads.h). OpenMP's own setting
 * (omp_set_num_threads) belongs to the calling thread only, and GNU Radio runs each
 * block on a thread of its own, so the count is kept here, process-wide, and every
 * parallel region of the backend asks for it with num_threads(blade_cpu_threads()).
 * BLAS is not told: the beamformer calls a single-threaded cgemm from each of these
 * threads (beamformer_cpu_blas.c).
 */
#include <blade/cpu_threads.h>

#include "cpu_threads_internal.h"

#include <stdatomic.h>
#include <stdio.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef BLADE_HAVE_OPENBLAS
#include <cblas.h>
#endif

/* 0: every core (OpenMP's default, which honours OMP_NUM_THREADS). */
static atomic_int chosen_threads = 0;

void blade_cpu_threads_set(int threads)
{
    if (threads < 0)
        threads = 0;
    if (threads > BLADE_CPU_MAX_THREADS)
        threads = BLADE_CPU_MAX_THREADS;
    atomic_store_explicit(&chosen_threads, threads, memory_order_relaxed);
}

int blade_cpu_threads(void)
{
    const int threads = atomic_load_explicit(&chosen_threads, memory_order_relaxed);
    if (threads > 0)
        return threads;
#ifdef _OPENMP
    const int all = omp_get_max_threads();
    return all < BLADE_CPU_MAX_THREADS ? all : BLADE_CPU_MAX_THREADS;
#else
    return 1;
#endif
}

const char* blade_cpu_blas(void)
{
#ifdef BLADE_HAVE_OPENBLAS
    static char name[160];
    static atomic_int made = 0;
    if (!atomic_load(&made)) {
        snprintf(name, sizeof name, "OpenBLAS (%s)", openblas_get_config());
        atomic_store(&made, 1);
    }
    return name;
#else
    return "none";
#endif
}
