/* SPDX-License-Identifier: MIT */
/* See cpu_blas.h. */
#include "cpu_blas.h"

#include <blade/cpu_threads.h>

#ifdef BLADE_HAVE_OPENBLAS
#include <cblas.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static pthread_once_t openblas_once = PTHREAD_ONCE_INIT;

/* Whether OpenBLAS's kernels (its DYNAMIC_ARCH choice, or OPENBLAS_CORETYPE) use
 * AVX2: a library older than the CPU falls back to SSE kernels that run cgemm
 * several times slower than the CPU can (cpu_threads.c reports the core's name). */
static bool openblas_core_has_avx2(const char* core)
{
    /* OpenBLAS's x86-64 cores with AVX2 kernels (the rest are SSE or AVX) */
    static const char* const wide[] = {
        "Haswell", "Excavator", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids",
    };
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (strncasecmp(core, wide[i], strlen(wide[i])) == 0)
            return true;
    return false;
}

const char* blade_cpu_blas_better_core(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    const char* core = openblas_get_corename();
    __builtin_cpu_init();
    if (core != NULL && __builtin_cpu_supports("avx2") && !openblas_core_has_avx2(core))
        return __builtin_cpu_supports("avx512f") ? "SkylakeX" : "Haswell";
#endif
    return NULL;
}

/* Once per process: say so on stderr when OpenBLAS's kernels are narrower than the
 * CPU (OPENBLAS_CORETYPE, read by OpenBLAS as it loads, is the remedy). */
static void check_openblas_core(void)
{
    const char* better = blade_cpu_blas_better_core();
    if (better != NULL)
        fprintf(stderr,
                "gr-blade: OpenBLAS runs its %s kernels on a CPU with wider vectors: the CPU "
                "correlator will be slow; run with OPENBLAS_CORETYPE=%s\n",
                openblas_get_corename(),
                better);
}

void blade_cpu_blas_single_threaded(void)
{
    pthread_once(&openblas_once, check_openblas_core);
    /* Every call, not once: numpy in the same process may have raised it since. */
    if (openblas_get_num_threads() != 1)
        openblas_set_num_threads(1);
}
#else
void blade_cpu_blas_single_threaded(void) {}

const char* blade_cpu_blas_better_core(void) { return NULL; }
#endif
