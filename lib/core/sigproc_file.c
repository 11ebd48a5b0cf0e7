/* SPDX-License-Identifier: MIT */
/*
 * SIGPROC filterbank header: little-endian; "HEADER_START", keyword/value pairs,
 * "HEADER_END", every keyword and string an int32 length and its bytes, numbers
 * int32 or float64. Only keys that blimpy, your and sigpyproc all know are written:
 * unknown keys make some of them misread the rest.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "file_guard.h"
#include "file_io.h"
#include "filterbank_backend.h"

#include <blade/io/observation.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct header_buffer {
    char bytes[4096];
    size_t used;
    bool overflow;
} header_buffer;

static void put(header_buffer* h, const void* data, size_t size)
{
    if (h->used + size > sizeof h->bytes) {
        h->overflow = true;
        return;
    }
    memcpy(h->bytes + h->used, data, size); /* x86 and ARM Linux are little-endian */
    h->used += size;
}

static void put_string(header_buffer* h, const char* text)
{
    const int32_t length = (int32_t)strlen(text);
    put(h, &length, sizeof length);
    put(h, text, (size_t)length);
}

static void put_int(header_buffer* h, const char* key, int32_t value)
{
    put_string(h, key);
    put(h, &value, sizeof value);
}

static void put_double(header_buffer* h, const char* key, double value)
{
    put_string(h, key);
    put(h, &value, sizeof value);
}

static void put_text(header_buffer* h, const char* key, const char* value)
{
    put_string(h, key);
    put_string(h, value);
}

blade_status
blade_sigproc_create(const char* path, const filterbank_values* v, int* fd, int64_t* offset)
{
    header_buffer h = { .used = 0, .overflow = false };
    put_string(&h, "HEADER_START");
    put_int(&h, "telescope_id", v->telescope_id);
    put_int(&h, "machine_id", v->machine_id);
    put_int(&h, "data_type", 1); /* filterbank */
    if (v->rawdatafile != NULL && v->rawdatafile[0] != '\0')
        put_text(&h, "rawdatafile", v->rawdatafile);
    put_text(&h, "source_name", v->source_name);
    if (v->has_position) {
        put_double(&h, "src_raj", blade_sigproc_packed_angle(v->ra_hours));
        put_double(&h, "src_dej", blade_sigproc_packed_angle(v->dec_degrees));
    }
    if (v->has_horizontal) { /* degrees, as SIGPROC and rawspec write them */
        put_double(&h, "az_start", v->az_degrees);
        put_double(&h, "za_start", v->za_degrees);
    }
    put_double(&h, "tstart", v->tstart_mjd);
    put_double(&h, "tsamp", v->tsamp);
    put_int(&h, "nbits", 32);
    put_double(&h, "fch1", v->fch1_mhz);
    put_double(&h, "foff", v->foff_mhz);
    put_int(&h, "nchans", (int32_t)v->nchans);
    put_int(&h, "nifs", (int32_t)v->nifs);
    put_int(&h, "nbeams", (int32_t)v->nbeams);
    put_int(&h, "ibeam", (int32_t)v->ibeam);
    put_string(&h, "HEADER_END");
    if (h.overflow)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "%s: the SIGPROC header is too long", path);

    bool created;
    BLADE_TRY(blade_output_create(path, "filterbank writer", fd, &created));
    const blade_status status = blade_write_fully(*fd, h.bytes, h.used, 0, path);
    if (status != BLADE_OK) {
        /* A file with half a header is no filterbank file: leave none behind (but
         * never remove what this writer did not create). */
        blade_cut_back(*fd, 0);
        close(*fd);
        *fd = -1;
        if (created)
            unlink(path);
        return status;
    }
    *offset = (int64_t)h.used;
    return BLADE_OK;
}
