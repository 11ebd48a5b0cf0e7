/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous global -> shared copies (cp.async, sm_80 and newer) for the tensor-core
 * kernels: each thread issues 16-byte copies, commits them as a group, and waits
 * until at most N groups are pending, so that the copies of the next pipeline stages
 * run while the current one is computed. Only compiled for sm_80 or newer (the callers
 * guard their bodies with BLADE_CP_ASYNC). Not installed.
 */
#ifndef BLADE_KERNELS_CP_ASYNC_H
#define BLADE_KERNELS_CP_ASYNC_H

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define BLADE_CP_ASYNC 1

// 16 bytes from `global` to `shared`, or 16 zero bytes (nothing read) if !valid.
__device__ __forceinline__ void cp_async16(void* shared, const void* global, bool valid)
{
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    const int bytes = valid ? 16 : 0; // 0: fill with zeros, read nothing
    asm volatile(
        "cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global), "r"(bytes)
        : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int Pending>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

#endif

#endif
