/* SPDX-License-Identifier: MIT */
/*
 * Duplicate plan: validation at creation, dispatch to the CPU or CUDA backend.
 */
#include "cuda_backend.h"
#include "duplicate_backend.h"
#include "internal.h"

#include <blade/modules/duplicate.h>

#include <stdint.h>
#include <stdlib.h>

struct blade_duplicate {
    blade_duplicate_config config;
    blade_shape shape;
    blade_device device;
};

blade_status blade_duplicate_create(blade_duplicate** duplicate,
                                    const blade_duplicate_config* config,
                                    const blade_shape* input_shape,
                                    blade_device device)
{
    *duplicate = NULL;
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "duplicate: no configuration given");
    BLADE_TRY(blade_shape_validate(input_shape, "duplicate input"));
    if (blade_dtype_bits(config->dtype) == 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "duplicate: unknown element type code %d",
                          (int)config->dtype);
    if (config->copies < 1 || config->copies > BLADE_DUPLICATE_MAX_COPIES)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "duplicate: copies must be 1 to %d, got %d",
                          BLADE_DUPLICATE_MAX_COPIES,
                          config->copies);
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    BLADE_TRY(blade_alloc_object(sizeof **duplicate, "duplicate", (void**)duplicate));
    (*duplicate)->config = *config;
    (*duplicate)->shape = *input_shape;
    (*duplicate)->device = device;
    return BLADE_OK;
}

blade_shape blade_duplicate_output_shape(const blade_duplicate* duplicate)
{
    return duplicate->shape;
}

static bool overlaps(const void* a, const void* b, size_t bytes)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + bytes && y < x + bytes;
}

blade_status blade_duplicate_process(blade_duplicate* duplicate,
                                     const blade_tensor* input,
                                     blade_tensor* outputs,
                                     int count,
                                     blade_stream stream)
{
    const blade_duplicate_config* config = &duplicate->config;
    if (count != config->copies || outputs == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "duplicate: the plan writes %d copies but %d outputs were given",
                          config->copies,
                          outputs == NULL ? 0 : count);
    BLADE_TRY(blade_check_tensor("duplicate", "input", input, config->dtype, &duplicate->shape));
    const size_t bytes = blade_tensor_bytes(config->dtype, &duplicate->shape);
    void* destinations[BLADE_DUPLICATE_MAX_COPIES];
    for (int c = 0; c < count; c++) {
        BLADE_TRY(blade_check_tensor(
            "duplicate", "output", &outputs[c], config->dtype, &duplicate->shape));
        /* Overlap would make a copy alias the input or another copy: the one thing
         * a duplicate promises not to do. */
        if (overlaps(outputs[c].data, input->data, bytes))
            return blade_fail(
                BLADE_ERROR_INVALID_ARGUMENT, "duplicate: output %d overlaps the input", c);
        for (int other = 0; other < c; other++)
            if (overlaps(outputs[c].data, outputs[other].data, bytes))
                return blade_fail(
                    BLADE_ERROR_INVALID_ARGUMENT, "duplicate: outputs %d and %d overlap", other, c);
        destinations[c] = outputs[c].data;
    }

    if (duplicate->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(duplicate->device));
        return blade_cuda_duplicate(input->data, destinations, count, bytes, stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "duplicate: built without CUDA");
#endif
    }
    blade_cpu_duplicate(input->data, destinations, count, bytes);
    return BLADE_OK;
}

void blade_duplicate_destroy(blade_duplicate* duplicate) { free(duplicate); }
