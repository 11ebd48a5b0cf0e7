/* SPDX-License-Identifier: MIT */
/*
 * IEEE 754 binary16 conversions for the CPU backend, bit-exact with CUDA's
 * __double2half / __float2half_rn (round to nearest, ties to even; overflow to
 * infinity). NaN becomes the canonical quiet NaN (0x7E00 as half, 0x7FC00000 as
 * float) on both backends, so results never depend on a processor's NaN payloads. Written out rather than relying on _Float16 so that
 * every compiler gives the same bits. Not installed.
 */
#ifndef BLADE_CORE_HALF_H
#define BLADE_CORE_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint16_t blade_half_from_double(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    const uint16_t sign = (uint16_t)((bits >> 48) & 0x8000u);
    const int exponent = (int)((bits >> 52) & 0x7ff);
    uint64_t mantissa = bits & ((UINT64_C(1) << 52) - 1);

    if (exponent == 0x7ff) /* infinity, or NaN made canonical */
        return mantissa ? (uint16_t)0x7e00u : (uint16_t)(sign | 0x7c00u);

    const int half_exponent = exponent - 1023 + 15;
    if (half_exponent >= 31)
        return (uint16_t)(sign | 0x7c00u);

    if (half_exponent <= 0) {
        /* Subnormal half: value = m * 2^-24 with m = mantissa_with_one >> (43 - e). */
        if (half_exponent < -10)
            return sign;
        mantissa |= UINT64_C(1) << 52;
        const int shift = 43 - half_exponent;
        uint64_t result = mantissa >> shift;
        const uint64_t remainder = mantissa & ((UINT64_C(1) << shift) - 1);
        const uint64_t halfway = UINT64_C(1) << (shift - 1);
        if (remainder > halfway || (remainder == halfway && (result & 1)))
            result++; /* may carry into the smallest normal: still the right bits */
        return (uint16_t)(sign | result);
    }

    uint32_t result = (uint32_t)sign | ((uint32_t)half_exponent << 10) | (uint32_t)(mantissa >> 42);
    const uint64_t remainder = mantissa & ((UINT64_C(1) << 42) - 1);
    const uint64_t halfway = UINT64_C(1) << 41;
    if (remainder > halfway || (remainder == halfway && (result & 1)))
        result++; /* may carry into the exponent, up to infinity: correct */
    return (uint16_t)result;
}

static inline uint16_t blade_half_from_float(float value)
{
    return blade_half_from_double((double)value); /* float -> double is exact */
}

static inline float blade_half_to_float(uint16_t half)
{
    const uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1f;
    uint32_t mantissa = half & 0x3ffu;
    uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            exponent = 127 - 15 + 1;
            while (!(mantissa & 0x400u)) {
                mantissa <<= 1;
                exponent--;
            }
            bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
        }
    } else if (exponent == 31) {
        bits = mantissa ? 0x7fc00000u : (sign | 0x7f800000u); /* NaN canonical */
    } else {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* Canonical quiet NaNs written by every float conversion. */
static inline float blade_canonical_float(double value)
{
    if (value != value) {
        const uint32_t bits = 0x7fc00000u;
        float nan;
        memcpy(&nan, &bits, sizeof nan);
        return nan;
    }
    return (float)value;
}

static inline double blade_canonical_double(double value)
{
    if (value != value) {
        const uint64_t bits = UINT64_C(0x7ff8000000000000);
        double nan;
        memcpy(&nan, &bits, sizeof nan);
        return nan;
    }
    return value;
}

#endif /* BLADE_CORE_HALF_H */
