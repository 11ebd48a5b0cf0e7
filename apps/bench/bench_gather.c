/* SPDX-License-Identifier: MIT */
/*
 * Gather cases: cf32 [5, 192, 8192, 2] along time x64 (performance.md), the cost of
 * one step (one chunk placed into its slot of the long output), and the same along
 * the channel axis.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct gather_state {
    blade_gather* plan;
    blade_tensor input, output;
    int64_t step;
} gather_state;

static blade_status
gather_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    gather_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const blade_shape shape = blade_shape_aftp(self->p[0], 192, 8192 / shrink, 2);
    const blade_gather_config config = { BLADE_CF32, (int)self->p[1], self->p[2] };
    void *in = NULL, *out = NULL;
    blade_status status = blade_gather_create(&state->plan, &config, &shape, device);
    if (status != BLADE_OK)
        return status;
    const blade_shape out_shape = blade_gather_output_shape(state->plan);
    const size_t in_bytes = blade_tensor_bytes(BLADE_CF32, &shape);
    self->samples = (double)blade_shape_count(&shape);
    self->bytes = 2.0 * (double)in_bytes; /* one step: its chunk read and written */
    status = bench_random_device(device, in_bytes, 31, &in);
    const size_t out_bytes = blade_tensor_bytes(BLADE_CF32, &out_shape);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, out_bytes, &out);
    if (status == BLADE_OK) /* touch it, so the host timing sees no page faults */
        status = blade_memset_zero(device, out, out_bytes, NULL);
    state->input = blade_tensor_make(BLADE_CF32, &shape, device, in);
    state->output = blade_tensor_make(BLADE_CF32, &out_shape, device, out);
    return status;
}

/* Each run is the next step of the group, so the timing covers every slot. */
static blade_status gather_run(bench_case* self, blade_stream stream)
{
    gather_state* state = self->state;
    const int64_t step = state->step;
    state->step = (step + 1) % self->p[2];
    return blade_gather_process(state->plan, &state->input, step, &state->output, stream);
}

static void gather_teardown(bench_case* self, blade_device device)
{
    gather_state* state = self->state;
    if (state == NULL)
        return;
    blade_gather_destroy(state->plan);
    blade_device_free(device, state->input.data);
    blade_device_free(device, state->output.data);
    free(state);
    self->state = NULL;
}

void bench_register_gather(bench_case** cases, int* count)
{
    static const struct {
        int antennas, axis, multiplier;
        double upstream_ms, target_ms;
    } shapes[] = { { 5, 2, 64, 0.158, 0.08 }, { 5, 1, 8, 0, 0 } };
    static const char* axis_names[] = { "A", "F", "T", "P" };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        bench_case one = { 0 };
        one.module = "gather";
        snprintf(one.label,
                 sizeof one.label,
                 "%s x%d step [%d, 192, 8192, 2]",
                 axis_names[shapes[i].axis],
                 shapes[i].multiplier,
                 shapes[i].antennas);
        one.bound = BENCH_MEMORY;
        one.upstream_ms = shapes[i].upstream_ms;
        one.target_ms = shapes[i].target_ms;
        one.setup = gather_setup;
        one.run = gather_run;
        one.teardown = gather_teardown;
        one.p[0] = shapes[i].antennas;
        one.p[1] = shapes[i].axis;
        one.p[2] = shapes[i].multiplier;
        bench_add(cases, count, &one);
    }
}
