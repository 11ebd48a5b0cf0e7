/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_METADATA_H
#define INCLUDED_BLADE_METADATA_H

#include <gnuradio/blade/api.h>

#include <cstdint>
#include <map>
#include <string>

namespace gr {
namespace blade {

/*!
 * \brief Stream tag keys that gr-blade blocks attach to each chunk.
 * \ingroup blade
 *
 * \details
 * A source (guppi_source, stream_to_tensor) tags the first item of every chunk with
 * the chunk's time and frequency axis; blocks that change an axis rewrite the tag
 * (the channelizer: channel width, first-channel frequency, sample time and fine
 * channels per coarse channel; the detector: sample time); sinks read them (the
 * filterbank header). Times are in seconds, frequencies in Hz, angles in radians.
 * Channel frequencies are channel centres.
 */
namespace tag {
constexpr const char* time_start_unix = "blade_time_start_unix"; //!< double: first sample's start
constexpr const char* time_mid_unix = "blade_time_mid_unix";     //!< double: middle of the chunk
constexpr const char* jd_start = "blade_jd_start";     //!< double: UTC Julian date of the start
constexpr const char* jd_mid = "blade_jd_mid";         //!< double: UTC Julian date of the middle
constexpr const char* dut1 = "blade_dut1";             //!< double: UT1 - UTC, seconds
constexpr const char* tsamp = "blade_tsamp";           //!< double: seconds per sample on the T axis
constexpr const char* freq_first = "blade_freq_first"; //!< double: centre of channel 0, Hz
constexpr const char* chan_bw =
    "blade_chan_bw";                         //!< double: channel width, Hz (negative: descending)
constexpr const char* nchan = "blade_nchan"; //!< long: channels per aspect in the chunk
constexpr const char* nfpc = "blade_nfpc";   //!< long: fine channels per coarse channel
constexpr const char* coarse_first =
    "blade_coarse_first"; //!< long: absolute index of coarse channel 0 (SCHAN + subset start)
constexpr const char* block_index = "blade_block_index"; //!< long: GUPPI block of the chunk start
constexpr const char* file_name = "blade_file_name";     //!< string: file of the chunk start
constexpr const char* source_name = "blade_source_name"; //!< string: SRC_NAME
constexpr const char* telescope = "blade_telescope";     //!< string: TELESCOP
constexpr const char* ra = "blade_ra";                   //!< double: boresight right ascension, rad
constexpr const char* dec = "blade_dec";                 //!< double: boresight declination, rad
constexpr const char* az = "blade_az";                   //!< double: azimuth at the start, rad
constexpr const char* za = "blade_za";                   //!< double: zenith angle at the start, rad
constexpr const char* aspect = "blade_aspect"; //!< string: "antenna" or "beam" (meaning of axis A)
constexpr const char* dropped =
    "blade_dropped_blocks"; //!< long: blocks zero-filled before this chunk
//! dict: what each beam of axis A is, so that every beam's file gets its own name and
//! position: "names" (vector of symbols), "ra" and "dec" (f64vector, radians; NaN
//! where unknown), "boresight" (f64vector: ra, dec). The phasor block attaches it to
//! its first chunk and after every change of beams; the beamformer passes it on with
//! the incoherent beam (at the boresight) appended; the sinks name their files by it.
constexpr const char* beams = "blade_beams";
} // namespace tag

/*! \brief Every tag key by short name ("tsamp" -> "blade_tsamp"), for Python. \ingroup blade */
BLADE_API std::map<std::string, std::string> tag_keys();

/*!
 * \brief The item of a chunk-time stream: when one data chunk was observed.
 * \ingroup blade
 *
 * \details
 * Sources that know time (guppi_source) can emit, beside the data, one chunk_time
 * item per data chunk, in step with it. The phasor block consumes this stream to
 * compute one phasor chunk per data chunk, so that the voltages themselves never
 * need to be read by it (on a GPU they never leave device memory). 64 bytes.
 */
struct chunk_time {
    double unix_start = 0; //!< unix seconds of the first sample's start
    double unix_mid = 0;   //!< unix seconds of the middle of the chunk
    double jd_start = 0;   //!< UTC Julian date of unix_start
    double jd_mid = 0;     //!< UTC Julian date of unix_mid
    double dut1 = 0;       //!< UT1 - UTC, seconds
    double tsamp = 0;      //!< seconds per time sample
    int64_t step = 0;      //!< chunk counter from 0
    int64_t flags = 0;     //!< bit 0: the chunk contains zero-filled (dropped) data
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_METADATA_H */
