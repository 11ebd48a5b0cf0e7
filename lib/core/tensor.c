/* SPDX-License-Identifier: MIT */
/*
 * Shapes, sizes and tensor checks.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

blade_shape blade_shape_aftp(int64_t a, int64_t f, int64_t t, int64_t p)
{
    blade_shape shape = { 4, { a, f, t, p, 1 } };
    return shape;
}

blade_status blade_shape_validate(const blade_shape* shape, const char* what)
{
    if (shape == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "%s: no shape given", what);
    if (shape->rank < 1 || shape->rank > BLADE_MAX_RANK)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: rank %d is outside 1..%d",
                          what,
                          shape->rank,
                          BLADE_MAX_RANK);
    for (int i = 0; i < shape->rank; i++) {
        if (shape->dims[i] < 1) {
            char text[128];
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "%s: shape %s has extent %lld on axis %d; every extent must "
                              "be at least 1",
                              what,
                              blade_shape_format(shape, text, sizeof text),
                              (long long)shape->dims[i],
                              i);
        }
    }
    /* Multiplied with a check at each step: extents of 2^20 on four axes would wrap a
     * 64-bit byte count and make every later size wrong. */
    int64_t count = 1;
    for (int i = 0; i < shape->rank; i++) {
        if (shape->dims[i] > BLADE_MAX_ELEMENTS / count) {
            char text[128];
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "%s: shape %s has more than 2^56 elements; no tensor can "
                              "be that large",
                              what,
                              blade_shape_format(shape, text, sizeof text));
        }
        count *= shape->dims[i];
    }
    return BLADE_OK;
}

blade_status blade_shape_make(const int64_t* dims, int rank, blade_shape* shape)
{
    memset(shape, 0, sizeof *shape);
    if (rank < 1 || rank > BLADE_MAX_RANK)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "shape of rank %d: gr-blade tensors have rank 1 to %d (usually "
                          "[A, F, T, P])",
                          rank,
                          BLADE_MAX_RANK);
    shape->rank = rank;
    for (int i = 0; i < rank; i++)
        shape->dims[i] = dims[i];
    for (int i = rank; i < BLADE_MAX_RANK; i++)
        shape->dims[i] = 1;
    return blade_shape_validate(shape, "shape");
}

int64_t blade_shape_count(const blade_shape* shape)
{
    int64_t count = 1;
    for (int i = 0; i < shape->rank; i++)
        count *= shape->dims[i];
    return count;
}

bool blade_shape_equal(const blade_shape* a, const blade_shape* b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

const char* blade_shape_format(const blade_shape* shape, char* text, size_t size)
{
    size_t used = 0;
    if (size == 0)
        return text;
    text[0] = '\0';
    used += (size_t)snprintf(text + used, size - used, "[");
    for (int i = 0; i < shape->rank && used < size; i++)
        used += (size_t)snprintf(
            text + used, size - used, i ? ", %lld" : "%lld", (long long)shape->dims[i]);
    if (used < size)
        snprintf(text + used, size - used, "]");
    return text;
}

size_t blade_bytes(blade_dtype dtype, int64_t count)
{
    return (size_t)count * blade_dtype_bits(dtype) / 8;
}

size_t blade_tensor_bytes(blade_dtype dtype, const blade_shape* shape)
{
    return blade_bytes(dtype, blade_shape_count(shape));
}

size_t blade_item_size(blade_dtype dtype, const blade_shape* shape)
{
    size_t bytes = blade_tensor_bytes(dtype, shape);
    size_t blocks = (bytes + BLADE_ITEM_ALIGNMENT - 1) / BLADE_ITEM_ALIGNMENT;
    return (blocks ? blocks : 1) * BLADE_ITEM_ALIGNMENT;
}

blade_tensor
blade_tensor_make(blade_dtype dtype, const blade_shape* shape, blade_device device, void* data)
{
    blade_tensor tensor;
    tensor.dtype = dtype;
    tensor.shape = *shape;
    tensor.device = device;
    tensor.data = data;
    return tensor;
}

blade_status blade_check_tensor(const char* module,
                                const char* role,
                                const blade_tensor* tensor,
                                blade_dtype dtype,
                                const blade_shape* shape)
{
    char given[128], expected[128];
    if (tensor == NULL || tensor->data == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "%s: %s tensor has no data", module, role);
    if (tensor->dtype != dtype)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: %s tensor is %s but the plan was made for %s",
                          module,
                          role,
                          blade_dtype_name(tensor->dtype),
                          blade_dtype_name(dtype));
    if (!blade_shape_equal(&tensor->shape, shape))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: %s tensor has shape %s but the plan was made for %s",
                          module,
                          role,
                          blade_shape_format(&tensor->shape, given, sizeof given),
                          blade_shape_format(shape, expected, sizeof expected));
    return BLADE_OK;
}

blade_status blade_check_aliasing(const char* module,
                                  const blade_tensor* input,
                                  const blade_tensor* output,
                                  const char* why_not_in_place)
{
    const uintptr_t in = (uintptr_t)input->data, out = (uintptr_t)output->data;
    const size_t in_bytes = blade_tensor_bytes(input->dtype, &input->shape);
    const size_t out_bytes = blade_tensor_bytes(output->dtype, &output->shape);
    if (out + out_bytes <= in || in + in_bytes <= out)
        return BLADE_OK; /* disjoint */
    if (in == out && (in_bytes == out_bytes || why_not_in_place != NULL)) {
        if (why_not_in_place == NULL)
            return BLADE_OK;
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: input and output are the same memory; %s",
                          module,
                          why_not_in_place);
    }
    const long long offset = out >= in ? (long long)(out - in) : -(long long)(in - out);
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "%s: the output (%zu bytes at %+lld bytes from the input's start) "
                      "overlaps the input (%zu bytes) without being the same memory; give "
                      "either the very same buffer (in place, where the module allows it) "
                      "or separate ones",
                      module,
                      out_bytes,
                      offset,
                      in_bytes);
}
