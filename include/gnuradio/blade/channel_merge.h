/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CHANNEL_MERGE_H
#define INCLUDED_BLADE_CHANNEL_MERGE_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Join equal sub-bands, one per input, into whole chunks: the inverse of
 * channel_split.
 * \ingroup blade
 *
 * \details
 * Input n (n = 0 to parts - 1): chunks [A, F/parts, T, P] of any element type,
 * sub-band n. Output: chunks [A, F, T, P] with input n's channels at n F/parts to
 * (n + 1) F/parts - 1. Splitting and merging gives every chunk back bit for bit.
 *
 * Tags: the tags of input 0 (whose first channel is the whole chunk's first
 * channel) go to the output; other inputs' tags are dropped. A freq_first tag on
 * input n must be input 0's plus n (F/parts) chan_bw: otherwise the sub-bands are
 * connected out of order, which is reported (blade.failures()) and ends the
 * flowgraph.
 *
 * Devices: empty (the default): inputs and output in host memory. Otherwise one
 * device per input, the device of the block feeding it (the sub-chain that
 * computed the sub-band): each input is then read where that block wrote it, and
 * copied by DMA straight into the output, which is pinned host memory read in place
 * by the downstream block (a host block: a file sink, a ZeroMQ sink). The copies
 * from the devices run concurrently. An input found on another device than listed
 * is reported at start.
 */
class BLADE_API channel_merge : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<channel_merge> sptr;

    /*!
     * \brief Make a channel merge.
     *
     * \param shape [A, F, T, P] of the output (whole) chunks.
     * \param dtype Element type.
     * \param parts Sub-bands (inputs); must divide F.
     * \param devices Empty (all in host memory), or the device of each input.
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& dtype = "f32",
                     int64_t parts = 2,
                     const std::vector<std::string>& devices = std::vector<std::string>());

    /*! \brief Sub-bands (inputs). */
    virtual int64_t parts() const = 0;

    /*! \brief Shape of each input chunk: [A, F/parts, T, P]. */
    virtual std::vector<int64_t> input_shape() const = 0;

    /*! \brief Bytes of one input item. */
    virtual size_t input_item_size() const = 0;

    /*! \brief Bytes of one output item. */
    virtual size_t output_item_size() const = 0;

    /*! \brief Device of each input ("cpu" for host memory). */
    virtual std::vector<std::string> devices() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CHANNEL_MERGE_H */
