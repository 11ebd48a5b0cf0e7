/* SPDX-License-Identifier: MIT */
/**
 * @file io/output_files.h
 * @brief The rules every gr-blade writer follows before it creates a file.
 *
 * A recording can be irreplaceable. So:
 * - An output is never an input: the GUPPI reader registers every file it reads
 *   (by device and inode, so a link or any other name of the file counts) while it
 *   is open, and every writer refuses to create an output that is one of them.
 * - A writer that gives up removes only files it created itself, never a file that
 *   was there before it.
 * - A writer refuses an unusable place (a missing or unwritable directory) when it
 *   is made, not at its first write.
 */
#ifndef BLADE_IO_OUTPUT_FILES_H
#define BLADE_IO_OUTPUT_FILES_H

#include <stdbool.h>

#include <blade/export.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Refuse `path` as an output if it is a file that a reader of this process is
 * reading, or a directory. `exists` says whether something is there now. `what`
 * names the writer in the message (::BLADE_ERROR_INVALID_ARGUMENT).
 */
BLADE_CORE_API blade_status blade_output_check(const char* path, const char* what, bool* exists);

/**
 * Check that files can be created in the directory of `path` (a file name or a
 * stem): it exists, is a directory and is writable; else ::BLADE_ERROR_IO naming the
 * directory, `path` and the reason.
 */
BLADE_CORE_API blade_status blade_output_directory_check(const char* path, const char* what);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_IO_OUTPUT_FILES_H */
