/* SPDX-License-Identifier: MIT */
/*
 * cpu_stream.h's integer widening: each vector of integers converted in registers
 * and written with a streaming store of the register's full width. Converting into a
 * block in L1 first and streaming the block out 16 bytes at a time (the former path)
 * read every value twice and ran slower than ordinary stores on one core: 85 ms
 * against 75 ms for a ci8 -> cf32 cast of 1.6 GB on the CI machine's EPYC, where the
 * direct conversion with 64-byte streaming stores takes 60 ms (32-byte ones: within a
 * few per cent of that). Integers of 8 and 16 bits are floats exactly, so every path
 * gives the same bits as VOLK's kernels at a scale of 1.
 */
#include "cpu_stream.h"

#include "cpu_features.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define BLADE_HAVE_WIDE_STREAM
#include <immintrin.h>
#endif

#ifdef BLADE_HAVE_WIDE_STREAM
/* The widest streaming path this CPU runs: 2 AVX-512, 1 AVX2, 0 neither. */
static int stream_width(void)
{
    const blade_cpu_features* cpu = blade_cpu_features_get();
    return cpu->avx512 ? 2 : cpu->avx2 ? 1 : 0;
}

/* Values [0, n) of int8 or int16 (bits 8 or 16) from `from` into `to`, which is
 * 64-byte aligned, n a multiple of 16. */
__attribute__((target("avx512f,avx512bw"))) static void
widen_avx512(float* to, const void* from, int bits, int64_t n)
{
    if (bits == 8) {
        const int8_t* in = from;
        for (int64_t i = 0; i < n; i += 16) {
            const __m128i v = _mm_loadu_si128((const __m128i*)(in + i));
            _mm512_stream_ps(to + i, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v)));
        }
    } else {
        const int16_t* in = from;
        for (int64_t i = 0; i < n; i += 16) {
            const __m256i v = _mm256_loadu_si256((const __m256i*)(in + i));
            _mm512_stream_ps(to + i, _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(v)));
        }
    }
}

/* As widen_avx512 with 32-byte stores: `to` 32-byte aligned, n a multiple of 8. */
__attribute__((target("avx2"))) static void
widen_avx2(float* to, const void* from, int bits, int64_t n)
{
    if (bits == 8) {
        const int8_t* in = from;
        for (int64_t i = 0; i < n; i += 8) {
            const __m128i v = _mm_loadl_epi64((const __m128i*)(in + i));
            _mm256_stream_ps(to + i, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)));
        }
    } else {
        const int16_t* in = from;
        for (int64_t i = 0; i < n; i += 8) {
            const __m128i v = _mm_loadu_si128((const __m128i*)(in + i));
            _mm256_stream_ps(to + i, _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(v)));
        }
    }
}

/* `bytes` (a multiple of 64) from `in` to `out`, which is aligned to the store's
 * width, with streaming stores; no fence (the caller's). The AVX-512 copy takes blocks
 * of COPY_RUNS x COPY_TURN bytes and more as COPY_RUNS runs in turn, COPY_TURN bytes of
 * each, so that one core keeps more lines in flight than a single run lets its
 * prefetchers: in a test on the CI machine's Xeon (512 MB, one core) a single run
 * streamed 23 GB/s, 4 to 8 runs 27-28. */
#define COPY_RUNS 8
#define COPY_TURN 256

__attribute__((target("avx512f"))) static void copy_avx512(char* out, const char* in, size_t bytes)
{
    const size_t run = bytes / (COPY_RUNS * COPY_TURN) * COPY_TURN;
    for (size_t i = 0; i < run; i += COPY_TURN)
        for (size_t r = 0; r < COPY_RUNS; r++)
            for (size_t k = 0; k < COPY_TURN; k += 64) {
                const size_t at = r * run + i + k;
                _mm512_stream_si512((void*)(out + at), _mm512_loadu_si512((const void*)(in + at)));
            }
    for (size_t i = COPY_RUNS * run; i < bytes; i += 64)
        _mm512_stream_si512((void*)(out + i), _mm512_loadu_si512((const void*)(in + i)));
}

__attribute__((target("avx2"))) static void copy_avx2(char* out, const char* in, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += 64) {
        const __m256i a = _mm256_loadu_si256((const __m256i*)(in + i));
        const __m256i b = _mm256_loadu_si256((const __m256i*)(in + i + 32));
        _mm256_stream_si256((__m256i*)(out + i), a);
        _mm256_stream_si256((__m256i*)(out + i + 32), b);
    }
}

static void copy_sse2(char* out, const char* in, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += 64)
        for (size_t k = 0; k < 64; k += 16)
            _mm_stream_si128((__m128i*)(out + i + k),
                             _mm_loadu_si128((const __m128i*)(in + i + k)));
}
#endif

/* One value, as a float (exact). */
static inline float widen_one(const void* from, int bits, int64_t i)
{
    return bits == 8 ? (float)((const int8_t*)from)[i] : (float)((const int16_t*)from)[i];
}

void blade_stream_widen(float* restrict to, const void* restrict from, int bits, int64_t n)
{
    int64_t i = 0;
#ifdef BLADE_HAVE_WIDE_STREAM
    const int widest = stream_width();
    if (widest > 0) {
        const int64_t bytes = widest == 2 ? 64 : 32, lanes = bytes / 4;
        /* ordinary stores up to the first aligned line, streaming ones after it */
        for (; i < n && ((uintptr_t)(to + i) & (uintptr_t)(bytes - 1)) != 0; i++)
            to[i] = widen_one(from, bits, i);
        const int64_t body = (n - i) / lanes * lanes;
        const void* start = (const char*)from + i * (bits / 8);
        if (widest == 2)
            widen_avx512(to + i, start, bits, body);
        else
            widen_avx2(to + i, start, bits, body);
        _mm_sfence();
        i += body;
    }
#endif
    for (; i < n; i++)
        to[i] = widen_one(from, bits, i);
}

void blade_stream_copy(void* restrict to, const void* restrict from, size_t bytes)
{
    blade_stream_copy_unfenced(to, from, bytes);
    blade_stream_fence();
}

void blade_stream_copy_unfenced(void* restrict to, const void* restrict from, size_t bytes)
{
    char* out = to;
    const char* in = from;
    size_t done = 0;
#ifdef BLADE_HAVE_WIDE_STREAM
    /* Stores as wide as the CPU has from the first aligned line of `to`: on the CI
     * machine's Xeon one core streamed 24 GB/s with 64-byte stores against 17.5 with
     * 16-byte ones (a copy's reads and writes). */
    const int widest = stream_width();
    const size_t width = widest == 2 ? 64 : (widest == 1 ? 32 : 16);
    const size_t head = (width - ((uintptr_t)out & (width - 1))) & (width - 1);
    if (bytes >= head + 64) {
        memcpy(out, in, head);
        done = head;
        const size_t body = (bytes - head) / 64 * 64;
        if (widest == 2)
            copy_avx512(out + done, in + done, body);
        else if (widest == 1)
            copy_avx2(out + done, in + done, body);
        else
            copy_sse2(out + done, in + done, body);
        done += body;
    }
#endif
    memcpy(out + done, in + done, bytes - done);
}
