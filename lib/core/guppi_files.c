/* SPDX-License-Identifier: MIT */
/*
 * Finding the members of a stem.NNNN.raw sequence. Recorders split a scan into
 * files of a fixed number of blocks, numbered from 0000; a reader handed any member
 * or the stem reads them all as one stream.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "guppi_files.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* If `name` (a base name) is PREFIX.DIGITS.raw, return DIGITS' value and the length
 * of PREFIX; else -1. */
static long long member_number(const char* name, size_t* prefix_length)
{
    const size_t n = strlen(name);
    if (n < 6 || strcmp(name + n - 4, ".raw") != 0)
        return -1;
    size_t digits_end = n - 4, digits_begin = digits_end;
    while (digits_begin > 0 && isdigit((unsigned char)name[digits_begin - 1]))
        digits_begin--;
    if (digits_begin == digits_end || digits_begin < 2 || name[digits_begin - 1] != '.' ||
        digits_end - digits_begin > 9)
        return -1;
    *prefix_length = digits_begin - 1;
    return strtoll(name + digits_begin, NULL, 10);
}

typedef struct member {
    long long number;
    char* path;
} member;

static int by_number(const void* a, const void* b)
{
    const long long x = ((const member*)a)->number, y = ((const member*)b)->number;
    return (x > y) - (x < y);
}

static void free_members(member* members, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(members[i].path);
    free(members);
}

/* Every existing member STEM.NNNN.raw of the directory of `stem`, sorted. */
static blade_status list_members(const char* stem, member** found, size_t* count)
{
    *found = NULL;
    *count = 0;
    const char* slash = strrchr(stem, '/');
    char directory[4096];
    const char* base;
    if (slash == NULL) {
        snprintf(directory, sizeof directory, ".");
        base = stem;
    } else {
        snprintf(directory, sizeof directory, "%.*s", (int)(slash - stem), stem);
        if (directory[0] == '\0')
            snprintf(directory, sizeof directory, "/");
        base = slash + 1;
    }
    DIR* dir = opendir(directory);
    if (dir == NULL)
        return BLADE_OK; /* no directory: no members; the caller reports the path */
    size_t capacity = 0;
    const size_t base_length = strlen(base);
    struct dirent* entry;
    while ((entry = readdir(dir)) != NULL) {
        size_t prefix_length;
        const long long number = member_number(entry->d_name, &prefix_length);
        if (number < 0 || prefix_length != base_length ||
            strncmp(entry->d_name, base, base_length) != 0)
            continue;
        if (*count == capacity) {
            capacity = capacity ? 2 * capacity : 16;
            member* grown = realloc(*found, capacity * sizeof *grown);
            if (grown == NULL) {
                closedir(dir);
                free_members(*found, *count);
                *found = NULL;
                *count = 0;
                return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "listing %s", directory);
            }
            *found = grown;
        }
        const size_t length = strlen(stem) - base_length + strlen(entry->d_name) + 1;
        char* path = malloc(length);
        if (path == NULL) {
            closedir(dir);
            free_members(*found, *count);
            *found = NULL;
            *count = 0;
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "listing %s", directory);
        }
        snprintf(path, length, "%.*s%s", (int)(strlen(stem) - base_length), stem, entry->d_name);
        (*found)[*count].number = number;
        (*found)[*count].path = path;
        (*count)++;
    }
    closedir(dir);
    if (*count > 1)
        qsort(*found, *count, sizeof **found, by_number);
    return BLADE_OK;
}

/* Append the consecutive run of members that contains `number` (or starts at the
 * lowest member when number < 0), and warn about the others. */
static blade_status take_run(const member* members,
                             size_t count,
                             long long number,
                             blade_string_list* files,
                             blade_string_list* warnings)
{
    size_t at = 0;
    if (number >= 0)
        while (at < count && members[at].number != number)
            at++;
    size_t first = at, last = at;
    while (first > 0 && members[first - 1].number == members[first].number - 1)
        first--;
    while (last + 1 < count && members[last + 1].number == members[last].number + 1)
        last++;
    /* A member missing after the run: reading only the run would drop the later
     * files without a word (the command succeeded with half the data). */
    if (last + 1 < count) {
        const char* before = members[last].path;
        const char* after = members[last + 1].path;
        const char* end = before + strlen(before) - 4; /* at ".raw" */
        const char* digits = end;
        while (digits > before && isdigit((unsigned char)digits[-1]))
            digits--;
        return blade_fail(
            BLADE_ERROR_FORMAT,
            "%.*s%0*lld.raw is missing from the sequence: %s is followed by %s (%zu "
            "file(s) after the gap), which would not be read; restore the missing file, "
            "or read each part on its own (name one file with --single-file)",
            (int)(digits - before),
            before,
            (int)(end - digits),
            members[last].number + 1,
            before,
            after,
            count - last - 1);
    }
    for (size_t i = first; i <= last; i++)
        BLADE_TRY(blade_string_list_append(files, "%s", members[i].path));
    for (size_t i = 0; i < first; i++)
        BLADE_TRY(blade_string_list_append(
            warnings,
            "%s is not read: the recording is read from %s, the member named, on",
            members[i].path,
            members[first].path));
    return BLADE_OK;
}

blade_status blade_guppi_find_files(const char* path,
                                    bool single_file,
                                    blade_string_list* files,
                                    blade_string_list* warnings)
{
    if (path == NULL || path[0] == '\0')
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "GUPPI reader: no path given");
    struct stat info;
    if (stat(path, &info) == 0) {
        if (S_ISDIR(info.st_mode))
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "%s is a directory; give a .raw file or a recording's stem",
                              path);
        const char* slash = strrchr(path, '/');
        const char* base = slash ? slash + 1 : path;
        size_t prefix_length;
        const long long number = member_number(base, &prefix_length);
        if (single_file || number < 0)
            return blade_string_list_append(files, "%s", path);
        char stem[4096];
        snprintf(stem, sizeof stem, "%.*s", (int)((size_t)(base - path) + prefix_length), path);
        member* members;
        size_t count;
        BLADE_TRY(list_members(stem, &members, &count));
        bool listed = false;
        for (size_t i = 0; i < count; i++)
            listed = listed || members[i].number == number;
        blade_status status;
        if (!listed) /* e.g. a name the directory listing spells differently */
            status = blade_string_list_append(files, "%s", path);
        else
            status = take_run(members, count, number, files, warnings);
        free_members(members, count);
        return status;
    }
    if (errno != ENOENT)
        return blade_fail(BLADE_ERROR_IO, "%s: %s", path, strerror(errno));
    member* members;
    size_t count;
    BLADE_TRY(list_members(path, &members, &count));
    if (count == 0)
        return blade_fail(BLADE_ERROR_IO,
                          "%s: no such file, and no recording %s.NNNN.raw (e.g. %s.0000.raw)",
                          path,
                          path,
                          path);
    const blade_status status = take_run(members, count, -1, files, warnings);
    free_members(members, count);
    return status;
}
