/* SPDX-License-Identifier: MIT */
/*
 * Status names and the thread-local message behind blade_last_error().
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLADE_ERROR_MESSAGE_SIZE 1024

static _Thread_local char last_error[BLADE_ERROR_MESSAGE_SIZE];

const char* blade_status_name(blade_status status)
{
    switch (status) {
    case BLADE_OK:
        return "ok";
    case BLADE_ERROR_INVALID_ARGUMENT:
        return "invalid argument";
    case BLADE_ERROR_UNSUPPORTED:
        return "unsupported";
    case BLADE_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case BLADE_ERROR_NO_DEVICE:
        return "no such device";
    case BLADE_ERROR_DEVICE:
        return "device error";
    case BLADE_ERROR_IO:
        return "input/output error";
    case BLADE_ERROR_FORMAT:
        return "malformed data";
    case BLADE_ERROR_END_OF_DATA:
        return "end of data";
    }
    return "unknown status";
}

const char* blade_last_error(void) { return last_error; }

void blade_clear_error(void) { last_error[0] = '\0'; }

blade_status blade_fail(blade_status status, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
    return status;
}

blade_status blade_fail_context(blade_status status, const char* format, ...)
{
    char previous[BLADE_ERROR_MESSAGE_SIZE];
    char context[BLADE_ERROR_MESSAGE_SIZE];
    memcpy(previous, last_error, sizeof previous);
    va_list args;
    va_start(args, format);
    vsnprintf(context, sizeof context, format, args);
    va_end(args);
    /* Context first; the previous message fills what room is left. */
    const int used = snprintf(last_error, sizeof last_error, "%s: ", context);
    if (used > 0 && (size_t)used < sizeof last_error)
        snprintf(last_error + used, sizeof last_error - (size_t)used, "%s", previous);
    return status;
}

blade_status blade_alloc_object(size_t bytes, const char* what, void** object)
{
    *object = calloc(1, bytes);
    if (*object == NULL)
        return blade_fail(
            BLADE_ERROR_OUT_OF_MEMORY, "%s: could not allocate %zu bytes", what, bytes);
    return BLADE_OK;
}
