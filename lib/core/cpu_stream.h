/* SPDX-License-Identifier: MIT */
/*
 * Streaming (non-temporal) stores for the CPU backend's memory-bound passes. An
 * ordinary store first reads the destination's cache line from memory (read for
 * ownership), so a pass that writes W bytes moves 2 W; a streaming store writes the
 * line without reading it, so a cast from ci8 to cf32 moves 1 + 4 bytes per value
 * instead of 1 + 8. They pay only when the output is far larger than the caches
 * (it would be evicted before anyone read it anyway): callers decide by size. The
 * values are copied bit for bit. The closing sfence orders the stores before the
 * OpenMP barrier that ends the caller's loop, so before any reader. Not installed.
 */
#ifndef BLADE_CORE_CPU_STREAM_H
#define BLADE_CORE_CPU_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <immintrin.h>
#endif

/* The size from which an output is written with streaming stores:
 * $BLADE_STREAM_MIN_BYTES where set (the tests set 0 to run these paths on small
 * shapes; a benchmark sets it to compare), else the caller's default (64 MiB, past
 * the 32-105 MiB last level caches of the machines measured, where streaming
 * measured faster; INT64_MAX where it measured slower). */
static inline int64_t blade_stream_min_bytes(int64_t fallback)
{
    const char* chosen = getenv("BLADE_STREAM_MIN_BYTES");
    if (chosen != NULL && *chosen != '\0')
        return strtoll(chosen, NULL, 10);
    return fallback;
}

/* The default where streaming pays. */
#define BLADE_STREAM_DEFAULT_MIN_BYTES ((int64_t)64 << 20)

/* Whether a pass writing `output_bytes` in all should use streaming stores: from the
 * default size, or $BLADE_STREAM_MIN_BYTES. */
static inline bool blade_stream_pays(int64_t output_bytes)
{
    return output_bytes >= blade_stream_min_bytes(BLADE_STREAM_DEFAULT_MIN_BYTES);
}

/* Whether `to` can take blade_stream_floats. */
static inline bool blade_can_stream(const void* to)
{
#ifdef __SSE2__
    return ((uintptr_t)to & 15) == 0;
#else
    (void)to;
    return false;
#endif
}

/* to[i] = from[i] for i < n, through streaming stores where `to` is 16-byte aligned
 * (blade_can_stream), else plain. */
static inline void blade_stream_floats(float* restrict to, const float* restrict from, int64_t n)
{
    int64_t i = 0;
#ifdef __SSE2__
    if (blade_can_stream(to)) {
        for (; i + 4 <= n; i += 4)
            _mm_stream_ps(to + i, _mm_loadu_ps(from + i));
        _mm_sfence();
    }
#endif
    if (i < n)
        memcpy(to + i, from + i, (size_t)(n - i) * sizeof(float));
}

/* memcpy(to, from, bytes) with streaming stores from the first 16-byte aligned byte
 * of `to` (ordinary ones before it and for the last bytes): the copy of a gather or
 * a permutation whose output is far larger than the caches. */
void blade_stream_copy(void* restrict to, const void* restrict from, size_t bytes);

/* blade_stream_copy without its closing fence, for a pass that streams out many small
 * blocks (formed in L1) and fences once at its end (blade_stream_fence) before its
 * output is read: a fence waits for the write-combining buffers to drain, and one per
 * block of a few KiB measured slower than ordinary stores. */
void blade_stream_copy_unfenced(void* restrict to, const void* restrict from, size_t bytes);

/* Asks for the cache lines of [from, from + bytes), one software prefetch per 64
 * bytes, for a pass that reads them soon: a prefetch never faults, so lines past the
 * end of an array are harmless. */
static inline void blade_prefetch(const void* from, int64_t bytes)
{
    for (int64_t b = 0; b < bytes; b += 64)
        __builtin_prefetch((const char*)from + b);
}

/* Orders the streaming stores issued so far before any later store (sfence). */
static inline void blade_stream_fence(void)
{
#ifdef __SSE2__
    _mm_sfence();
#endif
}

/* blade_stream_copy where `stream` (blade_stream_pays), else memcpy. */
static inline void
blade_copy_bytes(void* restrict to, const void* restrict from, size_t bytes, bool stream)
{
    if (stream)
        blade_stream_copy(to, from, bytes);
    else
        memcpy(to, from, bytes);
}

/* to[i] = from[i] as a float for i < n, from int8 (bits 8) or int16 (bits 16)
 * values, each vector converted in registers and written with a streaming store as
 * wide as the CPU has (AVX-512 or AVX2; ordinary stores up to the first aligned line,
 * and where neither exists). The values are exact, so the bits are those of any other
 * conversion. */
void blade_stream_widen(float* restrict to, const void* restrict from, int bits, int64_t n);

#endif
