/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_PERMUTATION_H
#define INCLUDED_BLADE_PERMUTATION_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Reorders the axes of every chunk, as numpy.transpose (CPU or GPU).
 * \ingroup blade
 *
 * \details
 * Output axis i is input axis axes[i]: the output shape is (shape[axes[0]],
 * shape[axes[1]], ...), and output[i0, i1, ...] = input[j] with j[axes[k]] = ik,
 * exactly numpy.transpose(chunk, axes). Any permutation of up to 5 axes, any element
 * type; elements move bit for bit. The identity is a pass-through (a copy).
 *
 * With voltages [A, F, T, P] = axes (0, 1, 2, 3): ATFP is axes (0, 2, 1, 3)
 * (time-major), AFPT is (0, 1, 3, 2) (polarization-planar), ATPF is (0, 2, 3, 1)
 * (channels innermost, the order of filterbank tools).
 *
 * On a GPU the transpose goes through shared-memory tiles, so that reads and writes
 * are both contiguous.
 *
 * Items: one item is one chunk, the row-major tensor padded to a multiple of 4096
 * bytes; input items have the input shape, output items the permuted shape
 * (output_shape()). Stream tags pass through.
 *
 * Device: "auto" (the first GPU if any, else the CPU), "cpu", "cuda", "cuda:N", or
 * "emulated" (GPU-style device buffers in host memory, for tests).
 */
class BLADE_API permutation : virtual public gr::sync_block, public virtual tensor_block
{
public:
    typedef std::shared_ptr<permutation> sptr;

    /*!
     * \brief Make a permutation block.
     *
     * \param shape Tensor shape of one input chunk, e.g. [A, F, T, P] (rank 1 to 5).
     * \param axes Output axis i is input axis axes[i]; a permutation of 0 .. rank-1.
     * \param dtype Element type: ci4, ci8, ci16, cf16, cf32, cf64, f16, f32, f64.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::vector<int>& axes,
                     const std::string& dtype = "cf32",
                     const std::string& device = "auto");

    /*! \brief The axes, as given. */
    virtual std::vector<int> axes() const = 0;

    /*! \brief True when the permutation does not change the memory layout. */
    virtual bool is_identity() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_PERMUTATION_H */
