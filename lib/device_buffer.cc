/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_buffer.h"
#include "device_block.h"

#include <blade/memory.h>
#include <gnuradio/block.h>

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace blade {

gr::buffer_type device_buffer::type(gr::buftype<device_buffer, device_buffer>{});

namespace {

blade_device owner_device(const gr::block_sptr& owner)
{
    auto* blade_block = dynamic_cast<device_block*>(owner.get());
    if (blade_block == nullptr)
        throw std::runtime_error(
            "blade device buffer: block " + (owner ? owner->identifier() : "(none)") +
            " is not a gr-blade block; only gr-blade GPU blocks can own device buffers");
    return blade_block->blade_device_id();
}

} // namespace

gr::buffer_sptr device_buffer::make_buffer(int nitems,
                                           size_t sizeof_item,
                                           uint64_t downstream_lcm_nitems,
                                           uint32_t downstream_max_out_mult,
                                           gr::block_sptr link,
                                           gr::block_sptr buf_owner)
{
    return gr::buffer_sptr(new device_buffer(nitems,
                                             sizeof_item,
                                             downstream_lcm_nitems,
                                             downstream_max_out_mult,
                                             link,
                                             buf_owner,
                                             owner_device(buf_owner)));
}

device_buffer::device_buffer(int nitems,
                             size_t sizeof_item,
                             uint64_t downstream_lcm_nitems,
                             uint32_t downstream_max_out_mult,
                             gr::block_sptr link,
                             gr::block_sptr buf_owner,
                             blade_device device)
    : gr::buffer_single_mapped(nitems,
                               sizeof_item,
                               downstream_lcm_nitems,
                               downstream_max_out_mult,
                               link,
                               buf_owner),
      d_device(device)
{
    gr::configure_default_loggers(d_logger, d_debug_logger, "blade_device_buffer");
    throw_on_error(blade_stream_create(d_device, &d_stream),
                   "device buffer of " + buf_owner->identifier() + ": creating a stream");
    if (!allocate_buffer(nitems))
        throw std::bad_alloc();
}

device_buffer::~device_buffer()
{
    blade_device_free(d_device, d_device_base);
    blade_host_free(d_device, d_host_base);
    blade_stream_destroy(d_device, d_stream);
}

bool device_buffer::allocate_buffer(int /* nitems asked by the scheduler */)
{
    // Same write granularity rules as GNU Radio's single-mapped buffers, but two
    // granules instead of at least four items: a chunk is megabytes, not a sample.
    uint64_t write_granularity = 1;
    gr::block_sptr writer = link();
    if (writer->fixed_rate()) {
        const int inputs = writer->fixed_rate_noutput_to_ninput(1) - (writer->history() - 1);
        write_granularity =
            writer->fixed_rate_ninput_to_noutput(inputs + (writer->history() - 1));
    }
    if (writer->relative_rate() != 1.0)
        write_granularity = writer->relative_rate_i();
    if (writer->output_multiple_set())
        write_granularity =
            std::lcm(write_granularity, static_cast<uint64_t>(writer->output_multiple()));
    write_granularity = std::max<uint64_t>(write_granularity, 1);

    const uint64_t granule = std::lcm(write_granularity, std::max<uint64_t>(d_downstream_lcm_nitems, 1));
    uint64_t items = 2 * granule;
    items = std::max<uint64_t>(items, 2 * std::max<uint32_t>(d_max_reader_output_multiple, 1));

    d_bufsize = static_cast<unsigned int>(items);
    d_write_multiple = write_granularity;
    return do_allocate_buffer(d_bufsize, d_sizeof_item);
}

bool device_buffer::do_allocate_buffer(size_t final_nitems, size_t sizeof_item)
{
    d_allocated_bytes = final_nitems * sizeof_item;
    void* memory = nullptr;
    throw_on_error(blade_device_alloc(d_device, d_allocated_bytes, &memory),
                   "device buffer of " + link()->identifier() + " (" +
                       std::to_string(final_nitems) + " chunks of " +
                       std::to_string(sizeof_item) + " bytes)");
    d_device_base = static_cast<char*>(memory);
    d_base = d_device_base;
    return true;
}

char* device_buffer::host_staging()
{
    if (d_host_base == nullptr) {
        void* memory = nullptr;
        throw_on_error(blade_host_alloc(d_device, d_allocated_bytes, &memory),
                       "pinned staging of the device buffer of " + link()->identifier());
        d_host_base = static_cast<char*>(memory);
    }
    return d_host_base;
}

void device_buffer::copy(void* destination, const void* source, size_t bytes, int kind)
{
    throw_on_error(blade_memcpy(d_device,
                                destination,
                                source,
                                bytes,
                                static_cast<blade_copy_kind>(kind),
                                d_stream),
                   "device buffer copy");
    throw_on_error(blade_stream_synchronize(d_device, d_stream), "device buffer copy");
}

void device_buffer::move_within(
    char* base, size_t destination, size_t source, size_t bytes, bool on_device)
{
    // GNU Radio realigns single-mapped buffers by moving data towards the start.
    // Copy in pieces no longer than the distance, so no piece overlaps itself
    // (CUDA copies must not overlap).
    const int kind = on_device ? BLADE_COPY_DEVICE_TO_DEVICE : BLADE_COPY_HOST_TO_HOST;
    if (destination == source || bytes == 0)
        return;
    const size_t distance =
        destination > source ? destination - source : source - destination;
    if (destination < source) {
        for (size_t done = 0; done < bytes; done += distance) {
            const size_t piece = std::min(distance, bytes - done);
            copy(base + destination + done, base + source + done, piece, kind);
        }
    } else {
        for (size_t left = bytes; left > 0;) {
            const size_t piece = std::min(distance, left);
            left -= piece;
            copy(base + destination + left, base + source + left, piece, kind);
        }
    }
}

void device_buffer::post_work(int nitems)
{
    if (nitems <= 0)
        return;
    const size_t offset = static_cast<size_t>(d_write_index) * d_sizeof_item;
    const size_t bytes = static_cast<size_t>(nitems) * d_sizeof_item;
    switch (d_transfer_type) {
    case gr::transfer_type::HOST_TO_DEVICE:
        copy(d_device_base + offset, host_staging() + offset, bytes, BLADE_COPY_HOST_TO_DEVICE);
        break;
    case gr::transfer_type::DEVICE_TO_HOST:
        copy(host_staging() + offset, d_device_base + offset, bytes, BLADE_COPY_DEVICE_TO_HOST);
        break;
    case gr::transfer_type::DEVICE_TO_DEVICE:
        break;
    default:
        throw std::runtime_error("blade device buffer between two host blocks (" +
                                 link()->identifier() + "): this cannot happen");
    }
}

void* device_buffer::write_pointer()
{
    const size_t offset = static_cast<size_t>(d_write_index) * d_sizeof_item;
    if (d_transfer_type == gr::transfer_type::HOST_TO_DEVICE)
        return host_staging() + offset;
    return d_device_base + offset;
}

const void* device_buffer::_read_pointer(unsigned int read_index)
{
    const size_t offset = static_cast<size_t>(read_index) * d_sizeof_item;
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_HOST)
        return host_staging() + offset;
    return d_device_base + offset;
}

char* device_buffer::reader_side() { return d_transfer_type == gr::transfer_type::DEVICE_TO_HOST ? host_staging() : d_device_base; }

// Realignment moves data that readers have not consumed yet, so it happens in the
// memory readers read: host staging for a device-to-host edge, device memory
// otherwise. The writer-side copy needs no update: post_work() copies each new
// chunk to the reader side at the (adjusted) write index.
gr::mem_func_t device_buffer::mover(char* base)
{
    const bool on_device = base == d_device_base;
    return [this, base, on_device](void* destination, const void* source, std::size_t bytes) {
        move_within(base,
                    static_cast<char*>(destination) - base,
                    static_cast<const char*>(source) - base,
                    bytes,
                    on_device);
        return destination;
    };
}

bool device_buffer::input_blocked_callback(int items_required,
                                           int items_avail,
                                           unsigned read_index)
{
    char* base = reader_side();
    return input_blocked_callback_logic(
        items_required, items_avail, read_index, base, mover(base), mover(base));
}

bool device_buffer::output_blocked_callback(int output_multiple, bool force)
{
    char* base = reader_side();
    return output_blocked_callback_logic(output_multiple, force, base, mover(base));
}

} // namespace blade
} // namespace gr
