/* SPDX-License-Identifier: MIT */
/*
 * GUPPI RAW header cards. Parsing is strict about what can be checked (every byte
 * of a card printable, keywords without blanks, quotes closed, END present) and
 * lenient about what real recorders vary (quoted numbers, exponent letters, cards
 * without "= "), so that a damaged file is reported at the card that is wrong
 * instead of being misread.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "internal.h"

#include <blade/io/guppi_header.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_COLUMNS 8
#define VALUE_COLUMN 10
#define VALUE_COLUMNS (BLADE_GUPPI_CARD_BYTES - VALUE_COLUMN)

typedef struct card {
    char key[KEY_COLUMNS + 1];
    char text[BLADE_GUPPI_CARD_BYTES + 1];              /* unquoted value */
    char raw[BLADE_GUPPI_CARD_BYTES - KEY_COLUMNS + 1]; /* columns after the key/indicator */
    blade_guppi_value_kind kind;
    bool quoted;
} card;

struct blade_guppi_header {
    card* cards;
    int64_t count;
    int64_t capacity;
};

blade_status blade_guppi_header_create(blade_guppi_header** header)
{
    return blade_alloc_object(sizeof **header, "GUPPI header", (void**)header);
}

void blade_guppi_header_destroy(blade_guppi_header* header)
{
    if (header == NULL)
        return;
    free(header->cards);
    free(header);
}

static blade_status append_card(blade_guppi_header* header, card** added)
{
    if (header->count == header->capacity) {
        const int64_t capacity = header->capacity ? 2 * header->capacity : 64;
        card* cards = realloc(header->cards, (size_t)capacity * sizeof *cards);
        if (cards == NULL)
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                              "GUPPI header: could not grow to %lld cards",
                              (long long)capacity);
        header->cards = cards;
        header->capacity = capacity;
    }
    *added = &header->cards[header->count++];
    memset(*added, 0, sizeof **added);
    return BLADE_OK;
}

/* ---- value classification ------------------------------------------------- */

static void trim_trailing(char* text)
{
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == ' ')
        text[--n] = '\0';
}

static const char* skip_blanks(const char* text)
{
    while (*text == ' ')
        text++;
    return text;
}

/* Parse a whole string as an integer (optional sign, digits, surrounding blanks). */
static bool parse_integer(const char* text, int64_t* value)
{
    text = skip_blanks(text);
    if (*text == '\0')
        return false;
    char* end;
    errno = 0;
    const long long parsed = strtoll(text, &end, 10);
    if (end == text || errno == ERANGE)
        return false;
    if (*skip_blanks(end) != '\0')
        return false;
    *value = parsed;
    return true;
}

/* Parse a whole string as a real: decimal or exponent form, E or Fortran's D. */
static bool parse_real(const char* text, double* value)
{
    char copy[BLADE_GUPPI_CARD_BYTES + 1];
    text = skip_blanks(text);
    const size_t n = strlen(text);
    if (n == 0 || n >= sizeof copy)
        return false;
    memcpy(copy, text, n + 1);
    for (size_t i = 0; i < n; i++)
        if (copy[i] == 'D' || copy[i] == 'd')
            copy[i] = 'E';
    /* Refuse what strtod would take but a header does not mean as a number. */
    for (size_t i = 0; i < n; i++) {
        const char c = copy[i];
        if (!(isdigit((unsigned char)c) || c == '+' || c == '-' || c == '.' || c == 'E' ||
              c == 'e' || c == ' '))
            return false;
    }
    char* end;
    errno = 0;
    const double parsed = strtod(copy, &end);
    /* ERANGE also flags underflow: a subnormal such as 1E-320 is still a number
     * (and one our own writer may have written); only overflow is refused. */
    if (end == copy || (errno == ERANGE && isinf(parsed)))
        return false;
    if (*skip_blanks(end) != '\0')
        return false;
    *value = parsed;
    return true;
}

static blade_guppi_value_kind classify(const char* text, bool quoted)
{
    int64_t integer;
    double real;
    if (parse_integer(text, &integer))
        return BLADE_GUPPI_VALUE_INTEGER;
    if (parse_real(text, &real))
        return BLADE_GUPPI_VALUE_REAL;
    if (!quoted && (strcmp(text, "T") == 0 || strcmp(text, "F") == 0))
        return BLADE_GUPPI_VALUE_LOGICAL;
    return BLADE_GUPPI_VALUE_STRING;
}

/* ---- parsing -------------------------------------------------------------- */

static bool printable(char c) { return c >= 0x20 && c <= 0x7e; }

static blade_status bad_card(const char* file, int64_t offset, int64_t index, const char* problem)
{
    return blade_fail(BLADE_ERROR_FORMAT,
                      "%s: byte offset %lld (header card %lld): %s",
                      file ? file : "GUPPI header",
                      (long long)offset,
                      (long long)index + 1,
                      problem);
}

/* Split the value columns of a card into its unquoted text. */
static blade_status
parse_value(const char* columns, card* out, const char* file, int64_t offset, int64_t index)
{
    memcpy(out->raw, columns, VALUE_COLUMNS);
    out->raw[VALUE_COLUMNS] = '\0';
    trim_trailing(out->raw);
    const char* value = skip_blanks(out->raw);
    if (*value == '\'') {
        size_t length = 0;
        const char* p = value + 1;
        for (;;) {
            if (*p == '\0')
                return bad_card(file, offset, index, "string value has no closing quote");
            if (*p == '\'') {
                if (p[1] == '\'') { /* '' is a literal quote */
                    out->text[length++] = '\'';
                    p += 2;
                    continue;
                }
                break;
            }
            out->text[length++] = *p++;
        }
        out->text[length] = '\0';
        trim_trailing(out->text);
        out->quoted = true;
        /* Numbers in quotes: judge the text without its leading blanks. */
        out->kind = classify(skip_blanks(out->text), true);
        if (out->kind != BLADE_GUPPI_VALUE_STRING) {
            const char* start = skip_blanks(out->text);
            memmove(out->text, start, strlen(start) + 1);
        }
        return BLADE_OK;
    }
    snprintf(out->text, sizeof out->text, "%s", value);
    out->kind = classify(out->text, false);
    if (out->kind == BLADE_GUPPI_VALUE_STRING) {
        /* "value / comment": keep the value if that makes it a number. */
        char* slash = strchr(out->text, '/');
        if (slash != NULL) {
            char before[sizeof out->text];
            snprintf(before, sizeof before, "%.*s", (int)(slash - out->text), out->text);
            trim_trailing(before);
            const blade_guppi_value_kind kind = classify(before, false);
            if (kind != BLADE_GUPPI_VALUE_STRING) {
                memcpy(out->text, before, sizeof before);
                out->kind = kind;
            }
        }
    }
    return BLADE_OK;
}

blade_status blade_guppi_header_parse(const char* bytes,
                                      size_t size,
                                      const char* file,
                                      int64_t offset,
                                      blade_guppi_header** header,
                                      size_t* consumed)
{
    *header = NULL;
    *consumed = 0;
    blade_guppi_header* parsed;
    BLADE_TRY(blade_guppi_header_create(&parsed));
    for (int64_t index = 0;; index++) {
        const size_t at = (size_t)index * BLADE_GUPPI_CARD_BYTES;
        const int64_t where = offset + (int64_t)at;
        if (index >= BLADE_GUPPI_MAX_CARDS) {
            blade_guppi_header_destroy(parsed);
            return blade_fail(BLADE_ERROR_FORMAT,
                              "%s: header at byte offset %lld has no END card within %d "
                              "cards",
                              file ? file : "GUPPI header",
                              (long long)offset,
                              BLADE_GUPPI_MAX_CARDS);
        }
        if (at + BLADE_GUPPI_CARD_BYTES > size) {
            blade_guppi_header_destroy(parsed);
            return blade_fail(BLADE_ERROR_END_OF_DATA,
                              "%s: header at byte offset %lld ends after %lld cards "
                              "without an END card",
                              file ? file : "GUPPI header",
                              (long long)offset,
                              (long long)index);
        }
        const char* c = bytes + at;
        for (int i = 0; i < BLADE_GUPPI_CARD_BYTES; i++) {
            if (!printable(c[i])) {
                char problem[160];
                snprintf(problem,
                         sizeof problem,
                         "byte %d of the card is 0x%02x, not printable ASCII (not a "
                         "GUPPI header card%s)",
                         i + 1,
                         (unsigned)(unsigned char)c[i],
                         index > 0 ? "; is the END card missing?" : "");
                blade_guppi_header_destroy(parsed);
                return bad_card(file, where, index, problem);
            }
        }
        char key[KEY_COLUMNS + 1];
        memcpy(key, c, KEY_COLUMNS);
        key[KEY_COLUMNS] = '\0';
        trim_trailing(key);
        if (strcmp(key, "END") == 0) {
            *consumed = at + BLADE_GUPPI_CARD_BYTES;
            *header = parsed;
            return BLADE_OK;
        }
        if (strchr(key, ' ') != NULL || strchr(key, '=') != NULL ||
            (key[0] == '\0' && memchr(c, '=', BLADE_GUPPI_CARD_BYTES) != NULL)) {
            blade_guppi_header_destroy(parsed);
            return bad_card(file,
                            where,
                            index,
                            "the keyword (columns 1-8) is not a single word (not a GUPPI "
                            "header card)");
        }
        if (key[0] == '\0')
            continue; /* a blank card */
        card* added = NULL;
        blade_status status = append_card(parsed, &added);
        if (status != BLADE_OK) {
            blade_guppi_header_destroy(parsed);
            return status;
        }
        memcpy(added->key, key, sizeof key);
        if (c[8] == '=' && c[9] == ' ') {
            status = parse_value(c + VALUE_COLUMN, added, file, where, index);
            if (status != BLADE_OK) {
                blade_guppi_header_destroy(parsed);
                return status;
            }
        } else {
            /* COMMENT, HISTORY and other cards without a value indicator. */
            snprintf(added->text, sizeof added->text, "%.*s", VALUE_COLUMNS + 2, c + KEY_COLUMNS);
            trim_trailing(added->text);
            memcpy(added->raw, added->text, strlen(added->text) + 1);
            added->kind = BLADE_GUPPI_VALUE_NONE;
        }
    }
}

/* ---- queries -------------------------------------------------------------- */

int64_t blade_guppi_header_count(const blade_guppi_header* header) { return header->count; }

blade_guppi_card blade_guppi_header_card(const blade_guppi_header* header, int64_t index)
{
    blade_guppi_card result = { NULL, NULL, BLADE_GUPPI_VALUE_NONE, false };
    if (index < 0 || index >= header->count)
        return result;
    const card* c = &header->cards[index];
    result.key = c->key;
    result.text = c->text;
    result.kind = c->kind;
    result.quoted = c->quoted;
    return result;
}

static const card* find(const blade_guppi_header* header, const char* key)
{
    for (int64_t i = 0; i < header->count; i++)
        if (strcmp(header->cards[i].key, key) == 0)
            return &header->cards[i];
    return NULL;
}

bool blade_guppi_header_has(const blade_guppi_header* header, const char* key)
{
    return find(header, key) != NULL;
}

static blade_status missing(const char* key)
{
    return blade_fail(BLADE_ERROR_FORMAT, "the header has no %s card", key);
}

blade_status
blade_guppi_header_get_int(const blade_guppi_header* header, const char* key, int64_t* value)
{
    const card* c = find(header, key);
    if (c == NULL)
        return missing(key);
    if (parse_integer(c->text, value))
        return BLADE_OK;
    double real;
    if (parse_real(c->text, &real) && real == floor(real) && fabs(real) < 9.0e15) {
        *value = (int64_t)real;
        return BLADE_OK;
    }
    return blade_fail(BLADE_ERROR_FORMAT, "%s = '%s' is not an integer", key, c->text);
}

blade_status
blade_guppi_header_get_real(const blade_guppi_header* header, const char* key, double* value)
{
    const card* c = find(header, key);
    if (c == NULL)
        return missing(key);
    if (parse_real(c->text, value))
        return BLADE_OK;
    return blade_fail(BLADE_ERROR_FORMAT, "%s = '%s' is not a number", key, c->text);
}

blade_status
blade_guppi_header_get_string(const blade_guppi_header* header, const char* key, const char** value)
{
    const card* c = find(header, key);
    if (c == NULL)
        return missing(key);
    *value = c->text;
    return BLADE_OK;
}

/* ---- building ------------------------------------------------------------- */

static blade_status check_key(const char* key)
{
    const size_t n = key ? strlen(key) : 0;
    if (n == 0 || n > KEY_COLUMNS)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI header: keyword '%s' must have 1 to 8 characters",
                          key ? key : "");
    for (size_t i = 0; i < n; i++) {
        const char c = key[i];
        if (!(isupper((unsigned char)c) || isdigit((unsigned char)c) || c == '_' || c == '-'))
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "GUPPI header: keyword '%s' may hold only A-Z, 0-9, _ and -",
                              key);
    }
    if (strcmp(key, "END") == 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI header: END is the end marker, not a keyword");
    return BLADE_OK;
}

blade_status
blade_guppi_header_set_raw(blade_guppi_header* header, const char* key, const char* text)
{
    BLADE_TRY(check_key(key));
    const size_t n = strlen(text);
    if (n > VALUE_COLUMNS)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI header: the value of %s has %zu characters; a card holds "
                          "%d",
                          key,
                          n,
                          VALUE_COLUMNS);
    for (size_t i = 0; i < n; i++)
        if (!printable(text[i]))
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "GUPPI header: the value of %s holds a byte 0x%02x that is not "
                              "printable ASCII",
                              key,
                              (unsigned)(unsigned char)text[i]);
    char columns[VALUE_COLUMNS + 1];
    memset(columns, ' ', VALUE_COLUMNS);
    columns[VALUE_COLUMNS] = '\0';
    memcpy(columns, text, n);
    card parsed;
    memset(&parsed, 0, sizeof parsed);
    BLADE_TRY(parse_value(columns, &parsed, "GUPPI header", 0, 0));
    snprintf(parsed.key, sizeof parsed.key, "%s", key);

    card* target = (card*)find(header, key);
    if (target == NULL)
        BLADE_TRY(append_card(header, &target));
    *target = parsed;
    return BLADE_OK;
}

blade_status blade_guppi_header_set_int(blade_guppi_header* header, const char* key, int64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)value);
    return blade_guppi_header_set_raw(header, key, text);
}

blade_status blade_guppi_header_set_real(blade_guppi_header* header, const char* key, double value)
{
    if (!isfinite(value))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI header: %s must be a finite number (got %g)",
                          key,
                          value);
    char text[40];
    snprintf(text, sizeof text, "%.17G", value);
    /* A real keeps a decimal point even with an exponent ("1.E+20"): some readers
     * (blimpy) take a number without one for an integer. */
    if (strchr(text, '.') == NULL) {
        char* exponent = strchr(text, 'E');
        if (exponent == NULL) {
            strcat(text, ".");
        } else {
            memmove(exponent + 1, exponent, strlen(exponent) + 1);
            *exponent = '.';
        }
    }
    return blade_guppi_header_set_raw(header, key, text);
}

blade_status
blade_guppi_header_set_string(blade_guppi_header* header, const char* key, const char* value)
{
    char text[2 * BLADE_GUPPI_CARD_BYTES];
    size_t n = 0;
    text[n++] = '\'';
    for (const char* p = value; *p; p++) {
        if (n + 3 >= sizeof text)
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "GUPPI header: the string value of %s is too long for a card",
                              key);
        if (*p == '\'')
            text[n++] = '\'';
        text[n++] = *p;
    }
    /* FITS pads short strings to 8 characters (of the value, before escaping). */
    for (size_t length = strlen(value); length < 8; length++)
        text[n++] = ' ';
    text[n++] = '\'';
    text[n] = '\0';
    return blade_guppi_header_set_raw(header, key, text);
}

void blade_guppi_header_remove(blade_guppi_header* header, const char* key)
{
    int64_t kept = 0;
    for (int64_t i = 0; i < header->count; i++)
        if (strcmp(header->cards[i].key, key) != 0)
            header->cards[kept++] = header->cards[i];
    header->count = kept;
}

blade_status blade_guppi_header_merge(blade_guppi_header* into, const blade_guppi_header* from)
{
    for (int64_t i = 0; i < from->count; i++) {
        const card* c = &from->cards[i];
        card* target = (card*)find(into, c->key);
        if (target == NULL)
            BLADE_TRY(append_card(into, &target));
        *target = *c;
    }
    return BLADE_OK;
}

/* ---- formatting ----------------------------------------------------------- */

size_t blade_guppi_header_bytes(const blade_guppi_header* header, bool directio)
{
    const size_t bytes = (size_t)(header->count + 1) * BLADE_GUPPI_CARD_BYTES;
    return directio ? (bytes + 511) / 512 * 512 : bytes;
}

blade_status blade_guppi_header_format(const blade_guppi_header* header,
                                       bool directio,
                                       char* buffer,
                                       size_t size)
{
    const size_t needed = blade_guppi_header_bytes(header, directio);
    if (size < needed)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI header: %zu bytes needed to format, %zu given",
                          needed,
                          size);
    memset(buffer, ' ', needed);
    char* out = buffer;
    for (int64_t i = 0; i < header->count; i++, out += BLADE_GUPPI_CARD_BYTES) {
        const card* c = &header->cards[i];
        memcpy(out, c->key, strlen(c->key));
        if (c->kind == BLADE_GUPPI_VALUE_NONE) {
            memcpy(out + KEY_COLUMNS, c->raw, strlen(c->raw));
        } else {
            out[8] = '=';
            memcpy(out + VALUE_COLUMN, c->raw, strlen(c->raw));
        }
    }
    memcpy(out, "END", 3);
    return BLADE_OK;
}
