/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the fuzz targets: a checked property (a broken one aborts, which
 * libFuzzer reports as a crash with the input that broke it), a reader of fuzzer
 * bytes that never runs out (zeros after the end, so the empty input is the default
 * choice everywhere), and a private scratch directory on tmpfs.
 */
#ifndef BLADE_FUZZ_SUPPORT_H
#define BLADE_FUZZ_SUPPORT_H

#define _GNU_SOURCE
#include <blade/blade.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A property that must hold for every input: print why it failed and abort. */
#define FUZZ_REQUIRE(condition, ...)                                                             \
    do {                                                                                         \
        if (!(condition)) {                                                                      \
            fprintf(stderr, "property failed at %s:%d: %s\n  ", __FILE__, __LINE__, #condition); \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fprintf(stderr, "\n  last core error: %s\n", blade_last_error());                    \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

/* Every failure must say what went wrong. */
#define FUZZ_REQUIRE_MESSAGE(status)                                    \
    FUZZ_REQUIRE((status) == BLADE_OK || blade_last_error()[0] != '\0', \
                 "status %s without a message",                         \
                 blade_status_name(status))

typedef struct fuzz_bytes {
    const uint8_t* data;
    size_t size;
    size_t at;
} fuzz_bytes;

static inline uint8_t fuzz_u8(fuzz_bytes* b) { return b->at < b->size ? b->data[b->at++] : 0; }

static inline uint32_t fuzz_u32(fuzz_bytes* b)
{
    uint32_t value = 0;
    for (int i = 0; i < 4; i++)
        value |= (uint32_t)fuzz_u8(b) << (8 * i);
    return value;
}

static inline uint64_t fuzz_u64(fuzz_bytes* b)
{
    return (uint64_t)fuzz_u32(b) | (uint64_t)fuzz_u32(b) << 32;
}

static inline double fuzz_double(fuzz_bytes* b)
{
    const uint64_t bits = fuzz_u64(b);
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* One of `count` choices; 0 (the first) when the bytes have run out. */
static inline unsigned fuzz_choice(fuzz_bytes* b, unsigned count) { return fuzz_u8(b) % count; }

/* A directory of this process under /dev/shm (tmpfs), removed at exit. */
static char fuzz_scratch_path[512];

static inline void fuzz_scratch_clear(void)
{
    DIR* dir = opendir(fuzz_scratch_path);
    if (dir == NULL)
        return;
    struct dirent* entry;
    char path[512];
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", fuzz_scratch_path, entry->d_name);
        unlink(path);
    }
    closedir(dir);
}

static inline void fuzz_scratch_remove(void)
{
    fuzz_scratch_clear();
    rmdir(fuzz_scratch_path);
}

static inline const char* fuzz_scratch(void)
{
    if (fuzz_scratch_path[0] == '\0') {
        /* The CI runner names a directory it removes afterwards (a crash skips
         * atexit); by hand, tmpfs keeps the files off the disk. */
        const char* base = getenv("BLADE_FUZZ_SCRATCH");
        if (base == NULL || base[0] == '\0')
            base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_scratch_path, sizeof fuzz_scratch_path, "%.400s/blade-fuzz-XXXXXX", base);
        if (mkdtemp(fuzz_scratch_path) == NULL) {
            perror("mkdtemp");
            abort();
        }
        atexit(fuzz_scratch_remove);
    }
    return fuzz_scratch_path;
}

/* Write `size` bytes to scratch file `name`; return its path (static storage). */
static inline const char* fuzz_write_file(const char* name, const void* data, size_t size)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_scratch(), name);
    FILE* file = fopen(path, "wb");
    if (file == NULL || (size > 0 && fwrite(data, 1, size, file) != size)) {
        perror(path);
        abort();
    }
    fclose(file);
    return path;
}

#endif
