/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DUPLICATE_H
#define INCLUDED_BLADE_DUPLICATE_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Independent copies of every chunk on N outputs (CPU or GPU).
 * \ingroup blade
 *
 * \details
 * One input, N outputs (copies, at least 1, default 2). Each output receives its own
 * copy of every input chunk, bit for bit, for any element type; nothing is shared
 * between the outputs, so downstream blocks may work on them independently.
 *
 * On a GPU this is how one chain feeds two consumers of different kinds: GNU Radio
 * gives each buffer a single transfer type, so one GPU output cannot feed both a GPU
 * block and a host block. Duplicate gives each consumer its own output buffer: a
 * GPU consumer reads its copy in device memory, and the buffer of a host consumer
 * downloads its copy. (When the consumers only need to read, blade.download is
 * cheaper: see its documentation.) On the GPU the input is read once and written N
 * times.
 *
 * Items: one item is one chunk, the row-major tensor of the given shape padded to a
 * multiple of 4096 bytes (blade.item_size(shape, type) bytes). Stream tags are
 * copied to every output.
 *
 * Device: "auto" (the first GPU if any, else the CPU), "cpu", "cuda", "cuda:N", or
 * "emulated" (GPU-style device buffers in host memory, for tests).
 */
class BLADE_API duplicate : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<duplicate> sptr;

    /*!
     * \brief Make a duplicate block.
     *
     * \param shape Tensor shape of one chunk, e.g. [A, F, T, P].
     * \param dtype Element type: ci4, ci8, ci16, cf16, cf32, cf64, f16, f32, f64.
     * \param copies Number of outputs, 1 to 64.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& dtype = "cf32",
                     int copies = 2,
                     const std::string& device = "auto");

    /*! \brief The device actually used ("cpu", "cuda:0", "emulated"). */
    virtual std::string device() const = 0;

    /*! \brief Number of outputs. */
    virtual int copies() const = 0;

    /*! \brief Bytes of one item (input and outputs alike). */
    virtual size_t item_size() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DUPLICATE_H */
