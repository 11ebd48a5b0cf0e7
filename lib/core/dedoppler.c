/* SPDX-License-Identifier: MIT */
/*
 * Dedoppler plan: validation and the drift grid at creation, the buffers of a
 * search, and the steps of one (moments, statistics, preparation, integration, hit
 * selection) on the CPU or CUDA backend.
 */
#include "cuda_backend.h"
#include "dedoppler_backend.h"
#include "internal.h"

#include <blade/memory.h>
#include <blade/modules/dedoppler.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bounds of the drift range are compared with the grid within this relative
 * tolerance, so that max_drift = k × step computed by the caller includes k. */
#define DRIFT_TOLERANCE 1e-9

struct blade_dedoppler {
    blade_dedoppler_config config;
    blade_shape input_shape, plane_shape;
    blade_device device;
    dedoppler_grid grid;
    blade_dedoppler_geometry geometry;
    bool kurtosis, prepare;
    bool device_statistics; /* CUDA, MAD, no flags: the statistics on the device */
    bool have_statistics;
    /* host memory (pinned on CUDA): what the host steps read and write */
    float* zero_drift;        /* [B][F] */
    double *s1, *s2;          /* [B][F], with kurtosis */
    uint8_t* flags;           /* [B][F], with kurtosis */
    float *centres, *spreads; /* [B][C] */
    float* best_sum;          /* [B][F], CPU only */
    int32_t* best_k;          /* [B][F], CPU only */
    int64_t* hit_total;       /* CUDA: the device selection's count, downloaded */
    blade_dedoppler_timings timings;
    /* on the plan's device */
    float* work; /* [B][T][F], when prepared */
    /* CUDA only: device copies of the above */
    float* device_zero_drift;
    double *device_s1, *device_s2;
    uint8_t* device_flags;
    float *device_centres, *device_spreads;
    float* device_best_sum;
    int32_t* device_best_k;
    float* scratch;
    /* CUDA hit selection: flags [B][F], counts per span, the total, the hits */
    void* statistics_scratch; /* with device_statistics */
    uint8_t* device_hit_flags;
    int64_t *device_span_counts, *device_hit_total;
    blade_dedoppler_hit* device_hits;
};

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

blade_dedoppler_config blade_dedoppler_config_default(void)
{
    blade_dedoppler_config config;
    memset(&config, 0, sizeof config);
    config.max_drift_hz_per_s = 4.0;
    config.snr_threshold = 10.0;
    config.method = BLADE_DEDOPPLER_TAYLOR;
    config.normalization = BLADE_DEDOPPLER_NORM_MAD;
    config.hit_capacity = 65536;
    return config;
}

blade_shape blade_shape_tf(int64_t spectra, int64_t channels)
{
    blade_shape shape = { 2, { spectra, channels, 1, 1, 1 } };
    return shape;
}

blade_shape blade_shape_btf(int64_t beams, int64_t spectra, int64_t channels)
{
    blade_shape shape = { 3, { beams, spectra, channels, 1, 1 } };
    return shape;
}

const char* blade_dedoppler_normalization_name(blade_dedoppler_normalization normalization)
{
    switch (normalization) {
    case BLADE_DEDOPPLER_NORM_MAD:
        return "MAD";
    case BLADE_DEDOPPLER_NORM_TURBO_SETI:
        return "turbo_seti";
    }
    return "unknown";
}

const char* blade_dedoppler_method_name(blade_dedoppler_method method)
{
    switch (method) {
    case BLADE_DEDOPPLER_TAYLOR:
        return "taylor";
    case BLADE_DEDOPPLER_BRUTE_FORCE:
        return "brute_force";
    }
    return "unknown";
}

static int64_t power_of_two_at_least(int64_t n)
{
    int64_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

static blade_status validate(const blade_dedoppler_config* c, const blade_shape* shape)
{
    char text[128];
    BLADE_TRY(blade_shape_validate(shape, "dedoppler input"));
    if (shape->rank != 2 && shape->rank != 3)
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "dedoppler: the input must be a spectrogram [T, F] or [B, T, F] (rank 2 or "
            "3) but its shape is %s",
            blade_shape_format(shape, text, sizeof text));
    const int64_t channels = shape->dims[shape->rank - 1], spectra = shape->dims[shape->rank - 2];
    if (!(c->foff_hz != 0) || !isfinite(c->foff_hz))
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "dedoppler: the fine channel width foff_hz = %g must be finite and nonzero "
            "(negative for a descending band)",
            c->foff_hz);
    if (!(c->tsamp_s > 0) || !isfinite(c->tsamp_s))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: the spectrum time tsamp_s = %g must be positive and finite",
                          c->tsamp_s);
    if (c->nfpc < 1 || channels % c->nfpc != 0)
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "dedoppler: nfpc = %lld fine channels per coarse channel must be at least 1 "
            "and divide the F = %lld channels of %s",
            (long long)c->nfpc,
            (long long)channels,
            blade_shape_format(shape, text, sizeof text));
    if (!isfinite(c->min_drift_hz_per_s) || !isfinite(c->max_drift_hz_per_s) ||
        c->min_drift_hz_per_s < 0 || c->max_drift_hz_per_s < c->min_drift_hz_per_s)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: the drift range %g … %g Hz/s must be finite with 0 "
                          "<= min_drift <= "
                          "max_drift (both signs are searched)",
                          c->min_drift_hz_per_s,
                          c->max_drift_hz_per_s);
    if (spectra == 1 && c->min_drift_hz_per_s > 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: one spectrum (T = 1) has no drift but min_drift is %g Hz/s; "
                          "set it to 0 to search the zero drift",
                          c->min_drift_hz_per_s);
    if (!(c->snr_threshold >= 0) || !isfinite(c->snr_threshold))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: the SNR threshold %g must be finite and at least 0",
                          c->snr_threshold);
    if (c->hit_capacity < 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: hit_capacity %lld must be at least 1",
                          (long long)c->hit_capacity);
    if (c->method != BLADE_DEDOPPLER_TAYLOR && c->method != BLADE_DEDOPPLER_BRUTE_FORCE)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: unknown method code %d (expected taylor or brute_force)",
                          (int)c->method);
    if (c->normalization != BLADE_DEDOPPLER_NORM_MAD &&
        c->normalization != BLADE_DEDOPPLER_NORM_TURBO_SETI)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: unknown normalization code %d (expected MAD or turbo_seti)",
                          (int)c->normalization);
    if (c->blank_dc && c->nfpc < 3)
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "dedoppler: blank_dc replaces channel nfpc/2 by the mean of its neighbours, "
            "which needs nfpc >= 3 (nfpc is %lld)",
            (long long)c->nfpc);
    if (!(c->sk_shape >= 0) || !isfinite(c->sk_shape))
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "dedoppler: sk_shape %g must be 0 (no flagging) or the positive number of "
            "powers summed into each value",
            c->sk_shape);
    if (c->sk_shape > 0 && spectra < 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: spectral kurtosis needs at least 2 spectra (T is %lld)",
                          (long long)spectra);
    if (c->sk_shape > 0 && (!(c->sk_sigmas > 0) || !isfinite(c->sk_sigmas)))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: sk_sigmas %g must be positive when spectral kurtosis flags "
                          "channels (sk_shape %g)",
                          c->sk_sigmas,
                          c->sk_shape);
    return BLADE_OK;
}

/* The drift grid (dedoppler.h): indices, window, blocks. */
static blade_status make_grid(blade_dedoppler* plan)
{
    const blade_dedoppler_config* c = &plan->config;
    const blade_shape* shape = &plan->input_shape;
    dedoppler_grid* grid = &plan->grid;
    blade_dedoppler_geometry* g = &plan->geometry;
    grid->beams = shape->rank == 3 ? shape->dims[0] : 1;
    grid->spectra = shape->dims[shape->rank - 2];
    grid->channels = shape->dims[shape->rank - 1];
    grid->padded = power_of_two_at_least(grid->spectra);
    int64_t lowest = 0, highest = 0, window = 0;
    double step = 0;
    if (grid->padded > 1) {
        step = fabs(c->foff_hz) / ((double)(grid->padded - 1) * c->tsamp_s);
        const double top = c->max_drift_hz_per_s / step, bottom = c->min_drift_hz_per_s / step;
        if (top > (double)INT32_MAX / 2)
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "dedoppler: max_drift %g Hz/s is %.3g drift steps of %g "
                              "Hz/s; at most %d are "
                              "searched",
                              c->max_drift_hz_per_s,
                              top,
                              step,
                              INT32_MAX / 2);
        highest = (int64_t)floor(top + DRIFT_TOLERANCE * fmax(1, top));
        lowest = (int64_t)ceil(bottom - DRIFT_TOLERANCE * fmax(1, bottom));
        window = 2 * (int64_t)ceil(top - DRIFT_TOLERANCE * fmax(1, top));
        if (lowest > highest)
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "dedoppler: the drift range %g … %g Hz/s holds no drift of "
                              "the grid, whose "
                              "step is |foff| / ((T' - 1) tsamp) = %g Hz/s (T' = %lld); "
                              "widen the range",
                              c->min_drift_hz_per_s,
                              c->max_drift_hz_per_s,
                              step,
                              (long long)grid->padded);
    }
    grid->with_zero = lowest == 0;
    grid->min_index = lowest > 1 ? lowest : 1;
    grid->max_index = highest;
    grid->first_block = grid->with_zero ? 0 : dedoppler_block_of(grid->min_index, grid->padded);
    grid->last_block =
        grid->max_index >= grid->min_index ? dedoppler_block_of(grid->max_index, grid->padded) : 0;

    g->beams = grid->beams;
    g->spectra = grid->spectra;
    g->padded_spectra = grid->padded;
    g->channels = grid->channels;
    g->coarse_channels = grid->channels / c->nfpc;
    g->drift_count = dedoppler_drift_count(grid);
    g->min_drift_index = lowest;
    g->max_drift_index = highest;
    g->drift_step_hz_per_s =
        grid->padded > 1 ? c->foff_hz / ((double)(grid->padded - 1) * c->tsamp_s) : 0;
    g->window = window;
    g->drift_blocks =
        c->method == BLADE_DEDOPPLER_TAYLOR ? grid->last_block - grid->first_block + 1 : 0;
    const int64_t plane_dims[3] = { grid->beams, g->drift_count, grid->channels };
    return blade_shape_make(plane_dims, 3, &plan->plane_shape);
}

static blade_status host_buffer(blade_dedoppler* plan, size_t bytes, void** pointer)
{
    const blade_status status = blade_host_alloc(plan->device, bytes ? bytes : 1, pointer);
    return status == BLADE_OK ? BLADE_OK : blade_fail_context(status, "dedoppler buffers");
}

static blade_status device_buffer(blade_dedoppler* plan, size_t bytes, void** pointer)
{
    const blade_status status = blade_device_alloc(plan->device, bytes ? bytes : 1, pointer);
    return status == BLADE_OK ? BLADE_OK : blade_fail_context(status, "dedoppler buffers");
}

static blade_status allocate(blade_dedoppler* plan)
{
    const dedoppler_grid* grid = &plan->grid;
    const size_t channels = (size_t)(grid->beams * grid->channels);
    const size_t segments = (size_t)(grid->beams * plan->geometry.coarse_channels);
    const bool cuda = plan->device.kind == BLADE_DEVICE_CUDA;
    if (!plan->device_statistics)
        BLADE_TRY(host_buffer(plan, channels * sizeof(float), (void**)&plan->zero_drift));
    BLADE_TRY(host_buffer(plan, segments * sizeof(float), (void**)&plan->centres));
    BLADE_TRY(host_buffer(plan, segments * sizeof(float), (void**)&plan->spreads));
    if (!cuda) {
        BLADE_TRY(host_buffer(plan, channels * sizeof(float), (void**)&plan->best_sum));
        BLADE_TRY(host_buffer(plan, channels * sizeof(int32_t), (void**)&plan->best_k));
    }
    if (plan->kurtosis) {
        BLADE_TRY(host_buffer(plan, channels * sizeof(double), (void**)&plan->s1));
        BLADE_TRY(host_buffer(plan, channels * sizeof(double), (void**)&plan->s2));
        BLADE_TRY(host_buffer(plan, channels, (void**)&plan->flags));
    }
    if (plan->prepare)
        BLADE_TRY(device_buffer(
            plan, blade_tensor_bytes(BLADE_F32, &plan->input_shape), (void**)&plan->work));
    if (!cuda)
        return BLADE_OK;
#ifdef BLADE_HAVE_CUDA
    BLADE_TRY(device_buffer(plan, channels * sizeof(float), (void**)&plan->device_zero_drift));
    BLADE_TRY(device_buffer(plan, channels * sizeof(float), (void**)&plan->device_best_sum));
    BLADE_TRY(device_buffer(plan, channels * sizeof(int32_t), (void**)&plan->device_best_k));
    if (plan->kurtosis) {
        BLADE_TRY(device_buffer(plan, channels * sizeof(double), (void**)&plan->device_s1));
        BLADE_TRY(device_buffer(plan, channels * sizeof(double), (void**)&plan->device_s2));
        BLADE_TRY(device_buffer(plan, channels, (void**)&plan->device_flags));
    }
    BLADE_TRY(device_buffer(plan, segments * sizeof(float), (void**)&plan->device_centres));
    BLADE_TRY(device_buffer(plan, segments * sizeof(float), (void**)&plan->device_spreads));
    BLADE_TRY(host_buffer(plan, sizeof(int64_t), (void**)&plan->hit_total));
    if (plan->device_statistics)
        BLADE_TRY(device_buffer(plan,
                                blade_cuda_dedoppler_mad_scratch_bytes((int64_t)segments),
                                &plan->statistics_scratch));
    BLADE_TRY(device_buffer(plan, channels, (void**)&plan->device_hit_flags));
    BLADE_TRY(device_buffer(plan,
                            blade_cuda_dedoppler_select_spans((int64_t)channels) * sizeof(int64_t),
                            (void**)&plan->device_span_counts));
    BLADE_TRY(device_buffer(plan, sizeof(int64_t), (void**)&plan->device_hit_total));
    BLADE_TRY(device_buffer(plan,
                            (size_t)plan->config.hit_capacity * sizeof(blade_dedoppler_hit),
                            (void**)&plan->device_hits));
    const size_t scratch = plan->config.method == BLADE_DEDOPPLER_TAYLOR
                               ? blade_cuda_dedoppler_scratch_bytes(grid)
                               : 0;
    if (scratch > 0)
        BLADE_TRY(device_buffer(plan, scratch, (void**)&plan->scratch));
#endif
    return BLADE_OK;
}

blade_status blade_dedoppler_create(blade_dedoppler** plan,
                                    const blade_dedoppler_config* config,
                                    const blade_shape* input_shape,
                                    blade_device device)
{
    *plan = NULL;
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "dedoppler: no configuration given");
    BLADE_TRY(validate(config, input_shape));
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));
    blade_dedoppler* p;
    BLADE_TRY(blade_alloc_object(sizeof *p, "dedoppler", (void**)&p));
    p->config = *config;
    p->input_shape = *input_shape;
    p->device = device;
    p->kurtosis = config->sk_shape > 0;
    p->prepare = p->kurtosis || config->blank_dc;
#ifdef BLADE_HAVE_CUDA
    p->device_statistics = device.kind == BLADE_DEVICE_CUDA && !p->kurtosis &&
                           config->normalization == BLADE_DEDOPPLER_NORM_MAD;
#endif
    blade_status status = make_grid(p);
    if (status == BLADE_OK)
        status = allocate(p);
    if (status != BLADE_OK) {
        blade_dedoppler_destroy(p);
        return status;
    }
    *plan = p;
    return BLADE_OK;
}

blade_dedoppler_geometry blade_dedoppler_get_geometry(const blade_dedoppler* plan)
{
    return plan->geometry;
}

void blade_dedoppler_drift_indices(const blade_dedoppler* plan, int64_t* indices)
{
    for (int64_t d = 0; d < plan->geometry.drift_count; d++)
        indices[d] = dedoppler_drift_at(&plan->grid, d);
}

int64_t blade_dedoppler_hit_capacity(const blade_dedoppler* plan)
{
    return plan->config.hit_capacity;
}

blade_shape blade_dedoppler_plane_shape(const blade_dedoppler* plan) { return plan->plane_shape; }

/* Moments, statistics, flags and the working copy: returns in *searched the data the
 * integration reads (the input, or the prepared copy). */
static blade_status
normalize(blade_dedoppler* plan, const float* input, const float** searched, blade_stream stream)
{
    const dedoppler_grid* grid = &plan->grid;
    const blade_dedoppler_config* c = &plan->config;
    const int64_t count = grid->beams * grid->channels;
    const size_t segments = (size_t)(grid->beams * plan->geometry.coarse_channels);
    const bool cuda = plan->device.kind == BLADE_DEVICE_CUDA;
    plan->have_statistics = false;
    double clock = seconds_now();
    if (plan->device_statistics) {
#ifdef BLADE_HAVE_CUDA
        /* Median and MAD by radix selection on the device: the sums stay there. */
        BLADE_TRY(blade_cuda_dedoppler_moments(input,
                                               grid->beams,
                                               grid->spectra,
                                               grid->channels,
                                               plan->device_zero_drift,
                                               NULL,
                                               NULL,
                                               stream));
        BLADE_TRY(blade_stream_synchronize(plan->device, stream)); /* for the timings only */
        plan->timings.moments_s = seconds_now() - clock;
        clock = seconds_now();
        BLADE_TRY(blade_cuda_dedoppler_mad(plan->device_zero_drift,
                                           (int64_t)segments,
                                           c->nfpc,
                                           plan->device_centres,
                                           plan->device_spreads,
                                           plan->statistics_scratch,
                                           stream));
        BLADE_TRY(blade_memcpy(plan->device,
                               plan->centres,
                               plan->device_centres,
                               segments * sizeof(float),
                               BLADE_COPY_DEVICE_TO_HOST,
                               stream));
        BLADE_TRY(blade_memcpy(plan->device,
                               plan->spreads,
                               plan->device_spreads,
                               segments * sizeof(float),
                               BLADE_COPY_DEVICE_TO_HOST,
                               stream));
        BLADE_TRY(blade_stream_synchronize(plan->device, stream));
        plan->timings.statistics_s = seconds_now() - clock;
        plan->have_statistics = true;
        *searched = input;
        if (!plan->prepare)
            return BLADE_OK;
        BLADE_TRY(blade_cuda_dedoppler_prepare(input,
                                               plan->work,
                                               grid->beams,
                                               grid->spectra,
                                               grid->channels,
                                               c->nfpc,
                                               NULL,
                                               NULL,
                                               c->blank_dc,
                                               stream));
        *searched = plan->work;
        return BLADE_OK;
#endif
    }
    if (cuda) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_cuda_dedoppler_moments(input,
                                               grid->beams,
                                               grid->spectra,
                                               grid->channels,
                                               plan->device_zero_drift,
                                               plan->device_s1,
                                               plan->device_s2,
                                               stream));
        BLADE_TRY(blade_memcpy(plan->device,
                               plan->zero_drift,
                               plan->device_zero_drift,
                               (size_t)count * sizeof(float),
                               BLADE_COPY_DEVICE_TO_HOST,
                               stream));
        if (plan->kurtosis) {
            BLADE_TRY(blade_memcpy(plan->device,
                                   plan->s1,
                                   plan->device_s1,
                                   (size_t)count * sizeof(double),
                                   BLADE_COPY_DEVICE_TO_HOST,
                                   stream));
            BLADE_TRY(blade_memcpy(plan->device,
                                   plan->s2,
                                   plan->device_s2,
                                   (size_t)count * sizeof(double),
                                   BLADE_COPY_DEVICE_TO_HOST,
                                   stream));
        }
        BLADE_TRY(blade_stream_synchronize(plan->device, stream));
#endif
    } else {
        blade_cpu_dedoppler_moments(input,
                                    grid->beams,
                                    grid->spectra,
                                    grid->channels,
                                    plan->zero_drift,
                                    plan->s1,
                                    plan->s2);
    }
    plan->timings.moments_s = seconds_now() - clock;
    clock = seconds_now();
    if (plan->kurtosis)
        blade_dedoppler_kurtosis_flags(
            plan->s1, plan->s2, count, grid->spectra, c->sk_shape, c->sk_sigmas, plan->flags);
    BLADE_TRY(blade_dedoppler_statistics(plan->zero_drift,
                                         plan->flags,
                                         grid->beams,
                                         grid->channels,
                                         c->nfpc,
                                         c->normalization,
                                         plan->centres,
                                         plan->spreads));
    plan->have_statistics = true;
    if (cuda) {
#ifdef BLADE_HAVE_CUDA
        /* for the preparation and the device's hit selection */
        BLADE_TRY(blade_memcpy(plan->device,
                               plan->device_centres,
                               plan->centres,
                               segments * sizeof(float),
                               BLADE_COPY_HOST_TO_DEVICE,
                               stream));
        BLADE_TRY(blade_memcpy(plan->device,
                               plan->device_spreads,
                               plan->spreads,
                               segments * sizeof(float),
                               BLADE_COPY_HOST_TO_DEVICE,
                               stream));
        if (plan->kurtosis)
            BLADE_TRY(blade_memcpy(plan->device,
                                   plan->device_flags,
                                   plan->flags,
                                   (size_t)count,
                                   BLADE_COPY_HOST_TO_DEVICE,
                                   stream));
#endif
    }
    (void)segments;
    plan->timings.statistics_s = seconds_now() - clock;
    *searched = input;
    if (!plan->prepare)
        return BLADE_OK;
    if (cuda) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_cuda_dedoppler_prepare(input,
                                               plan->work,
                                               grid->beams,
                                               grid->spectra,
                                               grid->channels,
                                               c->nfpc,
                                               plan->kurtosis ? plan->device_flags : NULL,
                                               plan->kurtosis ? plan->device_centres : NULL,
                                               c->blank_dc,
                                               stream));
#endif
    } else {
        blade_cpu_dedoppler_prepare(input,
                                    plan->work,
                                    grid->beams,
                                    grid->spectra,
                                    grid->channels,
                                    c->nfpc,
                                    plan->flags,
                                    plan->centres,
                                    c->blank_dc);
    }
    *searched = plan->work;
    return BLADE_OK;
}

/* The integration of the plan's method: best paths, or the plane. */
static blade_status integrate(blade_dedoppler* plan,
                              const float* searched,
                              float* best_sum,
                              int32_t* best_k,
                              float* plane,
                              blade_stream stream)
{
    const bool taylor = plan->config.method == BLADE_DEDOPPLER_TAYLOR;
    if (plan->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        return taylor ? blade_cuda_dedoppler_taylor(
                            searched, &plan->grid, best_sum, best_k, plane, plan->scratch, stream)
                      : blade_cuda_dedoppler_brute_force(
                            searched, &plan->grid, best_sum, best_k, plane, stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "dedoppler: built without CUDA");
#endif
    }
    return taylor ? blade_cpu_dedoppler_taylor(searched, &plan->grid, best_sum, best_k, plane)
                  : blade_cpu_dedoppler_brute_force(searched, &plan->grid, best_sum, best_k, plane);
}

blade_status blade_dedoppler_process(blade_dedoppler* plan,
                                     const blade_tensor* input,
                                     blade_dedoppler_hit* hits,
                                     int64_t* hit_count,
                                     int64_t* dropped,
                                     blade_stream stream)
{
    if (hit_count)
        *hit_count = 0;
    if (dropped)
        *dropped = 0;
    BLADE_TRY(blade_check_tensor("dedoppler", "input", input, BLADE_F32, &plan->input_shape));
    if (hits == NULL || hit_count == NULL)
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "dedoppler: process() needs a hit list of hit_capacity entries and a count");
    if (plan->device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(plan->device));
    memset(&plan->timings, 0, sizeof plan->timings);
    const float* searched;
    BLADE_TRY(normalize(plan, input->data, &searched, stream));
    const dedoppler_grid* grid = &plan->grid;
    const blade_dedoppler_config* c = &plan->config;
    double clock = seconds_now();
    if (plan->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(
            integrate(plan, searched, plan->device_best_sum, plan->device_best_k, NULL, stream));
        BLADE_TRY(blade_stream_synchronize(plan->device, stream)); /* for the timings only */
        plan->timings.integrate_s = seconds_now() - clock;
        clock = seconds_now();
        BLADE_TRY(blade_cuda_dedoppler_select_hits(plan->device_best_sum,
                                                   plan->device_best_k,
                                                   plan->device_centres,
                                                   plan->device_spreads,
                                                   grid->beams,
                                                   grid->channels,
                                                   c->nfpc,
                                                   plan->geometry.window,
                                                   c->snr_threshold,
                                                   plan->geometry.drift_step_hz_per_s,
                                                   plan->device_hits,
                                                   c->hit_capacity,
                                                   plan->device_hit_flags,
                                                   plan->device_span_counts,
                                                   plan->device_hit_total,
                                                   stream));
        BLADE_TRY(blade_memcpy(plan->device,
                               plan->hit_total,
                               plan->device_hit_total,
                               sizeof(int64_t),
                               BLADE_COPY_DEVICE_TO_HOST,
                               stream));
        BLADE_TRY(blade_stream_synchronize(plan->device, stream));
        const int64_t found = *plan->hit_total;
        const int64_t kept = found < c->hit_capacity ? found : c->hit_capacity;
        if (kept > 0) {
            BLADE_TRY(blade_memcpy(plan->device,
                                   hits,
                                   plan->device_hits,
                                   (size_t)kept * sizeof(blade_dedoppler_hit),
                                   BLADE_COPY_DEVICE_TO_HOST,
                                   stream));
            BLADE_TRY(blade_stream_synchronize(plan->device, stream));
        }
        *hit_count = kept;
        if (dropped)
            *dropped = found - kept;
        plan->timings.select_s = seconds_now() - clock;
        plan->timings.candidates = found;
        return BLADE_OK;
#endif
    }
    BLADE_TRY(integrate(plan, searched, plan->best_sum, plan->best_k, NULL, stream));
    plan->timings.integrate_s = seconds_now() - clock;
    clock = seconds_now();
    int64_t lost = 0;
    blade_dedoppler_select_hits(plan->best_sum,
                                plan->best_k,
                                plan->centres,
                                plan->spreads,
                                grid->beams,
                                grid->channels,
                                c->nfpc,
                                plan->geometry.window,
                                c->snr_threshold,
                                plan->geometry.drift_step_hz_per_s,
                                hits,
                                c->hit_capacity,
                                hit_count,
                                &lost);
    if (dropped)
        *dropped = lost;
    plan->timings.select_s = seconds_now() - clock;
    plan->timings.candidates = *hit_count + lost;
    return BLADE_OK;
}

blade_status blade_dedoppler_integrate(blade_dedoppler* plan,
                                       const blade_tensor* input,
                                       blade_tensor* plane,
                                       blade_stream stream)
{
    BLADE_TRY(blade_check_tensor("dedoppler", "input", input, BLADE_F32, &plan->input_shape));
    BLADE_TRY(blade_check_tensor("dedoppler", "plane", plane, BLADE_F32, &plan->plane_shape));
    if (plan->device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(plan->device));
    const float* searched;
    BLADE_TRY(normalize(plan, input->data, &searched, stream));
    return integrate(plan, searched, NULL, NULL, plane->data, stream);
}

blade_dedoppler_timings blade_dedoppler_last_timings(const blade_dedoppler* plan)
{
    return plan->timings;
}

blade_status blade_dedoppler_last_statistics(const blade_dedoppler* plan,
                                             float* centres,
                                             float* spreads,
                                             uint8_t* flagged)
{
    if (!plan->have_statistics)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "dedoppler: no statistics yet (call process() or integrate() first)");
    const size_t segments = (size_t)(plan->grid.beams * plan->geometry.coarse_channels);
    const size_t count = (size_t)(plan->grid.beams * plan->grid.channels);
    if (centres)
        memcpy(centres, plan->centres, segments * sizeof *centres);
    if (spreads)
        memcpy(spreads, plan->spreads, segments * sizeof *spreads);
    if (flagged) {
        if (plan->flags)
            memcpy(flagged, plan->flags, count);
        else
            memset(flagged, 0, count);
    }
    return BLADE_OK;
}

void blade_dedoppler_destroy(blade_dedoppler* plan)
{
    if (plan == NULL)
        return;
    const blade_device device = plan->device;
    blade_host_free(device, plan->zero_drift);
    blade_host_free(device, plan->s1);
    blade_host_free(device, plan->s2);
    blade_host_free(device, plan->flags);
    blade_host_free(device, plan->centres);
    blade_host_free(device, plan->spreads);
    blade_host_free(device, plan->best_sum);
    blade_host_free(device, plan->best_k);
    blade_device_free(device, plan->work);
    blade_device_free(device, plan->device_zero_drift);
    blade_device_free(device, plan->device_s1);
    blade_device_free(device, plan->device_s2);
    blade_device_free(device, plan->device_flags);
    blade_device_free(device, plan->device_centres);
    blade_device_free(device, plan->device_spreads);
    blade_host_free(device, plan->hit_total);
    blade_device_free(device, plan->statistics_scratch);
    blade_device_free(device, plan->device_hit_flags);
    blade_device_free(device, plan->device_span_counts);
    blade_device_free(device, plan->device_hit_total);
    blade_device_free(device, plan->device_hits);
    blade_device_free(device, plan->device_best_sum);
    blade_device_free(device, plan->device_best_k);
    blade_device_free(device, plan->scratch);
    free(plan);
}
