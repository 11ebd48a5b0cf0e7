/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_block.h"
#include "device_buffer.h"

#include <gnuradio/block.h>
#include <blade/memory.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace blade {

gr::buffer_type device_buffer::type(gr::buftype<device_buffer, device_buffer>{});

namespace {

device_block& owner_block(const gr::block_sptr& owner)
{
    auto* blade_block = dynamic_cast<device_block*>(owner.get());
    if (blade_block == nullptr)
        throw std::runtime_error(
            "blade device buffer: block " + (owner ? owner->identifier() : "(none)") +
            " is not a gr-blade block; only gr-blade GPU blocks can own device buffers");
    return *blade_block;
}

// Where a buffer goes. GNU Radio makes a block's own output buffers with
// link == owner; it makes a buffer with another writer (link) only to replace a
// host block's output that feeds one of the owner's inputs: the owner decides
// where its inputs live.
blade_device placement_of(const gr::block_sptr& link,
                          const gr::block_sptr& owner,
                          const blade_device& output_placement)
{
    return link != owner ? owner_block(owner).input_buffer_device() : output_placement;
}

// A device_buffer type that places its owner's outputs on a given device. Its
// name is device_buffer::type's, so GNU Radio connects it to any GPU block's ports
// without copies or replacement.
class placed_buffer_type : public gr::buffer_type_base
{
public:
    placed_buffer_type(const std::string& name, const blade_device& placement)
        : gr::buffer_type_base(name), d_placement(placement)
    {
    }

    gr::buffer_sptr make_buffer(int nitems,
                                size_t sizeof_item,
                                uint64_t downstream_lcm_nitems,
                                uint32_t downstream_max_out_mult,
                                gr::block_sptr link,
                                gr::block_sptr buf_owner) const override
    {
        return device_buffer::make_placed(nitems,
                                          sizeof_item,
                                          downstream_lcm_nitems,
                                          downstream_max_out_mult,
                                          link,
                                          buf_owner,
                                          d_placement);
    }

private:
    blade_device d_placement;
};

// Pinned when a CUDA GPU exists (any GPU can DMA from it under unified
// addressing), ordinary aligned memory otherwise.
blade_device host_memory_device()
{
    return blade_gpu_count() > 0 ? blade_device{ BLADE_DEVICE_CUDA, 0 } : blade_device_cpu();
}

} // namespace

gr::buffer_type device_buffer::type_on(const blade_device& placement)
{
    static std::mutex registry_mutex;
    static std::map<std::pair<int, int>, std::unique_ptr<placed_buffer_type>> registry;
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto& entry = registry[{ static_cast<int>(placement.kind), placement.index }];
    if (!entry)
        entry = std::make_unique<placed_buffer_type>(type.name(), placement);
    return *entry;
}

gr::buffer_sptr device_buffer::make_buffer(int nitems,
                                           size_t sizeof_item,
                                           uint64_t downstream_lcm_nitems,
                                           uint32_t downstream_max_out_mult,
                                           gr::block_sptr link,
                                           gr::block_sptr buf_owner)
{
    return make_placed(nitems,
                       sizeof_item,
                       downstream_lcm_nitems,
                       downstream_max_out_mult,
                       link,
                       buf_owner,
                       owner_block(buf_owner).blade_device_id());
}

gr::buffer_sptr device_buffer::make_placed(int nitems,
                                           size_t sizeof_item,
                                           uint64_t downstream_lcm_nitems,
                                           uint32_t downstream_max_out_mult,
                                           gr::block_sptr link,
                                           gr::block_sptr buf_owner,
                                           const blade_device& placement)
{
    return gr::buffer_sptr(new device_buffer(nitems,
                                             sizeof_item,
                                             downstream_lcm_nitems,
                                             downstream_max_out_mult,
                                             link,
                                             buf_owner,
                                             placement_of(link, buf_owner, placement)));
}

device_buffer::device_buffer(int nitems,
                             size_t sizeof_item,
                             uint64_t downstream_lcm_nitems,
                             uint32_t downstream_max_out_mult,
                             gr::block_sptr link,
                             gr::block_sptr buf_owner,
                             blade_device device)
    : gr::buffer_single_mapped(
          nitems, sizeof_item, downstream_lcm_nitems, downstream_max_out_mult, link, buf_owner),
      d_device(device)
{
    gr::configure_default_loggers(d_logger, d_debug_logger, "blade_device_buffer");
    throw_on_error(blade_stream_create(d_device, &d_stream),
                   "device buffer of " + buf_owner->identifier() + ": creating a stream");
    if (!allocate_buffer(nitems))
        throw std::bad_alloc();
    // GNU Radio 3.10's single-mapped buffer keeps a strong reference to its owner
    // block, whose block_detail keeps this buffer: a cycle that leaked every device
    // buffer (and its device memory) of a finished flowgraph. The scheduler never
    // reads the owner after allocation (3.10.5), so drop the reference now.
    d_buf_owner.reset();
}

device_buffer::~device_buffer()
{
    if (host_resident())
        blade_host_free(d_host_memory_device, d_device_base);
    else
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
        write_granularity = writer->fixed_rate_ninput_to_noutput(inputs + (writer->history() - 1));
    }
    if (writer->relative_rate() != 1.0)
        write_granularity = writer->relative_rate_i();
    if (writer->output_multiple_set())
        write_granularity =
            std::lcm(write_granularity, static_cast<uint64_t>(writer->output_multiple()));
    write_granularity = std::max<uint64_t>(write_granularity, 1);

    const uint64_t granule =
        std::lcm(write_granularity, std::max<uint64_t>(d_downstream_lcm_nitems, 1));
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
    const std::string what = "buffer of " + link()->identifier() + " (" +
                             std::to_string(final_nitems) + " chunks of " +
                             std::to_string(sizeof_item) + " bytes)";
    if (host_resident()) {
        d_host_memory_device = host_memory_device();
        throw_on_error(blade_host_alloc(d_host_memory_device, d_allocated_bytes, &memory),
                       "pinned host " + what);
    } else {
        throw_on_error(blade_device_alloc(d_device, d_allocated_bytes, &memory), "device " + what);
    }
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
    throw_on_error(
        blade_memcpy(
            d_device, destination, source, bytes, static_cast<blade_copy_kind>(kind), d_stream),
        "device buffer copy");
    throw_on_error(blade_stream_synchronize(d_device, d_stream), "device buffer copy");
}

void device_buffer::move_within(
    char* base, size_t destination, size_t source, size_t bytes, int kind)
{
    // GNU Radio realigns single-mapped buffers by moving data towards the start.
    // Copy in pieces no longer than the distance, so no piece overlaps itself
    // (CUDA copies must not overlap).
    if (destination == source || bytes == 0)
        return;
    const size_t distance = destination > source ? destination - source : source - destination;
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

blade_device device_buffer::write_side() const
{
    if (host_resident() || d_transfer_type == gr::transfer_type::HOST_TO_DEVICE)
        return blade_device_cpu();
    return d_device;
}

blade_device device_buffer::read_side() const
{
    if (host_resident() || d_transfer_type == gr::transfer_type::DEVICE_TO_HOST)
        return blade_device_cpu();
    return d_device;
}

void device_buffer::post_work(int nitems)
{
    if (nitems <= 0 || host_resident())
        return;
    const size_t offset = static_cast<size_t>(d_write_index) * d_sizeof_item;
    const size_t bytes = static_cast<size_t>(nitems) * d_sizeof_item;
    const bool upload = d_transfer_type == gr::transfer_type::HOST_TO_DEVICE;
    if (timeline::recording() && d_timeline_track.empty())
        d_timeline_track = link()->alias() + " buffer";
    // A device-to-device edge copies nothing; the span is empty then, and not kept.
    timeline::host_span span(d_timeline_track, upload ? "upload" : "download", bytes);
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_DEVICE)
        span.set_count(-1);
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
    if (d_transfer_type == gr::transfer_type::HOST_TO_DEVICE && !host_resident())
        return host_staging() + offset;
    return d_device_base + offset;
}

const void* device_buffer::_read_pointer(unsigned int read_index)
{
    const size_t offset = static_cast<size_t>(read_index) * d_sizeof_item;
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_HOST && !host_resident())
        return host_staging() + offset;
    return d_device_base + offset;
}

char* device_buffer::reader_side()
{
    if (d_transfer_type == gr::transfer_type::DEVICE_TO_HOST && !host_resident())
        return host_staging();
    return d_device_base;
}

// Realignment moves data that readers have not consumed yet, so it happens in the
// memory readers read: host staging for a device-to-host edge, device memory
// otherwise. The writer-side copy needs no update: post_work() copies each new
// chunk to the reader side at the (adjusted) write index.
gr::mem_func_t device_buffer::mover(char* base)
{
    const int kind = base == d_device_base && !host_resident() ? BLADE_COPY_DEVICE_TO_DEVICE
                                                               : BLADE_COPY_HOST_TO_HOST;
    return [this, base, kind](void* destination, const void* source, std::size_t bytes) {
        move_within(base,
                    static_cast<char*>(destination) - base,
                    static_cast<const char*>(source) - base,
                    bytes,
                    kind);
        return destination;
    };
}

bool device_buffer::input_blocked_callback(int items_required, int items_avail, unsigned read_index)
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

blade_device buffer_write_side(const gr::buffer_sptr& buffer)
{
    const auto* blade_buffer = dynamic_cast<const device_buffer*>(buffer.get());
    return blade_buffer != nullptr ? blade_buffer->write_side() : blade_device_cpu();
}

blade_device buffer_read_side(const gr::buffer_sptr& buffer)
{
    const auto* blade_buffer = dynamic_cast<const device_buffer*>(buffer.get());
    return blade_buffer != nullptr ? blade_buffer->read_side() : blade_device_cpu();
}

} // namespace blade
} // namespace gr
