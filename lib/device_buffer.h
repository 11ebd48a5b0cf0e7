/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * The GPU stream buffer shared by every gr-blade GPU block (private header).
 */
#ifndef INCLUDED_BLADE_DEVICE_BUFFER_H
#define INCLUDED_BLADE_DEVICE_BUFFER_H

#include <blade/device.h>
#include <gnuradio/buffer_single_mapped.h>
#include <gnuradio/buffer_type.h>

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
 * The device is the one of the block that owns the buffer. Buffers hold two chunks
 * (or twice the largest reader's decimation) rather than GNU Radio's default four:
 * enough for the writer to fill one chunk while the reader works on the other,
 * and half the device memory.
 */
class device_buffer : public gr::buffer_single_mapped
{
public:
    static gr::buffer_type type;

    static gr::buffer_sptr make_buffer(int nitems,
                                       size_t sizeof_item,
                                       uint64_t downstream_lcm_nitems,
                                       uint32_t downstream_max_out_mult,
                                       gr::block_sptr link,
                                       gr::block_sptr buf_owner);

    ~device_buffer() override;

    void post_work(int nitems) override;
    void* write_pointer() override;
    const void* _read_pointer(unsigned int read_index) override;
    bool input_blocked_callback(int items_required,
                                int items_avail,
                                unsigned read_index) override;
    bool output_blocked_callback(int output_multiple, bool force) override;

    blade_device device() const { return d_device; }

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
    void move_within(char* base, size_t destination, size_t source, size_t bytes, bool on_device);

    blade_device d_device;
    blade_stream d_stream = nullptr;
    char* d_device_base = nullptr;
    char* d_host_base = nullptr; // pinned staging, only for host<->device edges
    size_t d_allocated_bytes = 0;
};

} // namespace blade
} // namespace gr

#endif
