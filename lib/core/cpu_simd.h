/* SPDX-License-Identifier: MIT */
/*
 * BLADE_CPU_CLONES: a hot loop of the CPU backend compiled three times, for
 * x86-64-v4 (AVX-512), x86-64-v3 (AVX2 and FMA) and the baseline the library is built
 * for (SSE2), the dynamic loader picking the widest one the CPU runs (GCC and Clang
 * function multiversioning, through an ifunc). The library stays one build for every
 * x86-64 machine, as Debian's packages are, while the loops use the vector width of
 * the machine they run on (the baseline has two doubles per register; AVX-512 eight).
 *
 * Only for loops whose results are the same bits in every clone: the vectoriser keeps
 * the order of the additions the C code writes (no -ffast-math), and a fused
 * multiply-add rounds as the separate multiply and add do when the product is exact,
 * as a product of two floats is in double. Elsewhere (other compilers, other
 * architectures) it is empty and the loop is built once.
 */
#ifndef BLADE_CORE_CPU_SIMD_H
#define BLADE_CORE_CPU_SIMD_H

#if defined(__x86_64__) && defined(__linux__) && !defined(BLADE_NO_CPU_CLONES) && \
    ((defined(__clang__) && __clang_major__ >= 14) ||                             \
     (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 11))
#define BLADE_CPU_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define BLADE_CPU_CLONES_ENABLED
#else
#define BLADE_CPU_CLONES
#endif

/* BLADE_HAVE_SHUFFLEVECTOR: __builtin_shufflevector (GCC 12 and newer, Clang) picks
 * lanes of GCC and Clang vector types, lowered in each clone to that clone's shuffles. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define BLADE_HAVE_SHUFFLEVECTOR
#endif
#endif

#endif
