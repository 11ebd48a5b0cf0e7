/* SPDX-License-Identifier: MIT */
/*
 * Detector plan: validation at creation, the accumulator of integrations that span
 * chunks, dispatch to the CPU or CUDA backend.
 */
#include "cuda_backend.h"
#include "detector_backend.h"
#include "internal.h"

#include <blade/memory.h>
#include <blade/modules/detector.h>

#include <stdlib.h>
#include <strings.h>

struct blade_detector {
    blade_detector_config config;
    blade_shape input_shape, output_shape;
    blade_device device;
    int64_t chunk_integration; /* samples summed within one chunk: min(I, T) */
    int64_t rows;      /* outputs per chunk and per product: A * F * T / chunk_integration */
    int64_t steps;     /* K: chunks per output chunk */
    int64_t position;  /* step of the next process() call, 0 .. K - 1 */
    void* accumulator; /* K > 1: rows * Pout partial sums (double on the host, float on CUDA) */
};

static const struct {
    const char* name;
    int outputs;
    bool needs_two_polarizations;
} mode_table[] = {
    [BLADE_DETECT_I] = { "I", 1, false },
    [BLADE_DETECT_XXYY] = { "XXYY", 2, true },
    [BLADE_DETECT_CROSS] = { "cross", 4, true },
    [BLADE_DETECT_IQUV] = { "IQUV", 4, true },
};
#define MODE_COUNT ((int)(sizeof mode_table / sizeof mode_table[0]))

static bool mode_known(blade_detector_mode mode)
{
    return (int)mode >= 0 && (int)mode < MODE_COUNT;
}

const char* blade_detector_mode_name(blade_detector_mode mode)
{
    return mode_known(mode) ? mode_table[mode].name : "unknown";
}

int blade_detector_mode_outputs(blade_detector_mode mode)
{
    return mode_known(mode) ? mode_table[mode].outputs : 0;
}

blade_status blade_detector_mode_parse(const char* name, blade_detector_mode* mode)
{
    for (int i = 0; name != NULL && i < MODE_COUNT; i++) {
        if (strcasecmp(name, mode_table[i].name) == 0) {
            *mode = (blade_detector_mode)i;
            return BLADE_OK;
        }
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "unknown detector mode '%s' (expected I, XXYY, cross or IQUV)",
                      name ? name : "(null)");
}

static blade_status validate(const blade_detector_config* config, const blade_shape* shape)
{
    char text[128];
    BLADE_TRY(blade_shape_validate(shape, "detector input"));
    if (!mode_known(config->mode))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: unknown mode code %d (expected I, XXYY, cross or IQUV)",
                          (int)config->mode);
    if (shape->rank != 4)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: the input must be voltages [A, F, T, P] (rank 4) but "
                          "its shape is %s",
                          blade_shape_format(shape, text, sizeof text));
    const int64_t samples = shape->dims[2], polarizations = shape->dims[3];
    if (polarizations != 1 && polarizations != 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: the input %s has P = %lld polarizations; expected 2 "
                          "(X, Y), or 1 for mode I",
                          blade_shape_format(shape, text, sizeof text),
                          (long long)polarizations);
    if (polarizations == 1 && mode_table[config->mode].needs_two_polarizations)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: mode '%s' needs two polarizations (P = 2) but the "
                          "input %s has P = 1; with one polarization only mode 'I' (total "
                          "power) makes sense",
                          mode_table[config->mode].name,
                          blade_shape_format(shape, text, sizeof text));
    const int64_t integration = config->integration;
    if (integration < 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: integration %lld must be at least 1 time sample",
                          (long long)integration);
    if (integration <= samples && samples % integration != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: integration %lld does not divide the T = %lld time "
                          "samples of a chunk; choose a divisor of T, or a multiple of T "
                          "to integrate across chunks",
                          (long long)integration,
                          (long long)samples);
    if (integration > samples && integration % samples != 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: integration %lld spans more than one chunk of T = %lld "
                          "samples but is not a multiple of T (chunks are integrated whole: "
                          "use %lld or %lld)",
                          (long long)integration,
                          (long long)samples,
                          (long long)(integration / samples * samples),
                          (long long)((integration / samples + 1) * samples));
    return BLADE_OK;
}

blade_status blade_detector_create(blade_detector** detector,
                                   const blade_detector_config* config,
                                   const blade_shape* input_shape,
                                   blade_device device)
{
    *detector = NULL;
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "detector: no configuration given");
    BLADE_TRY(validate(config, input_shape));
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    if (!(config->scale >= 0) || config->scale > 3.0e38f)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: scale %g must be finite and positive (0 means 1)",
                          (double)config->scale);
    blade_detector* plan;
    BLADE_TRY(blade_alloc_object(sizeof *plan, "detector", (void**)&plan));
    const int64_t samples = input_shape->dims[2];
    const int outputs = mode_table[config->mode].outputs;
    plan->config = *config;
    if (plan->config.scale == 0)
        plan->config.scale = 1;
    plan->input_shape = *input_shape;
    plan->device = device;
    plan->chunk_integration = config->integration < samples ? config->integration : samples;
    plan->steps = config->integration > samples ? config->integration / samples : 1;
    plan->rows = input_shape->dims[0] * input_shape->dims[1] * (samples / plan->chunk_integration);
    plan->output_shape = blade_shape_aftp(
        input_shape->dims[0], input_shape->dims[1], samples / plan->chunk_integration, outputs);
    if (plan->steps > 1) {
        const size_t bytes = (size_t)(plan->rows * outputs) *
                             (device.kind == BLADE_DEVICE_CUDA ? sizeof(float) : sizeof(double));
        const blade_status status = blade_device_alloc(device, bytes, &plan->accumulator);
        if (status != BLADE_OK) {
            free(plan);
            return blade_fail_context(status, "detector accumulator");
        }
    }
    *detector = plan;
    return BLADE_OK;
}

blade_shape blade_detector_output_shape(const blade_detector* detector)
{
    return detector->output_shape;
}

int64_t blade_detector_steps(const blade_detector* detector) { return detector->steps; }

int64_t blade_detector_position(const blade_detector* detector) { return detector->position; }

void blade_detector_reset(blade_detector* detector) { detector->position = 0; }

void blade_detector_set_lower_sideband(blade_detector* detector, bool lower_sideband)
{
    detector->config.lower_sideband = lower_sideband;
}

blade_status blade_detector_process(blade_detector* detector,
                                    const blade_tensor* input,
                                    blade_tensor* output,
                                    blade_stream stream)
{
    /* Voltages are cf32, or cf16 (widened to float as they are read; the sums keep
     * their precision: double on the CPU, float on CUDA). */
    if (input != NULL && input->dtype != BLADE_CF32 && input->dtype != BLADE_CF16)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "detector: input tensor is %s; expected cf32 or cf16 voltages",
                          blade_dtype_name(input->dtype));
    const bool half_input = input != NULL && input->dtype == BLADE_CF16;
    BLADE_TRY(blade_check_tensor(
        "detector", "input", input, half_input ? BLADE_CF16 : BLADE_CF32, &detector->input_shape));
    BLADE_TRY(blade_check_tensor("detector", "output", output, BLADE_F32, &detector->output_shape));
    BLADE_TRY(blade_check_aliasing("detector",
                                   input,
                                   output,
                                   "the detector cannot run in place (its threads write "
                                   "power over voltages that others have yet to read); give "
                                   "it a separate output"));
    const bool first = detector->position == 0;
    const bool last = detector->position == detector->steps - 1;
    const int polarizations = (int)detector->input_shape.dims[3];

    if (detector->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(detector->device));
        BLADE_TRY(blade_cuda_detect(input->data,
                                    half_input,
                                    detector->rows,
                                    detector->chunk_integration,
                                    polarizations,
                                    detector->config.mode,
                                    detector->config.lower_sideband,
                                    first ? NULL : detector->accumulator,
                                    last ? output->data : detector->accumulator,
                                    last ? detector->config.scale : 1.0f,
                                    stream));
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "detector: built without CUDA");
#endif
    } else {
        blade_cpu_detect(input->data,
                         half_input,
                         detector->rows,
                         detector->chunk_integration,
                         polarizations,
                         detector->config.mode,
                         detector->config.lower_sideband,
                         first ? NULL : detector->accumulator,
                         last ? NULL : detector->accumulator,
                         output->data,
                         detector->config.scale);
    }
    detector->position = last ? 0 : detector->position + 1;
    return BLADE_OK;
}

void blade_detector_destroy(blade_detector* detector)
{
    if (detector == NULL)
        return;
    blade_device_free(detector->device, detector->accumulator);
    free(detector);
}
