/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * What channel_split and channel_merge share (private header): the devices of
 * their sub-band ports and the buffer types that follow, one stream per device
 * for the copies, and the frequency axis of each sub-band's tags.
 */
#ifndef INCLUDED_BLADE_SUBBAND_PORTS_H
#define INCLUDED_BLADE_SUBBAND_PORTS_H

#include "device_block.h"

#include <gnuradio/io_signature.h>
#include <gnuradio/tags.h>
#include <blade/blade.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace blade {

/*! What a channel split or merge is made with: the whole chunk, one sub-band, their devices. */
struct subband_plan {
    tensor_spec whole;
    tensor_spec part;
    int64_t parts = 1;
    std::vector<blade_device> devices; //!< one per sub-band, or empty (host memory)
    bool on_devices() const;           //!< some sub-band lives on a GPU-like device
};

/*! Validate make()'s arguments of `block` (throws std::invalid_argument). */
subband_plan make_subband_plan(const std::vector<int64_t>& shape,
                               const std::string& dtype,
                               int64_t parts,
                               const std::vector<std::string>& devices,
                               const std::string& block);

/*!
 * The device of each sub-band port: empty names give an empty list (everything in
 * host memory); otherwise exactly `parts` names, each resolved like a block's
 * device ("auto" included). Throws std::invalid_argument naming `block`.
 */
std::vector<blade_device>
parse_port_devices(const std::vector<std::string>& names, int64_t parts, const std::string& block);

/*! True when some port lives on a GPU or the emulated device. */
bool any_gpu_like(const std::vector<blade_device>& devices);

/*!
 * Signature of `nports` ports of `item_size` bytes. Unless `on_devices`: GNU
 * Radio's host buffers. Otherwise port n's buffer is placed on placements[n]
 * (ports beyond the list, and CPU ports, in pinned host memory used in place).
 */
gr::io_signature::sptr subband_signature(int nports,
                                         size_t item_size,
                                         const std::vector<blade_device>& placements,
                                         bool on_devices);

/*! Names of devices as the blocks report them ("cpu" for every port of an empty list). */
std::vector<std::string> device_names(const std::vector<blade_device>& devices, int64_t parts);

/*! One stream per device a block copies with, made on first use. */
class device_streams
{
public:
    device_streams() = default;
    ~device_streams();
    device_streams(const device_streams&) = delete;
    device_streams& operator=(const device_streams&) = delete;

    /*! The stream for copies on `device` (NULL for the CPU). */
    blade_stream on(const blade_device& device);

    /*! Wait for every copy queued on any of the streams. */
    void synchronize(const std::string& context);

private:
    std::map<std::pair<int, int>, std::pair<blade_device, blade_stream>> d_streams;
};

/*!
 * The frequency axis of a chunk stream as its tags describe it (chan_bw, nfpc),
 * and the rewriting of freq_first and coarse_first for a sub-band.
 */
class subband_axis
{
public:
    /*! Note chan_bw and nfpc if `tag` carries them. */
    void observe(const gr::tag_t& tag);

    /*!
     * The tag as it applies to sub-band `index` of `part_channels` channels:
     * freq_first moved by index part_channels chan_bw, coarse_first by
     * index part_channels / nfpc, nchan part_channels; other tags unchanged. Throws std::runtime_error
     * when the axis is not known well enough to move them.
     */
    gr::tag_t for_subband(const gr::tag_t& tag, int64_t index, int64_t part_channels) const;

    /*! The channel width seen last (0 if none). */
    double channel_width() const { return d_chan_bw; }

private:
    double d_chan_bw = 0;
    bool d_have_chan_bw = false;
    int64_t d_nfpc = 1;
};

} // namespace blade
} // namespace gr

#endif
