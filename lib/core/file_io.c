/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "file_io.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One system call moves at most this much (Linux caps a call near 2 GiB). */
#define MOST_PER_CALL ((size_t)1 << 30)

blade_status blade_read_fully(int fd, void* buffer, size_t bytes, int64_t offset, const char* name)
{
    char* out = buffer;
    size_t done = 0;
    while (done < bytes) {
        const size_t want = bytes - done < MOST_PER_CALL ? bytes - done : MOST_PER_CALL;
        const ssize_t got = pread(fd, out + done, want, (off_t)(offset + (int64_t)done));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return blade_fail(BLADE_ERROR_IO,
                              "%s: read failed at byte offset %lld: %s",
                              name,
                              (long long)(offset + (int64_t)done),
                              strerror(errno));
        }
        if (got == 0)
            return blade_fail(BLADE_ERROR_IO,
                              "%s: the file ends at byte %lld, but %zu bytes were expected "
                              "from byte offset %lld (did the file shrink?)",
                              name,
                              (long long)(offset + (int64_t)done),
                              bytes,
                              (long long)offset);
        done += (size_t)got;
    }
    return BLADE_OK;
}

blade_status
blade_write_fully(int fd, const void* buffer, size_t bytes, int64_t offset, const char* name)
{
    const char* in = buffer;
    size_t done = 0;
    while (done < bytes) {
        const size_t want = bytes - done < MOST_PER_CALL ? bytes - done : MOST_PER_CALL;
        const ssize_t put = write(fd, in + done, want);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            return blade_fail(BLADE_ERROR_IO,
                              "%s: write failed at byte offset %lld: %s",
                              name,
                              (long long)(offset + (int64_t)done),
                              strerror(errno));
        }
        if (put == 0)
            return blade_fail(BLADE_ERROR_IO,
                              "%s: nothing could be written at byte offset %lld (disk full?)",
                              name,
                              (long long)(offset + (int64_t)done));
        done += (size_t)put;
    }
    return BLADE_OK;
}

void blade_cut_back(int fd, int64_t length)
{
    if (ftruncate(fd, (off_t)length) != 0) {
        /* not a regular file: nothing to cut */
    }
}

blade_status blade_check_regular_file(const char* path, const char* what)
{
    struct stat info;
    if (stat(path, &info) != 0 || S_ISREG(info.st_mode))
        return BLADE_OK;
    const char* kind = S_ISDIR(info.st_mode)    ? "a directory"
                       : S_ISFIFO(info.st_mode) ? "a FIFO (named pipe)"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                                                : "not a regular file";
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "%s is %s: a %s must be a regular file (gr-blade reads its "
                      "headers before the data and needs its size); copy the data into "
                      "a file first",
                      path,
                      kind,
                      what);
}
