/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_STREAM_TO_TENSOR_H
#define INCLUDED_BLADE_STREAM_TO_TENSOR_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_decimator.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Packs complex sample streams into [A, F, T, P] cf32 chunks, with time tags.
 * \ingroup blade
 *
 * \details
 * Inputs: A*F*P ordinary gr_complex streams (an SDR's channels, file sources), one
 * per antenna, channel and polarization. Input port (a*F + f)*P + p fills element
 * [a, f, t, p]: polarization fastest, so with F = 1 and P = 2 ports 0 and 1 are
 * antenna 0, ports 2 and 3 antenna 1, and so on. T samples of every stream make one
 * chunk (a decimating block: T items in per port, one item out).
 *
 * Output 0: cf32 [A, F, T, P] chunks, one item each, padded to a multiple of 4096
 * bytes. This is a host block; when a GPU block follows, that block's device buffer
 * uploads each chunk. Optional output 1: one chunk_time item (64 bytes) per chunk,
 * for the phasor block.
 *
 * Time: the sample clock starts at start_time (unix seconds of sample 0) and
 * sample_rate; an rx_time tag on input 0 (a UHD tuple of whole and fractional
 * seconds, or a number of seconds) sets the time of its sample, an rx_rate tag the
 * rate from its sample on, an rx_freq tag the centre frequency of channel 0. A tag
 * inside a chunk takes effect from the next chunk (a chunk is dated by its first
 * sample). Every chunk is tagged (gr::blade::tag) with blade_time_start_unix (first
 * sample), blade_time_mid_unix (start + T/rate/2), blade_jd_start, blade_jd_mid (UTC
 * Julian dates, unix/86400 + 2440587.5), blade_dut1, blade_tsamp (1/rate),
 * blade_chan_bw (chan_bw, or the sample rate when chan_bw is 0) and, when known
 * (freq_first non-zero or an rx_freq tag), blade_freq_first (centre of channel 0,
 * Hz). Other tags of input 0 move to the chunk holding their sample; tags of the
 * other inputs are dropped.
 */
class BLADE_API stream_to_tensor : virtual public gr::sync_decimator
{
public:
    typedef std::shared_ptr<stream_to_tensor> sptr;

    /*!
     * \brief Make a stream-to-tensor adapter.
     *
     * \param shape Chunk shape [A, F, T, P] (every extent at least 1).
     * \param sample_rate Samples per second of every stream (> 0).
     * \param freq_first Centre frequency of channel 0 in Hz (0: unknown until rx_freq).
     * \param chan_bw Channel spacing in Hz (0: the sample rate; negative: descending).
     * \param start_time Unix seconds of sample 0, until an rx_time tag says otherwise.
     * \param dut1 UT1 - UTC in seconds, passed on in tags and chunk_time items.
     */
    static sptr make(const std::vector<int64_t>& shape,
                     double sample_rate,
                     double freq_first = 0,
                     double chan_bw = 0,
                     double start_time = 0,
                     double dut1 = 0);

    /*! \brief Number of input streams: A*F*P. */
    virtual int nstreams() const = 0;

    /*! \brief Bytes of one output chunk item. */
    virtual size_t item_size() const = 0;

    /*! \brief Input port of antenna a, channel f, polarization p: (a*F + f)*P + p. */
    virtual int port(int64_t a, int64_t f, int64_t p) const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_STREAM_TO_TENSOR_H */
