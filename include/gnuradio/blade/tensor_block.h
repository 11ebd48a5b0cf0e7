/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_TENSOR_BLOCK_H
#define INCLUDED_BLADE_TENSOR_BLOCK_H

#include <gnuradio/blade/api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief What every chunk-in, chunk-out gr-blade block tells about itself.
 * \ingroup blade
 *
 * \details
 * The module blocks (cast, channelizer, polarizer, beamformer, detector, gather,
 * permutation) and the bundles (mode_h, mode_b, mode_bh) carry one tensor chunk per
 * GNU Radio item. These accessors size the neighbours' ports and say where the
 * block runs; they are implemented once, from the tensors each block declares for
 * its ports (lib/device_block.h), and bound once in Python (blade.tensor_block).
 */
class BLADE_API tensor_block
{
public:
    virtual ~tensor_block();

    /*! \brief The device actually used ("cpu", "cuda:0", "emulated"; several joined by ","). */
    virtual std::string device() const = 0;

    /*! \brief Shape of the output chunks, e.g. [A, F, T, P]. */
    virtual std::vector<int64_t> output_shape() const = 0;

    /*! \brief Bytes of one input item (the chunk padded to a multiple of 4096 bytes). */
    virtual size_t input_item_size() const = 0;

    /*! \brief Bytes of one output item. */
    virtual size_t output_item_size() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_TENSOR_BLOCK_H */
