/* SPDX-License-Identifier: MIT */
/*
 * Hopper's warpgroup matrix multiply-accumulate (wgmma, PTX ISA 8.0, sm_90a only): the
 * instructions and shared-memory descriptors that the correlator's and the
 * beamformer's Hopper kernels use (correlator_tensor_hopper.cu,
 * beamformer_fp16_hopper.cu). A wgmma is issued by the 128 threads of a warpgroup
 * together and runs asynchronously: operands written by ordinary instructions are
 * ordered before it by wgmma_fence (registers) and fence_proxy_async (shared memory),
 * and its accumulators may be read only after a wgmma_wait that covers its group.
 *
 * BLADE_WGMMA is defined where the code is compiled for sm_90a (with the
 * architecture-specific features) and cp.async exists; everything below needs it.
 * Not installed.
 */
#ifndef BLADE_KERNELS_WGMMA_H
#define BLADE_KERNELS_WGMMA_H

#include "cp_async.h"

#include <stdint.h>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL) && defined(BLADE_CP_ASYNC)
#define BLADE_WGMMA 1
#endif

// Shared-memory operands in the 128-byte swizzle start at multiples of its 1024-byte
// atom (8 rows of 128 bytes).
constexpr int kWgmmaAlignment = 1024;

#ifdef BLADE_WGMMA

// Ordinary stores to shared memory that the tensor cores (the async proxy) read next.
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// A wgmma operand descriptor for a K-major matrix of 128-byte rows in the 128-byte
// swizzle, starting `address` bytes into shared memory: rows in 8-row atoms 1024
// bytes apart (the stride byte offset), the leading byte offset unused by this swizzle
// (1, as the PTX ISA's canonical layouts have it). A k16 slice at byte offset b of
// the rows starts at address + b (descriptor + b / 16): the swizzle is applied to the
// absolute address.
__device__ __forceinline__ uint64_t descriptor(uint32_t address)
{
    return static_cast<uint64_t>((address & 0x3FFFF) >> 4) | (static_cast<uint64_t>(1) << 16) |
           (static_cast<uint64_t>(kWgmmaAlignment >> 4) << 32) | (static_cast<uint64_t>(1) << 62);
}

__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int Pending>
__device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

// Tells the compiler that the accumulators may change here: their reads after the
// last wgmma_wait stay after it.
__device__ __forceinline__ void touch(float (&d)[16][4])
{
#pragma unroll
    for (int n = 0; n < 16; n++)
#pragma unroll
        for (int r = 0; r < 4; r++)
            asm volatile("" : "+f"(d[n][r])::"memory");
}
__device__ __forceinline__ void touch(int (&d)[16][4])
{
#pragma unroll
    for (int n = 0; n < 16; n++)
#pragma unroll
        for (int r = 0; r < 4; r++)
            asm volatile("" : "+r"(d[n][r])::"memory");
}

// The 64 accumulators of an m64n128 wgmma (16 fragments of 4), as its asm operands
// %0 .. %63 and as the operand list that binds them to d[16][4] with `constraint`.
// Fragment n holds columns 8n .. 8n + 7 in mma.sync's layout: lane (g, t) of warp w
// has rows 16w + g (registers 0, 1) and 16w + g + 8 (2, 3), columns 8n + 2t and + 1.
#define BLADE_WGMMA_ACCUMULATORS                                                                  \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "  \
    "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "  \
    "%56, %57, %58, %59, %60, %61, %62, %63}"
#define BLADE_WGMMA_FRAGMENT(constraint, d, n) \
    constraint(d[n][0]), constraint(d[n][1]), constraint(d[n][2]), constraint(d[n][3])
#define BLADE_WGMMA_OPERANDS(constraint, d)                                               \
    BLADE_WGMMA_FRAGMENT(constraint, d, 0), BLADE_WGMMA_FRAGMENT(constraint, d, 1),       \
        BLADE_WGMMA_FRAGMENT(constraint, d, 2), BLADE_WGMMA_FRAGMENT(constraint, d, 3),   \
        BLADE_WGMMA_FRAGMENT(constraint, d, 4), BLADE_WGMMA_FRAGMENT(constraint, d, 5),   \
        BLADE_WGMMA_FRAGMENT(constraint, d, 6), BLADE_WGMMA_FRAGMENT(constraint, d, 7),   \
        BLADE_WGMMA_FRAGMENT(constraint, d, 8), BLADE_WGMMA_FRAGMENT(constraint, d, 9),   \
        BLADE_WGMMA_FRAGMENT(constraint, d, 10), BLADE_WGMMA_FRAGMENT(constraint, d, 11), \
        BLADE_WGMMA_FRAGMENT(constraint, d, 12), BLADE_WGMMA_FRAGMENT(constraint, d, 13), \
        BLADE_WGMMA_FRAGMENT(constraint, d, 14), BLADE_WGMMA_FRAGMENT(constraint, d, 15)

// d = (keep ? d : 0) + (kScaleA A) B for a warpgroup: A 64 rows x k16, B 128 columns x
// k16, both K-major in shared memory. The first products start the sums (keep = 0)
// rather than adding to zeros written by ordinary instructions: ptxas serializes every
// wgmma of a kernel where ordinary instructions define accumulators that a wgmma still
// in flight may use.
template <int kScaleA>
__device__ __forceinline__ void
wgmma_m64n128k16(float (&d)[16][4], uint64_t a, uint64_t b, bool keep = true)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " BLADE_WGMMA_ACCUMULATORS
                 ", %64, %65, p, %67, 1, 0, 0;\n"
                 "}\n"
                 : BLADE_WGMMA_OPERANDS("+f", d)
                 : "l"(a), "l"(b), "r"(static_cast<int>(keep)), "n"(kScaleA));
}

// The same with A from registers: a[0 .. 3] are the thread's half2 words of the 64 x
// k16 A tile in mma.sync's m16n8k16 layout, warp w of the warpgroup holding rows 16w
// .. 16w + 15 (lane (g, t): rows g and g + 8, k pairs 2t and 2t + 8). They must not be
// written again until a wgmma_wait covers this wgmma.
__device__ __forceinline__ void
wgmma_m64n128k16_rs(float (&d)[16][4], const uint32_t (&a)[4], uint64_t b, bool keep = true)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " BLADE_WGMMA_ACCUMULATORS
                 ", {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n"
                 "}\n"
                 : BLADE_WGMMA_OPERANDS("+f", d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(static_cast<int>(keep)));
}

// d = (keep ? d : 0) + A B for a warpgroup on int8 operands, exact int32 sums: A 64 rows
// x k32, B 128 columns x k32 (32 bytes of each row), K-major in shared memory.
__device__ __forceinline__ void
wgmma_m64n128k32_s8(int (&d)[16][4], uint64_t a, uint64_t b, bool keep = true)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 " BLADE_WGMMA_ACCUMULATORS
                 ", %64, %65, p;\n"
                 "}\n"
                 : BLADE_WGMMA_OPERANDS("+r", d)
                 : "l"(a), "l"(b), "r"(static_cast<int>(keep)));
}

#endif // BLADE_WGMMA

#endif
