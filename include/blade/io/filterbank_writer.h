/* SPDX-License-Identifier: MIT */
/**
 * @file io/filterbank_writer.h
 * @brief Write power spectra as SIGPROC filterbank (.fil) or filterbank HDF5 (.h5).
 *
 * One writer writes one file: one beam (or antenna) of float32 power, `nifs`
 * values (Stokes I alone, or several polarization products) per channel and time.
 * Input is the [F, T, P] slice of a detector's [B, F, T, P] chunk; the writer
 * stores it spectrum by spectrum, IF-major, as both formats want:
 * data[t][p][f].
 *
 * Header (both formats; only keys that blimpy, your and sigpyproc know):
 * telescope_id, machine_id, data_type = 1, rawdatafile, source_name, src_raj and
 * src_dej (when the position is known), az_start and za_start (degrees, when the
 * recording gives AZ and ZA or EL), tstart (MJD of the first sample), tsamp,
 * nbits = 32, fch1 (MHz, centre of channel 0), foff (MHz per channel, negative
 * for descending frequency), nchans, nifs, nbeams, ibeam. Frequencies are
 * fch1 + j·foff and times tstart + i·tsamp. In .fil files src_raj and src_dej are
 * SIGPROC's packed hhmmss.s and ddmmss.s; in .h5 files they are decimal hours and
 * degrees (blimpy's convention) and `nfpc` (fine channels per coarse channel,
 * used by turbo_seti) is added.
 *
 * Robustness: the .fil header is written when the file is created and every
 * write appends whole spectra; the .h5 dataset grows by each write and the file
 * is flushed after it, so a file interrupted between writes is complete up to
 * the last one. Close (or destroy) after a normal or early stop.
 *
 * FBH5 needs HDF5 at build time (blade_filterbank_fbh5_available()). blimpy
 * refuses FBH5 files with fewer than 3 channels (rejected at creation) or fewer
 * than 3 spectra (blade_filterbank_writer_spectra() tells; the caller should say
 * so).
 */
#ifndef BLADE_IO_FILTERBANK_WRITER_H
#define BLADE_IO_FILTERBANK_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <blade/export.h>
#include <blade/io/observation.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** File format. */
typedef enum blade_filterbank_format {
    BLADE_FILTERBANK_FIL = 0, /**< SIGPROC filterbank, .fil */
    BLADE_FILTERBANK_FBH5     /**< filterbank HDF5, .h5 */
} blade_filterbank_format;

/** Fewest channels and spectra blimpy accepts in an FBH5 file. */
#define BLADE_FBH5_BLIMPY_MINIMUM 3

/** Configuration of one filterbank file. */
/** blade_filterbank_config::telescope_id: take the id from observation.telescope. */
#define BLADE_FILTERBANK_TELESCOPE_FROM_NAME (-1000)

typedef struct blade_filterbank_config {
    const char* path; /**< file to create (truncated if present) */
    blade_filterbank_format format;
    int64_t nchans; /**< channels per spectrum */
    int64_t nifs;   /**< IFs (polarization products) per spectrum */
    int64_t nbeams; /**< beams (or antennas) in the set of files (>= 1) */
    int64_t ibeam;  /**< this file's beam, 0-based (-1: unknown, a single pixel: rawspec's) */
    blade_observation observation; /**< axes and pointing; tsamp > 0 */
    int telescope_id;              /**< SIGPROC id (-1: unknown, as rawspec writes it), or
                                        BLADE_FILTERBANK_TELESCOPE_FROM_NAME */
    int machine_id;                /**< SIGPROC machine id (rawspec's 20 is what
                                        Breakthrough Listen files carry; 0: "fake") */
    const char* rawdatafile;       /**< written when not NULL or empty (at most 80 characters) */
    const double* if_scales;       /**< nifs factors applied to the values as they are
                                        written (NULL: none), e.g. rawspec's 1/127² */
} blade_filterbank_config;

/** An opaque writer of one file. */
typedef struct blade_filterbank_writer blade_filterbank_writer;

/** True if this build can write FBH5 (it was built with HDF5). */
BLADE_CORE_API bool blade_filterbank_fbh5_available(void);

/**
 * The file name of beam `index` of a set: "STEM.LABELNNNN.EXT" (label "beam" or
 * "ant", four digits, ext "fil" or "h5"), e.g. "obs.beam0002.fil".
 */
BLADE_CORE_API void blade_filterbank_file_name(const char* stem,
                                               const char* label,
                                               int64_t index,
                                               blade_filterbank_format format,
                                               char* name,
                                               size_t size);

/**
 * Prepare one file's [F, T, P] slice from a detector's [B, F, T, P] chunk:
 *
 *     out[f, t, p] = scale[p] · Σ_b weight[b] · chunk[b, f, t, p]
 *
 * With `weights` NULL only aspect `aspect` is taken (weight 1): a per-file scale,
 * e.g. rawspec's 1/127² for 8-bit samples and its U, V without the factor 2. With
 * `weights` (B values) the aspects are summed: an incoherent sum of antennas'
 * power, each weighted (rawspec's -i). `scales` (P values) may be NULL for 1. The
 * sums are in double precision, in the order b = 0 .. B − 1.
 */
BLADE_CORE_API void blade_filterbank_combine(const float* chunk,
                                             int64_t aspects,
                                             int64_t per_aspect_spectra,
                                             int64_t ifs,
                                             const double* weights,
                                             int64_t aspect,
                                             const double* scales,
                                             float* out);

/**
 * Validate, create the file and write the header (.fil) or the file's structure
 * (.h5). ::BLADE_ERROR_INVALID_ARGUMENT for bad sizes or axes (the message says
 * which), ::BLADE_ERROR_UNSUPPORTED for .h5 without HDF5, ::BLADE_ERROR_IO naming
 * the file when it cannot be created.
 */
BLADE_CORE_API blade_status blade_filterbank_writer_create(blade_filterbank_writer** writer,
                                                           const blade_filterbank_config* config);

/**
 * Append the spectra of `slice`: an f32 tensor [nchans, T, nifs] in host memory
 * (T any >= 1). ::BLADE_ERROR_IO naming the file and offset when the disk is full.
 */
BLADE_CORE_API blade_status blade_filterbank_writer_write(blade_filterbank_writer* writer,
                                                          const blade_tensor* slice);

/** Spectra written so far. */
BLADE_CORE_API int64_t blade_filterbank_writer_spectra(const blade_filterbank_writer* writer);

/** Path of the file. */
BLADE_CORE_API const char* blade_filterbank_writer_path(const blade_filterbank_writer* writer);

/** Flush and close the file. Idempotent. */
BLADE_CORE_API blade_status blade_filterbank_writer_close(blade_filterbank_writer* writer);

/** Close (if needed) and free (NULL is ignored). */
BLADE_CORE_API void blade_filterbank_writer_destroy(blade_filterbank_writer* writer);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_IO_FILTERBANK_WRITER_H */
