/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_FILTERBANK_SINK_H
#define INCLUDED_BLADE_FILTERBANK_SINK_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Write power spectra as SIGPROC filterbank (.fil) or filterbank HDF5 (.h5)
 * files, one per beam or antenna.
 * \ingroup blade
 *
 * \details
 * Input: one item per chunk, the f32 tensor [B, F, T, P] of a detector (B beams or
 * antennas, F channels, T spectra, P IFs: 1 for Stokes I, 2 for XX and YY, 4 for
 * the cross or IQUV products), padded to a multiple of 4096 bytes.
 *
 * Output: B files named stem.beam0000.fil, stem.beam0001.fil, ... (or
 * stem.ant0000.fil, ... for antennas; .h5 for FBH5). aspect "auto" takes the word
 * from the blade_aspect tag of the first chunk ("antenna" gives ant, anything else
 * beam).
 *
 * Header (from the gr-blade tags of the first chunk, which the channelizer and the
 * detector keep right): fch1 = freq_first (MHz, centre of channel 0), foff = chan_bw
 * (MHz), tstart = MJD of time_start_unix, tsamp, nchans = F, nifs = P, nbeams = B,
 * ibeam, source_name, telescope_id (from the telescope tag: ATA 9, GBT 6, MeerKAT
 * 64, ...), machine_id 20 (rawspec's), src_raj and src_dej (from ra and dec; for
 * beams, each file's own from the blade_beams tag, and none for beamformed data
 * without it), az_start and za_start (from az and za), nfpc (.h5 only). Frequencies are
 * fch1 + j foff, times tstart + i tsamp. overrides sets or replaces values:
 * source_name, rawdatafile, telescope_id, machine_id, fch1, foff (MHz), tstart
 * (MJD), tsamp (s), nfpc, ra and dec (radians), nbeams and ibeam. file_overrides,
 * one map per file, sets values for that file alone (after overrides): e.g. each
 * beam's source_name, ra and dec, which the Mode B bundles take from the
 * beamforming recipe; and "path", the file's whole name instead of the stem's.
 *
 * Values: if_scales (one per IF, or one for all) multiplies each IF's values as
 * they are written (rawspec's 1/127² for 8-bit samples, or its Stokes U and V
 * without the factor 2). aspect_weights (B values) writes one file instead of B:
 * the weighted sum of the aspects, e.g. an incoherent sum of the antennas' power
 * (rawspec's -i), named as aspect 0 (or by file_overrides[0]'s path).
 *
 * Files are created at the first chunk and closed by stop() or the destructor;
 * .fil data are appended whole spectra at a time and .h5 files are flushed after
 * every chunk, so an interrupted recording is readable up to the last chunk.
 * blimpy refuses FBH5 files with fewer than 3 channels (refused when the block is
 * made) or fewer than 3 spectra (a warning at stop).
 */
class BLADE_API filterbank_sink : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<filterbank_sink> sptr;

    /*!
     * \brief Make a filterbank writer.
     *
     * \param stem Path stem of the files.
     * \param shape [B, F, T, P] of the input chunks (f32).
     * \param format "fil" (SIGPROC) or "h5" (FBH5).
     * \param aspect "auto", "beam" or "antenna": the word in the file names.
     * \param overrides Header values by SIGPROC name (value text).
     * \param file_overrides Header values for file b at index b (may be shorter
     *        than B; files without an entry use overrides alone).
     * \param if_scales Factors of the IFs' values (empty: 1; one value: all IFs).
     * \param aspect_weights B weights: write their weighted sum as one file
     *        (empty: one file per aspect).
     */
    static sptr make(const std::string& stem,
                     const std::vector<int64_t>& shape,
                     const std::string& format = "fil",
                     const std::string& aspect = "auto",
                     const std::map<std::string, std::string>& overrides = {},
                     const std::vector<std::map<std::string, std::string>>& file_overrides = {},
                     const std::vector<double>& if_scales = {},
                     const std::vector<double>& aspect_weights = {});

    /*! \brief The files written (empty before the first chunk). */
    virtual std::vector<std::string> files() const = 0;

    /*! \brief Spectra written to each file so far. */
    virtual int64_t spectra_written() const = 0;

    /*! \brief Bytes of one input item. */
    virtual size_t input_item_size() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_FILTERBANK_SINK_H */
