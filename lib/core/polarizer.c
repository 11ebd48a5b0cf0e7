/* SPDX-License-Identifier: MIT */
/*
 * Polarizer plan: validation at creation, dispatch to the CPU or CUDA backend.
 */
#include "cuda_backend.h"
#include "internal.h"
#include "polarizer_backend.h"

#include <blade/modules/polarizer.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct blade_polarizer {
    blade_polarizer_config config;
    blade_shape shape;
    blade_device device;
};

const char* blade_basis_name(blade_basis basis)
{
    switch (basis) {
    case BLADE_BASIS_LINEAR:
        return "linear";
    case BLADE_BASIS_CIRCULAR:
        return "circular";
    }
    return "unknown";
}

blade_status blade_basis_parse(const char* name, blade_basis* basis)
{
    if (name != NULL && strcasecmp(name, "linear") == 0) {
        *basis = BLADE_BASIS_LINEAR;
        return BLADE_OK;
    }
    if (name != NULL && strcasecmp(name, "circular") == 0) {
        *basis = BLADE_BASIS_CIRCULAR;
        return BLADE_OK;
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "unknown polarization basis '%s' (expected 'linear' or 'circular')",
                      name ? name : "(null)");
}

blade_status blade_polarizer_create(blade_polarizer** polarizer,
                                    const blade_polarizer_config* config,
                                    const blade_shape* input_shape,
                                    blade_device device)
{
    *polarizer = NULL;
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "polarizer: no configuration given");
    BLADE_TRY(blade_shape_validate(input_shape, "polarizer input"));
    if (config->output_basis != BLADE_BASIS_LINEAR && config->output_basis != BLADE_BASIS_CIRCULAR)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "polarizer: unknown output basis code %d (expected linear or "
                          "circular)",
                          (int)config->output_basis);
    const int64_t polarizations = input_shape->dims[input_shape->rank - 1];
    if (polarizations != 2) {
        char text[128];
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "polarizer: the last axis must hold 2 polarizations (X, Y) but "
                          "the input shape %s has %lld",
                          blade_shape_format(input_shape, text, sizeof text),
                          (long long)polarizations);
    }
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    BLADE_TRY(blade_alloc_object(sizeof **polarizer, "polarizer", (void**)polarizer));
    (*polarizer)->config = *config;
    (*polarizer)->shape = *input_shape;
    (*polarizer)->device = device;
    return BLADE_OK;
}

blade_shape blade_polarizer_output_shape(const blade_polarizer* polarizer)
{
    return polarizer->shape;
}

/* The element type is the tensors': cf32, or cf16 (computed in float, rounded once),
 * the same for input and output. */
static blade_status
element_type(const blade_tensor* input, const blade_tensor* output, blade_dtype* type)
{
    if (input == NULL || output == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "polarizer: no input or output tensor");
    if (input->dtype != BLADE_CF32 && input->dtype != BLADE_CF16)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "polarizer: input tensor is %s; expected cf32 or cf16 (cast "
                          "integer voltages first)",
                          blade_dtype_name(input->dtype));
    if (output->dtype != input->dtype)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "polarizer: output tensor is %s but the input is %s (the output "
                          "has the input's type)",
                          blade_dtype_name(output->dtype),
                          blade_dtype_name(input->dtype));
    *type = input->dtype;
    return BLADE_OK;
}

blade_status blade_polarizer_process(blade_polarizer* polarizer,
                                     const blade_tensor* input,
                                     blade_tensor* output,
                                     blade_stream stream)
{
    blade_dtype type = BLADE_CF32; /* set by element_type() */
    BLADE_TRY(element_type(input, output, &type));
    BLADE_TRY(blade_check_tensor("polarizer", "input", input, type, &polarizer->shape));
    BLADE_TRY(blade_check_tensor("polarizer", "output", output, type, &polarizer->shape));
    /* each pair is read whole before its two outputs are written: in place is safe */
    BLADE_TRY(blade_check_aliasing("polarizer", input, output, NULL));
    const int64_t pairs = blade_shape_count(&polarizer->shape) / 2;
    const size_t pair_bytes = 2 * blade_dtype_size(type);
    const bool pass_through = polarizer->config.output_basis == BLADE_BASIS_LINEAR;
    if (pass_through && input->data == output->data)
        return BLADE_OK;

    if (polarizer->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(polarizer->device));
        if (pass_through)
            return blade_cuda_memcpy(output->data,
                                     input->data,
                                     (size_t)pairs * pair_bytes,
                                     BLADE_COPY_DEVICE_TO_DEVICE,
                                     stream);
        if (type == BLADE_CF16)
            return blade_cuda_polarize_half(input->data, output->data, pairs, stream);
        return blade_cuda_polarize(input->data, output->data, pairs, stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "polarizer: built without CUDA");
#endif
    }
    if (pass_through)
        memcpy(output->data, input->data, (size_t)pairs * pair_bytes);
    else if (type == BLADE_CF16)
        blade_cpu_polarize_half(input->data, output->data, pairs);
    else
        blade_cpu_polarize(input->data, output->data, pairs);
    return BLADE_OK;
}

void blade_polarizer_destroy(blade_polarizer* polarizer) { free(polarizer); }
