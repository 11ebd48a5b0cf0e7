/* SPDX-License-Identifier: MIT */
/* A growable list of owned strings (file names, warnings). Not installed. */
#ifndef BLADE_CORE_STRING_LIST_H
#define BLADE_CORE_STRING_LIST_H

#include "internal.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct blade_string_list {
    char** items;
    int64_t count;
    int64_t capacity;
} blade_string_list;

/* Append a printf-formatted copy. */
blade_status blade_string_list_append(blade_string_list* list, const char* format, ...)
    BLADE_PRINTF(2, 3);

/* Drop the last string (none: nothing happens). */
void blade_string_list_remove_last(blade_string_list* list);

/* Free every string and the array; the list becomes empty. */
void blade_string_list_clear(blade_string_list* list);

#ifdef __cplusplus
}
#endif

#endif
