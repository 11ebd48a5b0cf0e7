/* SPDX-License-Identifier: MIT */
/*
 * Filterbank writer: validates the header values once, then turns each [F, T, P]
 * slice into spectra (data[t][p][f]) for the SIGPROC or FBH5 file behind it.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "file_io.h"
#include "filterbank_backend.h"
#include "observation_check.h"

#include <blade/io/filterbank_writer.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* your refuses header strings longer than this. */
#define SIGPROC_STRING_MOST 80

struct blade_filterbank_writer {
    blade_filterbank_format format;
    char* path;
    int64_t nchans, nifs;
    int fd;                /* .fil */
    int64_t offset;        /* .fil bytes written */
    blade_fbh5_file* fbh5; /* .h5 */
    float* spectra;        /* transposition buffer */
    double* if_scales;     /* nifs factors, or NULL */
    size_t capacity;       /* floats */
    int64_t count;
    bool closed;
    bool failed; /* spectra could not be written: the file ends before them */
};

bool blade_filterbank_fbh5_available(void) { return blade_fbh5_supported(); }

void blade_filterbank_file_name(const char* stem,
                                const char* label,
                                int64_t index,
                                blade_filterbank_format format,
                                char* name,
                                size_t size)
{
    snprintf(name,
             size,
             "%s.%s%04lld.%s",
             stem,
             label,
             (long long)index,
             format == BLADE_FILTERBANK_FBH5 ? "h5" : "fil");
}

void blade_filterbank_combine(const float* chunk,
                              int64_t aspects,
                              int64_t per_aspect_spectra,
                              int64_t ifs,
                              const double* weights,
                              int64_t aspect,
                              const double* scales,
                              float* out)
{
    /* per_aspect_spectra is F·T: the values of one IF per aspect. */
    const int64_t per_aspect = per_aspect_spectra * ifs;
    for (int64_t j = 0; j < per_aspect; j++) {
        double sum = 0.0;
        if (weights == NULL)
            sum = chunk[aspect * per_aspect + j];
        else
            for (int64_t b = 0; b < aspects; b++)
                sum += weights[b] * (double)chunk[b * per_aspect + j];
        out[j] = (float)(scales == NULL ? sum : scales[j % ifs] * sum);
    }
}

static blade_status derive_values(const blade_filterbank_config* c, filterbank_values* v)
{
    const blade_observation* obs = &c->observation;
    const char* path = c->path;
    if (c->nchans < 1 || c->nchans > INT32_MAX || c->nifs < 1 || c->nifs > 1024)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: nchans (%lld) must be 1 .. 2^31-1 and nifs (%lld) 1 .. 1024",
                          path,
                          (long long)c->nchans,
                          (long long)c->nifs);
    /* ibeam is the receiver's beam number (rawspec writes GUPPI's BEAM_ID with
     * nbeams 1), or -1 for unknown: not necessarily below nbeams. */
    if (c->nbeams < 1 || c->nbeams > INT32_MAX || c->ibeam < -1 || c->ibeam > INT32_MAX)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: beam %lld of %lld is not a SIGPROC beam number",
                          path,
                          (long long)c->ibeam,
                          (long long)c->nbeams);
    if (!(obs->tsamp > 0) || !isfinite(obs->tsamp))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: the sample time must be positive (tsamp = %g s)",
                          path,
                          obs->tsamp);
    if (obs->chan_bw == 0 || !isfinite(obs->chan_bw) || !isfinite(obs->freq_first))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: the frequency axis is not valid (first channel %g Hz, channel "
                          "width %g Hz)",
                          path,
                          obs->freq_first,
                          obs->chan_bw);
    if (!(fabs(obs->unix_start) < BLADE_MOST_UNIX_SECONDS))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: the start time (%g unix s) is not a date",
                          path,
                          obs->unix_start);
    BLADE_TRY(blade_check_pointing(obs, path));
    if (c->format == BLADE_FILTERBANK_FBH5 && c->nchans < BLADE_FBH5_BLIMPY_MINIMUM)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: %lld channels: blimpy refuses FBH5 files with fewer than %d "
                          "channels; write .fil, or keep more channels",
                          path,
                          (long long)c->nchans,
                          BLADE_FBH5_BLIMPY_MINIMUM);
    if (c->rawdatafile != NULL && strlen(c->rawdatafile) > SIGPROC_STRING_MOST)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: rawdatafile has %zu characters; SIGPROC readers (your) accept "
                          "at most %d",
                          path,
                          strlen(c->rawdatafile),
                          SIGPROC_STRING_MOST);
    if (c->format != BLADE_FILTERBANK_FIL && c->format != BLADE_FILTERBANK_FBH5)
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT, "%s: unknown filterbank format %d", path, (int)c->format);
    memset(v, 0, sizeof *v);
    v->source_name = obs->source_name[0] ? obs->source_name : "unknown";
    v->rawdatafile = c->rawdatafile;
    v->telescope_id = c->telescope_id != BLADE_FILTERBANK_TELESCOPE_FROM_NAME
                          ? c->telescope_id
                          : blade_sigproc_telescope_id(obs->telescope);
    v->machine_id = c->machine_id;
    v->has_position = obs->has_position;
    v->ra_hours = obs->ra * 12.0 / M_PI;
    v->dec_degrees = obs->dec * 180.0 / M_PI;
    v->has_horizontal = obs->has_horizontal && isfinite(obs->az) && isfinite(obs->za);
    v->az_degrees = obs->az * 180.0 / M_PI;
    v->za_degrees = obs->za * 180.0 / M_PI;
    v->tstart_mjd = blade_unix_to_mjd(obs->unix_start);
    v->tsamp = obs->tsamp;
    v->fch1_mhz = obs->freq_first / 1e6;
    v->foff_mhz = obs->chan_bw / 1e6;
    v->nchans = c->nchans;
    v->nifs = c->nifs;
    v->nbeams = c->nbeams;
    v->ibeam = c->ibeam;
    v->nfpc = obs->nfpc > 0 ? obs->nfpc : 1;
    return BLADE_OK;
}

blade_status blade_filterbank_writer_create(blade_filterbank_writer** writer,
                                            const blade_filterbank_config* config)
{
    *writer = NULL;
    if (config == NULL || config->path == NULL || config->path[0] == '\0')
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "filterbank writer: no file name given");
    filterbank_values values;
    BLADE_TRY(derive_values(config, &values));
    blade_filterbank_writer* w;
    BLADE_TRY(blade_alloc_object(sizeof *w, "filterbank writer", (void**)&w));
    w->fd = -1;
    w->format = config->format;
    w->nchans = config->nchans;
    w->nifs = config->nifs;
    w->path = strdup(config->path);
    if (config->if_scales != NULL && w->path != NULL) {
        w->if_scales = malloc((size_t)config->nifs * sizeof *w->if_scales);
        if (w->if_scales != NULL)
            memcpy(w->if_scales, config->if_scales, (size_t)config->nifs * sizeof *w->if_scales);
    }
    blade_status status =
        w->path ? BLADE_OK : blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "filterbank writer");
    if (status == BLADE_OK) {
        if (w->format == BLADE_FILTERBANK_FIL)
            status = blade_sigproc_create(w->path, &values, &w->fd, &w->offset);
        else
            status = blade_fbh5_create(w->path, &values, &w->fbh5);
    }
    if (status != BLADE_OK) {
        blade_filterbank_writer_destroy(w);
        return status;
    }
    *writer = w;
    return BLADE_OK;
}

/* [F, R] -> [R, F] with R = T·P rows (t, p), each value times scales[p] when given:
 * in tiles, so that both the reads and the writes stay in cache lines whatever F and
 * R are, and over threads for large slices (the writer of a high-rate product is
 * otherwise the slowest step of a spectrometer). */
static void
transpose(const float* in, int64_t F, int64_t R, int64_t P, const double* scales, float* out)
{
    enum { TILE = 64 };
    const int64_t tiles = (F + TILE - 1) / TILE;
#pragma omp parallel for schedule(static) if (F * R >= (1 << 20))
    for (int64_t tile = 0; tile < tiles; tile++) {
        const int64_t f0 = tile * TILE, f1 = f0 + TILE < F ? f0 + TILE : F;
        for (int64_t r0 = 0; r0 < R; r0 += TILE) {
            const int64_t r1 = r0 + TILE < R ? r0 + TILE : R;
            for (int64_t f = f0; f < f1; f++)
                for (int64_t r = r0; r < r1; r++)
                    out[r * F + f] = scales == NULL
                                         ? in[f * R + r]
                                         : (float)(scales[r % P] * (double)in[f * R + r]);
        }
    }
}

blade_status blade_filterbank_writer_write(blade_filterbank_writer* w, const blade_tensor* slice)
{
    if (w->closed)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "%s: already closed", w->path);
    if (w->failed)
        return blade_fail(BLADE_ERROR_IO,
                          "%s: earlier spectra could not be written; the file ends "
                          "before them",
                          w->path);
    if (slice == NULL || slice->data == NULL || slice->dtype != BLADE_F32 ||
        slice->shape.rank != 3 || slice->shape.dims[0] != w->nchans ||
        slice->shape.dims[2] != w->nifs || slice->shape.dims[1] < 1 ||
        slice->device.kind == BLADE_DEVICE_CUDA) {
        char text[128] = "none";
        if (slice != NULL)
            blade_shape_format(&slice->shape, text, sizeof text);
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: expected f32 spectra [%lld, T, %lld] in host memory, got %s %s",
                          w->path,
                          (long long)w->nchans,
                          (long long)w->nifs,
                          slice ? blade_dtype_name(slice->dtype) : "",
                          text);
    }
    const int64_t F = w->nchans, T = slice->shape.dims[1], P = w->nifs;
    const size_t floats = (size_t)(F * T * P);
    if (floats > w->capacity) {
        float* grown = realloc(w->spectra, floats * sizeof *grown);
        if (grown == NULL)
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%s: spectra buffer", w->path);
        w->spectra = grown;
        w->capacity = floats;
    }
    transpose(slice->data, F, T * P, P, w->if_scales, w->spectra);
    if (w->format == BLADE_FILTERBANK_FIL) {
        const blade_status status =
            blade_write_fully(w->fd, w->spectra, floats * sizeof(float), w->offset, w->path);
        if (status != BLADE_OK) {
            /* Disk full or a file size limit: cut the partial spectra off, so the
             * file holds whole spectra, and write nothing more. */
            w->failed = true;
            blade_cut_back(w->fd, w->offset);
            return status;
        }
        w->offset += (int64_t)(floats * sizeof(float));
    } else {
        const blade_status status = blade_fbh5_append(w->fbh5, w->spectra, T);
        if (status != BLADE_OK) {
            w->failed = true; /* the file keeps what the last flush wrote */
            return status;
        }
    }
    w->count += T;
    return BLADE_OK;
}

int64_t blade_filterbank_writer_spectra(const blade_filterbank_writer* w) { return w->count; }

const char* blade_filterbank_writer_path(const blade_filterbank_writer* w) { return w->path; }

blade_status blade_filterbank_writer_close(blade_filterbank_writer* w)
{
    if (w->closed)
        return BLADE_OK;
    w->closed = true;
    blade_status status = BLADE_OK;
    if (w->fd >= 0) {
        if (close(w->fd) != 0)
            status = blade_fail(BLADE_ERROR_IO, "%s: closing failed: %s", w->path, strerror(errno));
        w->fd = -1;
    }
    if (w->fbh5 != NULL) {
        status = blade_fbh5_close(w->fbh5);
        w->fbh5 = NULL;
    }
    return status;
}

void blade_filterbank_writer_destroy(blade_filterbank_writer* w)
{
    if (w == NULL)
        return;
    blade_filterbank_writer_close(w);
    free(w->spectra);
    free(w->if_scales);
    free(w->path);
    free(w);
}
