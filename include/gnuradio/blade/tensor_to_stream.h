/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_TENSOR_TO_STREAM_H
#define INCLUDED_BLADE_TENSOR_TO_STREAM_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_interpolator.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Unpacks [A, F, T, P] cf32 chunks into complex sample streams, with rx tags.
 * \ingroup blade
 *
 * \details
 * The inverse of stream_to_tensor: one cf32 [A, F, T, P] chunk in, T gr_complex
 * samples out on each of A*F*P output ports (an interpolating block). Element
 * [a, f, t, p] goes to sample t of port (a*F + f)*P + p, polarization fastest. Use it
 * to hand beamformed voltages ([B, F, T, P]) to ordinary GNU Radio blocks such as a
 * Qt sink. This is a host block: after a GPU block, that block's device buffer
 * downloads each chunk.
 *
 * Tags: a chunk's blade_time_start_unix becomes an rx_time tag (UHD tuple of whole
 * and fractional seconds) on the chunk's first sample of every port; blade_tsamp an
 * rx_rate tag (1/tsamp) and blade_freq_first with blade_chan_bw an rx_freq tag (the
 * port's channel centre, freq_first + f*chan_bw) on every port, whenever they
 * change. The other time tags (mid, Julian dates) are dropped; any other tag of a
 * chunk moves to its first sample on port 0.
 */
class BLADE_API tensor_to_stream : virtual public gr::sync_interpolator
{
public:
    typedef std::shared_ptr<tensor_to_stream> sptr;

    /*!
     * \brief Make a tensor-to-stream adapter.
     *
     * \param shape Chunk shape [A, F, T, P] (every extent at least 1).
     */
    static sptr make(const std::vector<int64_t>& shape);

    /*! \brief Number of output streams: A*F*P. */
    virtual int nstreams() const = 0;

    /*! \brief Bytes of one input chunk item. */
    virtual size_t item_size() const = 0;

    /*! \brief Output port of aspect a, channel f, polarization p: (a*F + f)*P + p. */
    virtual int port(int64_t a, int64_t f, int64_t p) const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_TENSOR_TO_STREAM_H */
