/* SPDX-License-Identifier: MIT */
/**
 * @file dtype.h
 * @brief Element types of gr-blade tensors.
 *
 * Complex types store the real part first. `ci8` is the GUPPI RAW 8-bit layout (two
 * int8 per sample); `ci4` packs one complex sample in one byte, the real part in the
 * high nibble and the imaginary part in the low nibble, both two's complement.
 */
#ifndef BLADE_DTYPE_H
#define BLADE_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include <blade/export.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Element type of a tensor. */
typedef enum blade_dtype {
    BLADE_CI4 = 0, /**< complex 4-bit integers, one byte per sample */
    BLADE_CI8,     /**< complex int8 (re, im) */
    BLADE_CI16,    /**< complex int16 (re, im) */
    BLADE_CF16,    /**< complex IEEE half (re, im) */
    BLADE_CF32,    /**< complex float (re, im) */
    BLADE_CF64,    /**< complex double (re, im) */
    BLADE_F16,     /**< real IEEE half */
    BLADE_F32,     /**< real float */
    BLADE_F64,     /**< real double */
    BLADE_DTYPE_COUNT
} blade_dtype;

/** Bits per element (8 for ci4, 16 for ci8, 64 for cf32, ...). */
BLADE_CORE_API size_t blade_dtype_bits(blade_dtype dtype);

/** Bytes per element; ci4 counts as one byte. */
BLADE_CORE_API size_t blade_dtype_size(blade_dtype dtype);

/** True for the complex types (ci4 ... cf64). */
BLADE_CORE_API bool blade_dtype_is_complex(blade_dtype dtype);

/** True for integer element types (ci4, ci8, ci16). */
BLADE_CORE_API bool blade_dtype_is_integer(blade_dtype dtype);

/** Lower-case name ("ci8", "cf32", ...), or "unknown". */
BLADE_CORE_API const char* blade_dtype_name(blade_dtype dtype);

/**
 * Parse a type name ("ci8", "cf32", "f16", ...; case-insensitive).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming the accepted names if unknown.
 */
BLADE_CORE_API blade_status blade_dtype_parse(const char* name, blade_dtype* dtype);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_DTYPE_H */
