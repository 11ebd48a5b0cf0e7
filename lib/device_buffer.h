/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * The GPU stream buffer shared by every gr-blade GPU block (private header).
 */
#ifndef INCLUDED_BLADE_DEVICE_BUFFER_H
#define INCLUDED_BLADE_DEVICE_BUFFER_H

#include <gnuradio/buffer_single_mapped.h>
#include <gnuradio/buffer_type.h>
#include <blade/device.h>

namespace gr {
namespace blade {

/*!
 * \brief A GNU Radio 3.10 custom buffer whose items live in device memory.
 *
 * Every gr-blade block running on a GPU (or on the host-emulated GPU used in tests)
 * declares this buffer type on all its ports, so an edge between two such blocks
 * is device memory read in place: nothing is copied. At an edge with an ordinary
 * host block GNU Radio gives this buffer a host-to-device or device-to-host role;
 * only then does it allocate a pinned host staging area, and it uploads (after the
 * host writer's work) or downloads (after the GPU writer's work) on its own stream.
 *
 * Where the buffer lives: for a block's own output, on the device of the port's
 * buffer type (type_on()), or the block's device (type); when GNU Radio replaces an
 * upstream host block's buffer for one of the owner's inputs, where the owner's
 * input_buffer_device() says. A buffer placed on the CPU is host-resident: pinned
 * host memory (when a CUDA GPU is present) that every reader and writer uses in
 * place, with no staging and no copies: a channel split's input, so each GPU can
 * fetch its sub-band by DMA, and a channel merge's output, into which each GPU
 * writes its sub-band.
 *
 * Buffers hold two chunks (or twice the largest reader's decimation) rather than
 * GNU Radio's default four: enough for the writer to fill one chunk while the
 * reader works on the other, and half the device memory.
 */
class device_buffer : public gr::buffer_single_mapped
{
public:
    /*! The type of every port of a GPU block: buffers on the owner's device. */
    static gr::buffer_type type;

    /*!
     * The same buffer type (GNU Radio treats them as one) whose outputs live on
     * `placement` instead of the owner's device: ports of one block on several
     * devices (channel split and merge). Types live as long as the process.
     */
    static gr::buffer_type type_on(const blade_device& placement);

    static gr::buffer_sptr make_buffer(int nitems,
                                       size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link,
                                       gr::block_sptr buf_owner);

    /*! make_buffer() with the owner's outputs placed on `placement`. */
    static gr::buffer_sptr make_placed(int nitems,
                                       size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link,
                                       gr::block_sptr buf_owner,
                                       const blade_device& placement);

    ~device_buffer() override;

    void post_work(int nitems) override;
    void* write_pointer() override;
    const void* _read_pointer(unsigned int read_index) override;
    bool input_blocked_callback(int items_required, int items_avail, unsigned read_index) override;
    bool output_blocked_callback(int output_multiple, bool force) override;

    /*! The device whose memory holds the items (the CPU: host-resident). */
    blade_device device() const { return d_device; }

    /*! True for pinned host memory used in place (placed on the CPU). */
    bool host_resident() const { return d_device.kind == BLADE_DEVICE_CPU; }

    /*! Where the memory behind write_pointer() is: the host for staged uploads. */
    blade_device write_side() const;

    /*! Where the memory behind read pointers is: the host for staged downloads. */
    blade_device read_side() const;

    /*! Bytes of device memory this buffer holds. */
    size_t device_bytes() const { return d_bufsize * d_sizeof_item; }

protected:
    bool allocate_buffer(int nitems) override;
    bool do_allocate_buffer(size_t final_nitems, size_t sizeof_item) override;

private:
    device_buffer(int nitems,
                  size_t sizeof_item,
                  uint64_t downstream_lcm_nitems,
                  uint32_t downstream_max_out_mult,
                  gr::block_sptr link,
                  gr::block_sptr buf_owner,
                  blade_device device);

    char* host_staging();
    char* reader_side();
    gr::mem_func_t mover(char* base);
    void copy(void* destination, const void* source, size_t bytes, int kind);
    void move_within(char* base, size_t destination, size_t source, size_t bytes, int kind);

    blade_device d_device;
    blade_stream d_stream = nullptr;
    char* d_device_base = nullptr;
    char* d_host_base = nullptr;            // pinned staging, only for host<->device edges
    std::string d_timeline_track;           // this buffer's copies on the timeline
    blade_device d_host_memory_device = {}; // what pinned a host-resident buffer
    size_t d_allocated_bytes = 0;
};

/*!
 * Where the memory a block writes through `buffer`'s write pointer lives: the CPU
 * for GNU Radio's own buffers, staged uploads and host-resident buffers; else the
 * device buffer's device.
 */
blade_device buffer_write_side(const gr::buffer_sptr& buffer);

/*! Where the memory a reader of `buffer` reads lives (as buffer_write_side()). */
blade_device buffer_read_side(const gr::buffer_sptr& buffer);

} // namespace blade
} // namespace gr

#endif
