/* SPDX-License-Identifier: MIT */
/*
 * Inputs are never outputs. A recording can be irreplaceable: a writer that
 * truncated the file a reader is reading would destroy it, and a writer that
 * removes its output after a failure must not remove a file it did not make.
 *
 * Readers register each file they read, by device and inode (so that a link or
 * any other name of the same file counts), for as long as they read it. Writers
 * create their files through blade_output_create(), which refuses a registered
 * file (blade_output_check(), blade/io/output_files.h) and says whether the file is
 * new, so that cleanup after a failure removes only files the writer created. Not
 * installed.
 */
#ifndef BLADE_CORE_FILE_GUARD_H
#define BLADE_CORE_FILE_GUARD_H

#include "internal.h"

#include <blade/io/output_files.h>

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which file an open descriptor is, as the file system knows it. */
typedef struct blade_file_id {
    uint64_t device;
    uint64_t inode;
} blade_file_id;

/* Register the open file `fd` (named `name` in messages) as an input of this
 * process; fills `id` for blade_input_unregister(). */
blade_status blade_input_register(int fd, const char* name, blade_file_id* id);

/* The reader is done with the file (one unregister per register). */
void blade_input_unregister(blade_file_id id);

/* Create `path` for writing (replacing a previous output of that name) after
 * blade_output_check(); `created` is true when no file of that name existed, which
 * is when the writer may remove it again. */
blade_status blade_output_create(const char* path, const char* what, int* fd, bool* created);

#ifdef __cplusplus
}
#endif

#endif
