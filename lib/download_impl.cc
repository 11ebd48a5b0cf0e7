/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * How the pointers come about (GNU Radio 3.10, flat_flowgraph): the transfer type of
 * a buffer follows from the buffer types declared at both ends of an edge. This
 * block declares the device buffer on its input and a default host buffer on its
 * output. Its input edge from a GPU block is therefore device-to-device: the
 * upstream device buffer hands this block device pointers and copies nothing. Its
 * output is an ordinary host buffer: whatever reads it reads host memory. The one
 * copy between the two is this block's own blade_memcpy, per chunk, on its stream.
 *
 * After a host block it is different: GNU Radio 3.10 replaces the host writer's
 * buffer with one of the type of this block's *output* signature (block.cc,
 * replace_buffer), i.e. another host buffer, so this block then reads host memory.
 * It finds out at start() from the buffer it actually reads, copies host to host,
 * and says that it is useless there.
 *
 * That host buffer is ordinary (pageable) memory, which CUDA copies into at a
 * fraction of the pinned rate, so while the flowgraph runs the block page-locks it.
 * Each chunk is one item and lies in the buffer's first mapping, so that mapping is
 * all that needs locking.
 */

#include "device_buffer.h"
#include "download_impl.h"

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/io_signature.h>

namespace gr {
namespace blade {

download::sptr download::make(const std::vector<int64_t>& shape,
                              const std::string& dtype,
                              const std::string& device)
{
    const tensor_spec spec(parse_dtype(dtype, "blade.download dtype"),
                           parse_shape(shape, "blade.download shape"));
    return gnuradio::make_block_sptr<download_impl>(
        spec, device, resolve_device(device, "download"));
}

download_impl::download_impl(const tensor_spec& spec,
                             const std::string& requested_device,
                             const blade_device& device)
    : gr::sync_block("download",
                     device_signature(device, 1, spec.item_size()),
                     gr::io_signature::make(1, 1, spec.item_size())),
      device_block("download", requested_device, device)
{
    set_port_specs({ spec }, { spec });
    log_device_choice(d_logger);
}

download_impl::~download_impl() { unpin_output_buffer(); }

void download_impl::pin_output_buffer()
{
    if (blade_device_id().kind != BLADE_DEVICE_CUDA || !detail() || detail()->noutputs() < 1)
        return;
    gr::buffer_sptr buffer = detail()->output(0);
    void* base = const_cast<char*>(buffer->base());
    const size_t bytes = static_cast<size_t>(buffer->bufsize()) * buffer->get_sizeof_item();
    if (blade_host_register(blade_device_id(), base, bytes) == BLADE_OK)
        d_pinned = base;
    else
        d_logger->info("could not page-lock the output buffer ({}); copies will be slower",
                       blade_last_error());
}

void download_impl::unpin_output_buffer()
{
    blade_host_unregister(blade_device_id(), d_pinned);
    d_pinned = nullptr;
}

void download_impl::find_input_memory()
{
    d_input_on_device = blade_device_is_gpu_like(blade_device_id());
    if (!d_input_on_device || !detail() || detail()->ninputs() < 1)
        return;
    gr::buffer_sptr buffer = detail()->input(0)->buffer();
    d_input_on_device = dynamic_cast<const device_buffer*>(buffer.get()) != nullptr;
    if (!d_input_on_device)
        d_logger->warn("input comes from the host block {}: the chunks are already in host "
                       "memory and this block only copies them; connect the host blocks "
                       "directly instead",
                       buffer->link()->identifier());
}

bool download_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    find_input_memory();
    unpin_output_buffer();
    pin_output_buffer();
    return gr::sync_block::start();
}

bool download_impl::stop()
{
    unpin_output_buffer();
    return gr::sync_block::stop();
}

int download_impl::work(int noutput_items,
                        gr_vector_const_void_star& input_items,
                        gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        const auto* in = static_cast<const char*>(input_items[0]);
        auto* out = static_cast<char*>(output_items[0]);
        const size_t size = item_size(), bytes = input_spec(0).bytes();
        const blade_copy_kind kind =
            d_input_on_device ? BLADE_COPY_DEVICE_TO_HOST : BLADE_COPY_HOST_TO_HOST;
        // One counted copy per chunk (so copy_stats() counts chunks).
        for (int i = 0; i < noutput_items; i++)
            check(blade_memcpy(
                      blade_device_id(), out + i * size, in + i * size, bytes, kind, stream()),
                  "download");
        synchronize();
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
