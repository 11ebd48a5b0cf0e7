/* SPDX-License-Identifier: MIT */
/* Cast cases: ci8 -> cf32 at A in {2, 16, 64} (performance.md). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct cast_state {
    blade_cast* plan;
    blade_tensor input, output;
} cast_state;

static blade_status
cast_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    cast_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const blade_shape shape = blade_shape_aftp(self->p[0], 192, 8192 / shrink, 2);
    /* p[3]: the scale's exponent (the half-precision chain casts ci8 to cf16 x 2^-k) */
    const blade_cast_config config = { (blade_dtype)self->p[1],
                                       (blade_dtype)self->p[2],
                                       (float)ldexp(1.0, (int)self->p[3]) };
    const int64_t count = blade_shape_count(&shape);
    self->samples = (double)count;
    self->bytes =
        (double)(blade_bytes(config.input_type, count) + blade_bytes(config.output_type, count));
    self->written = (double)blade_bytes(config.output_type, count);
    void *in = NULL, *out = NULL;
    blade_status status = blade_cast_create(&state->plan, &config, &shape, device);
    if (status == BLADE_OK)
        status = bench_random_device(device, blade_bytes(config.input_type, count), 1, &in);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, blade_bytes(config.output_type, count), &out);
    state->input = blade_tensor_make(config.input_type, &shape, device, in);
    state->output = blade_tensor_make(config.output_type, &shape, device, out);
    return status;
}

static blade_status cast_run(bench_case* self, blade_stream stream)
{
    cast_state* state = self->state;
    return blade_cast_process(state->plan, &state->input, &state->output, stream);
}

static void cast_teardown(bench_case* self, blade_device device)
{
    cast_state* state = self->state;
    if (state == NULL)
        return;
    blade_cast_destroy(state->plan);
    blade_device_free(device, state->input.data);
    blade_device_free(device, state->output.data);
    free(state);
    self->state = NULL;
}

void bench_register_cast(bench_case** cases, int* count)
{
    static const struct {
        int antennas;
        double upstream_ms, target_ms;
    } shapes[] = { { 2, 0, 0 }, { 16, 0.293, 0.15 }, { 64, 0, 0 } };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        bench_case one = { 0 };
        one.module = "cast";
        snprintf(one.label, sizeof one.label, "ci8->cf32 [%d, 192, 8192, 2]", shapes[i].antennas);
        one.bound = BENCH_MEMORY;
        one.upstream_ms = shapes[i].upstream_ms;
        one.target_ms = shapes[i].target_ms;
        one.setup = cast_setup;
        one.run = cast_run;
        one.teardown = cast_teardown;
        one.p[0] = shapes[i].antennas;
        one.p[1] = BLADE_CI8;
        one.p[2] = BLADE_CF32;
        bench_add(cases, count, &one);
    }
    /* The half-precision chain's ingest: ci8 -> cf16 x 2^-13 (N = 8192 channelizer). */
    bench_case half = { 0 };
    half.module = "cast";
    snprintf(half.label, sizeof half.label, "ci8->cf16 x2^-13 [16, 192, 8192, 2]");
    half.bound = BENCH_MEMORY;
    half.setup = cast_setup;
    half.run = cast_run;
    half.teardown = cast_teardown;
    half.p[0] = 16;
    half.p[1] = BLADE_CI8;
    half.p[2] = BLADE_CF16;
    half.p[3] = -13;
    bench_add(cases, count, &half);
}
