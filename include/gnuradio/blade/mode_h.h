/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_H_H
#define INCLUDED_BLADE_MODE_H_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/bundle.h>
#include <gnuradio/hier_block2.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Mode H: the high-resolution spectrometer bundle.
 * \ingroup blade
 *
 * \details
 * cast to cf32 -> channelizer (rate N, optionally a polyphase filterbank) ->
 * optional polarizer (linear to circular) -> detector (mode, integration I, across
 * chunks when I exceeds the chunk's fine time samples).
 *
 * Input: voltage chunks [A, F, T, P] of the input type (ci8 from a GUPPI RAW
 * recording, ci4, cf32, ...). Output: power chunks [A, F*N, T/(N*I), Pout] f32
 * (T/(N*I) is 1 when the integration spans chunks, and then one output chunk comes
 * every I*N/T input chunks). Pout is 1 for mode I, 2 for XXYY, 4 for cross and IQUV.
 * Tags: the channelizer and detector rewrite the frequency axis and sample time, so
 * a filterbank_sink downstream writes correct headers.
 *
 * Device: all blocks of the chain run on one device; on a GPU the chunk is
 * uploaded once, stays in device memory through every stage, and the spectra are
 * downloaded once.
 *
 * Several devices (devices ["cuda:0", "cuda:1"], or device "all"): the channels
 * are split into one equal sub-band per device (channel_split), each device runs
 * its own copy of the chain on its sub-band, uploading its channels straight from
 * the pinned input buffer, and the outputs are merged by channel (channel_merge)
 * into pinned host memory: the output is what one device gives, bit for bit.
 * The upstream block must then be a host block (guppi_source, a ZeroMQ source),
 * and so must the downstream block. The number of devices must divide F.
 */
class BLADE_API mode_h : virtual public gr::hier_block2, public virtual bundle
{
public:
    typedef std::shared_ptr<mode_h> sptr;

    /*!
     * \brief Make a Mode H bundle.
     *
     * \param shape [A, F, T, P] of the input chunks.
     * \param options The chain (spectrometer_options): input type, channelizer rate
     *        N (a divisor of T; unset: 1), polyphase taps and window, circular,
     *        detector ("I", "XXYY", "cross" or "IQUV") and integration (a divisor of
     *        T/N, or a multiple of it to integrate across chunks), device or devices
     *        ("all": every GPU, as many as divide F).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const spectrometer_options& options = spectrometer_options());
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_MODE_H_H */
