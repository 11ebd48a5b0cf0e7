/* SPDX-License-Identifier: MIT */
/*
 * Cast plan: validation at creation, dispatch to the CPU or CUDA backend.
 */
#include "cast_backend.h"
#include "cuda_backend.h"
#include "internal.h"

#include <blade/modules/cast.h>

#include <stdio.h>
#include <stdlib.h>

struct blade_cast {
    blade_cast_config config;
    blade_shape shape;
    blade_device device;
};

static bool in_complex_family(blade_dtype type)
{
    return type == BLADE_CI4 || type == BLADE_CI8 || type == BLADE_CI16 || type == BLADE_CF16 ||
           type == BLADE_CF32;
}

static bool in_real_family(blade_dtype type)
{
    return type == BLADE_F16 || type == BLADE_F32 || type == BLADE_F64;
}

bool blade_cast_supported(blade_dtype from, blade_dtype to)
{
    return (in_complex_family(from) && in_complex_family(to)) ||
           (in_real_family(from) && in_real_family(to));
}

blade_status blade_cast_create(blade_cast** cast,
                               const blade_cast_config* config,
                               const blade_shape* input_shape,
                               blade_device device)
{
    *cast = NULL;
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "cast: no configuration given");
    BLADE_TRY(blade_shape_validate(input_shape, "cast input"));
    const blade_dtype from = config->input_type, to = config->output_type;
    if (blade_dtype_bits(from) == 0 || blade_dtype_bits(to) == 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "cast: unknown element type code (%d -> %d)",
                          (int)from,
                          (int)to);
    if (blade_dtype_is_complex(from) && !blade_dtype_is_complex(to))
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "cast: %s -> %s would drop the imaginary part; complex-to-real "
                          "casts are not supported (use a detector for power)",
                          blade_dtype_name(from),
                          blade_dtype_name(to));
    if (!blade_cast_supported(from, to))
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "cast: %s -> %s is not supported (complex types ci4, ci8, ci16, "
                          "cf16, cf32 cast among themselves; real types f16, f32, f64 "
                          "among themselves)",
                          blade_dtype_name(from),
                          blade_dtype_name(to));
    if (!(config->scale >= 0) || config->scale > 3.0e38f)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "cast: scale %g must be finite and positive (0 means 1)",
                          (double)config->scale);
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    BLADE_TRY(blade_alloc_object(sizeof **cast, "cast", (void**)cast));
    (*cast)->config = *config;
    if ((*cast)->config.scale == 0)
        (*cast)->config.scale = 1;
    (*cast)->shape = *input_shape;
    (*cast)->device = device;
    return BLADE_OK;
}

blade_shape blade_cast_output_shape(const blade_cast* cast) { return cast->shape; }

blade_status blade_cast_process(blade_cast* cast,
                                const blade_tensor* input,
                                blade_tensor* output,
                                blade_stream stream)
{
    BLADE_TRY(blade_check_tensor("cast", "input", input, cast->config.input_type, &cast->shape));
    BLADE_TRY(blade_check_tensor("cast", "output", output, cast->config.output_type, &cast->shape));
    /* Element i is read before element i is written, and no other: in place is safe
     * when both types take the same bytes per element. A narrowing cast would write
     * over elements another thread (or SIMD lane, or GPU block) has yet to read. */
    const int in_bits = (int)blade_dtype_bits(cast->config.input_type);
    const int out_bits = (int)blade_dtype_bits(cast->config.output_type);
    char why[160] = "";
    if (in_bits != out_bits && input->data == output->data)
        snprintf(why,
                 sizeof why,
                 "a cast runs in place only between types of one size (%s has %d bits per "
                 "element, %s %d): give it a separate output",
                 blade_dtype_name(cast->config.input_type),
                 in_bits,
                 blade_dtype_name(cast->config.output_type),
                 out_bits);
    BLADE_TRY(blade_check_aliasing("cast", input, output, in_bits == out_bits ? NULL : why));
    const int64_t count = blade_shape_count(&cast->shape);

    if (cast->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(cast->device));
        return blade_cuda_cast(input->data,
                               cast->config.input_type,
                               output->data,
                               cast->config.output_type,
                               count,
                               cast->config.scale,
                               stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "cast: built without CUDA");
#endif
    }
    blade_cpu_cast(input->data,
                   cast->config.input_type,
                   output->data,
                   cast->config.output_type,
                   count,
                   cast->config.scale);
    return BLADE_OK;
}

void blade_cast_destroy(blade_cast* cast) { free(cast); }
