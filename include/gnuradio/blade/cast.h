/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CAST_H
#define INCLUDED_BLADE_CAST_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Element-wise type conversion of tensor chunks (CPU or GPU).
 * \ingroup blade
 *
 * \details
 * Converts every element of each chunk from the input type to the output type, real
 * part to real part and imaginary part to imaginary part, with no scaling. Results
 * are rounded to nearest (ties to even); integer outputs saturate at their limits.
 * Supported: any of ci4, ci8, ci16, cf16, cf32 to any of them, and any of f16, f32,
 * f64 to any of them. Typical use: the first block of a chain, turning GUPPI RAW ci8
 * voltages into cf32, or the last, halving output size with cf16.
 *
 * Items: one item is one chunk, the row-major tensor of the given shape (usually
 * [A, F, T, P]) padded to a multiple of 4096 bytes (padding unspecified). In
 * Python, blade.item_size(shape, type) gives the byte count and blade.pack and
 * blade.unpack convert between numpy arrays and items. Stream tags pass through.
 *
 * Device: "auto" (the first GPU if any, else the CPU; the choice is logged), "cpu",
 * "cuda", "cuda:N", or "emulated" (GPU-style device buffers in host memory, for
 * testing without a GPU). On a GPU the block exchanges device memory with other
 * gr-blade GPU blocks without copies.
 */
class BLADE_API cast : virtual public gr::sync_block, public virtual tensor_block
{
public:
    typedef std::shared_ptr<cast> sptr;

    /*!
     * \brief Make a cast block.
     *
     * \param shape Tensor shape of one chunk, e.g. [A, F, T, P].
     * \param input_type Element type read: ci4, ci8, ci16, cf16, cf32, f16, f32, f64.
     * \param output_type Element type written (same family as the input).
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     * \param scale Every value is multiplied by it before the conversion (1: none; a
     *        power of two such as 2^-13 changes no mantissa, which is how a
     *        half-precision chain keeps a channelizer's gain within half's range).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& input_type = "ci8",
                     const std::string& output_type = "cf32",
                     const std::string& device = "auto",
                     double scale = 1.0);
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CAST_H */
