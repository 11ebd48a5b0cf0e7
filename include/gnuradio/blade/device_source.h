/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DEVICE_SOURCE_H
#define INCLUDED_BLADE_DEVICE_SOURCE_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Emits tensor chunks that already live in device memory.
 * \ingroup blade
 *
 * \details
 * The source of benchmarks and tests that measure a chain without the host link:
 * the given chunks are uploaded once when the flowgraph starts, then every output
 * chunk is a device-to-device copy of the next one (cycling), so nothing crosses
 * PCIe per chunk. Output items: chunks of the given shape and type, padded to a
 * multiple of 4096 bytes. With no pattern, two chunks of seeded random bytes
 * (valid values for every type: integers, or floats in -100..100).
 *
 * With refill false, each output buffer slot is written once, the first time the
 * scheduler hands it out, and later chunks in that slot are left as they are: the
 * chunks then cost the source nothing at all, which is how benchmarks measure a
 * chain from pinned host memory (device "cpu": the next GPU block's buffer uploads
 * every chunk) or from device memory, without the source's own copies.
 *
 * Device: "auto", "cpu", "cuda", "cuda:N" or "emulated" (on the CPU the copies are
 * plain memory copies).
 */
class BLADE_API device_source : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<device_source> sptr;

    /*!
     * \brief Make a device source.
     *
     * \param shape Tensor shape of one chunk.
     * \param dtype Element type of the chunks.
     * \param chunks Chunks to emit before ending the flowgraph (0: forever).
     * \param pattern Bytes of K whole items (K * item size) to cycle through; empty:
     *        two chunks of seeded random values.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     * \param refill Copy every chunk into its slot (true), or each slot once (false).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& dtype = "cf32",
                     int64_t chunks = 0,
                     const std::vector<uint8_t>& pattern = std::vector<uint8_t>(),
                     const std::string& device = "auto",
                     bool refill = true);

    /*! \brief The device actually used. */
    virtual std::string device() const = 0;

    /*! \brief Bytes of one output item. */
    virtual size_t output_item_size() const = 0;
};

} // namespace blade
} // namespace gr

#endif
