/* SPDX-License-Identifier: MIT */
/*
 * Gather plan: validation at creation, the row geometry of a concatenation,
 * dispatch to the CPU or CUDA backend.
 */
#include "cuda_backend.h"
#include "gather_backend.h"
#include "internal.h"

#include <blade/modules/gather.h>

#include <stdlib.h>

struct blade_gather {
    blade_gather_config config;
    blade_shape input_shape, output_shape;
    blade_device device;
    int64_t rows;      /* product of the axes before the gathered one */
    int64_t row_bytes; /* bytes of the gathered axis and those after it, one chunk */
};

blade_status blade_gather_create(blade_gather** gather,
                                 const blade_gather_config* config,
                                 const blade_shape* input_shape,
                                 blade_device device)
{
    *gather = NULL;
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "gather: no configuration given");
    BLADE_TRY(blade_shape_validate(input_shape, "gather input"));
    if (blade_dtype_bits(config->dtype) == 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "gather: unknown element type code %d",
                          (int)config->dtype);
    char text[128];
    if (config->axis < 0 || config->axis >= input_shape->rank)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "gather: axis %d is out of range for the input shape %s (rank %d: "
                          "axes 0 to %d)",
                          config->axis,
                          blade_shape_format(input_shape, text, sizeof text),
                          input_shape->rank,
                          input_shape->rank - 1);
    if (config->multiplier < 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "gather: multiplier %lld must be at least 1 (chunks per output "
                          "chunk)",
                          (long long)config->multiplier);
    if (input_shape->dims[config->axis] > INT64_MAX / config->multiplier)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "gather: multiplier %lld makes axis %d of %s too long",
                          (long long)config->multiplier,
                          config->axis,
                          blade_shape_format(input_shape, text, sizeof text));
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    blade_gather* plan;
    BLADE_TRY(blade_alloc_object(sizeof *plan, "gather", (void**)&plan));
    plan->config = *config;
    plan->input_shape = *input_shape;
    plan->output_shape = *input_shape;
    plan->output_shape.dims[config->axis] *= config->multiplier;
    plan->device = device;
    plan->rows = 1;
    for (int i = 0; i < config->axis; i++)
        plan->rows *= input_shape->dims[i];
    plan->row_bytes = (int64_t)blade_tensor_bytes(config->dtype, input_shape) / plan->rows;
    *gather = plan;
    return BLADE_OK;
}

blade_shape blade_gather_output_shape(const blade_gather* gather) { return gather->output_shape; }

blade_status blade_gather_process(blade_gather* gather,
                                  const blade_tensor* input,
                                  int64_t step,
                                  blade_tensor* output,
                                  blade_stream stream)
{
    const blade_dtype dtype = gather->config.dtype;
    BLADE_TRY(blade_check_tensor("gather", "input", input, dtype, &gather->input_shape));
    BLADE_TRY(blade_check_tensor("gather", "output", output, dtype, &gather->output_shape));
    BLADE_TRY(blade_check_aliasing(
        "gather", input, output, "a gather copies its input into a separate, longer chunk"));
    if (step < 0 || step >= gather->config.multiplier)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "gather: step %lld is outside 0 to %lld (the multiplier is %lld)",
                          (long long)step,
                          (long long)(gather->config.multiplier - 1),
                          (long long)gather->config.multiplier);
    const int64_t pitch = gather->row_bytes * gather->config.multiplier;
    char* destination = (char*)output->data + step * gather->row_bytes;

    if (gather->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(gather->device));
        return blade_cuda_place_rows(
            input->data, destination, gather->rows, gather->row_bytes, pitch, stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "gather: built without CUDA");
#endif
    }
    blade_cpu_place_rows(input->data, destination, gather->rows, gather->row_bytes, pitch);
    return BLADE_OK;
}

void blade_gather_destroy(blade_gather* gather) { free(gather); }
