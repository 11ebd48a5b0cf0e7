/* SPDX-License-Identifier: MIT */
/* Which files make up a GUPPI RAW recording. Not installed. */
#ifndef BLADE_CORE_GUPPI_FILES_H
#define BLADE_CORE_GUPPI_FILES_H

#include "string_list.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The files of the recording `path` names, in reading order:
 * - an existing file named STEM.NNNN.raw (any number of digits): the run of
 *   consecutively numbered members it belongs to, from its first member
 *   (only that file when `single_file`);
 * - any other existing file: that file;
 * - a path that is no file: the stem of STEM.NNNN.raw members, from the
 *   lowest-numbered one.
 * Members outside the run (after a hole in the numbering) are left out, with a
 * warning appended to `warnings`.
 */
blade_status blade_guppi_find_files(const char* path,
                                    bool single_file,
                                    blade_string_list* files,
                                    blade_string_list* warnings);

#ifdef __cplusplus
}
#endif

#endif
