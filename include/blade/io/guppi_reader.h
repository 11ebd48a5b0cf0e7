/* SPDX-License-Identifier: MIT */
/**
 * @file io/guppi_reader.h
 * @brief Read a GUPPI RAW recording (one file or a stem.NNNN.raw sequence) as a
 *        stream of [A, F, T, P] chunks with their time and frequency axes.
 *
 * Opening scans the header of every block of every file, so that a malformed
 * recording is refused at once, with the file, the byte offset and the problem:
 * an empty file, bytes that are not header cards, a missing END card, a BLOCSIZE
 * that runs past the end of the file (for the first block), NBITS other than 4, 8,
 * 16 or 32, OBSNCHAN not a multiple of NANTS, a block size that is not a whole
 * number of time samples, a geometry that changes between blocks, a file of the
 * set from another observation (OBSFREQ, CHAN_BW, TBIN, SCHAN, SRC_NAME, SYNCTIME,
 * ... differ), or a PKTIDX that goes backwards or jumps by other than whole blocks.
 * A truncated last block (or
 * a truncated header after at least one complete block) is not an error: it is
 * dropped with a warning (blade_guppi_reader_warning()).
 *
 * Reading: the caller's thread reads the rows a chunk needs straight from the files
 * into the chunk (converting through a small staging row when the type changes);
 * a thread of the reader has the kernel read the next
 * blade_guppi_reader_config::readahead_blocks blocks into the page cache ahead of
 * the caller, so disk reads overlap the caller's copies. Each
 * chunk holds `chunk_samples` consecutive time samples of every antenna, of the selected
 * channels, converted to the output type. Chunks span blocks and files freely; samples at
 * the end of the stream that do not fill a whole chunk are not returned
 * (blade_guppi_reader_stats::samples_left says how many).
 *
 * Conventions (docs/formats.md has them per telescope and recorder):
 * - Block geometry: NTIME = BLOCSIZE·8 / (2·NPOL·OBSNCHAN·NBITS) samples, of which
 *   the first OVERLAP (PUPPI) repeat the previous block's last ones: each block
 *   adds NTIME − OVERLAP new samples to the stream (the last block all NTIME);
 *   channels per antenna = OBSNCHAN / NANTS; data order
 *   [antenna][channel][time][pol][re, im]. NPOL 4 (the GBT convention for "two
 *   polarizations, re and im") is read as 2.
 * - Sample types: NBITS 4 -> ci4 (re in the high nibble), 8 -> ci8, 16 -> ci16
 *   (little-endian), 32 -> cf32 (float data, DATATYPE = 'FLOAT').
 * - PKTIDX step per block S: PIPERBLK (hpguppi: ATA, MeerKAT); else (BLOCSIZE −
 *   OVERLAP·sample bytes) / PKTSIZE when that is whole (guppi_daq at the GBT and
 *   Parkes, PUPPI: PKTIDX counts packets); else the smallest advance of PKTIDX
 *   between consecutive blocks; else NTIME − OVERLAP.
 * - Time of new sample n of a block: T0 + PKTIDX·TBIN·(NTIME − OVERLAP)/S + n·TBIN,
 *   T0 = SYNCTIME, or without it the STT_IMJD/STT_SMJD/STT_OFFS time. Julian date
 *   = unix/86400 + 2440587.5.
 * - Frequency of channel c (per antenna): OBSFREQ + (c - (NCHAN - 1)/2)·CHAN_BW.
 * - A PKTIDX jump of k·S (k > 1) means k - 1 dropped blocks: zero-filled
 *   or the end of the stream, as configured; never a silent shift in time. A gap
 *   longer than blade_guppi_reader_config::max_gap_seconds allows is refused.
 */
#ifndef BLADE_IO_GUPPI_READER_H
#define BLADE_IO_GUPPI_READER_H

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

/** Most blocks one gap may miss whatever max_gap_seconds says (2^20). */
#define BLADE_GUPPI_MOST_MISSING_BLOCKS (INT64_C(1) << 20)

/** What to do where blocks are missing (a PKTIDX jump). */
typedef enum blade_guppi_gap_policy {
    BLADE_GUPPI_GAP_ZERO_FILL = 0, /**< emit zeros for the missing blocks (rawspec, seticore) */
    BLADE_GUPPI_GAP_STOP           /**< end the stream at the first gap */
} blade_guppi_gap_policy;

/** Configuration of a reader. */
typedef struct blade_guppi_reader_config {
    const char* path;        /**< a file, a stem, or any member of stem.NNNN.raw */
    bool single_file;        /**< read only the file named, not its sequence */
    int64_t chunk_samples;   /**< time samples per chunk; 0: one block's NTIME */
    int64_t channel_start;   /**< first channel (per antenna) of the chunks */
    int64_t channel_count;   /**< channels per antenna in a chunk; 0: all from channel_start */
    blade_dtype output_type; /**< ci8, cf32, ci16, cf16, or ci4 (4-bit files only) */
    blade_guppi_gap_policy gap_policy; /**< dropped blocks: zero-fill or stop */
    int readahead_blocks; /**< blocks buffered ahead; 0: about 512 MiB, 2 to 8 blocks */
    /** Longest gap zero-filled, in seconds. 0: as long as all the data the
     *  recording holds (a longer run of missing blocks is more likely a corrupt
     *  PKTIDX or two recordings put together than dropped packets); INFINITY: no
     *  bound but ::BLADE_GUPPI_MOST_MISSING_BLOCKS. A longer gap is refused at open,
     *  naming the block and PKTIDX. Not used with ::BLADE_GUPPI_GAP_STOP. */
    double max_gap_seconds;
} blade_guppi_reader_config;

/** The recording as found at open. */
typedef struct blade_guppi_recording {
    int64_t nants;                 /**< NANTS (1 if absent) */
    int64_t nchan;                 /**< channels per antenna: OBSNCHAN / NANTS */
    int64_t npol;                  /**< polarizations: 1 or 2 (NPOL 4 read as 2) */
    int64_t nbits;                 /**< NBITS */
    blade_dtype file_type;         /**< element type of the data: ci4, ci8, ci16 or cf32 */
    int64_t blocsize;              /**< data bytes per block */
    int64_t block_samples;         /**< time samples in a block's data, OVERLAP included */
    int64_t overlap;               /**< OVERLAP: samples repeating the previous block's last */
    int64_t ntime;                 /**< time samples each block adds to the stream:
                                 block_samples - overlap */
    int64_t piperblk;              /**< PKTIDX steps per block (PIPERBLK, or from PKTSIZE,
                                 or from the PKTIDX values) */
    int64_t pktsize;               /**< PKTSIZE (bytes per packet), 0 if absent */
    int64_t nfiles;                /**< files in the recording */
    int64_t nblocks;               /**< complete blocks found in the files */
    int64_t gaps;                  /**< PKTIDX jumps (places where blocks are missing) */
    int64_t missing_blocks;        /**< blocks missing in all jumps together */
    int64_t stream_blocks;         /**< blocks the stream delivers (zero-filled ones included;
                                 with ::BLADE_GUPPI_GAP_STOP up to the first gap) */
    int64_t stream_samples;        /**< stream_blocks · ntime + overlap (the last block's
                                 overlap samples, which no later block repeats) */
    int64_t chunks;                /**< whole chunks the stream delivers */
    int64_t first_pktidx;          /**< PKTIDX of the first block */
    double tbin;                   /**< seconds per sample */
    bool has_time;                 /**< SYNCTIME or STT_IMJD was found (else times count from 0) */
    blade_observation observation; /**< axes of the whole recording: channel 0, first sample */
} blade_guppi_recording;

/** What one chunk holds, besides the samples. */
typedef struct blade_guppi_chunk {
    int64_t index;                 /**< chunk counter from 0 */
    double unix_start;             /**< unix seconds at the start of the chunk's first sample */
    double unix_mid;               /**< unix_start + chunk_samples·tbin/2 */
    double jd_start;               /**< UTC Julian date of unix_start */
    double jd_mid;                 /**< UTC Julian date of unix_mid */
    int64_t block_index;           /**< block of the first sample, counted in the stream from 0
                              (missing blocks count: it follows PKTIDX) */
    int64_t file_index;            /**< file holding that block (for a zero-filled block: the
                              file of the next block read) */
    int64_t zero_filled_blocks;    /**< zero-filled blocks overlapping this chunk */
    int64_t zero_filled_samples;   /**< zero-filled time samples in this chunk */
    blade_observation observation; /**< axes of this chunk (first selected channel) */
} blade_guppi_chunk;

/** Counters since open. */
typedef struct blade_guppi_reader_stats {
    int64_t chunks;             /**< chunks returned */
    int64_t blocks_read;        /**< blocks read from disk */
    int64_t bytes_read;         /**< data bytes read from disk */
    int64_t zero_filled_blocks; /**< missing blocks emitted as zeros (whole or in part) */
    bool stopped_at_gap;        /**< the stream ended at a gap (::BLADE_GUPPI_GAP_STOP) */
    int64_t samples_left;       /**< samples at the end too few for a whole chunk */
} blade_guppi_reader_stats;

/** An opaque reader. */
typedef struct blade_guppi_reader blade_guppi_reader;

/**
 * Find the files, scan every block header and validate the configuration.
 * Errors (::BLADE_ERROR_IO, ::BLADE_ERROR_FORMAT, ::BLADE_ERROR_INVALID_ARGUMENT)
 * name the file, the byte offset and the problem. Starts no thread (the first
 * read does), so describing a recording is cheap.
 */
BLADE_CORE_API blade_status blade_guppi_reader_open(blade_guppi_reader** reader,
                                                    const blade_guppi_reader_config* config);

/** The recording's geometry, counts and axes. */
BLADE_CORE_API const blade_guppi_recording*
blade_guppi_reader_recording(const blade_guppi_reader* reader);

/** Shape of the chunks: [NANTS, channel_count, chunk_samples, NPOL]. */
BLADE_CORE_API blade_shape blade_guppi_reader_output_shape(const blade_guppi_reader* reader);

/** Path of file `index` (0 .. nfiles-1), NULL out of range. */
BLADE_CORE_API const char* blade_guppi_reader_file_name(const blade_guppi_reader* reader,
                                                        int64_t index);

/** Header of the first block (owned by the reader). */
BLADE_CORE_API const blade_guppi_header*
blade_guppi_reader_header(const blade_guppi_reader* reader);

/**
 * Parse the header of complete block `block` (0 .. nblocks-1, in file order) again
 * from disk; the caller destroys it.
 */
BLADE_CORE_API blade_status blade_guppi_reader_block_header(const blade_guppi_reader* reader,
                                                            int64_t block,
                                                            blade_guppi_header** header);

/**
 * Parse the first block header of the file `path` alone, whatever follows it (no
 * data, a block cut short, cards the reader would refuse), so that what a broken or
 * header-only recording says can still be shown; the caller destroys it. Errors
 * name the file (a missing END card, bytes that are not cards, not a regular file).
 */
BLADE_CORE_API blade_status blade_guppi_file_header(const char* path, blade_guppi_header** header);

/** Warnings found at open (truncated blocks, gaps, missing keys), oldest first. */
BLADE_CORE_API int64_t blade_guppi_reader_warning_count(const blade_guppi_reader* reader);

/** Warning `index`, NULL out of range. */
BLADE_CORE_API const char* blade_guppi_reader_warning(const blade_guppi_reader* reader,
                                                      int64_t index);

/**
 * Fill `output` (host memory, the output type and shape) with the next chunk and
 * describe it in `chunk` (may be NULL). ::BLADE_ERROR_END_OF_DATA after the last
 * whole chunk; ::BLADE_ERROR_IO if a file vanished or a read failed (the message
 * names the file and offset).
 */
BLADE_CORE_API blade_status blade_guppi_reader_read(blade_guppi_reader* reader,
                                                    blade_tensor* output,
                                                    blade_guppi_chunk* chunk);

/** Counters since open. */
BLADE_CORE_API blade_guppi_reader_stats
blade_guppi_reader_get_stats(const blade_guppi_reader* reader);

/** Stop the read-ahead thread, close the files and free everything (NULL ignored). */
BLADE_CORE_API void blade_guppi_reader_close(blade_guppi_reader* reader);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_IO_GUPPI_READER_H */
