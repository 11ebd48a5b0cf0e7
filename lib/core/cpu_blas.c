/* SPDX-License-Identifier: MIT */
/* See cpu_blas.h. */
#include "cpu_blas.h"

#ifdef BLADE_HAVE_OPENBLAS
#include <cblas.h>
#include <pthread.h>

static pthread_once_t openblas_once = PTHREAD_ONCE_INIT;

static void openblas_single_thread(void) { openblas_set_num_threads(1); }

void blade_cpu_blas_single_threaded(void) { pthread_once(&openblas_once, openblas_single_thread); }
#else
void blade_cpu_blas_single_threaded(void) {}
#endif
