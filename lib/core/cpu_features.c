/* SPDX-License-Identifier: MIT */
/*
 * The CPU's vector features, asked once: __builtin_cpu_supports checks both the CPU and
 * that the operating system saves the wider registers. F16C comes from CPUID leaf 1
 * (ECX bit 29): Clang's __builtin_cpu_supports does not know "f16c".
 */
#include "cpu_features.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define BLADE_HAVE_CPU_DETECTION
#include <cpuid.h>
#endif

/* Levels of BLADE_CPU_ISA, narrowest first. */
enum isa_level { ISA_BASELINE, ISA_AVX2, ISA_AVX512, ISA_AVX512FP16 };

static blade_cpu_features features; /* filled once, as the library loads */
static bool detected;

#ifdef BLADE_HAVE_CPU_DETECTION
static enum isa_level asked_level(void)
{
    static const char* const names[] = { "baseline", "avx2", "avx512", "avx512fp16" };
    const char* asked = getenv("BLADE_CPU_ISA");
    if (asked == NULL || asked[0] == '\0')
        return ISA_AVX512FP16;
    for (int level = ISA_BASELINE; level <= ISA_AVX512FP16; level++)
        if (strcmp(asked, names[level]) == 0)
            return (enum isa_level)level;
    fprintf(stderr,
            "gr-blade: BLADE_CPU_ISA='%s' is not baseline, avx2, avx512 or avx512fp16; "
            "ignored\n",
            asked);
    return ISA_AVX512FP16;
}
#endif

__attribute__((constructor)) static void detect(void)
{
    if (detected)
        return;
    detected = true;
#ifdef BLADE_HAVE_CPU_DETECTION
    const enum isa_level cap = asked_level();
    __builtin_cpu_init();
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    features.avx2 = cap >= ISA_AVX2 && __builtin_cpu_supports("avx2");
    features.fma = features.avx2 && __builtin_cpu_supports("fma");
    features.f16c = features.avx2 && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx >> 29 & 1u);
    features.avx512 = features.fma && features.f16c && cap >= ISA_AVX512 &&
                      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
    features.avx512fp16 =
        features.avx512 && cap >= ISA_AVX512FP16 && __builtin_cpu_supports("avx512fp16");
#endif
#endif
}

const blade_cpu_features* blade_cpu_features_get(void)
{
    detect(); /* only before the constructors have run (another constructor asking) */
    return &features;
}
