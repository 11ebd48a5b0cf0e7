/* SPDX-License-Identifier: MIT */
/**
 * @file io/guppi_header.h
 * @brief GUPPI RAW header cards: parse, query with types, build, format.
 *
 * A GUPPI RAW header is a run of 80-byte ASCII cards, FITS style: columns 1-8 hold
 * the keyword (space padded), columns 9-10 hold "= ", the value starts in column
 * 11. Strings are single-quoted ('' inside quotes is a literal quote; trailing
 * blanks inside the quotes do not count). The header ends with the card "END".
 *
 * Real recorders quote numbers too (DIRECTIO= '1       ', CHAN_BW = '-3.125  ')
 * and write exponents (3.41333333333333E-07, Fortran's D exponent included). The
 * typed getters therefore read a number from either form; the kind of a card
 * (::blade_guppi_value_kind) says what its text looks like, and whether it was
 * quoted is reported separately.
 *
 * A header object owns copies of its cards; it is not tied to a file.
 */
#ifndef BLADE_IO_GUPPI_HEADER_H
#define BLADE_IO_GUPPI_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <blade/export.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of one header card. */
#define BLADE_GUPPI_CARD_BYTES 80

/** Most cards a header may hold before the parser gives up looking for END. */
#define BLADE_GUPPI_MAX_CARDS 16384

/** What a card's value looks like. */
typedef enum blade_guppi_value_kind {
    BLADE_GUPPI_VALUE_STRING = 0, /**< text (quoted, or unquoted and not a number) */
    BLADE_GUPPI_VALUE_INTEGER,    /**< an integer, quoted or not */
    BLADE_GUPPI_VALUE_REAL,       /**< a decimal or exponent number, quoted or not */
    BLADE_GUPPI_VALUE_LOGICAL,    /**< FITS logical T or F (unquoted) */
    BLADE_GUPPI_VALUE_NONE        /**< a card without "= " (COMMENT, HISTORY, blank) */
} blade_guppi_value_kind;

/** One card as parsed. Strings are owned by the header. */
typedef struct blade_guppi_card {
    const char* key;             /**< keyword, trailing blanks removed */
    const char* text;            /**< value text: unquoted, trailing blanks removed */
    blade_guppi_value_kind kind; /**< what the text looks like */
    bool quoted;                 /**< the value was written in quotes */
} blade_guppi_card;

/** An opaque list of header cards. */
typedef struct blade_guppi_header blade_guppi_header;

/** An empty header (for writing). */
BLADE_CORE_API blade_status blade_guppi_header_create(blade_guppi_header** header);

/**
 * Parse the header at the start of `bytes`.
 *
 * Reads cards up to and including END. `*consumed` receives the bytes of the
 * cards (END included, no DIRECTIO padding). `file` and `offset` (the file
 * position of bytes[0]) only make error messages precise.
 *
 * @return ::BLADE_ERROR_FORMAT for a card that is not printable ASCII, a keyword
 *         with a blank inside, no END within ::BLADE_GUPPI_MAX_CARDS cards, or an
 *         unterminated quote; ::BLADE_ERROR_END_OF_DATA when `size` ends before the
 *         END card (the caller may read more and try again). Messages name the file,
 *         the byte offset of the offending card and the problem.
 */
BLADE_CORE_API blade_status blade_guppi_header_parse(const char* bytes,
                                                     size_t size,
                                                     const char* file,
                                                     int64_t offset,
                                                     blade_guppi_header** header,
                                                     size_t* consumed);

/** Release a header (NULL is ignored). */
BLADE_CORE_API void blade_guppi_header_destroy(blade_guppi_header* header);

/** Number of cards (END excluded). */
BLADE_CORE_API int64_t blade_guppi_header_count(const blade_guppi_header* header);

/** Card `index` (0-based, in file order). Out of range: all fields NULL/0. */
BLADE_CORE_API blade_guppi_card blade_guppi_header_card(const blade_guppi_header* header,
                                                        int64_t index);

/** True if a card with this keyword exists (first occurrence counts). */
BLADE_CORE_API bool blade_guppi_header_has(const blade_guppi_header* header, const char* key);

/**
 * Value of `key` as an integer. Accepts integers and reals with an integral value,
 * quoted or not. ::BLADE_ERROR_FORMAT if missing or not an integer (the message
 * names the key and the text found).
 */
BLADE_CORE_API blade_status blade_guppi_header_get_int(const blade_guppi_header* header,
                                                       const char* key,
                                                       int64_t* value);

/** Value of `key` as a real number (quoted or not); ::BLADE_ERROR_FORMAT if not one. */
BLADE_CORE_API blade_status blade_guppi_header_get_real(const blade_guppi_header* header,
                                                        const char* key,
                                                        double* value);

/** Value text of `key` (unquoted); ::BLADE_ERROR_FORMAT if missing. */
BLADE_CORE_API blade_status blade_guppi_header_get_string(const blade_guppi_header* header,
                                                          const char* key,
                                                          const char** value);

/**
 * Set `key` to the raw value text `text`, exactly as it goes after "= " (quotes
 * included for strings). Replaces the first card with this key or appends one.
 * ::BLADE_ERROR_INVALID_ARGUMENT for a keyword longer than 8 characters, with
 * blanks, "=" or lower-case letters, or a value that does not fit in 70 columns
 * or is not printable ASCII.
 */
BLADE_CORE_API blade_status blade_guppi_header_set_raw(blade_guppi_header* header,
                                                       const char* key,
                                                       const char* text);

/** Set an integer value. */
BLADE_CORE_API blade_status blade_guppi_header_set_int(blade_guppi_header* header,
                                                       const char* key,
                                                       int64_t value);

/** Set a real value (17 significant digits, so it reads back exactly). */
BLADE_CORE_API blade_status blade_guppi_header_set_real(blade_guppi_header* header,
                                                        const char* key,
                                                        double value);

/** Set a string value (quoted, quotes doubled, padded to 8 characters as FITS does). */
BLADE_CORE_API blade_status blade_guppi_header_set_string(blade_guppi_header* header,
                                                          const char* key,
                                                          const char* value);

/** Remove every card with this keyword (absent: nothing happens). */
BLADE_CORE_API void blade_guppi_header_remove(blade_guppi_header* header, const char* key);

/** Copy every card of `from` into `into` (replacing cards with the same key). */
BLADE_CORE_API blade_status blade_guppi_header_merge(blade_guppi_header* into,
                                                     const blade_guppi_header* from);

/**
 * Bytes the formatted header takes: cards plus END, padded to a multiple of 512
 * when `directio` is true (no pad when already aligned).
 */
BLADE_CORE_API size_t blade_guppi_header_bytes(const blade_guppi_header* header, bool directio);

/**
 * Write the cards, END and (for `directio`) space padding into `buffer`, which
 * must hold blade_guppi_header_bytes() bytes. No terminating NUL is written.
 */
BLADE_CORE_API blade_status blade_guppi_header_format(const blade_guppi_header* header,
                                                      bool directio,
                                                      char* buffer,
                                                      size_t size);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_IO_GUPPI_HEADER_H */
