/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "string_list.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

blade_status blade_string_list_append(blade_string_list* list, const char* format, ...)
{
    if (list->count == list->capacity) {
        const int64_t capacity = list->capacity ? 2 * list->capacity : 8;
        char** items = realloc(list->items, (size_t)capacity * sizeof *items);
        if (items == NULL)
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "could not grow a list of strings");
        list->items = items;
        list->capacity = capacity;
    }
    va_list args;
    va_start(args, format);
    const int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char* text = malloc((size_t)(length < 0 ? 0 : length) + 1);
    if (text == NULL)
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "could not copy a string");
    va_start(args, format);
    vsnprintf(text, (size_t)length + 1, format, args);
    va_end(args);
    list->items[list->count++] = text;
    return BLADE_OK;
}

void blade_string_list_clear(blade_string_list* list)
{
    for (int64_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = list->capacity = 0;
}

void blade_string_list_remove_last(blade_string_list* list)
{
    if (list->count > 0)
        free(list->items[--list->count]);
}
