/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_GUPPI_SOURCE_H
#define INCLUDED_BLADE_GUPPI_SOURCE_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Read a GUPPI RAW recording as [A, F, T, P] voltage chunks with their time
 * and frequency axes.
 * \ingroup blade
 *
 * \details
 * Opens one file, a stem, or any member of a stem.0000.raw, stem.0001.raw, ...
 * sequence, and reads the consecutive files as one stream. Headers are checked when
 * the block is made: a missing file or a malformed header raises at once with the
 * file, the byte offset and the problem. A truncated last block is dropped with a
 * warning. A thread reads whole blocks ahead, so that the disk, not the parsing,
 * limits the rate.
 *
 * Output 0: one item per chunk, the tensor [NANTS, channels, chunk samples, NPOL]
 * (antennas, the selected channels of each antenna, time samples, polarizations),
 * row-major, padded to a multiple of 4096 bytes (blade.item_size). Chunks span
 * blocks and files; samples at the end too few for a whole chunk are not emitted.
 * Types: ci8 (two int8 per sample, the GUPPI layout), cf32, ci16, cf16, or ci4 for
 * 4-bit recordings; only conversions that keep every value are allowed.
 *
 * Output 1 (optional): one chunk_time item (64 bytes, blade.CHUNK_TIME_DTYPE) per
 * chunk, for the phasor block.
 *
 * Tags on every chunk (keys in blade.tag): time_start_unix, time_mid_unix, jd_start,
 * jd_mid, dut1, tsamp (TBIN), freq_first (Hz, centre of the first selected
 * channel: OBSFREQ + (c - (NCHAN-1)/2) CHAN_BW), chan_bw (Hz), nfpc (1),
 * coarse_first (SCHAN + first channel), block_index, file_name, source_name,
 * telescope, ra and dec (radians, from RA_STR and DEC_STR), aspect ("antenna"),
 * and GNU Radio's rx_time (whole seconds, fraction). Time of sample n of a block:
 * SYNCTIME + PKTIDX (TBIN NTIME / PIPERBLK) + n TBIN.
 *
 * Dropped blocks (a PKTIDX jump): on_gap "zero-fill" emits zeros in their place
 * (tag dropped_blocks on the chunks that hold them, bit 0 of the chunk_time flags);
 * "stop" ends the stream at the first gap. Both are logged with counts. A gap longer
 * than max_gap seconds (0: longer than all the data the recording holds) is refused
 * when the block is made, naming the block and its PKTIDX: one corrupt PKTIDX must
 * not turn a small file into terabytes of zeros.
 *
 * A host block: a following GPU block's device buffer uploads its chunks.
 */
class BLADE_API guppi_source : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<guppi_source> sptr;

    /*!
     * \brief Open a recording.
     *
     * \param path A .raw file, a stem, or any member of a stem.NNNN.raw sequence.
     * \param chunk_samples Time samples per chunk (0: one block).
     * \param output_type ci8, cf32, ci16, cf16, or ci4 (4-bit recordings).
     * \param channel_start First channel (of each antenna) to read.
     * \param channel_count Channels to read (0: all from channel_start).
     * \param on_gap "zero-fill" or "stop" where blocks are missing.
     * \param single_file Read only the file named, not its whole sequence.
     * \param readahead_blocks Blocks read ahead (0: about 512 MiB worth, 2 to 8).
     * \param max_gap Longest gap zero-filled, seconds (0: as long as the recording's
     *        data; infinity: no bound).
     */
    static sptr make(const std::string& path,
                     int64_t chunk_samples = 0,
                     const std::string& output_type = "ci8",
                     int64_t channel_start = 0,
                     int64_t channel_count = 0,
                     const std::string& on_gap = "zero-fill",
                     bool single_file = false,
                     int readahead_blocks = 0,
                     double max_gap = 0);

    /*! \brief Shape of the chunks: [NANTS, channels, chunk samples, NPOL]. */
    virtual std::vector<int64_t> output_shape() const = 0;

    /*! \brief Bytes of one output item. */
    virtual size_t output_item_size() const = 0;

    /*! \brief The files read, in order. */
    virtual std::vector<std::string> files() const = 0;

    /*! \brief Whole chunks the recording yields. */
    virtual int64_t chunks() const = 0;

    /*! \brief Seconds per time sample (TBIN). */
    virtual double tsamp() const = 0;

    /*! \brief Missing blocks emitted as zeros so far. */
    virtual int64_t zero_filled_blocks() const = 0;

    /*! \brief Data bytes read from disk so far. */
    virtual int64_t bytes_read() const = 0;

    /*! \brief Warnings found when opening (truncated blocks, gaps, missing keys). */
    virtual std::vector<std::string> warnings() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_GUPPI_SOURCE_H */
