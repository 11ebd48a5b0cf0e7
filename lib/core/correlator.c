/* SPDX-License-Identifier: MIT */
/*
 * Correlator plan: validation at creation, baseline numbering, the accumulator of
 * integrations that span chunks (as the detector's), the CUDA workspace, and
 * dispatch to the CPU or CUDA backend.
 */
#include "correlator_backend.h"
#include "cuda_backend.h"
#include "internal.h"

#include <blade/memory.h>
#include <blade/modules/correlator.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct blade_correlator {
    blade_correlator_config config;
    blade_shape input_shape, output_shape;
    blade_device device;
    blade_correlator_path path; /* resolved */
    int64_t window;             /* samples summed within one chunk: min(I, T) */
    int64_t steps;              /* K: chunks per output chunk */
    int64_t position;           /* step of the next process() call, 0 .. K - 1 */
    void* accumulator;          /* K > 1: the output's values (double on the host, float on CUDA) */
    void* workspace;            /* CUDA: partial sums of time slices */
    size_t workspace_bytes;
};

static const char* const path_names[BLADE_CORRELATOR_PATH_COUNT] = {
    "auto", "fp64", "fp32", "fp16"
};

blade_correlator_config blade_correlator_config_default(void)
{
    blade_correlator_config config = { BLADE_CF32, 1, 1, BLADE_CORRELATOR_AUTO, 1.0f, false };
    return config;
}

const char* blade_correlator_path_name(blade_correlator_path path)
{
    if ((int)path < 0 || path >= BLADE_CORRELATOR_PATH_COUNT)
        return "unknown";
    return path_names[path];
}

blade_status blade_correlator_path_parse(const char* name, blade_correlator_path* path)
{
    for (int i = 0; name != NULL && i < BLADE_CORRELATOR_PATH_COUNT; i++) {
        if (strcasecmp(name, path_names[i]) == 0) {
            *path = (blade_correlator_path)i;
            return BLADE_OK;
        }
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "correlator: unknown path '%s' (expected auto, fp64, fp32 or fp16)",
                      name ? name : "(null)");
}

int64_t blade_correlator_baselines(int64_t antennas)
{
    return antennas < 1 ? 0 : antennas * (antennas + 1) / 2;
}

int64_t blade_correlator_baseline_index(int64_t antennas, int64_t i, int64_t j)
{
    if (i < 0 || j < i || j >= antennas)
        return -1;
    /* Rows 0 .. i-1 of the upper triangle hold A + (A-1) + ... + (A-i+1) baselines. */
    return i * antennas - i * (i - 1) / 2 + (j - i);
}

blade_status
blade_correlator_baseline_antennas(int64_t antennas, int64_t index, int64_t* i, int64_t* j)
{
    if (index < 0 || index >= blade_correlator_baselines(antennas))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: baseline %lld is outside 0 .. %lld of %lld antennas",
                          (long long)index,
                          (long long)blade_correlator_baselines(antennas) - 1,
                          (long long)antennas);
    /* Walk the rows: A is at most a few thousand, and this is not on a hot path. */
    int64_t row = 0, first = 0;
    while (first + (antennas - row) <= index) {
        first += antennas - row;
        row++;
    }
    *i = row;
    *j = row + (index - first);
    return BLADE_OK;
}

static blade_status check_config(const blade_correlator_config* config)
{
    if (config->input_type != BLADE_CF32 && config->input_type != BLADE_CI8)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: voltages must be cf32 or ci8, given %s; cast other types "
                          "to cf32 first",
                          blade_dtype_name(config->input_type));
    if ((int)config->path < 0 || config->path >= BLADE_CORRELATOR_PATH_COUNT)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: unknown path code %d (expected auto, fp64, fp32 or fp16)",
                          (int)config->path);
    if (!isfinite(config->operand_scale) || config->operand_scale < 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: operand_scale %g must be finite and positive (0 means 1)",
                          (double)config->operand_scale);
    return BLADE_OK;
}

static blade_status check_shape(const blade_correlator_config* config, const blade_shape* shape)
{
    char text[128];
    BLADE_TRY(blade_shape_validate(shape, "correlator input"));
    if (shape->rank != 4)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: the input must be voltages [A, F, T, P] (rank 4) but its "
                          "shape is %s",
                          blade_shape_format(shape, text, sizeof text));
    const int64_t antennas = shape->dims[0], channels = shape->dims[1];
    const int64_t samples = shape->dims[2], polarizations = shape->dims[3];
    if (polarizations != 1 && polarizations != 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: the input %s has P = %lld polarizations; expected 2 (X, "
                          "Y) or 1",
                          blade_shape_format(shape, text, sizeof text),
                          (long long)polarizations);
    if (antennas > INT32_MAX / 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: at most %d antennas, given A = %lld",
                          INT32_MAX / 2,
                          (long long)antennas);
    const int64_t integration = config->integration;
    if (integration < 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: integration %lld must be at least 1 time sample",
                          (long long)integration);
    if (integration <= samples && samples % integration != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: integration %lld does not divide the T = %lld time samples "
                          "of a chunk; choose a divisor of T, or a multiple of T to integrate "
                          "across chunks",
                          (long long)integration,
                          (long long)samples);
    if (integration > samples && integration % samples != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: integration %lld spans more than one chunk of T = %lld "
                          "samples but is not a multiple of T (chunks are integrated whole: use "
                          "%lld or %lld)",
                          (long long)integration,
                          (long long)samples,
                          (long long)(integration / samples * samples),
                          (long long)((integration / samples + 1) * samples));
    const int64_t fc = config->channel_integration;
    if (fc < 1 || channels % fc != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: channel integration %lld must be at least 1 and divide the "
                          "F = %lld channels of %s",
                          (long long)fc,
                          (long long)channels,
                          blade_shape_format(shape, text, sizeof text));
    /* The output must be a valid tensor too (B grows as A^2). */
    const int64_t baselines = blade_correlator_baselines(antennas);
    const int64_t windows = integration < samples ? samples / integration : 1;
    const double outputs = (double)baselines * (double)(channels / fc) * (double)windows *
                           (double)(polarizations * polarizations);
    if (outputs > (double)BLADE_MAX_ELEMENTS)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: %s would give %.3g visibilities per chunk, more than a "
                          "tensor may hold; integrate longer or over channels",
                          blade_shape_format(shape, text, sizeof text),
                          outputs);
    return BLADE_OK;
}

static blade_status resolve_path(const blade_correlator_config* config,
                                 blade_device device,
                                 blade_correlator_path* path)
{
    if (device.kind != BLADE_DEVICE_CUDA) {
        /* The CPU computes the reference for every path but fp32, which it computes
         * in float32 through BLAS where gr-blade has OpenBLAS. */
#ifdef BLADE_HAVE_OPENBLAS
        *path =
            config->path == BLADE_CORRELATOR_FP32 ? BLADE_CORRELATOR_FP32 : BLADE_CORRELATOR_FP64;
#else
        *path = BLADE_CORRELATOR_FP64;
#endif
        return BLADE_OK;
    }
    if (config->path == BLADE_CORRELATOR_FP64)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: path fp64 is the CPU reference; on a GPU use fp32 (or auto) "
                          "or fp16");
    *path = config->path == BLADE_CORRELATOR_AUTO ? BLADE_CORRELATOR_FP32 : config->path;
    if (*path != BLADE_CORRELATOR_FP16)
        return BLADE_OK;
    /* mma.sync with fp16 operands in the m16n8k16 shape needs Ampere (8.0) or newer. */
    blade_gpu_info info;
    BLADE_TRY(blade_gpu_info_get(device.index, &info));
    if (info.compute_major < 8) {
        char text[32];
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "correlator: path fp16 uses tensor cores that need compute capability "
                          "8.0 or newer; %s is %d.%d (use path fp32)",
                          blade_device_format(device, text, sizeof text),
                          info.compute_major,
                          info.compute_minor);
    }
    return BLADE_OK;
}

/* The job of a plan, without tensors. */
static blade_correlator_job plan_job(const blade_correlator* plan)
{
    blade_correlator_job job;
    memset(&job, 0, sizeof job);
    job.input_type = plan->config.input_type;
    job.antennas = plan->input_shape.dims[0];
    job.channels = plan->input_shape.dims[1];
    job.times = plan->input_shape.dims[2];
    job.pols = plan->input_shape.dims[3];
    job.window = plan->window;
    job.windows = job.times / plan->window;
    job.channel_integration = plan->config.channel_integration;
    job.lower_sideband = plan->config.lower_sideband;
    job.path = plan->path;
    job.operand_scale = plan->config.operand_scale > 0 ? plan->config.operand_scale : 1.0f;
    job.workspace = plan->workspace;
    job.workspace_bytes = plan->workspace_bytes;
    return job;
}

static void release(blade_correlator* plan)
{
    blade_device_free(plan->device, plan->accumulator);
    blade_device_free(plan->device, plan->workspace);
    free(plan);
}

blade_status blade_correlator_create(blade_correlator** correlator,
                                     const blade_correlator_config* config,
                                     const blade_shape* input_shape,
                                     blade_device device)
{
    *correlator = NULL;
    if (config == NULL || input_shape == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: a configuration and an input shape are required");
    BLADE_TRY(check_config(config));
    BLADE_TRY(check_shape(config, input_shape));
    if (device.kind == BLADE_DEVICE_CUDA) {
        /* Said plainly here: activating an absent GPU fails with whatever the CUDA
         * runtime makes of a missing driver. */
        const int gpus = blade_gpu_count();
        if (device.index < 0 || device.index >= gpus)
            return blade_fail(BLADE_ERROR_NO_DEVICE,
                              "correlator: GPU %d is not present (%d CUDA GPU%s found)",
                              device.index,
                              gpus,
                              gpus == 1 ? "" : "s");
        BLADE_TRY(blade_device_activate(device));
    }
    blade_correlator_path path;
    BLADE_TRY(resolve_path(config, device, &path));

    blade_correlator* plan;
    BLADE_TRY(blade_alloc_object(sizeof *plan, "correlator", (void**)&plan));
    const int64_t antennas = input_shape->dims[0], channels = input_shape->dims[1];
    const int64_t samples = input_shape->dims[2], polarizations = input_shape->dims[3];
    plan->config = *config;
    plan->input_shape = *input_shape;
    plan->device = device;
    plan->path = path;
    plan->window = config->integration < samples ? config->integration : samples;
    plan->steps = config->integration > samples ? config->integration / samples : 1;
    plan->output_shape = blade_shape_aftp(blade_correlator_baselines(antennas),
                                          channels / config->channel_integration,
                                          samples / plan->window,
                                          polarizations * polarizations);
    if (plan->steps > 1) {
        const size_t values = 2 * (size_t)blade_shape_count(&plan->output_shape);
        const size_t bytes =
            values * (device.kind == BLADE_DEVICE_CUDA ? sizeof(float) : sizeof(double));
        const blade_status status = blade_device_alloc(device, bytes, &plan->accumulator);
        if (status != BLADE_OK) {
            release(plan);
            return blade_fail_context(status, "correlator accumulator of %zu bytes", bytes);
        }
    }
#ifdef BLADE_HAVE_CUDA
    if (device.kind == BLADE_DEVICE_CUDA) {
        const blade_correlator_job job = plan_job(plan);
        plan->workspace_bytes = blade_cuda_correlator_workspace(&job);
        if (plan->workspace_bytes > 0) {
            const blade_status status =
                blade_device_alloc(device, plan->workspace_bytes, &plan->workspace);
            if (status != BLADE_OK) {
                const size_t bytes = plan->workspace_bytes;
                release(plan);
                return blade_fail_context(status, "correlator workspace of %zu bytes", bytes);
            }
        }
    }
#endif
    *correlator = plan;
    return BLADE_OK;
}

blade_shape blade_correlator_output_shape(const blade_correlator* correlator)
{
    return correlator->output_shape;
}

blade_correlator_path blade_correlator_path_used(const blade_correlator* correlator)
{
    return correlator->path;
}

int64_t blade_correlator_steps(const blade_correlator* correlator) { return correlator->steps; }

int64_t blade_correlator_position(const blade_correlator* correlator)
{
    return correlator->position;
}

void blade_correlator_reset(blade_correlator* correlator) { correlator->position = 0; }

void blade_correlator_set_lower_sideband(blade_correlator* correlator, bool lower_sideband)
{
    correlator->config.lower_sideband = lower_sideband;
}

/* The output must not share memory with the voltages it is computed from. */
static blade_status check_disjoint(const blade_tensor* output, const blade_tensor* input)
{
    const char* out_begin = output->data;
    const char* out_end = out_begin + blade_tensor_bytes(output->dtype, &output->shape);
    const char* begin = input->data;
    const char* end = begin + blade_tensor_bytes(input->dtype, &input->shape);
    if (out_begin < end && begin < out_end)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "correlator: the output tensor overlaps the voltage tensor");
    return BLADE_OK;
}

blade_status blade_correlator_process(blade_correlator* correlator,
                                      const blade_tensor* input,
                                      blade_tensor* output,
                                      blade_stream stream)
{
    BLADE_TRY(blade_check_tensor(
        "correlator", "voltage", input, correlator->config.input_type, &correlator->input_shape));
    BLADE_TRY(
        blade_check_tensor("correlator", "output", output, BLADE_CF32, &correlator->output_shape));
    BLADE_TRY(check_disjoint(output, input));
    const bool first = correlator->position == 0;
    const bool last = correlator->position == correlator->steps - 1;
    blade_correlator_job job = plan_job(correlator);
    job.input = input->data;

    if (correlator->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(correlator->device));
        BLADE_TRY(blade_cuda_correlate(&job,
                                       first ? NULL : correlator->accumulator,
                                       last ? output->data : correlator->accumulator,
                                       stream));
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "correlator: built without CUDA");
#endif
    } else {
        BLADE_TRY(blade_cpu_correlate(&job,
                                      first ? NULL : correlator->accumulator,
                                      last ? NULL : correlator->accumulator,
                                      output->data));
    }
    correlator->position = last ? 0 : correlator->position + 1;
    return BLADE_OK;
}

void blade_correlator_destroy(blade_correlator* correlator)
{
    if (correlator == NULL)
        return;
    release(correlator);
}
