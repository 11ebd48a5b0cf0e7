/* SPDX-License-Identifier: MIT */
/*
 * GUPPI RAW header cards from arbitrary bytes (lib/core/guppi_header.c).
 *
 * Properties checked on every input:
 * - parsing never reads past the bytes given, and fails with a message or succeeds
 *   with a whole number of cards consumed;
 * - every typed getter works on every card it parsed;
 * - what we parse, we write back identically: format -> parse gives the same cards
 *   (key, text, kind, quoting), with and without DIRECTIO padding;
 * - what we write, we read back: a string, an integer and a real made from the
 *   input are set, formatted, parsed and read back unchanged.
 */
#include "fuzz_support.h"

#include <math.h>

static void require_same_cards(const blade_guppi_header* a, const blade_guppi_header* b)
{
    FUZZ_REQUIRE(blade_guppi_header_count(a) == blade_guppi_header_count(b),
                 "%lld cards became %lld",
                 (long long)blade_guppi_header_count(a),
                 (long long)blade_guppi_header_count(b));
    for (int64_t i = 0; i < blade_guppi_header_count(a); i++) {
        const blade_guppi_card x = blade_guppi_header_card(a, i);
        const blade_guppi_card y = blade_guppi_header_card(b, i);
        FUZZ_REQUIRE(strcmp(x.key, y.key) == 0 && strcmp(x.text, y.text) == 0 && x.kind == y.kind &&
                         x.quoted == y.quoted,
                     "card %lld: %s='%s' (kind %d, quoted %d) came back as %s='%s' "
                     "(kind %d, quoted %d)",
                     (long long)i,
                     x.key,
                     x.text,
                     (int)x.kind,
                     (int)x.quoted,
                     y.key,
                     y.text,
                     (int)y.kind,
                     (int)y.quoted);
    }
}

/* Format `header`, parse the bytes again, and return the copy. */
static blade_guppi_header* reparse(const blade_guppi_header* header, bool directio)
{
    const size_t bytes = blade_guppi_header_bytes(header, directio);
    char* buffer = malloc(bytes);
    FUZZ_REQUIRE(buffer != NULL, "%zu bytes", bytes);
    FUZZ_REQUIRE(blade_guppi_header_format(header, directio, buffer, bytes) == BLADE_OK,
                 "formatting a parsed header");
    blade_guppi_header* copy = NULL;
    size_t consumed = 0;
    const blade_status status =
        blade_guppi_header_parse(buffer, bytes, "formatted", 0, &copy, &consumed);
    FUZZ_REQUIRE(status == BLADE_OK, "our own formatted header does not parse");
    FUZZ_REQUIRE(consumed <= bytes && consumed % BLADE_GUPPI_CARD_BYTES == 0,
                 "consumed %zu of %zu",
                 consumed,
                 bytes);
    free(buffer);
    return copy;
}

static void exercise_getters(const blade_guppi_header* header)
{
    for (int64_t i = 0; i < blade_guppi_header_count(header); i++) {
        const blade_guppi_card card = blade_guppi_header_card(header, i);
        FUZZ_REQUIRE(card.key != NULL && card.text != NULL, "card %lld", (long long)i);
        FUZZ_REQUIRE(blade_guppi_header_has(header, card.key), "%s", card.key);
        int64_t integer;
        double real;
        const char* text;
        blade_status status = blade_guppi_header_get_int(header, card.key, &integer);
        FUZZ_REQUIRE_MESSAGE(status);
        status = blade_guppi_header_get_real(header, card.key, &real);
        FUZZ_REQUIRE_MESSAGE(status);
        FUZZ_REQUIRE(
            blade_guppi_header_get_string(header, card.key, &text) == BLADE_OK, "%s", card.key);
    }
    const blade_guppi_card outside = blade_guppi_header_card(header, -1);
    FUZZ_REQUIRE(outside.key == NULL, "card -1 exists");
}

/* Values made from the input must survive set -> format -> parse -> get. */
static void check_setters(const uint8_t* data, size_t size)
{
    fuzz_bytes b = { data, size, 0 };
    blade_guppi_header* header;
    FUZZ_REQUIRE(blade_guppi_header_create(&header) == BLADE_OK, "create");

    char text[128];
    size_t length = 0;
    const size_t wanted = fuzz_u8(&b) % sizeof text;
    while (length < wanted && b.at < b.size)
        text[length++] = (char)fuzz_u8(&b);
    text[length] = '\0';
    const double real = fuzz_double(&b);
    const int64_t integer = (int64_t)fuzz_u64(&b);

    const blade_status string_set = blade_guppi_header_set_string(header, "TEXT", text);
    FUZZ_REQUIRE_MESSAGE(string_set);
    const blade_status real_set = blade_guppi_header_set_real(header, "REAL", real);
    FUZZ_REQUIRE(real_set == (isfinite(real) ? BLADE_OK : BLADE_ERROR_INVALID_ARGUMENT),
                 "set_real(%.17g) gave %s",
                 real,
                 blade_status_name(real_set));
    FUZZ_REQUIRE(blade_guppi_header_set_int(header, "INTEGER", integer) == BLADE_OK,
                 "set_int(%lld)",
                 (long long)integer);

    blade_guppi_header* copy = reparse(header, false);
    require_same_cards(header, copy);
    if (string_set == BLADE_OK) {
        /* Strings come back without trailing blanks; text that reads as a number
         * loses its leading blanks too (recorders quote numbers). */
        const char* back;
        FUZZ_REQUIRE(blade_guppi_header_get_string(copy, "TEXT", &back) == BLADE_OK, "TEXT");
        size_t end = strlen(text);
        while (end > 0 && text[end - 1] == ' ')
            end--;
        size_t start = 0;
        if (blade_guppi_header_card(copy, 0).kind != BLADE_GUPPI_VALUE_STRING)
            while (start < end && text[start] == ' ')
                start++;
        FUZZ_REQUIRE(strlen(back) == end - start && memcmp(back, text + start, end - start) == 0,
                     "string '%s' came back as '%s'",
                     text,
                     back);
    }
    if (real_set == BLADE_OK) {
        double back;
        FUZZ_REQUIRE(blade_guppi_header_get_real(copy, "REAL", &back) == BLADE_OK, "REAL");
        FUZZ_REQUIRE(back == real, "real %.17g came back as %.17g", real, back);
    }
    int64_t back;
    FUZZ_REQUIRE(blade_guppi_header_get_int(copy, "INTEGER", &back) == BLADE_OK, "INTEGER");
    FUZZ_REQUIRE(
        back == integer, "integer %lld came back as %lld", (long long)integer, (long long)back);
    blade_guppi_header_destroy(copy);
    blade_guppi_header_destroy(header);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    /* A copy of exactly `size` bytes: AddressSanitizer flags any read beyond. */
    char* bytes = malloc(size > 0 ? size : 1);
    if (size > 0)
        memcpy(bytes, data, size);
    blade_guppi_header* header = NULL;
    size_t consumed = 0;
    blade_clear_error();
    const blade_status status =
        blade_guppi_header_parse(bytes, size, "fuzz.raw", 512, &header, &consumed);
    FUZZ_REQUIRE_MESSAGE(status);
    if (status == BLADE_OK) {
        FUZZ_REQUIRE(header != NULL && consumed <= size && consumed % BLADE_GUPPI_CARD_BYTES == 0 &&
                         consumed > 0,
                     "consumed %zu of %zu bytes",
                     consumed,
                     size);
        exercise_getters(header);
        for (int directio = 0; directio < 2; directio++) {
            blade_guppi_header* copy = reparse(header, directio);
            require_same_cards(header, copy);
            blade_guppi_header_destroy(copy);
        }
        blade_guppi_header_destroy(header);
    } else {
        FUZZ_REQUIRE(header == NULL && consumed == 0, "a failed parse left a header");
        FUZZ_REQUIRE(strstr(blade_last_error(), "fuzz.raw") != NULL ||
                         status == BLADE_ERROR_OUT_OF_MEMORY,
                     "the message does not name the file: %s",
                     blade_last_error());
    }
    free(bytes);
    check_setters(data, size);
    return 0;
}
