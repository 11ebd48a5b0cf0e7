/* SPDX-License-Identifier: MIT */
/*
 * Channelizer plan: validation at creation, the polyphase prototype filter, and
 * dispatch to the CPU (FFTW) or CUDA backend. The maths is defined in
 * include/blade/modules/channelizer.h.
 */
#include "channelizer_backend.h"
#include "cuda_backend.h"
#include "internal.h"

#include <blade/modules/channelizer.h>

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

struct blade_channelizer {
    blade_channelizer_config config;
    blade_shape input_shape;
    blade_shape output_shape;
    blade_device device;
    blade_channelizer_geometry geometry;
    blade_cpu_channelizer* cpu; /* CPU and emulated devices */
#ifdef BLADE_HAVE_CUDA
    blade_cuda_channelizer* cuda;
#endif
};

static const char* const window_names[BLADE_WINDOW_COUNT] = {
    "rectangular", "hamming", "hann", "blackman", "blackman-harris"
};

const char* blade_channelizer_window_name(blade_channelizer_window window)
{
    if ((int)window < 0 || window >= BLADE_WINDOW_COUNT)
        return "";
    return window_names[window];
}

blade_status blade_channelizer_window_parse(const char* name, blade_channelizer_window* window)
{
    char text[32];
    const size_t length = name ? strlen(name) : 0;
    if (name != NULL && length < sizeof text) {
        for (size_t i = 0; i <= length; i++)
            text[i] = name[i] == '_' ? '-' : (char)tolower((unsigned char)name[i]);
        if (strcmp(text, "blackmanharris") == 0)
            strcpy(text, "blackman-harris");
        for (int i = 0; i < BLADE_WINDOW_COUNT; i++)
            if (strcmp(text, window_names[i]) == 0) {
                *window = (blade_channelizer_window)i;
                return BLADE_OK;
            }
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "unknown window '%s' (expected rectangular, hamming, hann, blackman or "
                      "blackman-harris)",
                      name ? name : "(null)");
}

static double window_value(blade_channelizer_window window, int64_t j, int64_t length)
{
    const double theta = 2.0 * M_PI * (double)j / (double)(length - 1);
    switch (window) {
    case BLADE_WINDOW_HAMMING:
        return 0.54 - 0.46 * cos(theta);
    case BLADE_WINDOW_HANN:
        return 0.5 - 0.5 * cos(theta);
    case BLADE_WINDOW_BLACKMAN:
        return 0.42 - 0.5 * cos(theta) + 0.08 * cos(2 * theta);
    case BLADE_WINDOW_BLACKMAN_HARRIS:
        return 0.35875 - 0.48829 * cos(theta) + 0.14128 * cos(2 * theta) - 0.01168 * cos(3 * theta);
    default:
        return 1.0;
    }
}

static double sinc(double u)
{
    if (u == 0.0)
        return 1.0;
    return sin(M_PI * u) / (M_PI * u);
}

static blade_status check_filter_arguments(int64_t rate, int taps, blade_channelizer_window window)
{
    if (rate < 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: rate %lld; the rate (FFT length N, fine channels per "
                          "coarse channel) must be at least 1",
                          (long long)rate);
    if (taps < 1 || taps > BLADE_CHANNELIZER_MAX_TAPS)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: taps %d; the polyphase filter has 1 (plain FFT) to %d "
                          "taps per branch",
                          taps,
                          BLADE_CHANNELIZER_MAX_TAPS);
    if ((int)window < 0 || window >= BLADE_WINDOW_COUNT)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: unknown window code %d (expected 0..%d: rectangular, "
                          "hamming, hann, blackman, blackman-harris)",
                          (int)window,
                          BLADE_WINDOW_COUNT - 1);
    return BLADE_OK;
}

/* Response of the prototype with bandwidth factor beta half a fine channel from the
 * centre, relative to its response at the centre: |sum g_j cos(pi (j - c)/N)| /
 * |sum g_j| (the filter is symmetric about c = (L-1)/2, so its transform is real up
 * to a linear phase). Sums run over the lower half, doubled, plus the middle tap of
 * odd lengths. `window` and `cosine` hold w_j and cos(pi (j - c)/N) for j < L/2 + 1. */
static double
edge_response(const double* window, const double* cosine, int64_t length, int64_t rate, double beta)
{
    const double centre = 0.5 * (double)(length - 1);
    double at_edge = 0.0, at_centre = 0.0;
    for (int64_t j = 0; j < (length + 1) / 2; j++) {
        const double weight = (2 * j + 1 == length) ? 1.0 : 2.0; /* middle tap once */
        const double g = window[j] * sinc(beta * ((double)j - centre) / (double)rate);
        at_edge += weight * g * cosine[j];
        at_centre += weight * g;
    }
    return fabs(at_edge) / fabs(at_centre);
}

blade_status
blade_channelizer_prototype(int64_t rate, int taps, blade_channelizer_window window, double* filter)
{
    BLADE_TRY(check_filter_arguments(rate, taps, window));
    const int64_t length = rate * taps;
    if (taps == 1) {
        for (int64_t j = 0; j < length; j++)
            filter[j] = 1.0;
        return BLADE_OK;
    }
    const double centre = 0.5 * (double)(length - 1);
    const int64_t half = (length + 1) / 2;
    double* windows = malloc((size_t)half * sizeof *windows);
    double* cosines = malloc((size_t)half * sizeof *cosines);
    if (windows == NULL || cosines == NULL) {
        free(windows);
        free(cosines);
        return blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                          "channelizer: no memory to design a %lld-tap filter",
                          (long long)length);
    }
    for (int64_t j = 0; j < half; j++) {
        windows[j] = window_value(window, j, length);
        cosines[j] = cos(M_PI * ((double)j - centre) / (double)rate);
    }
    /* Bisection for the bandwidth factor that puts the channel edges at -3 dB. */
    double low = BLADE_CHANNELIZER_BETA_MIN, high = BLADE_CHANNELIZER_BETA_MAX;
    for (int i = 0; i < 50; i++) {
        const double middle = 0.5 * (low + high);
        if (edge_response(windows, cosines, length, rate, middle) < sqrt(0.5))
            low = middle; /* too narrow: widen */
        else
            high = middle;
    }
    const double beta = 0.5 * (low + high);
    free(windows);
    free(cosines);

    double sum = 0;
    for (int64_t j = 0; j < length; j++) {
        filter[j] =
            window_value(window, j, length) * sinc(beta * ((double)j - centre) / (double)rate);
        sum += filter[j];
    }
    for (int64_t j = 0; j < length; j++)
        filter[j] *= (double)rate / sum;
    return BLADE_OK;
}


/* The divisors of t nearest to n from below and above (0 when there is none above). */
static void nearest_divisors(int64_t t, int64_t n, int64_t* below, int64_t* above)
{
    *below = 1;
    *above = 0;
    for (int64_t d = n < t ? n : t; d >= 1; d--)
        if (t % d == 0) {
            *below = d;
            break;
        }
    for (int64_t d = n + 1; d <= t; d++)
        if (t % d == 0) {
            *above = d;
            break;
        }
}

static blade_status validate(const blade_channelizer_config* config, const blade_shape* shape)
{
    char text[128];
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "channelizer: no configuration given");
    BLADE_TRY(blade_shape_validate(shape, "channelizer input"));
    if (shape->rank != 4)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: input shape %s has rank %d; the channelizer takes "
                          "voltages [A, F, T, P] (rank 4)",
                          blade_shape_format(shape, text, sizeof text),
                          shape->rank);
    if (config->input_type != BLADE_CF32 && config->input_type != BLADE_CF16)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: input type %s; the channelizer takes cf32 or cf16 (put "
                          "a cast before it)",
                          blade_dtype_name(config->input_type));
    if (config->output_type != BLADE_CF32 && config->output_type != BLADE_CF16)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: output type %s; the channelizer writes cf32 or cf16",
                          blade_dtype_name(config->output_type));
    BLADE_TRY(check_filter_arguments(config->rate, config->taps, config->window));
    if ((int)config->kernel < 0 || config->kernel >= BLADE_CHANNELIZER_KERNEL_COUNT)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: unknown kernel code %d (expected 0..%d: auto, shared, "
                          "direct, general, four-step, direct-half)",
                          (int)config->kernel,
                          BLADE_CHANNELIZER_KERNEL_COUNT - 1);
    const int64_t n = config->rate, t = shape->dims[2];
    if (n > t || t % n != 0) {
        int64_t below, above;
        nearest_divisors(t, n, &below, &above);
        char hint[96];
        if (above > 0)
            snprintf(hint,
                     sizeof hint,
                     "the nearest divisors are %lld and %lld",
                     (long long)below,
                     (long long)above);
        else
            snprintf(hint, sizeof hint, "the largest is T itself, %lld", (long long)t);
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: rate %lld does not divide T = %lld (the time axis of "
                          "%s); the rate must be a divisor of T (%s)",
                          (long long)n,
                          (long long)t,
                          blade_shape_format(shape, text, sizeof text),
                          hint);
    }
    if (n > INT_MAX)
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "channelizer: rate %lld exceeds the largest FFT length, %d",
                          (long long)n,
                          INT_MAX);
    if (config->taps > 1 && n == 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "channelizer: taps %d with rate 1; rate 1 is a pass-through and a "
                          "polyphase filter needs a rate of at least 2",
                          config->taps);
    return BLADE_OK;
}

blade_status blade_channelizer_create(blade_channelizer** channelizer,
                                      const blade_channelizer_config* config,
                                      const blade_shape* input_shape,
                                      blade_device device)
{
    *channelizer = NULL;
    BLADE_TRY(validate(config, input_shape));
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    blade_channelizer* plan;
    BLADE_TRY(blade_alloc_object(sizeof *plan, "channelizer", (void**)&plan));
    plan->config = *config;
    plan->input_shape = *input_shape;
    plan->device = device;
    const int64_t a = input_shape->dims[0], f = input_shape->dims[1];
    const int64_t t = input_shape->dims[2], p = input_shape->dims[3];
    const int64_t n = config->rate;
    plan->output_shape = blade_shape_aftp(a, f * n, t / n, p);
    blade_channelizer_geometry* g = &plan->geometry;
    g->rows = a * f;
    g->T = t;
    g->P = p;
    g->N = n;
    g->S = t / n;
    g->M = config->taps;
    g->H = (int64_t)(config->taps - 1) * n;
    g->input_half = config->input_type == BLADE_CF16;
    g->output_half = config->output_type == BLADE_CF16;
    g->kernel = (int)config->kernel;

    /* The filter in float, shared by both backends (NULL: plain FFT). */
    float* filter = NULL;
    blade_status status = BLADE_OK;
    if (g->M > 1) {
        const int64_t length = g->M * n;
        double* exact = malloc((size_t)length * sizeof *exact);
        filter = malloc((size_t)length * sizeof *filter);
        if (exact == NULL || filter == NULL)
            status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY,
                                "channelizer: no memory for a %lld-tap filter",
                                (long long)length);
        else
            status = blade_channelizer_prototype(n, g->M, config->window, exact);
        for (int64_t j = 0; status == BLADE_OK && j < length; j++)
            filter[j] = (float)exact[j];
        free(exact);
    }
    if (status == BLADE_OK) {
        if (device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
            status = blade_cuda_channelizer_create(g, filter, device.index, &plan->cuda);
#else
            status = blade_fail(BLADE_ERROR_NO_DEVICE, "channelizer: built without CUDA");
#endif
        } else {
            status = blade_cpu_channelizer_create(g, filter, &plan->cpu);
        }
    }
    free(filter);
    if (status != BLADE_OK) {
        blade_channelizer_destroy(plan);
        return status;
    }
    *channelizer = plan;
    return BLADE_OK;
}

blade_shape blade_channelizer_output_shape(const blade_channelizer* channelizer)
{
    return channelizer->output_shape;
}

blade_status blade_channelizer_process(blade_channelizer* channelizer,
                                       const blade_tensor* input,
                                       blade_tensor* output,
                                       blade_stream stream)
{
    const blade_channelizer_config* config = &channelizer->config;
    BLADE_TRY(blade_check_tensor(
        "channelizer", "input", input, config->input_type, &channelizer->input_shape));
    BLADE_TRY(blade_check_tensor(
        "channelizer", "output", output, config->output_type, &channelizer->output_shape));
    /* In place (one type): with one spectrum per row and chunk (S = T/N = 1) a row's
     * output occupies exactly the bytes of its input, and every path reads a row's
     * input (per polarization, on the GPU's tiles) before it writes that row's output:
     * the CPU's units and the GPU's tiles hold whole rows, and the two-pass kernels
     * (four-step, general) read the input only in their first pass. With S > 1 a row's
     * spectra are spread over the whole row while other units still read it. A
     * pass-through (N = 1) of one type is nothing to do in place. */
    const blade_channelizer_geometry* g = &channelizer->geometry;
    char why[200] = "";
    if (input->data == output->data) {
        if (config->input_type != config->output_type)
            snprintf(why,
                     sizeof why,
                     "the channelizer runs in place only when it keeps the type (%s in, %s out)",
                     blade_dtype_name(config->input_type),
                     blade_dtype_name(config->output_type));
        else if (g->N > 1 && g->S != 1)
            snprintf(why,
                     sizeof why,
                     "the channelizer runs in place only with one spectrum per chunk (T = N; "
                     "here T = %lld, N = %lld): give it a separate output",
                     (long long)g->T,
                     (long long)g->N);
    }
    BLADE_TRY(blade_check_aliasing("channelizer", input, output, why[0] ? why : NULL));

    if (channelizer->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(channelizer->device));
        return blade_cuda_channelizer_process(channelizer->cuda, input->data, output->data, stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "channelizer: built without CUDA");
#endif
    }
    blade_cpu_channelizer_process(channelizer->cpu, input->data, output->data);
    return BLADE_OK;
}

blade_status blade_channelizer_reset(blade_channelizer* channelizer, blade_stream stream)
{
    if (channelizer->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(channelizer->device));
        return blade_cuda_channelizer_reset(channelizer->cuda, stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "channelizer: built without CUDA");
#endif
    }
    blade_cpu_channelizer_reset(channelizer->cpu);
    return BLADE_OK;
}

void blade_channelizer_destroy(blade_channelizer* channelizer)
{
    if (channelizer == NULL)
        return;
    blade_cpu_channelizer_destroy(channelizer->cpu);
#ifdef BLADE_HAVE_CUDA
    if (channelizer->cuda != NULL) {
        blade_device_activate(channelizer->device);
        blade_cuda_channelizer_destroy(channelizer->cuda);
    }
#endif
    free(channelizer);
}
