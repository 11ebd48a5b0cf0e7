/* SPDX-License-Identifier: MIT */
/*
 * Permutation plan: validation, the reduction of a permutation to COPY / ROWS /
 * TILED (see permutation_backend.h), and dispatch to the CPU or CUDA backend.
 */
#include "cuda_backend.h"
#include "internal.h"
#include "permutation_backend.h"

#include <blade/modules/permutation.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct blade_permutation {
    blade_permutation_config config;
    blade_shape input_shape;
    blade_shape output_shape;
    blade_device device;
    blade_permutation_layout layout; /* for pointers aligned to 16 bytes */
};

/* "{0, 2, 1, 3}" into text. */
static const char* format_axes(const int* axes, int count, char* text, size_t size)
{
    size_t used = (size_t)snprintf(text, size, "{");
    for (int i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(text + used, size - used, i ? ", %d" : "%d", axes[i]);
    if (used < size)
        snprintf(text + used, size - used, "}");
    return text;
}

void blade_permutation_reduce(const blade_shape* shape,
                              const int* axes,
                              size_t element_size,
                              int max_element_bytes,
                              blade_permutation_layout* layout)
{
    memset(layout, 0, sizeof *layout);
    layout->bytes = blade_shape_count(shape) * element_size;

    /* 1. The tensor as bytes: an innermost axis of the element's bytes, which stays
     *    innermost. Axes of extent 1 carry no data movement and are dropped. */
    int rank = shape->rank + 1;
    int64_t dims[BLADE_MAX_RANK + 1];
    int perm[BLADE_MAX_RANK + 1];
    for (int i = 0; i < shape->rank; i++) {
        dims[i] = shape->dims[i];
        perm[i] = axes[i];
    }
    dims[shape->rank] = (int64_t)element_size;
    perm[shape->rank] = shape->rank;

    /* (The byte axis is kept even for 1-byte elements: step 3 relies on the
     * innermost axis being the one that never moves.) */
    int new_index[BLADE_MAX_RANK + 1];
    int kept = 0;
    for (int i = 0; i < rank; i++)
        new_index[i] = dims[i] > 1 || i == rank - 1 ? kept++ : -1;
    int64_t kept_dims[BLADE_MAX_RANK + 1];
    int kept_perm[BLADE_MAX_RANK + 1];
    int n = 0;
    for (int i = 0; i < rank; i++)
        if (new_index[i] >= 0)
            kept_dims[new_index[i]] = dims[i];
    for (int i = 0; i < rank; i++)
        if (new_index[perm[i]] >= 0)
            kept_perm[n++] = new_index[perm[i]];
    rank = kept;

    /* 2. Merge runs: input axes k, k+1 that appear as ..., k, k+1, ... in the
     *    output move together. Each run becomes one axis; runs are numbered in
     *    input order. */
    int run_start[BLADE_MAX_RANK + 1]; /* first input axis of each run, output order */
    int run_length[BLADE_MAX_RANK + 1];
    int runs = 0;
    for (int i = 0; i < rank; i++) {
        if (i > 0 && kept_perm[i] == kept_perm[i - 1] + 1) {
            run_length[runs - 1]++;
        } else {
            run_start[runs] = kept_perm[i];
            run_length[runs] = 1;
            runs++;
        }
    }
    /* the run holding input axis j, and the input order of runs */
    int run_rank[BLADE_MAX_RANK + 1];
    for (int r = 0; r < runs; r++) {
        run_rank[r] = 0;
        for (int s = 0; s < runs; s++)
            if (run_start[s] < run_start[r])
                run_rank[r]++;
    }
    for (int r = 0; r < runs; r++) {
        int64_t extent = 1;
        for (int k = 0; k < run_length[r]; k++)
            extent *= kept_dims[run_start[r] + k];
        layout->dims[run_rank[r]] = extent;
        layout->axes[r] = run_rank[r];
    }
    rank = runs;

    /* 3. The innermost axis is the element's bytes with whatever stays innermost
     *    along with them: take the widest element that divides it. */
    int64_t row_bytes = rank > 0 ? layout->dims[rank - 1] : 1;
    int element = 1;
    while (element < max_element_bytes && row_bytes % (element * 2) == 0)
        element *= 2;
    layout->element_bytes = element;
    if (rank > 0) {
        layout->dims[rank - 1] = row_bytes / element;
        if (layout->dims[rank - 1] == 1)
            rank--; /* exactly one element: the axis disappears */
    }

    layout->rank = rank;
    if (rank <= 1) {
        layout->kind = BLADE_PERMUTATION_COPY;
        layout->rank = 0;
        return;
    }
    layout->kind =
        layout->axes[rank - 1] == rank - 1 ? BLADE_PERMUTATION_ROWS : BLADE_PERMUTATION_TILED;

    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; i--) {
        layout->in_strides[i] = stride;
        stride *= layout->dims[i];
    }
    stride = 1;
    for (int i = rank - 1; i >= 0; i--) {
        layout->out_strides[layout->axes[i]] = stride;
        stride *= layout->dims[layout->axes[i]];
    }
}

blade_status blade_permutation_create(blade_permutation** permutation,
                                      const blade_permutation_config* config,
                                      const blade_shape* input_shape,
                                      blade_device device)
{
    *permutation = NULL;
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "permutation: no configuration given");
    BLADE_TRY(blade_shape_validate(input_shape, "permutation input"));
    if (blade_dtype_bits(config->dtype) == 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "permutation: unknown element type code %d",
                          (int)config->dtype);
    char text[64], shape_text[128];
    if (config->naxes != input_shape->rank)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "permutation: %d axes given for a tensor of rank %d (%s); give "
                          "one axis per input axis",
                          config->naxes,
                          input_shape->rank,
                          blade_shape_format(input_shape, shape_text, sizeof shape_text));
    bool seen[BLADE_MAX_RANK] = { false };
    for (int i = 0; i < config->naxes; i++) {
        const int axis = config->axes[i];
        if (axis < 0 || axis >= config->naxes || seen[axis])
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "permutation: axes %s are not a permutation of 0..%d (each "
                              "input axis exactly once)",
                              format_axes(config->axes, config->naxes, text, sizeof text),
                              config->naxes - 1);
        seen[axis] = true;
    }
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    BLADE_TRY(blade_alloc_object(sizeof **permutation, "permutation", (void**)permutation));
    blade_permutation* plan = *permutation;
    plan->config = *config;
    plan->input_shape = *input_shape;
    plan->output_shape.rank = input_shape->rank;
    for (int i = 0; i < input_shape->rank; i++)
        plan->output_shape.dims[i] = input_shape->dims[config->axes[i]];
    plan->device = device;
    blade_permutation_reduce(input_shape,
                             config->axes,
                             blade_dtype_size(config->dtype),
                             BLADE_PERMUTATION_MAX_ELEMENT,
                             &plan->layout);
    return BLADE_OK;
}

blade_shape blade_permutation_output_shape(const blade_permutation* permutation)
{
    return permutation->output_shape;
}

bool blade_permutation_is_identity(const blade_permutation* permutation)
{
    return permutation->layout.kind == BLADE_PERMUTATION_COPY;
}

/* The largest power of two (up to 16) dividing the address. */
static int alignment_of(const void* pointer)
{
    const uintptr_t address = (uintptr_t)pointer;
    int alignment = 1;
    while (alignment < BLADE_PERMUTATION_MAX_ELEMENT && address % (uintptr_t)(alignment * 2) == 0)
        alignment *= 2;
    return alignment;
}

blade_status blade_permutation_process(blade_permutation* permutation,
                                       const blade_tensor* input,
                                       blade_tensor* output,
                                       blade_stream stream)
{
    const blade_permutation_config* config = &permutation->config;
    BLADE_TRY(blade_check_tensor(
        "permutation", "input", input, config->dtype, &permutation->input_shape));
    BLADE_TRY(blade_check_tensor(
        "permutation", "output", output, config->dtype, &permutation->output_shape));
    const blade_permutation_layout* layout = &permutation->layout;
    const uintptr_t in = (uintptr_t)input->data, out = (uintptr_t)output->data;
    if (layout->kind == BLADE_PERMUTATION_COPY && in == out)
        return BLADE_OK; /* identity in place */
    if (in < out + layout->bytes && out < in + layout->bytes)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "permutation: input and output overlap; a permutation cannot "
                          "run in place");

    /* Elements wider than the pointers' alignment would be misaligned loads: reduce
     * again with narrower elements (rare: gr-blade buffers are 4096-byte aligned). */
    blade_permutation_layout narrow;
    const int aligned = alignment_of(input->data) < alignment_of(output->data)
                            ? alignment_of(input->data)
                            : alignment_of(output->data);
    if (aligned < layout->element_bytes) {
        blade_permutation_reduce(&permutation->input_shape,
                                 config->axes,
                                 blade_dtype_size(config->dtype),
                                 aligned,
                                 &narrow);
        layout = &narrow;
    }

    if (permutation->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(permutation->device));
        return blade_cuda_permutation(layout, input->data, output->data, stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "permutation: built without CUDA");
#endif
    }
    blade_cpu_permutation(layout, input->data, output->data);
    return BLADE_OK;
}

void blade_permutation_destroy(blade_permutation* permutation) { free(permutation); }
