/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * Building the block chains of the bundles (Mode B, Mode H, Mode BH) inside a
 * hier block (private header). Each step takes where the stream ends now, appends
 * a block when the step has work to do (a cast from cf32 to cf32, a rate-1
 * channelizer or a linear polarizer would only copy), and returns the new end.
 */
#ifndef INCLUDED_BLADE_BUNDLE_CHAIN_H
#define INCLUDED_BLADE_BUNDLE_CHAIN_H

#include <gnuradio/hier_block2.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*! Where a stream ends: a block's output port, its chunk shape and type. */
struct chain_end {
    gr::basic_block_sptr block;
    int port = 0;
    std::vector<int64_t> shape;
    std::string dtype;
    int64_t chunks_per_item = 1; //!< input chunks behind one item here
};

class bundle_chain
{
public:
    bundle_chain(gr::hier_block2& hier, const std::string& name, const std::string& device);

    /*! The bundle's own input port `port`, carrying `shape` chunks of `dtype`. */
    chain_end input(int port, const std::vector<int64_t>& shape, const std::string& dtype);

    chain_end cast(const chain_end& in, const std::string& dtype);
    chain_end channelize(const chain_end& in, int64_t rate, int taps, const std::string& window);
    chain_end polarize(const chain_end& in, bool circular);
    chain_end detect(const chain_end& in, const std::string& mode, int64_t integration);
    chain_end gather_time(const chain_end& in, int64_t multiplier);

    /*! Connect the end of a stream to port `port` of `block`. */
    void connect(const chain_end& from, const gr::basic_block_sptr& block, int port);

    /*! Connect the end of a stream to the bundle's output `port`. */
    void output(const chain_end& from, int port);

    /*! The device string every block of the chain is made with. */
    const std::string& device() const { return d_device; }

private:
    gr::hier_block2& d_hier;
    std::string d_name;
    std::string d_device;
};

/*! Validate a detector mode name for a bundle ("none" allowed when `voltages_ok`). */
void check_detector_mode(const std::string& mode, bool voltages_ok, const std::string& what);

/*! Bytes of one item of `shape` chunks of `dtype`. */
size_t bundle_item_size(const std::vector<int64_t>& shape, const std::string& dtype);

} // namespace blade
} // namespace gr

#endif
