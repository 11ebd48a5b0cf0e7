/* SPDX-License-Identifier: MIT */
/**
 * @file tensor.h
 * @brief Shapes and tensor descriptors.
 *
 * A tensor is dense and row-major (last index fastest). The voltage tensor of
 * gr-blade is [A, F, T, P]: aspects (antennas or beams), frequency channels, time
 * samples, polarizations; the flat offset of (a, f, t, p) is ((a*F + f)*T + t)*P + p.
 * Phasors are [B, A, F, 1, P].
 */
#ifndef BLADE_TENSOR_H
#define BLADE_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest tensor rank the core handles. */
#define BLADE_MAX_RANK 5

/** Bytes every GNU Radio item (one tensor chunk) is padded to a multiple of. */
#define BLADE_ITEM_ALIGNMENT 4096

/** Most elements a tensor may hold (2^56): the bytes of any element type then fit
 *  in a signed 64-bit count with room to spare, so size products never wrap. */
#define BLADE_MAX_ELEMENTS (INT64_C(1) << 56)

/** Shape of a tensor: rank 1 to ::BLADE_MAX_RANK, every extent at least 1. */
typedef struct blade_shape {
    int rank;                     /**< number of axes in use */
    int64_t dims[BLADE_MAX_RANK]; /**< extents, outermost first */
} blade_shape;

/** A view of memory as a typed, shaped tensor on a device. It owns nothing. */
typedef struct blade_tensor {
    blade_dtype dtype;   /**< element type */
    blade_shape shape;   /**< extents */
    blade_device device; /**< where `data` lives */
    void* data;          /**< first element */
} blade_tensor;

/** The common [A, F, T, P] shape. */
BLADE_CORE_API blade_shape blade_shape_aftp(int64_t a, int64_t f, int64_t t, int64_t p);

/**
 * Build a shape from an array of extents.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT if the rank is outside 1..5, an extent < 1,
 *         or the extents multiply to more than ::BLADE_MAX_ELEMENTS.
 */
BLADE_CORE_API blade_status blade_shape_make(const int64_t* dims, int rank, blade_shape* shape);

/** Check that a shape has a valid rank, extents >= 1 and at most
 *  ::BLADE_MAX_ELEMENTS elements (message names `what`). */
BLADE_CORE_API blade_status blade_shape_validate(const blade_shape* shape, const char* what);

/** Number of elements (product of extents). */
BLADE_CORE_API int64_t blade_shape_count(const blade_shape* shape);

/** True when rank and every extent are equal. */
BLADE_CORE_API bool blade_shape_equal(const blade_shape* a, const blade_shape* b);

/** Writes "[20, 192, 8192, 2]" into `text` (always terminated); returns `text`. */
BLADE_CORE_API const char* blade_shape_format(const blade_shape* shape, char* text, size_t size);

/** Bytes that `count` elements of `dtype` occupy. */
BLADE_CORE_API size_t blade_bytes(blade_dtype dtype, int64_t count);

/** Bytes of a tensor of this shape and type. */
BLADE_CORE_API size_t blade_tensor_bytes(blade_dtype dtype, const blade_shape* shape);

/**
 * Size of one GNU Radio item holding such a tensor: its bytes rounded up to a
 * multiple of ::BLADE_ITEM_ALIGNMENT.
 */
BLADE_CORE_API size_t blade_item_size(blade_dtype dtype, const blade_shape* shape);

/** A tensor descriptor. */
BLADE_CORE_API blade_tensor blade_tensor_make(blade_dtype dtype,
                                              const blade_shape* shape,
                                              blade_device device,
                                              void* data);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_TENSOR_H */
