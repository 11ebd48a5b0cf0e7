/* SPDX-License-Identifier: MIT */
/*
 * Beamformer cases: (B, A) in {(1, 20), (2, 20), (8, 20), (1, 42), (8, 28), (32, 28),
 * (64, 64), (256, 64), (1024, 64)} at F = 192, T = 8192, P = 2 (performance.md), each with the
 * bytes it must move (voltages read, phasors read, beams written), its complex MACs
 * and flops (8 per complex MAC), and the bound that applies: memory where the
 * memory time exceeds the FP32 time at the nominal H200 rates, FP32 otherwise; the
 * tensor-core paths are memory bound at these sizes.
 *
 * Targets (H200): (1, 20) <= 0.15 ms and (8, 20) <= 0.21 ms with cf32 voltages;
 * (8, 28) with ci8 voltages >= 60 % of its roofline; (64, 64) >= 5 T complex MAC/s on
 * FP32 and >= 10 T on tensor cores; B = 32 ... 256: time per beam not growing; the fp16
 * path >= 40 T at (64, 64) and (1024, 64) (ci8 voltages, cf16 beams), its % column a
 * fraction of the dense fp16 tensor-core peak.
 *
 * The cases without a kernel in their label run the default kernel of their path; the
 * cases labelled [direct], [staged1], [staged2], [tensor] run that kernel, so that one
 * run times every kernel at (1, 20), (8, 20), (8, 28), (32, 28), (64, 64) and the
 * default can be set from the numbers (lib/core/beamformer.c).
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

enum { CHANNELS = 192, TIMES = 8192, POLS = 2 };

/* Nominal H200 rates, only to say which limit a case is bound by. */
#define NOMINAL_BANDWIDTH 4.28e12
#define NOMINAL_FP32 67e12
/* Dense fp16 tensor-core peak (FP32 accumulation), what the fp16 path is measured against. */
#define NOMINAL_FP16_TENSOR 989e12

typedef struct beamformer_state {
    blade_beamformer* plan;
    blade_tensor input, phasors, output;
} beamformer_state;

/* `count` complex halves on the device: random floats in [-100, 100) through a cast. */
static blade_status random_halves(blade_device device, int64_t count, unsigned seed, void** out)
{
    *out = NULL;
    void* floats = NULL;
    blade_cast* cast = NULL;
    const blade_cast_config config = { BLADE_CF32, BLADE_CF16 };
    const blade_shape shape = blade_shape_aftp(1, 1, count, 1);
    blade_status status = bench_random_floats(device, 2 * (size_t)count, 100.0f, seed, &floats);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, blade_tensor_bytes(BLADE_CF16, &shape), out);
    if (status == BLADE_OK)
        status = blade_cast_create(&cast, &config, &shape, device);
    if (status == BLADE_OK) {
        blade_tensor from = blade_tensor_make(BLADE_CF32, &shape, device, floats);
        blade_tensor to = blade_tensor_make(BLADE_CF16, &shape, device, *out);
        status = blade_cast_process(cast, &from, &to, NULL);
    }
    if (status == BLADE_OK)
        status = blade_stream_synchronize(device, NULL);
    blade_cast_destroy(cast);
    blade_device_free(device, floats);
    return status;
}

static blade_status
beamformer_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    beamformer_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const int64_t B = self->p[0], A = self->p[1];
    if (device.kind == BLADE_DEVICE_CPU && self->p[5] != BLADE_BEAMFORMER_KERNEL_DEFAULT) {
        /* Kernels are GPU kernels: on the CPU the case would time the default again. */
        self->skipped = "a GPU kernel (the CPU has one implementation per shape)";
        return BLADE_OK;
    }
    if (device.kind != BLADE_DEVICE_CUDA && B >= 1024) {
        /* 5 s a run on a 2-core CPU even at --quick shapes: it would double the smoke run */
        self->skipped = "a GPU-scale case (B >= 1024)";
        return BLADE_OK;
    }
    blade_beamformer_config config = blade_beamformer_config_default();
    config.input_type = (blade_dtype)self->p[2];
    config.path = (blade_beamformer_path)self->p[3];
    config.incoherent = self->p[4] != 0;
    config.kernel = (blade_beamformer_kernel)self->p[5];
    config.output_type = (blade_dtype)self->p[6];
    const blade_shape input = blade_shape_aftp(A, CHANNELS, TIMES / shrink, POLS);
    const int64_t dims[5] = { B, A, CHANNELS, 1, POLS };
    blade_shape phasors;
    blade_status status = blade_shape_make(dims, 5, &phasors);
    if (status == BLADE_OK)
        status = blade_beamformer_create(&state->plan, &config, &input, &phasors, device);
    if (status != BLADE_OK)
        return status;
    const blade_shape output = blade_beamformer_output_shape(state->plan);
    const int64_t samples = blade_shape_count(&input);
    self->samples = (double)samples;
    self->macs = (double)samples * (double)B;
    self->flops = 8.0 * self->macs;
    self->bytes = (double)(blade_tensor_bytes(config.input_type, &input) +
                           blade_tensor_bytes(BLADE_CF32, &phasors) +
                           blade_tensor_bytes(config.output_type, &output));
    self->written = (double)blade_tensor_bytes(config.output_type, &output);
    const blade_beamformer_path used = blade_beamformer_path_used(state->plan);
    const bool tensor_cores = used == BLADE_BEAMFORMER_TF32 || used == BLADE_BEAMFORMER_TF32X3;
    self->bound = !tensor_cores && self->flops / NOMINAL_FP32 > self->bytes / NOMINAL_BANDWIDTH
                      ? BENCH_FP32
                      : BENCH_MEMORY;
    if (used == BLADE_BEAMFORMER_FP16 && device.kind == BLADE_DEVICE_CUDA) {
        /* the % column: of the fp16 dense peak (the GB/s column gives the memory side) */
        self->bound = BENCH_TENSOR;
        self->tensor_peak = NOMINAL_FP16_TENSOR;
    }

    void *x = NULL, *w = NULL, *y = NULL;
    if (config.input_type == BLADE_CI8)
        status = bench_random_device(device, blade_tensor_bytes(BLADE_CI8, &input), 21, &x);
    else if (config.input_type == BLADE_CF16)
        status = random_halves(device, samples, 21, &x);
    else
        status = bench_random_floats(device, 2 * (size_t)samples, 100.0f, 21, &x);
    if (status == BLADE_OK)
        status = bench_random_floats(device, 2 * (size_t)blade_shape_count(&phasors), 1.0f, 22, &w);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, blade_tensor_bytes(config.output_type, &output), &y);
    state->input = blade_tensor_make(config.input_type, &input, device, x);
    state->phasors = blade_tensor_make(BLADE_CF32, &phasors, device, w);
    state->output = blade_tensor_make(config.output_type, &output, device, y);
    return status;
}

static blade_status beamformer_run(bench_case* self, blade_stream stream)
{
    beamformer_state* state = self->state;
    return blade_beamformer_process(
        state->plan, &state->input, &state->phasors, &state->output, stream);
}

static void beamformer_teardown(bench_case* self, blade_device device)
{
    beamformer_state* state = self->state;
    if (state == NULL)
        return;
    blade_beamformer_destroy(state->plan);
    blade_device_free(device, state->input.data);
    blade_device_free(device, state->phasors.data);
    blade_device_free(device, state->output.data);
    free(state);
    self->state = NULL;
}

/* Bytes of a full-size case (cf32 beams), for targets stated as a fraction of the
 * roofline. */
static double full_bytes(int64_t B, int64_t A, blade_dtype input_type, bool incoherent)
{
    const double samples = (double)A * CHANNELS * TIMES * POLS;
    const double esize = input_type == BLADE_CI8 ? 2.0 : input_type == BLADE_CF16 ? 4.0 : 8.0;
    return samples * esize + (double)B * A * CHANNELS * POLS * 8.0 +
           (double)(B + (incoherent ? 1 : 0)) * CHANNELS * TIMES * POLS * 8.0;
}

void bench_register_beamformer(bench_case** cases, int* count)
{
    static const struct {
        int beams, antennas;
        blade_dtype input_type;
        blade_beamformer_path path;
        bool incoherent;
        double upstream_ms, target_ms;
        double target_roofline;  /* target as a fraction of the memory roofline */
        double target_macs;      /* target in complex MAC/s */
        blade_dtype output_type; /* 0: cf32 */
    } shapes[] = {
        { 1, 20, BLADE_CF32, BLADE_BEAMFORMER_FP32, false, 0.162, 0.15, 0, 0 },
        { 2, 20, BLADE_CF32, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 0 },
        { 8, 20, BLADE_CF32, BLADE_BEAMFORMER_FP32, false, 0.250, 0.21, 0, 0 },
        { 8, 20, BLADE_CF32, BLADE_BEAMFORMER_FP32, true, 0, 0, 0, 0 },
        { 8, 20, BLADE_CI8, BLADE_BEAMFORMER_FP32, true, 0, 0, 0, 0 },
        { 1, 42, BLADE_CF32, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 0 },
        { 8, 28, BLADE_CF32, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 0 },
        { 8, 28, BLADE_CI8, BLADE_BEAMFORMER_FP32, false, 0, 0, 0.6, 0 },
        { 32, 28, BLADE_CI8, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 0 },
        { 64, 28, BLADE_CI8, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 0 },
        { 128, 28, BLADE_CI8, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 0 },
        { 256, 28, BLADE_CI8, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 0 },
        { 64, 64, BLADE_CF32, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 5e12 },
        { 64, 64, BLADE_CF32, BLADE_BEAMFORMER_TF32, false, 0, 0, 0, 10e12 },
        { 64, 64, BLADE_CF32, BLADE_BEAMFORMER_TF32X3, false, 0, 0, 0, 10e12 },
        { 64, 64, BLADE_CI8, BLADE_BEAMFORMER_TF32X3, false, 0, 0, 0, 10e12 },
        { 256, 64, BLADE_CF32, BLADE_BEAMFORMER_FP32, false, 0, 0, 0, 0 },
        { 256, 64, BLADE_CF32, BLADE_BEAMFORMER_TF32, false, 0, 0, 0, 10e12 },
        { 256, 64, BLADE_CF32, BLADE_BEAMFORMER_TF32X3, false, 0, 0, 0, 10e12 },
        /* fp16 tensor cores (issue 18: >= 40 T complex MAC/s at (64, 64) and (1024, 64)).
         * Memory bound: only ci8 voltages with cf16 beams (1.2 GB at (64, 64)) leave
         * room for 40 T; cf32 in and out (3.2 GB) caps (64, 64) at 17 T. */
        { 64, 64, BLADE_CI8, BLADE_BEAMFORMER_FP16, false, 0, 0, 0, 40e12, BLADE_CF16 },
        { 64, 64, BLADE_CF16, BLADE_BEAMFORMER_FP16, false, 0, 0, 0, 0, BLADE_CF16 },
        { 64, 64, BLADE_CF32, BLADE_BEAMFORMER_FP16, false, 0, 0, 0, 0, BLADE_CF32 },
        { 64, 64, BLADE_CI8, BLADE_BEAMFORMER_FP16, true, 0, 0, 0, 0, BLADE_CF16 },
        { 1024, 64, BLADE_CI8, BLADE_BEAMFORMER_FP16, false, 0, 0, 0, 40e12, BLADE_CF16 },
        { 1024, 64, BLADE_CF16, BLADE_BEAMFORMER_FP16, false, 0, 0, 0, 40e12, BLADE_CF16 },
        { 1024, 64, BLADE_CF32, BLADE_BEAMFORMER_FP16, false, 0, 0, 0, 0, BLADE_CF32 },
        { 1024, 64, BLADE_CI8, BLADE_BEAMFORMER_TF32, false, 0, 0, 0, 0, BLADE_CF16 },
        /* Mode B's shape in the fp16 chain (ATA node: cf16 voltages, few beams) */
        { 8, 28, BLADE_CF16, BLADE_BEAMFORMER_FP16, true, 0, 0, 0, 0, BLADE_CF32 },
        { 8, 28, BLADE_CF16, BLADE_BEAMFORMER_FP32, true, 0, 0, 0, 0, BLADE_CF32 },
    };
    /* Every kernel at the shapes that decide the defaults (targets as above). */
    static const struct {
        int beams, antennas;
        blade_dtype input_type;
        double target_ms, target_roofline, target_macs;
    } kernel_shapes[] = {
        { 1, 20, BLADE_CF32, 0.15, 0, 0 },  { 8, 20, BLADE_CF32, 0.21, 0, 0 },
        { 8, 28, BLADE_CI8, 0, 0.6, 0 },    { 32, 28, BLADE_CI8, 0, 0, 0 },
        { 64, 64, BLADE_CF32, 0, 0, 5e12 }, { 64, 64, BLADE_CI8, 0, 0, 5e12 },
    };
    static const blade_beamformer_kernel cuda_core_kernels[] = { BLADE_BEAMFORMER_KERNEL_DIRECT,
                                                                 BLADE_BEAMFORMER_KERNEL_STAGED1,
                                                                 BLADE_BEAMFORMER_KERNEL_STAGED2 };
    static const blade_beamformer_kernel tensor_kernels[] = { BLADE_BEAMFORMER_KERNEL_TENSOR };
    static const blade_beamformer_path tensor_paths[] = { BLADE_BEAMFORMER_TF32,
                                                          BLADE_BEAMFORMER_TF32X3 };

    const size_t listed = sizeof shapes / sizeof shapes[0];
    const size_t cuda_core = sizeof kernel_shapes / sizeof kernel_shapes[0] *
                             (sizeof cuda_core_kernels / sizeof cuda_core_kernels[0]);
    const size_t tensor = 2 * (sizeof tensor_kernels / sizeof tensor_kernels[0]) *
                          (sizeof tensor_paths / sizeof tensor_paths[0]);
    for (size_t i = 0; i < listed + cuda_core + tensor; i++) {
        int beams, antennas;
        blade_dtype input_type;
        blade_beamformer_path path;
        blade_beamformer_kernel kernel = BLADE_BEAMFORMER_KERNEL_DEFAULT;
        bool incoherent = false;
        blade_dtype output_type = BLADE_CF32;
        double upstream_ms = 0, target_ms, target_roofline, target_macs;
        if (i < listed) {
            if (shapes[i].output_type != 0)
                output_type = shapes[i].output_type;
            beams = shapes[i].beams;
            antennas = shapes[i].antennas;
            input_type = shapes[i].input_type;
            path = shapes[i].path;
            incoherent = shapes[i].incoherent;
            upstream_ms = shapes[i].upstream_ms;
            target_ms = shapes[i].target_ms;
            target_roofline = shapes[i].target_roofline;
            target_macs = shapes[i].target_macs;
        } else if (i < listed + cuda_core) {
            const size_t k = i - listed,
                         kernels = sizeof cuda_core_kernels / sizeof cuda_core_kernels[0];
            const size_t shape = k / kernels;
            beams = kernel_shapes[shape].beams;
            antennas = kernel_shapes[shape].antennas;
            input_type = kernel_shapes[shape].input_type;
            path = BLADE_BEAMFORMER_FP32;
            kernel = cuda_core_kernels[k % kernels];
            target_ms = kernel_shapes[shape].target_ms;
            target_roofline = kernel_shapes[shape].target_roofline;
            target_macs = kernel_shapes[shape].target_macs;
        } else {
            /* (64, 64) cf32 and ci8, each tensor kernel, tf32 and tf32x3 */
            const size_t k = i - listed - cuda_core,
                         kernels = sizeof tensor_kernels / sizeof tensor_kernels[0];
            const size_t paths = sizeof tensor_paths / sizeof tensor_paths[0];
            beams = 64;
            antennas = 64;
            input_type = k / (kernels * paths) == 0 ? BLADE_CF32 : BLADE_CI8;
            kernel = tensor_kernels[k / paths % kernels];
            path = tensor_paths[k % paths];
            target_ms = 0;
            target_roofline = 0;
            target_macs = 10e12;
        }
        bench_case one = { 0 };
        one.module = "beamformer";
        char kernel_text[32] = "";
        if (kernel != BLADE_BEAMFORMER_KERNEL_DEFAULT)
            snprintf(
                kernel_text, sizeof kernel_text, " [%s]", blade_beamformer_kernel_name(kernel));
        char output_text[16] = "";
        if (output_type != BLADE_CF32)
            snprintf(output_text, sizeof output_text, " -> %s", blade_dtype_name(output_type));
        snprintf(one.label,
                 sizeof one.label,
                 "(B, A) = (%d, %d) %s %s%s%s%s",
                 beams,
                 antennas,
                 blade_dtype_name(input_type),
                 blade_beamformer_path_name(path),
                 output_text,
                 incoherent ? " +inc" : "",
                 kernel_text);
        one.upstream_ms = upstream_ms;
        one.target_ms = target_ms;
        const double macs = (double)beams * antennas * CHANNELS * TIMES * POLS;
        if (target_roofline > 0)
            one.target_ms = 1e3 * full_bytes(beams, antennas, input_type, incoherent) /
                            (target_roofline * NOMINAL_BANDWIDTH);
        if (target_macs > 0)
            one.target_ms = 1e3 * macs / target_macs;
        one.setup = beamformer_setup;
        one.run = beamformer_run;
        one.teardown = beamformer_teardown;
        one.p[0] = beams;
        one.p[1] = antennas;
        one.p[2] = input_type;
        one.p[3] = path;
        one.p[4] = incoherent;
        one.p[5] = kernel;
        one.p[6] = output_type;
        bench_add(cases, count, &one);
    }
}
