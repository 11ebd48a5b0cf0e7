/* SPDX-License-Identifier: MIT */
/*
 * Dedoppler cases (issue 19): a whole search (statistics, Taylor tree, hits) of
 *
 *   - BL's high-frequency-resolution product: 16 spectra of 2^20 fine channels per
 *     coarse channel (2.79 Hz, 18.25 s), ±4 Hz/s: the whole GBT node of 64 coarse
 *     channels on a GPU, 4 of them on the CPU (the label says which);
 *   - Mode B beams at an ATA node: 8 beams + incoherent, 16 spectra of 2^18 fine
 *     channels per 0.5 MHz coarse channel (1.91 Hz, 0.52 s), ±4 Hz/s: 8 coarse
 *     channels on a GPU, 2 on the CPU.
 *
 * The bound is the memory roofline of the tree's passes, the traffic of the classic
 * implementation (turbo_seti's, seticore's): every stage of every drift block reads
 * and writes the whole padded spectrogram, 2 · log2 T' · T' · F · 4 bytes per block
 * and direction. The tile kernels keep the stages in cache or shared memory, so they
 * can exceed 100 % of that bound; the time includes everything process() does.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct dedoppler_state {
    blade_dedoppler* plan;
    blade_tensor input;
    blade_dedoppler_hit* hits;
} dedoppler_state;

static blade_status
dedoppler_setup(bench_case* self, blade_device device, blade_stream stream, int shrink)
{
    (void)stream;
    dedoppler_state* state = calloc(1, sizeof *state);
    if (state == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    self->state = state;
    const int64_t beams = self->p[0], spectra = self->p[1];
    const int64_t nfpc = (int64_t)1 << self->p[2];
    const int64_t coarse = device.kind == BLADE_DEVICE_CUDA ? self->p[3] : self->p[4];
    const int64_t channels = coarse * nfpc / shrink;
    snprintf(self->label,
             sizeof self->label,
             "%s [%lld, %lld, %lldx2^%lld%s] +-4 Hz/s",
             self->p[5] ? "ATA beams" : "BL hi-res",
             (long long)beams,
             (long long)spectra,
             (long long)coarse,
             self->p[2],
             shrink > 1 ? "/64" : "");
    blade_dedoppler_config config = blade_dedoppler_config_default();
    config.foff_hz = self->p[5] ? 0.5e6 / (double)nfpc : 2.7939677238464355;
    config.tsamp_s = self->p[5] ? (double)nfpc / 0.5e6 : 18.253611008;
    config.nfpc = nfpc / shrink;
    config.max_drift_hz_per_s = 4.0;
    config.snr_threshold = 10.0;
    const blade_shape shape = blade_shape_btf(beams, spectra, channels);
    blade_status status = blade_dedoppler_create(&state->plan, &config, &shape, device);
    if (status != BLADE_OK)
        return status;
    const blade_dedoppler_geometry g = blade_dedoppler_get_geometry(state->plan);
    double stages = 0; /* log2 T', without libm */
    for (int64_t n = g.padded_spectra; n > 1; n /= 2)
        stages++;
    const double blocks = g.max_drift_index >= 1 ? 2.0 * (double)g.drift_blocks : 1.0;
    self->samples = (double)blade_shape_count(&shape);
    self->bytes =
        (double)beams * blocks * stages * 2.0 * (double)g.padded_spectra * (double)channels * 4.0;
    /* per output path: about one addition per stage */
    self->flops = (double)beams * blocks * stages * (double)g.padded_spectra * (double)channels;
    state->hits = calloc((size_t)config.hit_capacity, sizeof *state->hits);
    if (state->hits == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    void* in = NULL;
    /* random bytes make wild floats: noise of a spectrometer instead */
    const size_t bytes = blade_tensor_bytes(BLADE_F32, &shape);
    float* host = malloc(bytes);
    if (host == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    unsigned seed = 12345;
    for (size_t i = 0; i < bytes / 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        host[i] = 100.0f + (float)(seed >> 8) * (1.0f / 16777216.0f);
    }
    status = blade_device_alloc(device, bytes, &in);
    if (status == BLADE_OK)
        status = blade_memcpy(device,
                              in,
                              host,
                              bytes,
                              device.kind == BLADE_DEVICE_CUDA ? BLADE_COPY_HOST_TO_DEVICE
                                                               : BLADE_COPY_HOST_TO_HOST,
                              NULL);
    if (status == BLADE_OK)
        status = blade_stream_synchronize(device, NULL);
    free(host);
    state->input = blade_tensor_make(BLADE_F32, &shape, device, in);
    return status;
}

static blade_status dedoppler_run(bench_case* self, blade_stream stream)
{
    dedoppler_state* state = self->state;
    int64_t count = 0, dropped = 0;
    return blade_dedoppler_process(
        state->plan, &state->input, state->hits, &count, &dropped, stream);
}

static void dedoppler_teardown(bench_case* self, blade_device device)
{
    dedoppler_state* state = self->state;
    if (state == NULL)
        return;
    if (state->plan) {
        /* the last run's breakdown (process() waits between these steps anyway) */
        const blade_dedoppler_timings t = blade_dedoppler_last_timings(state->plan);
        snprintf(self->note,
                 sizeof self->note,
                 "last run: moments %.3f ms, statistics %.3f ms, tree %.3f ms, hits %.3f ms "
                 "(%lld found)",
                 1e3 * t.moments_s,
                 1e3 * t.statistics_s,
                 1e3 * t.integrate_s,
                 1e3 * t.select_s,
                 (long long)t.candidates);
    }
    blade_dedoppler_destroy(state->plan);
    blade_device_free(device, state->input.data);
    free(state->hits);
    free(state);
    self->state = NULL;
}

void bench_register_dedoppler(bench_case** cases, int* count)
{
    static const struct {
        int beams, spectra, log2_nfpc, gpu_coarse, cpu_coarse, ata;
    } shapes[] = {
        { 1, 16, 20, 64, 4, 0 }, /* BL high resolution, one GBT node */
        { 9, 16, 18, 8, 2, 1 },  /* ATA Mode B: 8 beams + incoherent */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        bench_case one = { 0 };
        one.module = "dedoppler";
        snprintf(one.label, sizeof one.label, "%s", shapes[i].ata ? "ATA beams" : "BL hi-res");
        one.bound = BENCH_MEMORY;
        one.setup = dedoppler_setup;
        one.run = dedoppler_run;
        one.teardown = dedoppler_teardown;
        one.p[0] = shapes[i].beams;
        one.p[1] = shapes[i].spectra;
        one.p[2] = shapes[i].log2_nfpc;
        one.p[3] = shapes[i].gpu_coarse;
        one.p[4] = shapes[i].cpu_coarse;
        one.p[5] = shapes[i].ata;
        bench_add(cases, count, &one);
    }
}
