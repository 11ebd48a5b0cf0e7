/* SPDX-License-Identifier: MIT */
/* The CPU backend's thread count, for its parallel regions (see cpu_threads.c). */
#ifndef BLADE_CPU_THREADS_INTERNAL_H
#define BLADE_CPU_THREADS_INTERNAL_H

#include <blade/cpu_threads.h>

/* More threads than this are never asked for (per-thread scratch is sized by it). */
#define BLADE_CPU_MAX_THREADS 256

#endif
