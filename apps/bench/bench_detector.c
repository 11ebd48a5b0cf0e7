/* SPDX-License-Identifier: MIT */
/*
 * Detector cases (performance.md): (A, I, Pout) in {(2, 8, 4), (16, 8, 4), (16, 64, 1)}
 * on cf32 [A, 192, 8192, 2] (Pout = 4 as Stokes IQUV, Pout = 1 as Stokes I), plus
 * (16, 8, 1) (blade-bench's numpy suite compares it), the cross products, an
 * integration across chunks (I = 4 T) where one run is one step of the group, and
 * the spectrometer's detector after a channelizer of N = T = 8192 (Mode H): rows of
 * one sample, [8, 192 x 8192, 1, 2], integrated in the chunk (I = 1) or over 16.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct detector_state {
    blade_detector* plan;
    blade_tensor input, output;
} detector_state;

static blade_status
detector_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    detector_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    /* p[4] > 0: samples per chunk after a channelizer of 8192 / p[4] (192 * that many
     * fine channels) */
    const int64_t samples = self->p[4] > 0 ? self->p[4] : 8192 / shrink;
    const int64_t channels = self->p[4] > 0 ? 192 * 8192 / shrink / self->p[4] : 192;
    const blade_shape shape = blade_shape_aftp(self->p[0], channels, samples, 2);
    /* p[1] > 0: integration in samples; p[1] < 0: -p[1] whole chunks */
    const int64_t integration = self->p[1] > 0 ? self->p[1] : -self->p[1] * samples;
    const blade_detector_config config = { (blade_detector_mode)self->p[2], integration };
    void *in = NULL, *out = NULL;
    blade_status status = blade_detector_create(&state->plan, &config, &shape, device);
    if (status != BLADE_OK)
        return status;
    const blade_shape out_shape = blade_detector_output_shape(state->plan);
    const blade_dtype type = self->p[3] ? (blade_dtype)self->p[3] : BLADE_CF32; /* cf16: widened */
    const size_t in_bytes = blade_tensor_bytes(type, &shape);
    const size_t out_bytes = blade_tensor_bytes(BLADE_F32, &out_shape);
    self->samples = (double)blade_shape_count(&shape);
    /* Every step reads its chunk; the output (or the accumulator) is written once */
    self->bytes = (double)(in_bytes + out_bytes);
    self->written = (double)out_bytes;
    self->flops = self->samples * 4; /* about 4 flops per complex sample and product */
    status = bench_random_device(device, in_bytes, 21, &in);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, out_bytes, &out);
    if (status == BLADE_OK) /* touch it, so the host timing sees no page faults */
        status = blade_memset_zero(device, out, out_bytes, NULL);
    state->input = blade_tensor_make(type, &shape, device, in);
    state->output = blade_tensor_make(BLADE_F32, &out_shape, device, out);
    return status;
}

static blade_status detector_run(bench_case* self, blade_stream stream)
{
    detector_state* state = self->state;
    return blade_detector_process(state->plan, &state->input, &state->output, stream);
}

static void detector_teardown(bench_case* self, blade_device device)
{
    detector_state* state = self->state;
    if (state == NULL)
        return;
    blade_detector_destroy(state->plan);
    blade_device_free(device, state->input.data);
    blade_device_free(device, state->output.data);
    free(state);
    self->state = NULL;
}

void bench_register_detector(bench_case** cases, int* count)
{
    static const struct {
        int antennas;
        long long integration; /* negative: whole chunks */
        blade_detector_mode mode;
        double upstream_ms, target_ms;
        blade_dtype type; /* 0: cf32 */
        int samples;      /* 0: 8192; else after a channelizer to that many */
    } shapes[] = {
        { 2, 8, BLADE_DETECT_IQUV, 0, 0, 0 },
        { 16, 8, BLADE_DETECT_IQUV, 1.012, 0.15, 0 },
        { 16, 64, BLADE_DETECT_I, 0.974, 0.13, 0 },
        { 16, 8, BLADE_DETECT_I, 0, 0, 0 },
        { 16, 8, BLADE_DETECT_CROSS, 0, 0, 0 },
        { 16, -4, BLADE_DETECT_IQUV, 0, 0, 0 },
        { 16, 8, BLADE_DETECT_IQUV, 0, 0, BLADE_CF16 },
        { 16, 64, BLADE_DETECT_I, 0, 0, BLADE_CF16 },
        { 8, 1, BLADE_DETECT_I, 0, 0, 0, 1 },
        { 8, -16, BLADE_DETECT_I, 0, 0, 0, 1 },
        { 8, 1, BLADE_DETECT_IQUV, 0, 0, 0, 1 },
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        bench_case one = { 0 };
        one.module = "detector";
        if (shapes[i].samples > 0)
            snprintf(one.label,
                     sizeof one.label,
                     "%s I=%lld%s [%d, 192 x %d, %d, 2]",
                     blade_detector_mode_name(shapes[i].mode),
                     shapes[i].integration > 0 ? shapes[i].integration : -shapes[i].integration,
                     shapes[i].integration > 0 ? "" : "T step",
                     shapes[i].antennas,
                     8192 / shapes[i].samples,
                     shapes[i].samples);
        else if (shapes[i].integration > 0)
            snprintf(one.label,
                     sizeof one.label,
                     "%s I=%lld%s [%d, 192, 8192, 2]",
                     blade_detector_mode_name(shapes[i].mode),
                     shapes[i].integration,
                     shapes[i].type == BLADE_CF16 ? " cf16" : "",
                     shapes[i].antennas);
        else
            snprintf(one.label,
                     sizeof one.label,
                     "%s I=%lldT step [%d, 192, 8192, 2]",
                     blade_detector_mode_name(shapes[i].mode),
                     -shapes[i].integration,
                     shapes[i].antennas);
        one.bound = BENCH_MEMORY;
        one.upstream_ms = shapes[i].upstream_ms;
        one.target_ms = shapes[i].target_ms;
        one.setup = detector_setup;
        one.run = detector_run;
        one.teardown = detector_teardown;
        one.p[0] = shapes[i].antennas;
        one.p[1] = shapes[i].integration;
        one.p[2] = shapes[i].mode;
        one.p[3] = shapes[i].type;
        one.p[4] = shapes[i].samples;
        bench_add(cases, count, &one);
    }
}
