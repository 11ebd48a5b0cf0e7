/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DOWNLOAD_H
#define INCLUDED_BLADE_DOWNLOAD_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Explicit device-to-host copy of every chunk, for any number of host blocks.
 * \ingroup blade
 *
 * \details
 * The input is a device buffer (put this block after a gr-blade GPU block); the
 * output is an ordinary host buffer, so any number of host blocks can follow. Each
 * chunk is copied from device memory to host memory exactly once, by this block, on
 * its own stream.
 *
 * Why it exists: GNU Radio gives each buffer one transfer type. A GPU block's output
 * that feeds only GPU blocks stays on the device; one that feeds only host blocks is
 * downloaded by the buffer itself. An output feeding both a GPU block and a host
 * block has no valid transfer type. Connect the host consumers through
 * blade.download instead: the GPU block's buffer then feeds only device readers (the
 * next GPU block and this block), and this block's output feeds the host blocks. The
 * chunk is not copied on the device first (blade.duplicate would make a device copy).
 *
 * Items: one item is one chunk, the row-major tensor of the given shape padded to a
 * multiple of 4096 bytes; only the tensor's bytes are copied (padding content is
 * unspecified). Stream tags pass through.
 *
 * Device: the GPU the input lives on: "auto" (the first GPU if any, else the CPU),
 * "cuda", "cuda:N", or "emulated". On the CPU the block is a plain copy.
 */
class BLADE_API download : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<download> sptr;

    /*!
     * \brief Make a download block.
     *
     * \param shape Tensor shape of one chunk, e.g. [A, F, T, P].
     * \param dtype Element type: ci4, ci8, ci16, cf16, cf32, cf64, f16, f32, f64.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& dtype = "cf32",
                     const std::string& device = "auto");

    /*! \brief The device actually used ("cpu", "cuda:0", "emulated"). */
    virtual std::string device() const = 0;

    /*! \brief Bytes of one item (input and output alike). */
    virtual size_t item_size() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DOWNLOAD_H */
