/* SPDX-License-Identifier: MIT */
/**
 * @file cpu_threads.h
 * @brief How many threads the CPU backend uses.
 *
 * The CPU backend parallelises with OpenMP: every module's parallel regions (the
 * beamformer's BLAS calls and the channelizer's FFTs included) run on this many
 * threads, so that a benchmark can measure the scaling with 1, 2, ... all cores and
 * an application can leave cores to other work.
 */
#ifndef BLADE_CPU_THREADS_H
#define BLADE_CPU_THREADS_H

#include <blade/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Use `threads` threads in the CPU backend from now on (0: every core, the default,
 * which honours OMP_NUM_THREADS). Every module's next call follows, whichever thread
 * calls it (BLAS is called single-threaded from each of them). A channelizer keeps
 * per-thread scratch for the count at its creation and uses at most that many.
 * Results do not depend on the count.
 */
BLADE_CORE_API void blade_cpu_threads_set(int threads);

/** The number of threads the CPU backend uses now (>= 1). */
BLADE_CORE_API int blade_cpu_threads(void);

/** The BLAS library the CPU beamformer calls ("OpenBLAS 0.3.21 ..."), or "none". */
BLADE_CORE_API const char* blade_cpu_blas(void);

/**
 * The OPENBLAS_CORETYPE ("SkylakeX" or "Haswell") whose kernels are as wide as this
 * CPU's vectors, when the kernels OpenBLAS picked as it loaded are narrower (an
 * OpenBLAS older than the CPU model falls back to SSE kernels, several times slower
 * for the CPU beamformer and correlator); NULL when they are not, or without OpenBLAS.
 * OpenBLAS reads the variable only as it loads: a program sets it and starts again.
 */
BLADE_CORE_API const char* blade_cpu_blas_better_core(void);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_CPU_THREADS_H */
