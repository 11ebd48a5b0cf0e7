/* SPDX-License-Identifier: MIT */
/**
 * @file io/guppi_writer.h
 * @brief Write [A, F, T, P] chunks as a GUPPI RAW recording.
 *
 * Blocks of `block_samples` time samples are written to stem.0000.raw,
 * stem.0001.raw, ... (a new file every `blocks_per_file` blocks). Each block has a
 * complete header: the geometry cards the writer owns (BLOCSIZE, NANTS, OBSNCHAN,
 * NPOL = 2 or 1, NBITS, DATATYPE, DIRECTIO, PIPERBLK, PKTIDX), the axes from a
 * ::blade_observation (OBSFREQ, CHAN_BW, OBSBW, TBIN, SYNCTIME, STT_IMJD,
 * STT_SMJD, STT_OFFS, SCHAN, DUT1, SRC_NAME, TELESCOP, RA_STR, DEC_STR, RA, DEC),
 * and any extra cards the caller gives (which may replace the axis cards, not the
 * geometry cards).
 *
 * Time: PIPERBLK = NTIME, so PKTIDX counts samples and advances by NTIME per block
 * from the first block's PKTIDX. SYNCTIME is the whole second before the first
 * sample and PKTIDX its sample offset from there when that offset is a whole number
 * of samples; otherwise SYNCTIME is the first sample's time itself (a fractional
 * number, written with 17 digits) and PKTIDX starts at 0. Either way a reader
 * computing SYNCTIME + PKTIDX·TBIN·NTIME/PIPERBLK gets the time back.
 *
 * Samples: integers (NBITS 4, 8, 16) are round(x·scale) to nearest even, saturated
 * at the type's limits; floats (NBITS 32, DATATYPE = 'FLOAT') are x·scale. With
 * DIRECTIO the header and the data are each padded to a multiple of 512 bytes.
 *
 * Every block is written whole (header and data in one go), so an interrupted
 * recording ends at most with one truncated block, which readers skip. Samples
 * that do not fill a last block at close are not written (counted).
 */
#ifndef BLADE_IO_GUPPI_WRITER_H
#define BLADE_IO_GUPPI_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/io/guppi_header.h>
#include <blade/io/observation.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Configuration of a writer. */
typedef struct blade_guppi_writer_config {
    const char* stem;        /**< files stem.0000.raw, stem.0001.raw, ... */
    blade_dtype input_type;  /**< element type of the chunks (complex) */
    blade_dtype file_type;   /**< ci8 (NBITS 8), ci4 (NBITS 4), ci16 (NBITS 16), cf32 (float) */
    double scale;            /**< factor applied before quantizing; 0 means 1 */
    bool directio;           /**< pad header and data to multiples of 512 bytes */
    int64_t block_samples;   /**< time samples per block (NTIME); 0: the chunk's T */
    int64_t blocks_per_file; /**< blocks before starting the next file; 0: one file */
} blade_guppi_writer_config;

/** An opaque writer. */
typedef struct blade_guppi_writer blade_guppi_writer;

/**
 * Validate, and create (truncate) the first file so that an unwritable path fails
 * here. `chunk_shape` is [A, F, T, P] with P 1 or 2. ::BLADE_ERROR_IO names the
 * file and the system's reason.
 */
BLADE_CORE_API blade_status blade_guppi_writer_create(blade_guppi_writer** writer,
                                                      const blade_guppi_writer_config* config,
                                                      const blade_shape* chunk_shape);

/**
 * Set the axes and pointing (before the first block is written; later calls fail)
 * and extra header cards (may be NULL; copied). Without a call, the axis cards are
 * zero: TBIN 1 s, OBSFREQ 0.
 */
BLADE_CORE_API blade_status blade_guppi_writer_set_observation(blade_guppi_writer* writer,
                                                               const blade_observation* observation,
                                                               const blade_guppi_header* extra);

/** Append one chunk (host memory). Writes every block it completes. */
BLADE_CORE_API blade_status blade_guppi_writer_write(blade_guppi_writer* writer,
                                                     const blade_tensor* chunk);

/**
 * Close the current file. Samples of an incomplete last block are dropped and
 * counted (blade_guppi_writer_discarded_samples()); if no block was written at
 * all, the empty first file is removed. Idempotent.
 */
BLADE_CORE_API blade_status blade_guppi_writer_close(blade_guppi_writer* writer);

/** Blocks written so far. */
BLADE_CORE_API int64_t blade_guppi_writer_blocks(const blade_guppi_writer* writer);

/** Files created so far. */
BLADE_CORE_API int64_t blade_guppi_writer_files(const blade_guppi_writer* writer);

/** Time samples dropped at close because they did not fill a block. */
BLADE_CORE_API int64_t blade_guppi_writer_discarded_samples(const blade_guppi_writer* writer);

/** Path of file `index` as written (stem.NNNN.raw); NULL if not created. */
BLADE_CORE_API const char* blade_guppi_writer_file_name(const blade_guppi_writer* writer,
                                                        int64_t index);

/** Close (if needed) and free (NULL is ignored). */
BLADE_CORE_API void blade_guppi_writer_destroy(blade_guppi_writer* writer);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_IO_GUPPI_WRITER_H */
