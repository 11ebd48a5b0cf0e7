/* SPDX-License-Identifier: MIT */
/* Whole reads and writes of file ranges with errors that name the file and offset.
 * Not installed. */
#ifndef BLADE_CORE_FILE_IO_H
#define BLADE_CORE_FILE_IO_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Read exactly `bytes` at `offset` (retrying short reads); a file that ends early
 * or a failing read is ::BLADE_ERROR_IO naming `name` and the offset. */
blade_status blade_read_fully(int fd, void* buffer, size_t bytes, int64_t offset, const char* name);

/* Append exactly `bytes` at the file position (retrying short writes); a full disk
 * or any other failure is ::BLADE_ERROR_IO naming `name`, the offset and the reason. */
blade_status
blade_write_fully(int fd, const void* buffer, size_t bytes, int64_t offset, const char* name);

/* After a failed write: cut the file back to `length` bytes, so that it ends with the
 * last whole record (block, spectrum) instead of a torn one. A file that cannot be
 * cut (a pipe, /dev/full) is left as it is. */
void blade_cut_back(int fd, int64_t length);

/* Refuse what is not a regular file (a FIFO, a device, a socket, a directory),
 * before opening it: opening a FIFO blocks until a writer comes, and a device has no
 * end or no size. `what` is the kind of file expected ("GUPPI RAW recording"). A
 * path that does not exist passes (opening it says so). */
blade_status blade_check_regular_file(const char* path, const char* what);

#ifdef __cplusplus
}
#endif

#endif
