/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_POLARIZER_H
#define INCLUDED_BLADE_POLARIZER_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Linear to circular polarization, per sample (CPU or GPU).
 * \ingroup blade
 *
 * \details
 * Reads cf32 voltage chunks whose last axis holds the two linear polarizations X
 * (index 0) and Y (index 1), usually [A, F, T, 2], and writes, for every sample,
 * out[..., 0] = X + iY and out[..., 1] = X - iY, with no 1/sqrt(2) factor: the total
 * power doubles. Index 0 is labelled L (left-hand circular) and index 1 R, as in
 * upstream BLADE. Whether X + iY is physically left- or right-handed depends on the
 * feed's handedness convention (IEEE or IAU) and on the sign of the time dependence
 * of the voltages; a system with the opposite convention swaps the two outputs.
 * The last axis must be 2 (checked when the block is made).
 *
 * output_basis "linear" (the input's own basis) is a pass-through copy; "circular"
 * converts.
 *
 * Items: one item is one chunk, the row-major cf32 (or cf16) tensor of the given shape padded
 * to a multiple of 4096 bytes; the output has the same shape. Stream tags pass
 * through unchanged.
 *
 * Device: "auto" (the first GPU if any, else the CPU), "cpu", "cuda", "cuda:N", or
 * "emulated" (GPU-style device buffers in host memory, for testing without a GPU).
 */
class BLADE_API polarizer : virtual public gr::sync_block, public virtual tensor_block
{
public:
    typedef std::shared_ptr<polarizer> sptr;

    /*!
     * \brief Make a polarizer block.
     *
     * \param shape Tensor shape of one chunk, e.g. [A, F, T, 2]; the last axis must be 2.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     * \param output_basis "circular" (convert) or "linear" (pass-through).
     * \param dtype Element type of input and output: "cf32", or "cf16" (half
     *        precision: widened to float, combined, rounded to half once).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& device = "auto",
                     const std::string& output_basis = "circular",
                     const std::string& dtype = "cf32");

    /*! \brief The output basis ("circular" or "linear"). */
    virtual std::string output_basis() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_POLARIZER_H */
