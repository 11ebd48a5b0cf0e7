/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_RUNTIME_H
#define INCLUDED_BLADE_RUNTIME_H

#include <gnuradio/blade/api.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief What gr-blade knows of one CUDA GPU.
 * \ingroup blade
 */
struct BLADE_API gpu_info {
    int index = 0;               //!< CUDA ordinal ("cuda:index")
    std::string name;            //!< e.g. "NVIDIA H200"
    uint64_t total_memory = 0;   //!< bytes
    uint64_t free_memory = 0;    //!< bytes at the time of the query
    int compute_major = 0;       //!< compute capability, major
    int compute_minor = 0;       //!< compute capability, minor
    int multiprocessors = 0;     //!< streaming multiprocessors
    double memory_bandwidth = 0; //!< theoretical bytes/s (0 if unknown)
};

/*! \brief Version of the loaded gr-blade core, e.g. "0.1.0". \ingroup blade */
BLADE_API std::string version();

/*! \brief Git commit gr-blade was built from. \ingroup blade */
BLADE_API std::string build_commit();

/*! \brief Backends compiled in: always "cpu", plus "cuda" when built with CUDA. \ingroup blade */
BLADE_API std::vector<std::string> backends();

/*! \brief The CUDA GPUs present (empty without CUDA, driver or GPU). \ingroup blade */
BLADE_API std::vector<gpu_info> gpus();

/*!
 * \brief The device a device string resolves to ("auto" -> "cuda:0" or "cpu").
 * \ingroup blade
 *
 * Throws with an explanation if the device is unknown or absent.
 */
BLADE_API std::string resolve_device(const std::string& device);

/*!
 * \brief The devices a bundle spreads over, one sub-band each.
 * \ingroup blade
 *
 * With an empty list: device "all" gives every CUDA GPU ("cuda:0", "cuda:1", ...;
 * an error without one), and when channels is above 0, only as many of them as
 * divide channels evenly (the largest such count); any other device gives a list
 * of that one device, resolved. With a list: each entry resolved ("auto" included,
 * "all" not), repeats allowed (two sub-chains on one device), and device must be
 * left at "auto". Throws std::invalid_argument or std::runtime_error (absent GPU).
 */
BLADE_API std::vector<std::string> resolve_devices(const std::string& device,
                                                   const std::vector<std::string>& devices = {},
                                                   int64_t channels = 0);

/*!
 * \brief Transfer bandwidth between pinned host memory and these devices used
 * at once, bytes/s in total.
 * \ingroup blade
 *
 * Each device moves its own bytes ("upload": host to device, "download": device
 * to host), all concurrently, repeats times after a warm-up. This is the limit a
 * chain split across the devices works against: GPUs on separate PCIe root ports
 * add up, GPUs behind one switch share its uplink.
 */
BLADE_API double measure_transfer(const std::vector<std::string>& devices,
                                  size_t bytes,
                                  int repeats = 10,
                                  const std::string& direction = "upload");

/*!
 * \brief Seconds per round of uploading and downloading at once on one device.
 * \ingroup blade
 *
 * Each round queues upload_bytes host to device and download_bytes device to host
 * on two streams (pinned host memory) and waits for both. This is the floor for a
 * chain that uploads its input and downloads its products every chunk: PCIe is
 * full duplex, but both directions share the host's memory and the copy engines.
 */
BLADE_API double measure_duplex_transfer(const std::string& device,
                                         size_t upload_bytes,
                                         size_t download_bytes,
                                         int repeats = 10);

/*!
 * \brief Bytes of one GNU Radio item carrying a tensor of this shape and type:
 * the tensor's bytes rounded up to a multiple of 4096.
 * \ingroup blade
 */
BLADE_API size_t item_size(const std::vector<int64_t>& shape, const std::string& dtype);

/*!
 * \brief Host/device copies made so far, by direction ("host_to_device",
 * "device_to_host", "device_to_device", "host_to_host"), counts and bytes
 * ("host_to_device_bytes", ...).
 * \ingroup blade
 */
BLADE_API std::map<std::string, uint64_t> copy_stats();

/*! \brief Reset the copy counters to zero. \ingroup blade */
BLADE_API void reset_copy_stats();

/*!
 * \brief Device memory held by gr-blade (buffers, plans) on GPUs and the emulated
 * device: "bytes_in_use" and "peak_bytes" (since start or reset_device_memory_peak()).
 * \ingroup blade
 */
BLADE_API std::map<std::string, uint64_t> device_memory_stats();

/*! \brief Make the device memory peak equal to what is in use now. \ingroup blade */
BLADE_API void reset_device_memory_peak();

/*!
 * \brief Failures of gr-blade blocks while a flowgraph ran, oldest first.
 * \ingroup blade
 *
 * A block that fails inside GNU Radio's scheduler threads (a misconnected
 * neighbour found at start, a GPU error in work) cannot raise an exception in the
 * thread that called top_block.run(): it logs the error, ends the flowgraph, and
 * records the message here. Check this after run() (blade-cli does).
 */
BLADE_API std::vector<std::string> failures();

/*! \brief Forget the recorded failures. \ingroup blade */
BLADE_API void clear_failures();

/*!
 * \brief One span of a flowgraph's timeline: what a block did, and when.
 * \ingroup blade
 */
struct timeline_event {
    std::string track;  //!< the block (GNU Radio alias) and its device, or a buffer's upload
    std::string what;   //!< "work" (a work call, host), "device" (one chunk's work on the
                        //!< block's stream, from CUDA events), "upload" (a host to device
                        //!< copy queued), "upload wait" (a GPU block waiting for its uploads),
                        //!< "download" (a device to host copy)
    double start_us;    //!< microseconds since timeline_start()
    double duration_us; //!< length of the span in microseconds
    int64_t count;      //!< chunks (work, device) or bytes (upload)
};

/*!
 * \brief Start recording the timeline of every gr-blade block (forgetting an earlier one).
 * \ingroup blade
 *
 * While recording, each work call of a gr-blade block, each chunk of device work of
 * the blocks that process chunk by chunk (cast, channelizer, polarizer, permutation),
 * and each upload into a device buffer is kept, with its start and duration. It costs a
 * few microseconds per work call; off, one atomic load. blade-bench's timeline command
 * and BLADE_TIMELINE (pipeline.py) write it as a Chrome trace and a picture.
 */
BLADE_API void timeline_start();

/*! \brief Stop recording; the spans recorded since timeline_start(). \ingroup blade */
BLADE_API std::vector<timeline_event> timeline_stop();

/*! \brief Whether a timeline is being recorded. \ingroup blade */
BLADE_API bool timeline_recording();

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_RUNTIME_H */
