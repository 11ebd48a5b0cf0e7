/* SPDX-License-Identifier: MIT */
/**
 * @file status.h
 * @brief Status codes and the thread-local error message of the gr-blade core.
 *
 * Every core function that can fail returns a ::blade_status. On failure it also
 * leaves a human-readable message, retrievable with blade_last_error() from the same
 * thread, that says what was expected and what was given. The core never aborts and
 * never prints by itself.
 */
#ifndef BLADE_STATUS_H
#define BLADE_STATUS_H

#include <blade/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Result of a core call. Zero is success; every other value is a failure class. */
typedef enum blade_status {
    BLADE_OK = 0,                 /**< Success. */
    BLADE_ERROR_INVALID_ARGUMENT, /**< A shape, type or parameter is not acceptable. */
    BLADE_ERROR_UNSUPPORTED,      /**< Valid request that this build cannot do. */
    BLADE_ERROR_OUT_OF_MEMORY,    /**< Host or device allocation failed. */
    BLADE_ERROR_NO_DEVICE,        /**< The requested GPU is not present. */
    BLADE_ERROR_DEVICE,           /**< A CUDA runtime or library call failed. */
    BLADE_ERROR_IO,               /**< A file could not be opened, read or written. */
    BLADE_ERROR_FORMAT,           /**< A file's contents are malformed. */
    BLADE_ERROR_END_OF_DATA       /**< A reader has no more data (not a fault). */
} blade_status;

/** Short constant name of a status, e.g. "invalid argument". */
BLADE_CORE_API const char* blade_status_name(blade_status status);

/**
 * Message of the last failure on the calling thread ("" if none). The pointer stays
 * valid until the next core call on this thread.
 */
BLADE_CORE_API const char* blade_last_error(void);

/** Forget the calling thread's last error message. */
BLADE_CORE_API void blade_clear_error(void);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_STATUS_H */
