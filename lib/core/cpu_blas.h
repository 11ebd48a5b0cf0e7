/* SPDX-License-Identifier: MIT */
/* OpenBLAS as the CPU backend calls it (builds with BLADE_HAVE_OPENBLAS). Not installed. */
#ifndef BLADE_CPU_BLAS_H
#define BLADE_CPU_BLAS_H

/* Make OpenBLAS single-threaded; call it before each parallel region that calls BLAS
 * (not from inside one). The modules that call OpenBLAS share their work among
 * OpenMP threads, each calling BLAS on its own block, and OpenBLAS's own threads
 * would compete with them for the same cores. The first call also warns once on
 * stderr when OpenBLAS picked kernels narrower than the CPU (OPENBLAS_CORETYPE). */
void blade_cpu_blas_single_threaded(void);

#endif
