/* SPDX-License-Identifier: MIT */
/* The two file formats behind blade_filterbank_writer: SIGPROC .fil
 * (sigproc_file.c) and filterbank HDF5 (fbh5_file.c). Not installed. */
#ifndef BLADE_CORE_FILTERBANK_BACKEND_H
#define BLADE_CORE_FILTERBANK_BACKEND_H

#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Header values in the units the formats store. */
typedef struct filterbank_values {
    const char* source_name;
    const char* rawdatafile; /* NULL or "": not written */
    int telescope_id, machine_id;
    bool has_position;
    double ra_hours, dec_degrees;
    bool has_horizontal;
    double az_degrees, za_degrees;
    double tstart_mjd, tsamp, fch1_mhz, foff_mhz;
    int64_t nchans, nifs, nbeams, ibeam, nfpc;
} filterbank_values;

/* .fil: create `path`, write the header; *fd and *offset (bytes written) returned. */
blade_status
blade_sigproc_create(const char* path, const filterbank_values* values, int* fd, int64_t* offset);

/* .h5: an open file with its growing dataset. */
typedef struct blade_fbh5_file blade_fbh5_file;

bool blade_fbh5_supported(void);
blade_status
blade_fbh5_create(const char* path, const filterbank_values* values, blade_fbh5_file** file);
/* Append `count` spectra of nifs x nchans float32 and flush. */
blade_status blade_fbh5_append(blade_fbh5_file* file, const float* spectra, int64_t count);
blade_status blade_fbh5_close(blade_fbh5_file* file);

#ifdef __cplusplus
}
#endif

#endif
