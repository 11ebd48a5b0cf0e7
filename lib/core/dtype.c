/* SPDX-License-Identifier: MIT */
/*
 * Element type properties and names.
 */
#include "internal.h"

#include <blade/dtype.h>

#include <stdio.h>
#include <strings.h>

static const struct {
    const char* name;
    size_t bits;
    bool complex;
    bool integer;
} dtype_table[BLADE_DTYPE_COUNT] = {
    [BLADE_CI4] = { "ci4", 8, true, true },     [BLADE_CI8] = { "ci8", 16, true, true },
    [BLADE_CI16] = { "ci16", 32, true, true },  [BLADE_CF16] = { "cf16", 32, true, false },
    [BLADE_CF32] = { "cf32", 64, true, false }, [BLADE_CF64] = { "cf64", 128, true, false },
    [BLADE_F16] = { "f16", 16, false, false },  [BLADE_F32] = { "f32", 32, false, false },
    [BLADE_F64] = { "f64", 64, false, false },
};

static bool dtype_valid(blade_dtype dtype) { return (int)dtype >= 0 && dtype < BLADE_DTYPE_COUNT; }

size_t blade_dtype_bits(blade_dtype dtype)
{
    return dtype_valid(dtype) ? dtype_table[dtype].bits : 0;
}

size_t blade_dtype_size(blade_dtype dtype) { return blade_dtype_bits(dtype) / 8; }

bool blade_dtype_is_complex(blade_dtype dtype)
{
    return dtype_valid(dtype) && dtype_table[dtype].complex;
}

bool blade_dtype_is_integer(blade_dtype dtype)
{
    return dtype_valid(dtype) && dtype_table[dtype].integer;
}

const char* blade_dtype_name(blade_dtype dtype)
{
    return dtype_valid(dtype) ? dtype_table[dtype].name : "unknown";
}

blade_status blade_dtype_parse(const char* name, blade_dtype* dtype)
{
    if (name != NULL) {
        for (int i = 0; i < BLADE_DTYPE_COUNT; i++) {
            if (strcasecmp(name, dtype_table[i].name) == 0) {
                *dtype = (blade_dtype)i;
                return BLADE_OK;
            }
        }
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "unknown element type '%s' (expected one of ci4, ci8, ci16, cf16, "
                      "cf32, cf64, f16, f32, f64)",
                      name ? name : "(null)");
}
