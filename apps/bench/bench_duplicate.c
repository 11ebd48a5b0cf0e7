/* SPDX-License-Identifier: MIT */
/* Duplicate cases: one copy of [20, 192, 8192, 2] cf32 (performance.md), and two
 * copies, where the fan-out kernel reads the input once (3 tensor sizes moved). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct duplicate_state {
    blade_duplicate* plan;
    blade_tensor input;
    blade_tensor outputs[2];
    int copies;
} duplicate_state;

static blade_status
duplicate_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    duplicate_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    state->copies = (int)self->p[1];
    const blade_shape shape = blade_shape_aftp(self->p[0], 192, 8192 / shrink, 2);
    const blade_duplicate_config config = { BLADE_CF32, state->copies };
    const int64_t count = blade_shape_count(&shape);
    const size_t bytes = blade_bytes(BLADE_CF32, count);
    self->samples = (double)count;
    self->bytes = (double)bytes * (1 + state->copies); /* read once, write each copy */
    self->written = (double)bytes * state->copies;
    void* in = NULL;
    blade_status status = blade_duplicate_create(&state->plan, &config, &shape, device);
    if (status == BLADE_OK)
        status = bench_random_device(device, bytes, 2, &in);
    state->input = blade_tensor_make(BLADE_CF32, &shape, device, in);
    for (int c = 0; c < state->copies; c++) {
        void* out = NULL;
        if (status == BLADE_OK)
            status = blade_device_alloc(device, bytes, &out);
        state->outputs[c] = blade_tensor_make(BLADE_CF32, &shape, device, out);
    }
    return status;
}

static blade_status duplicate_run(bench_case* self, blade_stream stream)
{
    duplicate_state* state = self->state;
    return blade_duplicate_process(
        state->plan, &state->input, state->outputs, state->copies, stream);
}

static void duplicate_teardown(bench_case* self, blade_device device)
{
    duplicate_state* state = self->state;
    if (state == NULL)
        return;
    blade_duplicate_destroy(state->plan);
    blade_device_free(device, state->input.data);
    for (int c = 0; c < state->copies; c++)
        blade_device_free(device, state->outputs[c].data);
    free(state);
    self->state = NULL;
}

void bench_register_duplicate(bench_case** cases, int* count)
{
    static const struct {
        int antennas, copies;
        double upstream_ms, target_ms;
    } shapes[] = { { 20, 1, 0.240, 0.25 }, { 20, 2, 0, 0 } };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        bench_case one = { 0 };
        one.module = "duplicate";
        snprintf(one.label,
                 sizeof one.label,
                 "cf32 [%d, 192, 8192, 2] x%d",
                 shapes[i].antennas,
                 shapes[i].copies);
        one.bound = BENCH_MEMORY;
        one.upstream_ms = shapes[i].upstream_ms;
        one.target_ms = shapes[i].target_ms;
        one.setup = duplicate_setup;
        one.run = duplicate_run;
        one.teardown = duplicate_teardown;
        one.p[0] = shapes[i].antennas;
        one.p[1] = shapes[i].copies;
        bench_add(cases, count, &one);
    }
}
