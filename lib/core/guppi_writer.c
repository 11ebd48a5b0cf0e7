/* SPDX-License-Identifier: MIT */
/*
 * GUPPI RAW writer: chunks are converted into a block buffer row by row
 * ([antenna][channel] rows of [time][pol]); a full block is written with its
 * header in one go.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "cast_backend.h"
#include "file_guard.h"
#include "file_io.h"
#include "internal.h"
#include "observation_check.h"
#include "string_list.h"

#include <blade/io/guppi_writer.h>
#include <blade/memory.h>
#include <blade/modules/cast.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Cards the writer derives from the data and which callers cannot override. */
static const char* const geometry_keys[] = { "BLOCSIZE", "NANTS",    "OBSNCHAN", "NPOL",  "NBITS",
                                             "DATATYPE", "DIRECTIO", "PIPERBLK", "PKTIDX" };

struct blade_guppi_writer {
    blade_guppi_writer_config config;
    char* stem;
    blade_shape shape; /* chunk [A, F, T, P] */
    int64_t ntime;     /* block samples */
    int64_t blocsize;
    int64_t nbits;

    blade_guppi_header* header; /* everything but PKTIDX, set at the first block */
    bool observation_set;
    blade_observation observation;
    blade_guppi_header* extra;
    int64_t first_pktidx;

    char* block;    /* BLOCSIZE bytes (+ DIRECTIO padding) of the file type */
    int64_t filled; /* samples in the block buffer */
    float* scaled;  /* one row of cf32 for scaling, or NULL */
    char* header_buffer;
    size_t header_capacity;

    int fd;
    bool file_created; /* the open file is new: this writer may remove it */
    int64_t file_offset;
    int64_t blocks_in_file;
    int64_t blocks;
    blade_string_list files;
    int64_t discarded;
    bool closed;
    bool failed; /* a block could not be written: the files end before it */
};

static int64_t round_up_512(int64_t bytes) { return (bytes + 511) / 512 * 512; }

static blade_status open_next_file(blade_guppi_writer* w)
{
    if (w->fd >= 0 && close(w->fd) != 0) {
        w->fd = -1;
        return blade_fail(BLADE_ERROR_IO,
                          "%s: closing failed: %s",
                          w->files.items[w->files.count - 1],
                          strerror(errno));
    }
    w->fd = -1;
    BLADE_TRY(
        blade_string_list_append(&w->files, "%s.%04lld.raw", w->stem, (long long)w->files.count));
    const char* name = w->files.items[w->files.count - 1];
    const blade_status status = blade_output_create(name, "GUPPI writer", &w->fd, &w->file_created);
    if (status != BLADE_OK) {
        blade_string_list_remove_last(&w->files);
        return status;
    }
    w->file_offset = 0;
    w->blocks_in_file = 0;
    return BLADE_OK;
}

static int nbits_of(blade_dtype type)
{
    switch (type) {
    case BLADE_CI4:
        return 4;
    case BLADE_CI8:
        return 8;
    case BLADE_CI16:
        return 16;
    case BLADE_CF32:
        return 32;
    default:
        return 0;
    }
}

blade_status blade_guppi_writer_create(blade_guppi_writer** writer,
                                       const blade_guppi_writer_config* config,
                                       const blade_shape* chunk_shape)
{
    *writer = NULL;
    if (config == NULL || config->stem == NULL || config->stem[0] == '\0')
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "GUPPI writer: no file stem given");
    BLADE_TRY(blade_shape_validate(chunk_shape, "GUPPI writer chunk"));
    if (chunk_shape->rank != 4 || chunk_shape->dims[3] > 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: chunks must be [A, F, T, P] with P = 1 or 2");
    const int nbits = nbits_of(config->file_type);
    if (nbits == 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: samples can be written as ci8 (NBITS 8), ci4 (NBITS 4), "
                          "ci16 (NBITS 16) or cf32 (NBITS 32, float); %s is none of them",
                          blade_dtype_name(config->file_type));
    if (!blade_dtype_is_complex(config->input_type) || config->input_type == BLADE_CF64 ||
        !blade_cast_supported(config->input_type, BLADE_CF32))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: chunks must be complex voltages (ci4, ci8, ci16, cf16 "
                          "or cf32), not %s",
                          blade_dtype_name(config->input_type));
    if (!(config->scale >= 0) || !isfinite(config->scale))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: scale must be a positive number (0 for 1), got %g",
                          config->scale);
    if (config->block_samples < 0 || config->blocks_per_file < 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: block_samples (%lld) and blocks_per_file (%lld) must "
                          "be >= 0 (0: the default)",
                          (long long)config->block_samples,
                          (long long)config->blocks_per_file);

    blade_guppi_writer* w;
    BLADE_TRY(blade_alloc_object(sizeof *w, "GUPPI writer", (void**)&w));
    w->fd = -1;
    w->config = *config;
    w->config.stem = NULL;
    if (w->config.scale == 0)
        w->config.scale = 1;
    w->shape = *chunk_shape;
    w->ntime = config->block_samples ? config->block_samples : chunk_shape->dims[2];
    w->nbits = nbits;
    const int64_t A = chunk_shape->dims[0], F = chunk_shape->dims[1], P = chunk_shape->dims[3];
    w->blocsize = (int64_t)blade_bytes(config->file_type, A * F * w->ntime * P);
    blade_status status = BLADE_OK;
    w->stem = strdup(config->stem);
    if (w->stem == NULL)
        status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "GUPPI writer: stem");
    const size_t block_bytes = (size_t)round_up_512(w->blocsize);
    if (status == BLADE_OK)
        status = blade_host_alloc(blade_device_cpu(), block_bytes, (void**)&w->block);
    if (status == BLADE_OK) {
        memset(w->block, 0, block_bytes);
        if (w->config.scale != 1) {
            const int64_t row =
                (w->ntime < chunk_shape->dims[2] ? w->ntime : chunk_shape->dims[2]) * P;
            w->scaled = malloc((size_t)row * 2 * sizeof(float));
            if (w->scaled == NULL)
                status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "GUPPI writer: scaling row");
        }
    }
    if (status == BLADE_OK)
        status = blade_guppi_header_create(&w->header);
    /* The first file is created with the first block (a writer that never gets one
     * leaves no file), but an unusable place is refused now. */
    if (status == BLADE_OK)
        status = blade_output_directory_check(w->stem, "GUPPI writer");
    if (status != BLADE_OK) {
        blade_guppi_writer_destroy(w);
        return status;
    }
    *writer = w;
    return BLADE_OK;
}

blade_status blade_guppi_writer_set_observation(blade_guppi_writer* w,
                                                const blade_observation* observation,
                                                const blade_guppi_header* extra)
{
    if (w->blocks > 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: the observation must be set before the first block "
                          "is written");
    if (extra != NULL)
        for (size_t i = 0; i < sizeof geometry_keys / sizeof geometry_keys[0]; i++)
            if (blade_guppi_header_has(extra, geometry_keys[i]))
                return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                                  "GUPPI writer: %s is derived from the data and cannot be set "
                                  "by hand",
                                  geometry_keys[i]);
    if (observation != NULL && !(observation->tsamp > 0 && isfinite(observation->tsamp)))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: the sample time must be positive, got %g s",
                          observation->tsamp);
    /* The cards made from these (STT_IMJD, PKTIDX, OBSFREQ, RA_STR, ...) must be
     * numbers a reader accepts: refuse what no recording can have. */
    if (observation != NULL &&
        (!(fabs(observation->unix_start) < BLADE_MOST_UNIX_SECONDS) ||
         !isfinite(observation->freq_first) || !isfinite(observation->chan_bw) ||
         observation->chan_bw == 0 || !(fabs(observation->dut1) <= 1.0) ||
         observation->coarse_first < 0 || observation->coarse_first > INT32_MAX))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: the observation is not one a recording can have "
                          "(start %g unix s, first channel %g Hz, channel width %g Hz, "
                          "DUT1 %g s, first coarse channel %lld)",
                          observation->unix_start,
                          observation->freq_first,
                          observation->chan_bw,
                          observation->dut1,
                          (long long)observation->coarse_first);
    if (observation != NULL)
        BLADE_TRY(blade_check_pointing(observation, "GUPPI writer"));
    blade_guppi_header_destroy(w->extra);
    w->extra = NULL;
    if (extra != NULL) {
        BLADE_TRY(blade_guppi_header_create(&w->extra));
        BLADE_TRY(blade_guppi_header_merge(w->extra, extra));
    }
    if (observation != NULL) {
        w->observation = *observation;
        w->observation_set = true;
    }
    return BLADE_OK;
}

/* SYNCTIME and the first PKTIDX that give back the first sample's time. */
static void choose_time_origin(const blade_observation* obs, double* synctime, int64_t* pktidx)
{
    const double second = floor(obs->unix_start);
    const double samples = (obs->unix_start - second) / obs->tsamp;
    /* A unix time near 1.7e9 s carries only ~0.24 us in a double, so the tags cannot
     * be more exact than a couple of those steps: a start that close to the sample
     * grid counted from a whole second is snapped to it. */
    const double resolution = nextafter(obs->unix_start, INFINITY) - obs->unix_start;
    const double tolerance = fmax(2 * resolution, 1e-3 * obs->tsamp);
    if (fabs(samples - round(samples)) * obs->tsamp <= tolerance) {
        *synctime = second;
        *pktidx = (int64_t)llround(samples);
    } else {
        *synctime = obs->unix_start;
        *pktidx = 0;
    }
}

static blade_status compose_header(blade_guppi_writer* w)
{
    blade_guppi_header* h = w->header;
    const int64_t A = w->shape.dims[0], F = w->shape.dims[1], P = w->shape.dims[3];
    blade_observation obs = w->observation;
    if (!w->observation_set) {
        memset(&obs, 0, sizeof obs);
        obs.tsamp = 1;
    }
    BLADE_TRY(blade_guppi_header_set_int(h, "BLOCSIZE", w->blocsize));
    BLADE_TRY(blade_guppi_header_set_int(h, "NANTS", A));
    BLADE_TRY(blade_guppi_header_set_int(h, "OBSNCHAN", A * F));
    BLADE_TRY(blade_guppi_header_set_int(h, "NPOL", P));
    BLADE_TRY(blade_guppi_header_set_int(h, "NBITS", w->nbits));
    BLADE_TRY(blade_guppi_header_set_string(h, "DATATYPE", w->nbits == 32 ? "FLOAT" : "INTEGER"));
    BLADE_TRY(blade_guppi_header_set_int(h, "DIRECTIO", w->config.directio ? 1 : 0));
    BLADE_TRY(blade_guppi_header_set_int(h, "PIPERBLK", w->ntime));
    BLADE_TRY(blade_guppi_header_set_int(h, "PKTIDX", 0));

    /* The band centre: channel centres are OBSFREQ + (c - (F - 1)/2)·CHAN_BW. */
    blade_observation band = obs;
    band.nchan = F;
    const double centre = blade_observation_band_centre(&band);
    BLADE_TRY(blade_guppi_header_set_real(h, "OBSFREQ", centre / 1e6));
    BLADE_TRY(blade_guppi_header_set_real(h, "CHAN_BW", obs.chan_bw / 1e6));
    BLADE_TRY(blade_guppi_header_set_real(h, "OBSBW", (double)F * obs.chan_bw / 1e6));
    BLADE_TRY(blade_guppi_header_set_real(h, "TBIN", obs.tsamp));
    double synctime;
    choose_time_origin(&obs, &synctime, &w->first_pktidx);
    if (synctime == floor(synctime) && fabs(synctime) < 9e15)
        BLADE_TRY(blade_guppi_header_set_int(h, "SYNCTIME", (int64_t)synctime));
    else
        BLADE_TRY(blade_guppi_header_set_real(h, "SYNCTIME", synctime));
    /* STT_*: the same origin (PKTIDX 0), split into day, second and fraction. */
    const double mjd = blade_unix_to_mjd(synctime);
    const double imjd = floor(mjd);
    const double day_seconds = synctime - (imjd - BLADE_MJD_OF_UNIX_EPOCH) * 86400.0;
    const double smjd = floor(day_seconds);
    BLADE_TRY(blade_guppi_header_set_int(h, "STT_IMJD", (int64_t)imjd));
    BLADE_TRY(blade_guppi_header_set_int(h, "STT_SMJD", (int64_t)smjd));
    BLADE_TRY(blade_guppi_header_set_real(h, "STT_OFFS", day_seconds - smjd));
    BLADE_TRY(blade_guppi_header_set_int(h, "SCHAN", obs.coarse_first));
    BLADE_TRY(blade_guppi_header_set_real(h, "DUT1", obs.dut1));
    if (obs.source_name[0])
        BLADE_TRY(blade_guppi_header_set_string(h, "SRC_NAME", obs.source_name));
    if (obs.telescope[0])
        BLADE_TRY(blade_guppi_header_set_string(h, "TELESCOP", obs.telescope));
    if (obs.has_position) {
        char text[40];
        blade_format_sexagesimal(obs.ra * 12.0 / M_PI, 4, false, text, sizeof text);
        BLADE_TRY(blade_guppi_header_set_string(h, "RA_STR", text));
        blade_format_sexagesimal(obs.dec * 180.0 / M_PI, 3, true, text, sizeof text);
        BLADE_TRY(blade_guppi_header_set_string(h, "DEC_STR", text));
        BLADE_TRY(blade_guppi_header_set_real(h, "RA", obs.ra * 180.0 / M_PI));
        BLADE_TRY(blade_guppi_header_set_real(h, "DEC", obs.dec * 180.0 / M_PI));
    }
    if (obs.has_horizontal) {
        BLADE_TRY(blade_guppi_header_set_real(h, "AZ", obs.az * 180.0 / M_PI));
        BLADE_TRY(blade_guppi_header_set_real(h, "ZA", obs.za * 180.0 / M_PI));
    }
    if (w->extra != NULL)
        BLADE_TRY(blade_guppi_header_merge(h, w->extra));
    return BLADE_OK;
}

static blade_status write_block(blade_guppi_writer* w)
{
    if (w->blocks == 0)
        BLADE_TRY(compose_header(w));
    if (w->fd < 0 ||
        (w->config.blocks_per_file > 0 && w->blocks_in_file == w->config.blocks_per_file))
        BLADE_TRY(open_next_file(w));
    BLADE_TRY(
        blade_guppi_header_set_int(w->header, "PKTIDX", w->first_pktidx + w->blocks * w->ntime));
    const size_t header_bytes = blade_guppi_header_bytes(w->header, w->config.directio);
    if (header_bytes > w->header_capacity) {
        char* grown = realloc(w->header_buffer, header_bytes);
        if (grown == NULL)
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "GUPPI writer: header buffer");
        w->header_buffer = grown;
        w->header_capacity = header_bytes;
    }
    BLADE_TRY(
        blade_guppi_header_format(w->header, w->config.directio, w->header_buffer, header_bytes));
    const char* name = w->files.items[w->files.count - 1];
    const int64_t data_bytes = w->config.directio ? round_up_512(w->blocsize) : w->blocsize;
    blade_status status =
        blade_write_fully(w->fd, w->header_buffer, header_bytes, w->file_offset, name);
    if (status == BLADE_OK)
        status = blade_write_fully(
            w->fd, w->block, (size_t)data_bytes, w->file_offset + (int64_t)header_bytes, name);
    if (status != BLADE_OK) {
        /* Disk full or a file size limit: cut the partial block off, so the
         * file holds whole blocks (readers drop a torn one with a warning, but
         * others may misread it), and write nothing more. */
        w->failed = true;
        blade_cut_back(w->fd, w->file_offset);
        if (w->blocks_in_file == 0 && w->file_created) {
            /* Not one block: no recording (readers refuse an empty file). */
            close(w->fd);
            w->fd = -1;
            unlink(name);
            blade_string_list_remove_last(&w->files);
        }
        return status;
    }
    w->file_offset += (int64_t)header_bytes + data_bytes;
    w->blocks++;
    w->blocks_in_file++;
    return BLADE_OK;
}

/* Convert `count` samples of one row, applying the scale. */
static void convert_row(blade_guppi_writer* w, const char* in, char* out, int64_t count)
{
    const blade_dtype from = w->config.input_type, to = w->config.file_type;
    if (w->scaled == NULL) {
        blade_cpu_cast(in, from, out, to, count, 1.0f);
        return;
    }
    blade_cpu_cast(in, from, w->scaled, BLADE_CF32, count, 1.0f);
    const float scale = (float)w->config.scale;
    for (int64_t i = 0; i < 2 * count; i++)
        w->scaled[i] *= scale;
    blade_cpu_cast(w->scaled, BLADE_CF32, out, to, count, 1.0f);
}

blade_status blade_guppi_writer_write(blade_guppi_writer* w, const blade_tensor* chunk)
{
    BLADE_TRY(blade_check_tensor("GUPPI writer", "input", chunk, w->config.input_type, &w->shape));
    if (chunk->device.kind == BLADE_DEVICE_CUDA)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI writer: the chunk must be in host memory");
    if (w->closed)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "GUPPI writer: already closed");
    if (w->failed)
        return blade_fail(BLADE_ERROR_IO,
                          "GUPPI writer: an earlier block could not be written; the "
                          "recording ends before it");
    const int64_t A = w->shape.dims[0], F = w->shape.dims[1], T = w->shape.dims[2],
                  P = w->shape.dims[3];
    const blade_dtype from = w->config.input_type, to = w->config.file_type;
    const char* data = chunk->data;
    int64_t done = 0;
    while (done < T) {
        const int64_t take = T - done < w->ntime - w->filled ? T - done : w->ntime - w->filled;
        for (int64_t row = 0; row < A * F; row++) {
            const char* in = data + blade_bytes(from, (row * T + done) * P);
            char* out = w->block + blade_bytes(to, (row * w->ntime + w->filled) * P);
            /* Scale rows are at most min(T, NTIME)·P samples: take never exceeds that. */
            convert_row(w, in, out, take * P);
        }
        w->filled += take;
        done += take;
        if (w->filled == w->ntime) {
            BLADE_TRY(write_block(w));
            w->filled = 0;
        }
    }
    return BLADE_OK;
}

blade_status blade_guppi_writer_close(blade_guppi_writer* w)
{
    if (w->closed)
        return BLADE_OK;
    w->closed = true;
    w->discarded += w->filled;
    w->filled = 0;
    if (w->fd >= 0) {
        const int fd = w->fd;
        w->fd = -1;
        if (close(fd) != 0)
            return blade_fail(BLADE_ERROR_IO,
                              "%s: closing failed: %s",
                              w->files.items[w->files.count - 1],
                              strerror(errno));
    }
    return BLADE_OK;
}

int64_t blade_guppi_writer_blocks(const blade_guppi_writer* w) { return w->blocks; }

int64_t blade_guppi_writer_files(const blade_guppi_writer* w) { return w->files.count; }

int64_t blade_guppi_writer_discarded_samples(const blade_guppi_writer* w) { return w->discarded; }

const char* blade_guppi_writer_file_name(const blade_guppi_writer* w, int64_t index)
{
    return index >= 0 && index < w->files.count ? w->files.items[index] : NULL;
}

void blade_guppi_writer_destroy(blade_guppi_writer* w)
{
    if (w == NULL)
        return;
    blade_guppi_writer_close(w);
    blade_host_free(blade_device_cpu(), w->block);
    free(w->scaled);
    free(w->header_buffer);
    free(w->stem);
    blade_guppi_header_destroy(w->header);
    blade_guppi_header_destroy(w->extra);
    blade_string_list_clear(&w->files);
    free(w);
}
