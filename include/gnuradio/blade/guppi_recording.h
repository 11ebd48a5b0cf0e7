/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_GUPPI_RECORDING_H
#define INCLUDED_BLADE_GUPPI_RECORDING_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/observation.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief One header card of a GUPPI RAW block, as parsed.
 * \ingroup blade
 */
struct BLADE_API guppi_card {
    std::string key;     //!< keyword
    std::string value;   //!< value text, unquoted
    std::string kind;    //!< "integer", "real", "string", "logical" or "none" (no value)
    bool quoted = false; //!< the value was in quotes
};

/*!
 * \brief What a GUPPI RAW recording holds, from its headers.
 * \ingroup blade
 */
struct BLADE_API guppi_description {
    std::vector<std::string> files;       //!< files in reading order
    int64_t nants = 0;                    //!< antennas
    int64_t nchan = 0;                    //!< channels per antenna
    int64_t npol = 0;                     //!< polarizations (1 or 2)
    int64_t nbits = 0;                    //!< bits per real or imaginary part
    std::string sample_type;              //!< ci4, ci8, ci16 or cf32
    int64_t blocsize = 0;                 //!< data bytes per block
    int64_t ntime = 0;                    //!< time samples each block adds (OVERLAP excluded)
    int64_t overlap = 0;                  //!< OVERLAP: samples repeating the previous block's
    int64_t piperblk = 0;                 //!< PKTIDX steps per block (PIPERBLK, PKTSIZE or learned)
    int64_t blocks = 0;                   //!< complete blocks in the files
    int64_t gaps = 0;                     //!< PKTIDX jumps
    int64_t missing_blocks = 0;           //!< blocks missing in them
    int64_t first_pktidx = 0;             //!< PKTIDX of the first block
    double tbin = 0;                      //!< seconds per sample
    ::gr::blade::observation observation; //!< the recording's axes and pointing (all channels)
    std::vector<std::string> warnings;    //!< found while scanning
};

/*!
 * \brief Scan a recording (a file, a stem or a member of a sequence).
 * \ingroup blade
 *
 * Raises with the file, byte offset and problem if it is malformed. on_gap and
 * max_gap are guppi_source's: how gaps are counted and how long one may be.
 */
BLADE_API guppi_description describe_guppi(const std::string& path,
                                           bool single_file = false,
                                           const std::string& on_gap = "zero-fill",
                                           double max_gap = 0);

/*!
 * \brief The header cards of complete block `block` (0: the first) of a recording.
 * \ingroup blade
 */
BLADE_API std::vector<guppi_card>
read_guppi_header(const std::string& path, int64_t block = 0, bool single_file = false);

/*!
 * \brief The first header of the file `path` alone, whatever follows (no data, a
 * cut-short or refused recording): what a broken recording says.
 * \ingroup blade
 */
BLADE_API std::vector<guppi_card> read_guppi_file_header(const std::string& path);

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_GUPPI_RECORDING_H */
