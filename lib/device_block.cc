/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_block.h"
#include "device_buffer.h"

#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/buffer_reader.h>

#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace blade {

size_t tensor_spec::item_size() const
{
    const size_t size = blade_item_size(dtype, &shape);
    // GNU Radio sizes items with an int.
    if (size > static_cast<size_t>(std::numeric_limits<int>::max())) {
        char gib[32];
        std::snprintf(gib, sizeof gib, "%.1f", static_cast<double>(size) / (1 << 30));
        throw std::length_error(
            "a chunk of " + str() + " is " + gib +
            " GiB: GNU Radio items hold at most 2 GiB; use fewer time samples per "
            "chunk (blade-cli --chunk-samples, chunk_samples of blade.guppi_source) "
            "or fewer channels (--channels)");
    }
    return size;
}

std::string tensor_spec::str() const
{
    char text[160];
    return std::string(blade_dtype_name(dtype)) + " " +
           blade_shape_format(&shape, text, sizeof text);
}

blade_dtype parse_dtype(const std::string& name, const std::string& what)
{
    blade_dtype dtype;
    if (blade_dtype_parse(name.c_str(), &dtype) != BLADE_OK)
        throw std::invalid_argument(what + ": " + blade_last_error());
    return dtype;
}

blade_shape parse_shape(const std::vector<int64_t>& dims, const std::string& what)
{
    blade_shape shape;
    if (blade_shape_make(dims.data(), static_cast<int>(dims.size()), &shape) != BLADE_OK)
        throw std::invalid_argument(what + ": " + blade_last_error());
    return shape;
}

std::vector<int64_t> shape_to_vector(const blade_shape& shape)
{
    return std::vector<int64_t>(shape.dims, shape.dims + shape.rank);
}

void throw_on_error(blade_status status, const std::string& context)
{
    if (status == BLADE_OK)
        return;
    const std::string message = context + ": " + blade_last_error();
    if (status == BLADE_ERROR_INVALID_ARGUMENT || status == BLADE_ERROR_UNSUPPORTED)
        throw std::invalid_argument(message);
    if (status == BLADE_ERROR_OUT_OF_MEMORY)
        throw std::runtime_error(message); // a bad_alloc would lose the size asked for
    throw std::runtime_error(message);
}

blade_device resolve_device(const std::string& text, const std::string& block_name)
{
    blade_device device;
    throw_on_error(blade_device_parse(text.c_str(), &device), "blade." + block_name);
    return device;
}

gr::io_signature::sptr device_signature(const blade_device& device,
                                        const std::vector<size_t>& item_sizes)
{
    const int nports = static_cast<int>(item_sizes.size());
    if (nports == 0)
        return gr::io_signature::make(0, 0, 0);
    std::vector<int> sizes(item_sizes.begin(), item_sizes.end());
    if (blade_device_is_gpu_like(device))
        return gr::io_signature::makev(
            nports,
            nports,
            sizes,
            gr::gr_vector_buffer_type(nports, std::cref(device_buffer::type)));
    return gr::io_signature::makev(nports, nports, sizes);
}

gr::io_signature::sptr device_signature(const blade_device& device, int nports, size_t item_size)
{
    return device_signature(device, std::vector<size_t>(nports, item_size));
}

tensor_block::~tensor_block() = default;

std::vector<int64_t> device_block::output_shape() const
{
    return d_outputs.empty() ? std::vector<int64_t>() : shape_to_vector(d_outputs[0].shape);
}

size_t device_block::input_item_size() const
{
    return d_inputs.empty() ? 0 : d_inputs[0].item_size();
}

size_t device_block::output_item_size() const
{
    return d_outputs.empty() ? 0 : d_outputs[0].item_size();
}

device_block::device_block(const std::string& block_name,
                           const std::string& requested_device,
                           const blade_device& device)
    : d_block_name(block_name), d_requested_device(requested_device), d_device(device)
{
    throw_on_error(blade_stream_create(d_device, &d_stream), "blade." + block_name);
    d_track = block_name + " on " + device_name(); // the alias replaces it at start
}

device_block::~device_block() { blade_stream_destroy(d_device, d_stream); }

std::string device_block::device_name() const
{
    char text[32];
    return blade_device_format(d_device, text, sizeof text);
}

void device_block::set_port_specs(std::vector<tensor_spec> inputs, std::vector<tensor_spec> outputs)
{
    d_inputs = std::move(inputs);
    d_outputs = std::move(outputs);
    if (!d_outputs.empty())
        d_produced = d_outputs[0];
}

void device_block::log_device_choice(const gr::logger_ptr& logger) const
{
    if (d_device.kind == BLADE_DEVICE_CUDA) {
        blade_gpu_info info;
        const std::string name = blade_gpu_info_get(d_device.index, &info) == BLADE_OK
                                     ? std::string(info.name)
                                     : std::string("GPU");
        logger->info("device '{}' -> {} ({})", d_requested_device, device_name(), name);
    } else if (d_requested_device.empty() || d_requested_device == "auto") {
        logger->info("device 'auto' -> cpu (no CUDA GPU found)");
    }
    // (The CPU when it was asked for needs no word: Debian's GNU Radio prints even
    // debug lines by default.)
}

void device_block::check(blade_status status, const char* context) const
{
    throw_on_error(status, "blade." + d_block_name + ": " + context);
}

void device_block::synchronize() const
{
    check(blade_stream_synchronize(d_device, d_stream), "waiting for the GPU");
}

blade_tensor device_block::tensor(const tensor_spec& spec, const void* data) const
{
    return blade_tensor_make(spec.dtype, &spec.shape, d_device, const_cast<void*>(data));
}

void device_block::check_neighbours(gr::block& self) const
{
    gr::block_detail_sptr detail = self.detail();
    if (!detail)
        return;
    for (int port = 0; port < detail->ninputs() && port < (int)d_inputs.size(); port++) {
        gr::buffer_reader_sptr reader = detail->input(port);
        if (!reader)
            continue;
        gr::buffer_sptr buffer = reader->buffer();
        gr::block_sptr upstream = buffer->link();
        const auto* source = dynamic_cast<const device_block*>(upstream.get());
        std::ostringstream where;
        where << "blade." << d_block_name << " input " << port << " (from "
              << upstream->identifier() << ")";
        if (buffer->get_sizeof_item() != d_inputs[port].item_size()) {
            throw std::runtime_error(
                where.str() + ": items of " + std::to_string(buffer->get_sizeof_item()) +
                " bytes arrive, but this block expects " + d_inputs[port].str() + " chunks of " +
                std::to_string(d_inputs[port].item_size()) + " bytes");
        }
        // GNU Radio lets a GPU block replace a host writer's buffer with its own
        // device buffer. A second GPU block reading the same host output replaces it
        // again, and the first one's buffer is orphaned: it would wait forever.
        bool attached = false;
        for (int out = 0; out < upstream->detail()->noutputs(); out++)
            attached = attached || upstream->detail()->output(out) == buffer;
        if (!attached) {
            buffer->set_done(true); // nothing will ever arrive: let this block finish
            throw std::runtime_error(
                where.str() + ": this host output also feeds another gr-blade GPU block, which "
                              "took over its buffer; a host output can feed only one GPU block. "
                              "Put one blade.duplicate after it and feed each GPU block from its "
                              "own output");
        }
        // A host upstream block: only the item size and the memory can be checked.
        for (size_t out = 0; source != nullptr && out < source->d_outputs.size(); out++) {
            if (upstream->detail()->output(out) != buffer)
                continue;
            const tensor_spec& produced = source->d_outputs[out];
            if (produced != d_inputs[port])
                throw std::runtime_error(where.str() + ": upstream produces " + produced.str() +
                                         " but this block expects " + d_inputs[port].str());
        }
        check_memory(buffer, where.str());
    }
}

void device_block::check_memory(const gr::buffer_sptr& buffer, const std::string& where) const
{
    // A GPU block reads its input where the buffer keeps it: that must be its own
    // device's memory (a buffer on another GPU, or pinned host memory that a
    // channel merge wrote, is not).
    if (!blade_device_is_gpu_like(d_device))
        return;
    const auto* blade_buffer = dynamic_cast<const device_buffer*>(buffer.get());
    if (blade_buffer == nullptr)
        return;
    const blade_device memory = blade_buffer->read_side();
    char text[32];
    const std::string memory_name = blade_device_format(memory, text, sizeof text);
    if (memory.kind == BLADE_DEVICE_CPU)
        throw std::runtime_error(
            where +
            ": the upstream block writes host memory (a channel merge's output), "
            "but a block on " +
            device_name() +
            " reads device memory; put a host "
            "block between them (e.g. blocks.copy) so the chunks are uploaded");
    if (!blade_device_equal(memory, d_device))
        throw std::runtime_error(where + ": upstream runs on " + memory_name +
                                 " and this block on " + device_name() +
                                 "; blocks on different GPUs cannot share device memory (put a "
                                 "channel split, or a host block, between them)");
}

void device_block::fail(const gr::logger_ptr& logger, const std::string& message)
{
    d_failed = true;
    logger->error("{}", message);
    record_failure(message);
}

void device_block::check_neighbours_at_start(gr::block& self, const gr::logger_ptr& logger)
{
    d_failed = false;
    d_track = self.alias() + " on " + device_name();
    d_uploading_inputs.clear();
    gr::block_detail_sptr detail = self.detail();
    for (int port = 0; detail && port < detail->ninputs(); port++) {
        gr::buffer_reader_sptr reader = detail->input(port);
        auto* buffer = reader ? dynamic_cast<device_buffer*>(reader->buffer().get()) : nullptr;
        if (buffer != nullptr && buffer->uploads())
            d_uploading_inputs.push_back(buffer);
    }
    try {
        check_neighbours(self);
    } catch (const std::exception& error) {
        fail(logger, error.what());
    }
}

int device_block::guarded_work(const gr::logger_ptr& logger, const std::function<int()>& body)
{
    if (d_failed)
        return gr::block::WORK_DONE;
    try {
        if (!d_uploading_inputs.empty()) {
            timeline::host_span wait(d_track, "upload wait");
            for (device_buffer* buffer : d_uploading_inputs)
                buffer->wait_for_uploads();
        }
        timeline::host_span span(d_track, "work");
        const int produced = body();
        span.set_count(produced);
        return produced;
    } catch (const std::exception& error) {
        fail(logger, error.what());
        return gr::block::WORK_DONE;
    }
}

void device_block::append_in_place_stage(const std::string& what,
                                         const tensor_spec& result,
                                         in_place_stage stage,
                                         stage_tags tags)
{
    if (d_outputs.empty() || result.item_size() != d_outputs[0].item_size())
        throw std::logic_error("blade." + d_block_name + ": the in-place stage " + what +
                               " writes " + result.str() + ", not the item size of " +
                               (d_outputs.empty() ? std::string("an output") : d_outputs[0].str()));
    if (tags && !rewrites_stage_tags())
        throw std::logic_error("blade." + d_block_name + " cannot rewrite tags for the stage " +
                               what);
    d_in_place_stages.push_back({ what, result, std::move(stage), std::move(tags) });
    d_outputs[0] = result;
}

std::vector<std::string> device_block::in_place_stage_names() const
{
    std::vector<std::string> names;
    for (const auto& entry : d_in_place_stages)
        names.push_back(entry.what);
    return names;
}

void device_block::run_in_place_stages(void* chunk)
{
    const tensor_spec* spec = &d_produced;
    for (const auto& entry : d_in_place_stages) {
        check(entry.run(tensor(*spec, chunk), d_stream), entry.what.c_str());
        spec = &entry.result;
    }
}

void device_block::rewrite_stage_tags(std::vector<gr::tag_t>& chunk_tags,
                                      const pmt::pmt_t& srcid,
                                      const gr::logger_ptr& logger) const
{
    for (const auto& entry : d_in_place_stages)
        if (entry.tags)
            entry.tags(chunk_tags, srcid, logger);
}

int device_block::process_chunks(
    const gr::logger_ptr& logger,
    int noutput_items,
    gr_vector_const_void_star& input_items,
    gr_vector_void_star& output_items,
    const char* what,
    const std::function<blade_status(const blade_tensor&, blade_tensor&)>& process)
{
    return guarded_work(logger, [&]() {
        const auto* in = static_cast<const char*>(input_items[0]);
        auto* out = static_cast<char*>(output_items[0]);
        const size_t in_size = d_inputs.at(0).item_size(), out_size = d_outputs.at(0).item_size();
        d_device_spans.begin(d_device, d_stream);
        for (int i = 0; i < noutput_items; i++) {
            const blade_tensor input = tensor(d_inputs[0], in + i * in_size);
            blade_tensor output = tensor(d_produced, out + i * out_size);
            check(process(input, output), what);
            run_in_place_stages(output.data);
            d_device_spans.mark(d_stream);
        }
        synchronize();
        d_device_spans.finish(d_track);
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
