/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_GUPPI_SINK_H
#define INCLUDED_BLADE_GUPPI_SINK_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Write [A, F, T, P] voltage chunks as a GUPPI RAW recording.
 * \ingroup blade
 *
 * \details
 * Input: one item per chunk, the tensor [A, F, T, P] (P 1 or 2) of the given type,
 * padded to a multiple of 4096 bytes. Blocks of block_samples time samples go to
 * stem.0000.raw, stem.0001.raw, ... (a new file every blocks_per_file blocks).
 *
 * Samples: file_type ci8 (NBITS 8) or ci4 (NBITS 4) or ci16 (NBITS 16) store
 * round(x scale) to nearest even, saturated (requantization); cf32 stores floats
 * (NBITS 32, DATATYPE FLOAT). directio pads header and data to multiples of 512
 * bytes.
 *
 * Header: geometry cards from the data (BLOCSIZE, NANTS, OBSNCHAN, NPOL, NBITS,
 * DATATYPE, DIRECTIO, PIPERBLK = NTIME, PKTIDX advancing by NTIME per block);
 * OBSFREQ, CHAN_BW, OBSBW, TBIN, SYNCTIME, STT_IMJD/SMJD/OFFS, SCHAN, DUT1,
 * SRC_NAME, TELESCOP, RA_STR, DEC_STR from the gr-blade tags of the first chunk
 * (blade.tag: time_start_unix, tsamp, freq_first, chan_bw, coarse_first, dut1,
 * source_name, telescope, ra, dec); then the cards given in header, whose values
 * are card text as written after "= " (quoted strings, bare numbers; Python turns
 * str, int and float values into that), which may replace the tag-derived cards
 * but not the geometry cards. Without a tsamp tag, header must give TBIN.
 *
 * Files are created when the block is made (an unwritable path raises) and every
 * block is written whole; stop() (and the destructor) close them. Samples that do
 * not fill a last block are dropped, with a warning. Write errors (disk full) are
 * logged, recorded in blade.failures(), and end the flowgraph.
 */
class BLADE_API guppi_sink : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<guppi_sink> sptr;

    /*!
     * \brief Make a GUPPI RAW writer.
     *
     * \param stem Files stem.0000.raw, stem.0001.raw, ...
     * \param shape [A, F, T, P] of the input chunks.
     * \param input_type Element type of the chunks: ci4, ci8, ci16, cf16, cf32.
     * \param file_type ci8, ci4, ci16 (integers) or cf32 (floats).
     * \param scale Factor applied before quantization.
     * \param directio Pad header and data to multiples of 512 bytes.
     * \param block_samples Time samples per block (0: one chunk's T).
     * \param blocks_per_file Blocks per file (0: one file).
     * \param header Extra cards: keyword to value text (e.g. "OBSID" -> "'X'").
     */
    static sptr make(const std::string& stem,
                     const std::vector<int64_t>& shape,
                     const std::string& input_type = "ci8",
                     const std::string& file_type = "ci8",
                     double scale = 1.0,
                     bool directio = false,
                     int64_t block_samples = 0,
                     int64_t blocks_per_file = 0,
                     const std::map<std::string, std::string>& header = {});

    /*! \brief Blocks written so far. */
    virtual int64_t blocks_written() const = 0;

    /*! \brief The files created so far. */
    virtual std::vector<std::string> files() const = 0;

    /*! \brief Bytes of one input item. */
    virtual size_t input_item_size() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_GUPPI_SINK_H */
