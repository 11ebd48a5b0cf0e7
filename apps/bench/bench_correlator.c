/* SPDX-License-Identifier: MIT */
/*
 * Correlator cases (issue 20): the ATA node, A = 28, F = 192, T = 8192, P = 2 (16.384 ms
 * of 0.5 MHz channels per chunk), and large arrays A = 64, 128, 256 at the same F and
 * T, each with cf32 and ci8 voltages on the fp32 (CUDA cores; on the CPU float32
 * BLAS) and fp16 (tensor cores) paths, and on the CPU the fp64 reference; one output
 * per chunk (I = T).
 *
 * Each case reports its complex multiply-accumulates (B P^2 F T, the baselines with
 * the autocorrelations: the products that are kept), the real-time factor (signal
 * seconds per chunk / time per chunk), and on a GPU the fraction of the H200's
 * nominal FP32 peak (67 TFLOP/s) and fp16 dense tensor-core peak (989 TFLOP/s) at
 * 8 flops per complex multiply-accumulate. The fp32 cases are bound by FP32, the
 * fp16 cases by the tensor cores; the input is read once (at A = 28, cf32: 705 MB, 0.16
 * ms at 4.28 TB/s; the work is 2.6 G complex MACs, 0.31 ms at the FP32 peak).
 *
 * Targets (H200, performance.md): ATA node >= 20x real time from device-resident
 * input (0.82 ms per chunk); fp32 path >= 70 % of the FP32 peak; tensor-core path at
 * A >= 64 >= 40 % of the fp16 dense peak.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

enum { CHANNELS = 192, TIMES = 8192, POLS = 2 };

/* Seconds of signal in one sample of a 0.5 MHz channel (the ATA's). */
#define SAMPLE_SECONDS 2e-6
/* Nominal H200 peaks, only to state fractions. */
#define NOMINAL_FP32 67e12
#define NOMINAL_FP16_TENSOR 989e12
#define TARGET_REALTIME 20.0
#define TARGET_FP32_FRACTION 0.70
#define TARGET_TENSOR_FRACTION 0.40

typedef struct correlator_state {
    blade_correlator* plan;
    blade_tensor input, output;
} correlator_state;

static blade_status
correlator_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    correlator_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const int64_t A = self->p[0], times = TIMES / shrink;
    /* On the CPU fp16 computes the fp64 reference (timed by the fp64 case), fp64 runs
     * at about 1 G complex MAC/s: once per shape, A = 64 only with --quick, not the
     * larger arrays (seconds per quick chunk, hours at full size), and fp32 (float32
     * BLAS, 5-7x faster) up to A = 64 at full size, so that blade-bench's CPU
     * runs stay short. fp64 is the CPU's reference alone. */
    const blade_correlator_path path = (blade_correlator_path)self->p[2];
    const bool gpu = device.kind == BLADE_DEVICE_CUDA;
    if (gpu && path == BLADE_CORRELATOR_FP64) {
        self->skipped = "fp64 is the CPU's reference";
        return BLADE_OK;
    }
    if (!gpu && path == BLADE_CORRELATOR_FP16) {
        self->skipped = "the CPU computes the fp64 reference for fp16 (the fp64 case times it)";
        return BLADE_OK;
    }
    if (!gpu && path == BLADE_CORRELATOR_FP64 && (A > 64 || (A > 28 && shrink == 1))) {
        self->skipped = A > 64 ? "too long for the CPU's fp64 reference"
                               : "too long for the CPU at full size (--quick times it)";
        return BLADE_OK;
    }
    if (!gpu && path == BLADE_CORRELATOR_FP32 && A > 64 && shrink == 1) {
        self->skipped = "too long for the CPU at full size (--quick times it)";
        return BLADE_OK;
    }
    blade_correlator_config config = blade_correlator_config_default();
    config.input_type = (blade_dtype)self->p[1];
    config.path = (blade_correlator_path)self->p[2];
    config.integration = times;
    const blade_shape input = blade_shape_aftp(A, CHANNELS, times, POLS);
    blade_status status = blade_correlator_create(&state->plan, &config, &input, device);
    if (status != BLADE_OK)
        return status;
    if (!gpu && path == BLADE_CORRELATOR_FP32 &&
        blade_correlator_path_used(state->plan) != BLADE_CORRELATOR_FP32) {
        self->skipped = "built without OpenBLAS: fp32 on the CPU is the fp64 reference";
        return BLADE_OK;
    }
    const blade_shape output = blade_correlator_output_shape(state->plan);
    self->samples = (double)blade_shape_count(&input);
    self->macs = (double)blade_correlator_baselines(A) * POLS * POLS * CHANNELS * (double)times;
    self->flops = 8.0 * self->macs;
    self->bytes = (double)(blade_tensor_bytes(config.input_type, &input) +
                           blade_tensor_bytes(BLADE_CF32, &output));
    self->written = (double)blade_tensor_bytes(BLADE_CF32, &output);
    self->duration_s = (double)times * SAMPLE_SECONDS;
    self->tensor_peak = NOMINAL_FP16_TENSOR;
    self->bound = blade_correlator_path_used(state->plan) == BLADE_CORRELATOR_FP16 ? BENCH_TENSOR
                                                                                   : BENCH_FP32;

    void *x = NULL, *y = NULL;
    if (config.input_type == BLADE_CI8)
        status = bench_random_device(device, blade_tensor_bytes(BLADE_CI8, &input), 31, &x);
    else
        status = bench_random_floats(device, 2 * (size_t)self->samples, 100.0f, 31, &x);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, blade_tensor_bytes(BLADE_CF32, &output), &y);
    state->input = blade_tensor_make(config.input_type, &input, device, x);
    state->output = blade_tensor_make(BLADE_CF32, &output, device, y);
    return status;
}

static blade_status correlator_run(bench_case* self, blade_stream stream)
{
    correlator_state* state = self->state;
    return blade_correlator_process(state->plan, &state->input, &state->output, stream);
}

static void correlator_teardown(bench_case* self, blade_device device)
{
    correlator_state* state = self->state;
    if (state == NULL)
        return;
    blade_correlator_destroy(state->plan);
    blade_device_free(device, state->input.data);
    blade_device_free(device, state->output.data);
    free(state);
    self->state = NULL;
}

void bench_register_correlator(bench_case** cases, int* count)
{
    static const int antennas[] = { 28, 64, 128, 256 };
    static const blade_dtype types[] = { BLADE_CF32, BLADE_CI8 };
    static const blade_correlator_path paths[] = { BLADE_CORRELATOR_FP64,
                                                   BLADE_CORRELATOR_FP32,
                                                   BLADE_CORRELATOR_FP16 };
    for (size_t a = 0; a < sizeof antennas / sizeof antennas[0]; a++) {
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
                bench_case one = { 0 };
                one.module = "correlator";
                snprintf(one.label,
                         sizeof one.label,
                         "A = %d %s %s",
                         antennas[a],
                         blade_dtype_name(types[t]),
                         blade_correlator_path_name(paths[p]));
                /* The strictest target that applies, as a time per chunk at full size. */
                const double macs = (double)blade_correlator_baselines(antennas[a]) * POLS * POLS *
                                    CHANNELS * TIMES;
                double target_ms = 0;
                if (paths[p] == BLADE_CORRELATOR_FP32)
                    target_ms = 1e3 * 8.0 * macs / (TARGET_FP32_FRACTION * NOMINAL_FP32);
                else if (antennas[a] >= 64)
                    target_ms = 1e3 * 8.0 * macs / (TARGET_TENSOR_FRACTION * NOMINAL_FP16_TENSOR);
                if (antennas[a] == 28 && paths[p] != BLADE_CORRELATOR_FP64) {
                    const double realtime_ms = 1e3 * TIMES * SAMPLE_SECONDS / TARGET_REALTIME;
                    target_ms = target_ms > 0 && target_ms < realtime_ms ? target_ms : realtime_ms;
                }
                one.target_ms = target_ms;
                one.setup = correlator_setup;
                one.run = correlator_run;
                one.teardown = correlator_teardown;
                one.p[0] = antennas[a];
                one.p[1] = types[t];
                one.p[2] = paths[p];
                bench_add(cases, count, &one);
            }
        }
    }
}
