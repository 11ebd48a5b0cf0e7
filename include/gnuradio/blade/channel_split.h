/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CHANNEL_SPLIT_H
#define INCLUDED_BLADE_CHANNEL_SPLIT_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Split each chunk's channels into equal sub-bands, one per output, each
 * optionally on its own device.
 * \ingroup blade
 *
 * \details
 * Input: chunks [A, F, T, P] of any element type (one item per chunk). Output n
 * (n = 0 to parts - 1): chunks [A, F/parts, T, P] holding channels n F/parts to
 * (n + 1) F/parts - 1 of every aspect, unchanged. parts must divide F.
 *
 * Tags: every tag of a chunk goes to the chunk on every output, with the frequency
 * axis moved to the sub-band: freq_first + n (F/parts) chan_bw on output n, and
 * coarse_first + n (F/parts)/nfpc (F/parts must then hold whole coarse channels).
 * The channel width is the latest chan_bw tag seen.
 *
 * Devices: empty (the default) puts every output in host memory. Otherwise one
 * device per output ("cpu", "cuda:N", "emulated", "emulated:N"; the same device
 * may appear several times): output n's buffer lives in that device's memory, and
 * the split fills it from the input by one strided copy per chunk (a DMA transfer
 * for a GPU). When any output is on a device, the input buffer is pinned host
 * memory written in place by the upstream block (which must then be a host block,
 * e.g. guppi_source or a ZeroMQ source), so each GPU fetches its own channels over
 * its own PCIe link and no host memory copy is made. The copies to the devices run
 * concurrently.
 */
class BLADE_API channel_split : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<channel_split> sptr;

    /*!
     * \brief Make a channel split.
     *
     * \param shape [A, F, T, P] of the input chunks.
     * \param dtype Element type: ci4, ci8, ci16, cf16, cf32, f32, ...
     * \param parts Sub-bands (outputs); must divide F.
     * \param devices Empty (all outputs in host memory), or one device per output.
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& dtype = "ci8",
                     int64_t parts = 2,
                     const std::vector<std::string>& devices = std::vector<std::string>());

    /*! \brief Sub-bands (outputs). */
    virtual int64_t parts() const = 0;

    /*! \brief Shape of each output chunk: [A, F/parts, T, P]. */
    virtual std::vector<int64_t> output_shape() const = 0;

    /*! \brief Bytes of one input item. */
    virtual size_t input_item_size() const = 0;

    /*! \brief Bytes of one output item. */
    virtual size_t output_item_size() const = 0;

    /*! \brief Device of each output ("cpu" for host memory). */
    virtual std::vector<std::string> devices() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CHANNEL_SPLIT_H */
