/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * Building the block chains of the bundles (Mode B, Mode H, Mode BH) inside a
 * hier block (private header). Each step takes where the stream ends now, appends
 * a block when the step has work to do (a cast from cf32 to cf32, a rate-1
 * channelizer or a linear polarizer would only copy), and returns the new end.
 *
 * Stages that may overwrite their input run in place where the bundle owns the
 * chunk (a block it made writes it, and nothing else reads it): the polarizer on
 * the output of the cast or channelizer before it, and the channelizer, when it
 * makes one spectrum per chunk (T = N), on the output of the cast before it. Each
 * saves a block and its device buffer (two chunks). A flowgraph edge cannot be
 * shared that way: GNU Radio gives every block's output its own buffer, which the
 * upstream block refills while readers still hold their items, so a block never
 * writes into its input buffer (docs/performance.md, "In place"). The environment
 * variable BLADE_BUNDLE_IN_PLACE=0 builds the separate blocks instead, to measure
 * what in place saves (tools/bundle-memory).
 */
#ifndef INCLUDED_BLADE_BUNDLE_CHAIN_H
#define INCLUDED_BLADE_BUNDLE_CHAIN_H

#include <gnuradio/hier_block2.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gr {
namespace blade {

class device_block;

/*! Where a stream ends: a block's output port, its chunk shape and type. */
struct chain_end {
    gr::basic_block_sptr block;
    int port = 0;
    std::vector<int64_t> shape;
    std::string dtype;
    int64_t chunks_per_item = 1; //!< input chunks behind one item here
    //! The values here are what the fp32 chain has times this: a half-precision
    //! chain's range scale (a power of two), undone by the detector.
    double scale = 1.0;
    //! The block of this bundle that writes these chunks with process_chunks(), if
    //! any: a stage that may overwrite its input can run there, in place.
    device_block* in_place_host = nullptr;
};

class bundle_chain
{
public:
    bundle_chain(gr::hier_block2& hier, const std::string& name, const std::string& device);

    /*! The bundle's own input port `port`, carrying `shape` chunks of `dtype`. */
    chain_end input(int port, const std::vector<int64_t>& shape, const std::string& dtype);

    //! A cast to `dtype`, multiplying by `scale` (nothing when neither changes).
    chain_end cast(const chain_end& in, const std::string& dtype, double scale = 1.0);
    //! The channelizer, polarizer and detector keep the type they are given (cf32 or
    //! cf16; the detector writes f32).
    chain_end channelize(const chain_end& in, int64_t rate, int taps, const std::string& window);
    //! cast() then channelize(); with both at work and one spectrum per chunk (T = N)
    //! one block that casts into its own output and channelizes it in place.
    chain_end cast_and_channelize(const chain_end& in,
                                  const std::string& dtype,
                                  double scale,
                                  int64_t rate,
                                  int taps,
                                  const std::string& window);
    //! A circular polarizer: in place on the chunk's own block where there is one.
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
    chain_end
    channelize_in_place(const chain_end& in, int64_t rate, int taps, const std::string& window);

    gr::hier_block2& d_hier;
    std::string d_name;
    std::string d_device;
    bool d_in_place; // stages may run in place (BLADE_BUNDLE_IN_PLACE is not "0")
};

/*!
 * Builds sub-chain `subband` on the device of `chain`: from its voltages (a
 * sub-band of the bundle's input) and, for bundles with a chunk-time input, the
 * bundle's chunk times; returns where the sub-chain ends.
 */
using subchain_builder = std::function<chain_end(
    bundle_chain& chain, const chain_end& voltages, const chain_end& times, int64_t subband)>;

/*!
 * A bundle spread over several devices: input 0 (chunks `shape` of `dtype`) is
 * split by channel into one sub-band per device (channel_split: each device
 * fetches its own channels from pinned host memory), `build` makes one sub-chain
 * per device, and their outputs are merged by channel (channel_merge) into pinned
 * host memory. Input 1 (chunk times), when `with_times`, reaches every sub-chain.
 * Returns the merged end, whose chunks are what one device would have produced.
 */
chain_end build_across_devices(gr::hier_block2& hier,
                               const std::string& name,
                               const std::vector<std::string>& devices,
                               const std::vector<int64_t>& shape,
                               const std::string& dtype,
                               bool with_times,
                               const subchain_builder& build);

/*! Devices joined by commas, as bundles report them ("cuda:0,cuda:1"). */
std::string join_devices(const std::vector<std::string>& devices);

/*! Validate a detector mode name for a bundle ("none" allowed when `voltages_ok`). */
void check_detector_mode(const std::string& mode, bool voltages_ok, const std::string& what);

/*!
 * The largest gain of a channelizer for a tone, sum |h| of its prototype (N for the
 * plain FFT; 1 for rate 1 without taps).
 */
double channelizer_gain(int64_t rate, int taps, const std::string& window);

/*!
 * The range scale of a half-precision chain ahead of a stage of `gain`: 2^-k with
 * 2^k >= gain (1 for gains up to 1). Exact (it changes no mantissa), it keeps 8-bit
 * voltages times the gain far below half's largest value, 65504, while their noise
 * stays in half's normal range.
 */
double half_range_scale(double gain);

/*! Bytes of one item of `shape` chunks of `dtype`. */
size_t bundle_item_size(const std::vector<int64_t>& shape, const std::string& dtype);

} // namespace blade
} // namespace gr

#endif
