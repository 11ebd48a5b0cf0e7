/* SPDX-License-Identifier: MIT */
/*
 * Sub-bands of a chunk (subband.h): the geometry of a channel slice and its 2-D
 * copy between any two places (host, emulated device, one CUDA GPU).
 */
#include "internal.h"

#include <blade/memory.h>
#include <blade/modules/subband.h>

#include <stdio.h>

blade_status blade_subband_shape(const blade_shape* whole, int64_t parts, blade_shape* part)
{
    BLADE_TRY(blade_shape_validate(whole, "sub-band: whole chunk"));
    char text[128];
    if (whole->rank < 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "sub-band: a chunk of shape %s has no channel axis (expected "
                          "[A, F, ...], at least 2 axes)",
                          blade_shape_format(whole, text, sizeof text));
    if (parts < 1 || whole->dims[1] % parts != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "sub-band: %lld channels (axis 1 of %s) cannot be split into %lld "
                          "equal parts (the parts must divide the channel count)",
                          (long long)whole->dims[1],
                          blade_shape_format(whole, text, sizeof text),
                          (long long)parts);
    *part = *whole;
    part->dims[1] = whole->dims[1] / parts;
    return BLADE_OK;
}

/* Where sub-band `index` lies: A runs of `run` bytes, `pitch` bytes apart in the
 * whole chunk, the first at `offset`. */
typedef struct subband_layout {
    size_t rows;
    size_t run;
    size_t pitch;
    size_t offset;
} subband_layout;

static blade_status check_pair(const char* what,
                               const blade_tensor* whole,
                               int64_t parts,
                               int64_t index,
                               const blade_tensor* part,
                               subband_layout* layout)
{
    if (whole == NULL || part == NULL || whole->data == NULL || part->data == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "sub-band %s: a tensor has no data", what);
    blade_shape expected;
    BLADE_TRY(blade_subband_shape(&whole->shape, parts, &expected));
    if (index < 0 || index >= parts)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "sub-band %s: sub-band %lld of %lld (expected 0 to %lld)",
                          what,
                          (long long)index,
                          (long long)parts,
                          (long long)(parts - 1));
    BLADE_TRY(blade_check_tensor("sub-band", "part", part, whole->dtype, &expected));
    int64_t inner = 1; /* elements of one channel of one aspect: T P ... */
    for (int axis = 2; axis < whole->shape.rank; axis++)
        inner *= whole->shape.dims[axis];
    const int64_t channels = expected.dims[1];
    layout->rows = (size_t)whole->shape.dims[0];
    layout->run = blade_bytes(whole->dtype, channels * inner);
    layout->pitch = blade_bytes(whole->dtype, whole->shape.dims[1] * inner);
    layout->offset = blade_bytes(whole->dtype, index * channels * inner);
    return BLADE_OK;
}

/* The device that performs a copy from `from` to `to`, and the copy's direction. */
static blade_status copy_route(const char* what,
                               blade_device from,
                               blade_device to,
                               blade_device* device,
                               blade_copy_kind* kind)
{
    const bool from_gpu = blade_device_is_gpu_like(from);
    const bool to_gpu = blade_device_is_gpu_like(to);
    if (from_gpu && to_gpu && !blade_device_equal(from, to)) {
        char a[32], b[32];
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "sub-band %s: from %s to %s: a sub-band moves between host memory "
                          "and one device, or within one device, not between two devices "
                          "(go through host memory)",
                          what,
                          blade_device_format(from, a, sizeof a),
                          blade_device_format(to, b, sizeof b));
    }
    *device = from_gpu ? from : to_gpu ? to : blade_device_cpu();
    *kind = from_gpu ? (to_gpu ? BLADE_COPY_DEVICE_TO_DEVICE : BLADE_COPY_DEVICE_TO_HOST)
                     : (to_gpu ? BLADE_COPY_HOST_TO_DEVICE : BLADE_COPY_HOST_TO_HOST);
    return BLADE_OK;
}

/* One 2-D copy between sub-band `index` of `whole` and `part`, in the direction
 * `into_whole` says, on the device holding the GPU side. */
static blade_status copy_subband(const char* what,
                                 const blade_tensor* whole,
                                 int64_t parts,
                                 int64_t index,
                                 const blade_tensor* part,
                                 bool into_whole,
                                 blade_stream stream)
{
    /* Initialised only to quiet GCC's LTO, which cannot see the BLADE_TRYs set them. */
    subband_layout layout = { 0 };
    BLADE_TRY(check_pair(what, whole, parts, index, part, &layout));
    blade_device device;
    blade_copy_kind kind = BLADE_COPY_HOST_TO_HOST;
    BLADE_TRY(copy_route(what,
                         into_whole ? part->device : whole->device,
                         into_whole ? whole->device : part->device,
                         &device,
                         &kind));
    BLADE_TRY(blade_device_activate(device));
    char* slice = (char*)whole->data + layout.offset;
    if (into_whole)
        return blade_memcpy_2d(device,
                               slice,
                               layout.pitch,
                               part->data,
                               layout.run,
                               layout.run,
                               layout.rows,
                               kind,
                               stream);
    return blade_memcpy_2d(
        device, part->data, layout.run, slice, layout.pitch, layout.run, layout.rows, kind, stream);
}

blade_status blade_subband_extract(const blade_tensor* whole,
                                   int64_t parts,
                                   int64_t index,
                                   blade_tensor* part,
                                   blade_stream stream)
{
    return copy_subband("extract", whole, parts, index, part, false, stream);
}

blade_status blade_subband_insert(const blade_tensor* part,
                                  int64_t parts,
                                  int64_t index,
                                  blade_tensor* whole,
                                  blade_stream stream)
{
    return copy_subband("insert", whole, parts, index, part, true, stream);
}
