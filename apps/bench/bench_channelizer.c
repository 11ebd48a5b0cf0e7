/* SPDX-License-Identifier: MIT */
/*
 * Channelizer cases (performance.md): upstream's A = 16, N = 8192 on [16, 192, 8192, 2]
 * (upstream BLADE 0.761 ms on the H200, target 0.25 ms = 75 % of copy bandwidth for
 * one pass), A = 2 with N = 8192 and N = 64, a polyphase filterbank, and a rate that
 * takes the general (cuFFT) path. Bytes: one read of x and one write of y, the least
 * any channelizer moves; the single-pass kernel moves exactly that.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct channelizer_state {
    blade_channelizer* plan;
    blade_tensor input, output;
} channelizer_state;

/* p[0] = A, p[1] = T, p[2] = N, p[3] = taps, p[4] = window */
static blade_status
channelizer_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    channelizer_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const int64_t t = self->p[1] / shrink;
    const int64_t n = self->p[2] <= t ? self->p[2] : t; /* quick runs shorten T */
    const blade_shape shape = blade_shape_aftp(self->p[0], 192, t, 2);
    const blade_channelizer_config config = {
        BLADE_CF32, BLADE_CF32, n, (int)self->p[3], (blade_channelizer_window)self->p[4]
    };
    const int64_t count = blade_shape_count(&shape);
    self->samples = (double)count;
    self->bytes = 2.0 * (double)blade_bytes(BLADE_CF32, count);
    void *in = NULL, *out = NULL;
    blade_status status = blade_channelizer_create(&state->plan, &config, &shape, device);
    if (status == BLADE_OK)
        status = bench_random_device(device, blade_bytes(BLADE_CF32, count), 3, &in);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, blade_bytes(BLADE_CF32, count), &out);
    state->input = blade_tensor_make(BLADE_CF32, &shape, device, in);
    if (state->plan != NULL) {
        const blade_shape out_shape = blade_channelizer_output_shape(state->plan);
        state->output = blade_tensor_make(BLADE_CF32, &out_shape, device, out);
    } else {
        state->output.data = out;
    }
    return status;
}

static blade_status channelizer_run(bench_case* self, blade_stream stream)
{
    channelizer_state* state = self->state;
    return blade_channelizer_process(state->plan, &state->input, &state->output, stream);
}

static void channelizer_teardown(bench_case* self, blade_device device)
{
    channelizer_state* state = self->state;
    if (state == NULL)
        return;
    blade_channelizer_destroy(state->plan);
    blade_device_free(device, state->input.data);
    blade_device_free(device, state->output.data);
    free(state);
    self->state = NULL;
}

void bench_register_channelizer(bench_case** cases, int* count)
{
    static const struct {
        int antennas;
        int64_t t, rate;
        int taps;
        blade_channelizer_window window;
        double upstream_ms, target_ms;
    } shapes[] = {
        { 16, 8192, 8192, 1, BLADE_WINDOW_RECTANGULAR, 0.761, 0.25 },
        { 2, 8192, 8192, 1, BLADE_WINDOW_RECTANGULAR, 0, 0 },
        { 2, 8192, 64, 1, BLADE_WINDOW_RECTANGULAR, 0, 0 },
        { 2, 8192, 1024, 4, BLADE_WINDOW_HAMMING, 0, 0 },
        { 16, 8192, 8192, 4, BLADE_WINDOW_HAMMING, 0, 0 },
        { 2, 12288, 3072, 1, BLADE_WINDOW_RECTANGULAR, 0, 0 }, /* general path: cuFFT */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        bench_case one = { 0 };
        one.module = "channelizer";
        if (shapes[i].taps > 1)
            snprintf(one.label,
                     sizeof one.label,
                     "[%d, 192, %lld, 2] N=%lld PFB M=%d %s",
                     shapes[i].antennas,
                     (long long)shapes[i].t,
                     (long long)shapes[i].rate,
                     shapes[i].taps,
                     blade_channelizer_window_name(shapes[i].window));
        else
            snprintf(one.label,
                     sizeof one.label,
                     "[%d, 192, %lld, 2] N=%lld",
                     shapes[i].antennas,
                     (long long)shapes[i].t,
                     (long long)shapes[i].rate);
        one.bound = BENCH_MEMORY;
        one.upstream_ms = shapes[i].upstream_ms;
        one.target_ms = shapes[i].target_ms;
        one.setup = channelizer_setup;
        one.run = channelizer_run;
        one.teardown = channelizer_teardown;
        one.p[0] = shapes[i].antennas;
        one.p[1] = shapes[i].t;
        one.p[2] = shapes[i].rate;
        one.p[3] = shapes[i].taps;
        one.p[4] = shapes[i].window;
        bench_add(cases, count, &one);
    }
}
