/* SPDX-License-Identifier: MIT */
/*
 * The detector's rows for CPUs without 512-bit registers: detector_cpu.c compiled a
 * second time, with each row's chains held as two vectors of four doubles
 * (BLADE_DETECTOR_SPLIT_CHAINS) and built for x86-64-v3 and the baseline. GCC 12 keeps
 * a loop-carried vector of eight doubles in memory where the target has no 512-bit
 * registers, moving its lanes through general registers on every iteration: on an
 * AVX2-only Zen 3, two threads, Stokes I with I = 64 took 95 ms this way and 14.5 ms
 * with the split chains, IQUV I = 8 148 and 52-58 ms, cross 126 and 32-40. On AVX-512
 * the eight-lane chains are one register and stay (detector_cpu.c's own rows). The
 * lanes, the additions and their order are the same, so are the bits.
 */
#include "cpu_simd.h"

#if defined(BLADE_CPU_CLONES_ENABLED) && defined(BLADE_HAVE_SHUFFLEVECTOR)
#define BLADE_DETECTOR_SPLIT_CHAINS
/* Its own name for the cloned rows function: Clang gives a static function's
 * target_clones resolver a global name (detect_rows.resolver), which the two
 * translation units would both define. */
#define detect_rows detect_rows_split_chains
#include "detector_cpu.c"
#else
typedef int blade_detector_split_chains_unused; /* ISO C: no empty translation unit */
#endif
