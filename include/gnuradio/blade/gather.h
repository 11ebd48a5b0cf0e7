/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_GATHER_H
#define INCLUDED_BLADE_GATHER_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/sync_decimator.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Concatenates M consecutive chunks along one axis into one chunk (CPU or GPU).
 * \ingroup blade
 *
 * \details
 * A decimating block: every M input chunks of shape S give one output chunk, S with
 * axis k M times longer, equal to numpy.concatenate([chunk0, ..., chunkM-1], axis=k)
 * in arrival order. Along the time axis (2) of [A, F, T, P] voltages it makes long
 * chunks for a high-resolution channelizer. Any element type; bytes are copied
 * unchanged.
 *
 * Tags: only the tags of the first chunk of each group travel, to that group's
 * output chunk. When gathering along T of a rank-4 chunk, the mid-chunk times
 * (blade_time_mid_unix, blade_jd_mid) are moved to the middle of the group when
 * that chunk also carries blade_tsamp.
 *
 * Items: one item is one chunk padded to a multiple of 4096 bytes. The upstream
 * buffer holds 2 M input chunks (GNU Radio hands a decimator whole groups).
 *
 * Device: "auto" (the first GPU if any, else the CPU), "cpu", "cuda", "cuda:N", or
 * "emulated" (GPU-style device buffers in host memory, for testing without a GPU).
 */
class BLADE_API gather : virtual public gr::sync_decimator, public virtual tensor_block
{
public:
    typedef std::shared_ptr<gather> sptr;

    /*!
     * \brief Make a gather block.
     *
     * \param shape Tensor shape of one input chunk, e.g. [A, F, T, P].
     * \param axis Axis to concatenate along, 0 to rank - 1 (2 is T of [A, F, T, P]).
     * \param multiplier M, input chunks per output chunk (at least 1).
     * \param dtype Element type: ci4, ci8, ci16, cf16, cf32, cf64, f16, f32, f64.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<int64_t>& shape,
                     int axis,
                     int64_t multiplier,
                     const std::string& dtype = "cf32",
                     const std::string& device = "auto");

    /*! \brief The gathered axis. */
    virtual int axis() const = 0;

    /*! \brief M, input chunks per output chunk. */
    virtual int64_t multiplier() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_GATHER_H */
