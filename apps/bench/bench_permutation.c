/* SPDX-License-Identifier: MIT */
/* Permutation cases: [2, 192, 8192, 2] cf32 AFTP -> ATPF (performance.md), and the
 * other two orders of the spec (ATFP, AFPT) at the same size. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct permutation_state {
    blade_permutation* plan;
    blade_tensor input, output;
} permutation_state;

static blade_status
permutation_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    permutation_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const blade_shape shape = blade_shape_aftp(self->p[0], 192, 8192 / shrink, 2);
    blade_permutation_config config = { BLADE_CF32, 4, { 0 } };
    for (int i = 0; i < 4; i++)
        config.axes[i] = (int)self->p[1 + i];
    const int64_t count = blade_shape_count(&shape);
    const size_t bytes = blade_bytes(BLADE_CF32, count);
    self->samples = (double)count;
    self->bytes = 2.0 * (double)bytes;
    void *in = NULL, *out = NULL;
    blade_status status = blade_permutation_create(&state->plan, &config, &shape, device);
    if (status == BLADE_OK)
        status = bench_random_device(device, bytes, 3, &in);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, bytes, &out);
    state->input = blade_tensor_make(BLADE_CF32, &shape, device, in);
    if (state->plan != NULL) {
        const blade_shape out_shape = blade_permutation_output_shape(state->plan);
        state->output = blade_tensor_make(BLADE_CF32, &out_shape, device, out);
    } else {
        state->output = blade_tensor_make(BLADE_CF32, &shape, device, out);
    }
    return status;
}

static blade_status permutation_run(bench_case* self, blade_stream stream)
{
    permutation_state* state = self->state;
    return blade_permutation_process(state->plan, &state->input, &state->output, stream);
}

static void permutation_teardown(bench_case* self, blade_device device)
{
    permutation_state* state = self->state;
    if (state == NULL)
        return;
    blade_permutation_destroy(state->plan);
    blade_device_free(device, state->input.data);
    blade_device_free(device, state->output.data);
    free(state);
    self->state = NULL;
}

void bench_register_permutation(bench_case** cases, int* count)
{
    static const struct {
        const char* order;
        int antennas;
        int axes[4];
        double upstream_ms, target_ms;
    } orders[] = {
        { "ATPF", 2, { 0, 2, 3, 1 }, 0.148, 0.04 },
        { "ATFP", 2, { 0, 2, 1, 3 }, 0, 0 },
        { "AFPT", 2, { 0, 1, 3, 2 }, 0, 0 },
        { "ATPF", 16, { 0, 2, 3, 1 }, 0, 0 },
    };
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++) {
        bench_case one = { 0 };
        one.module = "permutation";
        snprintf(one.label,
                 sizeof one.label,
                 "cf32 [%d, 192, 8192, 2] -> %s",
                 orders[i].antennas,
                 orders[i].order);
        one.bound = BENCH_MEMORY;
        one.upstream_ms = orders[i].upstream_ms;
        one.target_ms = orders[i].target_ms;
        one.setup = permutation_setup;
        one.run = permutation_run;
        one.teardown = permutation_teardown;
        one.p[0] = orders[i].antennas;
        for (int k = 0; k < 4; k++)
            one.p[1 + k] = orders[i].axes[k];
        bench_add(cases, count, &one);
    }
}
