/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_source_impl.h"

#include <gnuradio/io_signature.h>

#include <cstring>
#include <random>
#include <stdexcept>

namespace gr {
namespace blade {

namespace {

/* Two chunks of values every type can hold: random bytes for integer types,
 * floats in -100..100 for float types. */
std::vector<uint8_t> random_pattern(const tensor_spec& spec)
{
    const size_t item = spec.item_size(), bytes = spec.bytes();
    std::vector<uint8_t> pattern(2 * item, 0);
    std::mt19937 rng(20261130);
    for (int chunk = 0; chunk < 2; chunk++) {
        uint8_t* data = pattern.data() + chunk * item;
        if (blade_dtype_is_integer(spec.dtype)) {
            for (size_t i = 0; i < bytes; i++)
                data[i] = static_cast<uint8_t>(rng());
            continue;
        }
        std::uniform_real_distribution<double> value(-100.0, 100.0);
        const int64_t count =
            blade_shape_count(&spec.shape) * (blade_dtype_is_complex(spec.dtype) ? 2 : 1);
        const blade_dtype real = spec.dtype == BLADE_CF16 || spec.dtype == BLADE_F16   ? BLADE_F16
                                 : spec.dtype == BLADE_CF64 || spec.dtype == BLADE_F64 ? BLADE_F64
                                                                                       : BLADE_F32;
        std::vector<double> values(count);
        for (auto& v : values)
            v = value(rng);
        // The core's cast converts doubles into the element type (f16 rounding included).
        blade_cast* cast = nullptr;
        const blade_cast_config config = { BLADE_F64, real };
        const blade_shape flat = blade_shape_aftp(1, 1, 1, count);
        throw_on_error(blade_cast_create(&cast, &config, &flat, blade_device_cpu()),
                       "blade.device_source");
        blade_tensor in = blade_tensor_make(BLADE_F64, &flat, blade_device_cpu(), values.data());
        blade_tensor out = blade_tensor_make(real, &flat, blade_device_cpu(), data);
        const blade_status status = blade_cast_process(cast, &in, &out, nullptr);
        blade_cast_destroy(cast);
        throw_on_error(status, "blade.device_source");
    }
    return pattern;
}

} // namespace

device_source::sptr device_source::make(const std::vector<int64_t>& shape,
                                        const std::string& dtype,
                                        int64_t chunks,
                                        const std::vector<uint8_t>& pattern,
                                        const std::string& device,
                                        bool refill)
{
    const tensor_spec spec(parse_dtype(dtype, "blade.device_source dtype"),
                           parse_shape(shape, "blade.device_source shape"));
    if (chunks < 0)
        throw std::invalid_argument("blade.device_source chunks: " + std::to_string(chunks) +
                                    " (0 means forever)");
    if (!pattern.empty() && pattern.size() % spec.item_size() != 0)
        throw std::invalid_argument(
            "blade.device_source pattern: " + std::to_string(pattern.size()) +
            " bytes is not a whole number of " + std::to_string(spec.item_size()) +
            "-byte items of " + spec.str());
    return gnuradio::make_block_sptr<device_source_impl>(spec,
                                                         chunks,
                                                         pattern.empty() ? random_pattern(spec)
                                                                         : pattern,
                                                         device,
                                                         resolve_device(device, "device_source"),
                                                         refill);
}

device_source_impl::device_source_impl(const tensor_spec& spec,
                                       int64_t chunks,
                                       std::vector<uint8_t> pattern,
                                       const std::string& requested_device,
                                       const blade_device& device,
                                       bool refill)
    : gr::sync_block("device_source",
                     gr::io_signature::make(0, 0, 0),
                     device_signature(device, 1, spec.item_size())),
      device_block("device_source", requested_device, device),
      d_pattern(std::move(pattern)),
      d_limit(chunks),
      d_refill(refill)
{
    set_port_specs({}, { spec });
    log_device_choice(d_logger);
}

device_source_impl::~device_source_impl() { blade_device_free(blade_device_id(), d_ring); }

bool device_source_impl::start()
{
    // The pattern goes to the device once, here, rather than per chunk.
    if (d_ring == nullptr) {
        void* ring = nullptr;
        check(blade_device_alloc(blade_device_id(), d_pattern.size(), &ring),
              "device memory for the chunks");
        d_ring = static_cast<char*>(ring);
        const blade_copy_kind kind = blade_device_is_gpu_like(blade_device_id())
                                         ? BLADE_COPY_HOST_TO_DEVICE
                                         : BLADE_COPY_HOST_TO_HOST;
        check(blade_memcpy(
                  blade_device_id(), d_ring, d_pattern.data(), d_pattern.size(), kind, stream()),
              "uploading the chunks");
        synchronize();
        d_ring_items = static_cast<int64_t>(d_pattern.size() / output_item_size());
    }
    d_emitted = 0;
    d_filled.clear();
    return gr::sync_block::start();
}

int device_source_impl::work(int noutput_items,
                             gr_vector_const_void_star& /*input_items*/,
                             gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        if (d_limit > 0 && d_emitted >= d_limit)
            return static_cast<int>(WORK_DONE);
        int n = noutput_items;
        if (d_limit > 0)
            n = static_cast<int>(std::min<int64_t>(n, d_limit - d_emitted));
        auto* out = static_cast<char*>(output_items[0]);
        const size_t item = output_item_size();
        const blade_copy_kind kind = blade_device_is_gpu_like(blade_device_id())
                                         ? BLADE_COPY_DEVICE_TO_DEVICE
                                         : BLADE_COPY_HOST_TO_HOST;
        for (int i = 0; i < n; i++) {
            char* slot = out + i * item;
            if (!d_refill && !d_filled.insert(slot).second)
                continue; // written once already: left as it is
            const char* chunk = d_ring + ((d_emitted + i) % d_ring_items) * item;
            check(blade_memcpy(blade_device_id(), slot, chunk, item, kind, stream()),
                  "emitting a chunk");
        }
        synchronize();
        d_emitted += n;
        return n;
    });
}

} // namespace blade
} // namespace gr
