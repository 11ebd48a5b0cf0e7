/* SPDX-License-Identifier: MIT */
/*
 * Numbers and names that arrive as text from files and arguments
 * (lib/core/observation.c, device.c, dtype.c): sexagesimal angles (RA_STR and
 * DEC_STR cards), SIGPROC packed angles, telescope names, device and element type
 * names. The input is the text; its first 8 bytes are also read as a double for
 * the formatting direction.
 *
 * Properties checked:
 * - a sexagesimal text is refused with a message or gives a finite value, which
 *   formats and parses back to the same value (to the formatted precision);
 * - formatting any double (NaN, infinities, 1e308 included) is defined behaviour
 *   and writes a terminated string;
 * - SIGPROC's packed angle of a value unpacks to that value;
 * - device and type names parse or fail with a message, never crash.
 */
#include "fuzz_support.h"

#include <math.h>

static void check_format(double value, int decimals, bool sign)
{
    char text[64];
    memset(text, 'x', sizeof text);
    blade_format_sexagesimal(value, decimals, sign, text, sizeof text);
    FUZZ_REQUIRE(memchr(text, '\0', sizeof text) != NULL, "unterminated");
    if (!isfinite(value) || fabs(value) > 1e9)
        return;
    double back;
    FUZZ_REQUIRE(blade_parse_sexagesimal(text, &back) == BLADE_OK,
                 "our text '%s' of %.17g does not parse",
                 text,
                 value);
    /* Seconds are rounded to `decimals` digits: half a unit of the last digit. */
    const double tolerance =
        0.5 * pow(10.0, -decimals) / 3600.0 * (1 + 1e-9) + 4 * fabs(value) * 2.3e-16;
    FUZZ_REQUIRE(fabs(back - value) <= tolerance,
                 "%.17g formatted as '%s' reads back as %.17g",
                 value,
                 text,
                 back);

    const double packed = blade_sigproc_packed_angle(value);
    const double unpacked = blade_sigproc_unpack_angle(packed);
    FUZZ_REQUIRE(fabs(unpacked - value) <=
                     0.5e-6 / 3600.0 * (1 + 1e-9) + 8 * fabs(value) * 2.3e-16 * 10000,
                 "%.17g packed as %.17g unpacks to %.17g",
                 value,
                 packed,
                 unpacked);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    char* text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';

    double value;
    blade_clear_error();
    const blade_status status = blade_parse_sexagesimal(text, &value);
    FUZZ_REQUIRE_MESSAGE(status);
    if (status == BLADE_OK) {
        FUZZ_REQUIRE(isfinite(value), "'%s' parsed as %g", text, value);
        for (int decimals = 0; decimals <= 6; decimals += 3)
            check_format(value, decimals, decimals == 3);
    }

    fuzz_bytes b = { data, size, 0 };
    const double raw = fuzz_double(&b);
    check_format(raw, fuzz_u8(&b) % 10, true);
    (void)blade_sigproc_packed_angle(raw);
    (void)blade_sigproc_unpack_angle(raw);

    const int id = blade_sigproc_telescope_id(text);
    FUZZ_REQUIRE(id >= 0 && id < 256, "telescope id %d", id);

    blade_device device;
    const blade_status parsed = blade_device_parse(text, &device);
    FUZZ_REQUIRE_MESSAGE(parsed);
    if (parsed == BLADE_OK)
        FUZZ_REQUIRE(device.kind == BLADE_DEVICE_CPU || device.kind == BLADE_DEVICE_EMULATED ||
                         device.kind == BLADE_DEVICE_CUDA,
                     "device kind %d",
                     (int)device.kind);
    blade_dtype type;
    FUZZ_REQUIRE_MESSAGE(blade_dtype_parse(text, &type));
    free(text);
    return 0;
}
