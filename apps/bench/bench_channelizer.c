/* SPDX-License-Identifier: MIT */
/*
 * Channelizer cases (performance.md): upstream's A = 16, N = 8192 on [16, 192, 8192, 2]
 * (upstream BLADE 0.761 ms on the H200, target 0.25 ms = 75 % of copy bandwidth for
 * one pass), A = 2 with N = 8192 and N = 64, a polyphase filterbank, a rate that
 * takes the general (cuFFT) path, and BL's high-resolution rates N = 65536 and 2^20
 * on a GBT node's shape [1, 64, 2^20, 2] (1 GiB of cf32). Cases marked with a
 * kernel (shared, direct, general) ask for that CUDA implementation, to compare them
 * on one shape; the others take the automatic choice. Bytes: one read of x and one
 * write of y, the least any channelizer moves; the single-pass kernels move exactly
 * that.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct channelizer_state {
    blade_channelizer* plan;
    blade_tensor input, output;
} channelizer_state;

/* p[0] = A, p[1] = T, p[2] = N, p[3] = taps, p[4] = window, p[5] = kernel, p[6] = F */
static blade_status
channelizer_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    if (self->p[5] != BLADE_CHANNELIZER_KERNEL_AUTO && device.kind != BLADE_DEVICE_CUDA) {
        self->skipped = "a CUDA kernel asked for by name (the CPU has one implementation)";
        return BLADE_OK;
    }
    if (self->p[2] > 8192 && device.kind != BLADE_DEVICE_CUDA) {
        self->skipped = "a GBT node's 1 GiB chunk: timed on GPUs (seconds per run on a CPU)";
        return BLADE_OK;
    }
    channelizer_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const int64_t t = self->p[1] / shrink;
    const int64_t n = self->p[2] <= t ? self->p[2] : t; /* quick runs shorten T */
    const blade_shape shape = blade_shape_aftp(self->p[0], self->p[6], t, 2);
    const blade_channelizer_config config = { BLADE_CF32,
                                              BLADE_CF32,
                                              n,
                                              (int)self->p[3],
                                              (blade_channelizer_window)self->p[4],
                                              (blade_channelizer_kernel)self->p[5] };
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
    enum { AUTO = BLADE_CHANNELIZER_KERNEL_AUTO, SHARED = BLADE_CHANNELIZER_KERNEL_SHARED };
    enum { DIRECT = BLADE_CHANNELIZER_KERNEL_DIRECT, GENERAL = BLADE_CHANNELIZER_KERNEL_GENERAL };
    static const char* const kernel_names[] = {
        "", " shared", " direct", " general", " four-step"
    };
    static const struct {
        int antennas, channels;
        int64_t t, rate;
        int taps;
        blade_channelizer_window window;
        int kernel;
        double upstream_ms, target_ms;
    } shapes[] = {
        { 16, 192, 8192, 8192, 1, BLADE_WINDOW_RECTANGULAR, AUTO, 0.761, 0.25 },
        { 16, 192, 8192, 8192, 1, BLADE_WINDOW_RECTANGULAR, SHARED, 0.761, 0.25 },
        { 16, 192, 8192, 8192, 1, BLADE_WINDOW_RECTANGULAR, DIRECT, 0.761, 0.25 },
        { 2, 192, 8192, 8192, 1, BLADE_WINDOW_RECTANGULAR, AUTO, 0, 0 },
        { 2, 192, 8192, 64, 1, BLADE_WINDOW_RECTANGULAR, AUTO, 0, 0 },
        { 2, 192, 8192, 64, 1, BLADE_WINDOW_RECTANGULAR, DIRECT, 0, 0 },
        { 2, 192, 8192, 1024, 4, BLADE_WINDOW_HAMMING, AUTO, 0, 0 },
        { 2, 192, 8192, 1024, 4, BLADE_WINDOW_HAMMING, DIRECT, 0, 0 },
        { 16, 192, 8192, 8192, 4, BLADE_WINDOW_HAMMING, AUTO, 0, 0 },
        { 16, 192, 8192, 8192, 4, BLADE_WINDOW_HAMMING, SHARED, 0, 0 },
        { 16, 192, 8192, 8192, 4, BLADE_WINDOW_HAMMING, DIRECT, 0, 0 },
        { 2, 192, 12288, 3072, 1, BLADE_WINDOW_RECTANGULAR, AUTO, 0, 0 }, /* general: cuFFT */
        { 1, 64, 1 << 20, 16384, 1, BLADE_WINDOW_RECTANGULAR, AUTO, 0, 0 },
        { 1, 64, 1 << 20, 65536, 1, BLADE_WINDOW_RECTANGULAR, AUTO, 0, 0 },
        { 1, 64, 1 << 20, 65536, 1, BLADE_WINDOW_RECTANGULAR, GENERAL, 0, 0 },
        { 1, 64, 1 << 20, 1 << 20, 1, BLADE_WINDOW_RECTANGULAR, AUTO, 0, 0 },
        { 1, 64, 1 << 20, 1 << 20, 1, BLADE_WINDOW_RECTANGULAR, GENERAL, 0, 0 },
        { 1, 64, 1 << 20, 65536, 4, BLADE_WINDOW_HAMMING, AUTO, 0, 0 },
        { 1, 64, 1 << 20, 65536, 4, BLADE_WINDOW_HAMMING, GENERAL, 0, 0 },
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        bench_case one = { 0 };
        one.module = "channelizer";
        char filter[48] = "";
        if (shapes[i].taps > 1)
            snprintf(filter,
                     sizeof filter,
                     " PFB M=%d %s",
                     shapes[i].taps,
                     blade_channelizer_window_name(shapes[i].window));
        snprintf(one.label,
                 sizeof one.label,
                 "[%d, %d, %lld, 2] N=%lld%s%s",
                 shapes[i].antennas,
                 shapes[i].channels,
                 (long long)shapes[i].t,
                 (long long)shapes[i].rate,
                 filter,
                 kernel_names[shapes[i].kernel]);
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
        one.p[5] = shapes[i].kernel;
        one.p[6] = shapes[i].channels;
        bench_add(cases, count, &one);
    }
}
