/* SPDX-License-Identifier: MIT */
/* Polarizer cases: linear -> circular on cf32 [A, 192, 8192, 2] (performance.md: A = 16). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct polarizer_state {
    blade_polarizer* plan;
    blade_tensor input, output;
} polarizer_state;

static blade_status
polarizer_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    polarizer_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const blade_shape shape = blade_shape_aftp(self->p[0], 192, 8192 / shrink, 2);
    const blade_polarizer_config config = { BLADE_BASIS_CIRCULAR };
    const blade_dtype type = self->p[1] ? (blade_dtype)self->p[1] : BLADE_CF32;
    const size_t bytes = blade_tensor_bytes(type, &shape);
    self->samples = (double)blade_shape_count(&shape);
    self->bytes = 2.0 * (double)bytes; /* read once, written once */
    void *in = NULL, *out = NULL;
    blade_status status = blade_polarizer_create(&state->plan, &config, &shape, device);
    if (status == BLADE_OK)
        status = bench_random_device(device, bytes, 11, &in);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, bytes, &out);
    if (status == BLADE_OK) /* touch it, so the host timing sees no page faults */
        status = blade_memset_zero(device, out, bytes, NULL);
    state->input = blade_tensor_make(type, &shape, device, in);
    state->output = blade_tensor_make(type, &shape, device, out);
    return status;
}

static blade_status polarizer_run(bench_case* self, blade_stream stream)
{
    polarizer_state* state = self->state;
    return blade_polarizer_process(state->plan, &state->input, &state->output, stream);
}

static void polarizer_teardown(bench_case* self, blade_device device)
{
    polarizer_state* state = self->state;
    if (state == NULL)
        return;
    blade_polarizer_destroy(state->plan);
    blade_device_free(device, state->input.data);
    blade_device_free(device, state->output.data);
    free(state);
    self->state = NULL;
}

void bench_register_polarizer(bench_case** cases, int* count)
{
    static const struct {
        int antennas;
        blade_dtype type;
        double upstream_ms, target_ms;
    } shapes[] = { { 2, BLADE_CF32, 0, 0 },
                   { 16, BLADE_CF32, 0.231, 0.23 },
                   { 16, BLADE_CF16, 0, 0 } };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        bench_case one = { 0 };
        one.module = "polarizer";
        snprintf(one.label,
                 sizeof one.label,
                 "circular%s [%d, 192, 8192, 2]",
                 shapes[i].type == BLADE_CF16 ? " cf16" : "",
                 shapes[i].antennas);
        one.bound = BENCH_MEMORY;
        one.upstream_ms = shapes[i].upstream_ms;
        one.target_ms = shapes[i].target_ms;
        one.setup = polarizer_setup;
        one.run = polarizer_run;
        one.teardown = polarizer_teardown;
        one.p[0] = shapes[i].antennas;
        one.p[1] = shapes[i].type;
        bench_add(cases, count, &one);
    }
}
