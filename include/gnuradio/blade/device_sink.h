/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DEVICE_SINK_H
#define INCLUDED_BLADE_DEVICE_SINK_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>

namespace gr {
namespace blade {

/*!
 * \brief Ends a chain in device memory: consumes chunks where they are.
 * \ingroup blade
 *
 * \details
 * The sink of benchmarks that measure a chain without the host link at either end
 * (with blade.device_source as the source): its input buffer lives on the device,
 * so the products never cross PCIe; the sink waits for the producer's work on the
 * chunk to finish and counts it. A GNU Radio null sink in its place would make the
 * last gr-blade block download every chunk to the host.
 *
 * Device: "auto", "cpu", "cuda", "cuda:N" or "emulated".
 */
class BLADE_API device_sink : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<device_sink> sptr;

    /*!
     * \brief Make a device sink.
     *
     * \param item_size Bytes of one input item (a bundle's output_item_size()).
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(size_t item_size, const std::string& device = "auto");

    /*! \brief The device actually used. */
    virtual std::string device() const = 0;

    /*! \brief Items consumed since the flowgraph started. */
    virtual uint64_t chunks_received() const = 0;
};

} // namespace blade
} // namespace gr

#endif
