// SPDX-License-Identifier: MIT
// In place against out of place, on any device: two plans of one module, fed the same
// chunks in order (so a filter history is exercised too), one writing a separate
// output, one overwriting its input; their outputs must be identical bytes.
#ifndef BLADE_TEST_IN_PLACE_SUPPORT_H
#define BLADE_TEST_IN_PLACE_SUPPORT_H

#include "device_memory.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace blade_test {

// One plan's process() on raw pointers of `device` memory.
using process_fn = std::function<blade_status(void* input, void* output, blade_stream stream)>;
// Makes a fresh plan on a device and returns its process() (owning the plan).
using plan_factory = std::function<process_fn(blade_device device)>;

// A plan owned by the returned function object (destroyed with its last copy).
template <typename Plan>
std::shared_ptr<Plan> owned_plan(Plan* plan, void (*destroy)(Plan*))
{
    return std::shared_ptr<Plan>(plan, destroy);
}

// Feed `chunks` to one plan out of place and to another in place; compare the
// outputs (the first `output_bytes` of the overwritten input) bit for bit.
inline void check_in_place_matches(blade_device device,
                                   const plan_factory& make,
                                   const std::vector<std::vector<uint8_t>>& chunks,
                                   size_t output_bytes,
                                   const std::string& what)
{
    process_fn separate = make(device), in_place = make(device);
    blade_stream stream = nullptr;
    ok(blade_stream_create(device, &stream), "stream");
    for (size_t c = 0; c < chunks.size(); c++) {
        device_memory input(device, chunks[c]), output(device, output_bytes);
        device_memory overwritten(device, chunks[c]);
        ok(separate(input.data(), output.data(), stream), (what + ": out of place").c_str());
        ok(in_place(overwritten.data(), overwritten.data(), stream), (what + ": in place").c_str());
        ok(blade_stream_synchronize(device, stream), "sync");
        const std::vector<uint8_t> expected = output.download();
        std::vector<uint8_t> got = overwritten.download();
        got.resize(output_bytes);
        BOOST_TEST((got == expected), what << ", chunk " << c);
        BOOST_TEST((expected != chunks[c]), what << ": the output differs from the input");
        // the input of the out-of-place call is untouched
        BOOST_TEST((input.download() == chunks[c]), what << ": input left as it was");
    }
    blade_stream_destroy(device, stream);
}

// `count` distinct chunks of `elements` random values of `type` (cf32 uniform in
// [-100, 100), cf16 those rounded; other types random_elements()).
inline std::vector<std::vector<uint8_t>>
random_chunks(blade_dtype type, int64_t elements, int count, uint32_t seed)
{
    std::vector<std::vector<uint8_t>> chunks;
    for (int c = 0; c < count; c++) {
        const uint32_t s = seed * 100 + static_cast<uint32_t>(c);
        if (type == BLADE_CF32)
            chunks.push_back(random_cf32(elements, s));
        else if (type == BLADE_CF16)
            chunks.push_back(random_cf16(elements, s));
        else
            chunks.push_back(random_elements(type, elements, s));
    }
    return chunks;
}

// Polarizer plans of `type` for `shape`.
inline plan_factory polarizer_plans(const blade_shape& shape, blade_dtype type)
{
    return [shape, type](blade_device device) -> process_fn {
        blade_polarizer* raw = nullptr;
        const blade_polarizer_config config = { BLADE_BASIS_CIRCULAR };
        ok(blade_polarizer_create(&raw, &config, &shape, device), "polarizer create");
        auto plan = owned_plan(raw, blade_polarizer_destroy);
        return [plan, shape, type, device](void* in, void* out, blade_stream stream) {
            blade_tensor a = blade_tensor_make(type, &shape, device, in);
            blade_tensor b = blade_tensor_make(type, &shape, device, out);
            return blade_polarizer_process(plan.get(), &a, &b, stream);
        };
    };
}

// Cast plans `from` -> `to` (one size per element) times `scale`.
inline plan_factory
cast_plans(const blade_shape& shape, blade_dtype from, blade_dtype to, float scale)
{
    return [=](blade_device device) -> process_fn {
        blade_cast* raw = nullptr;
        const blade_cast_config config = { from, to, scale };
        ok(blade_cast_create(&raw, &config, &shape, device), "cast create");
        auto plan = owned_plan(raw, blade_cast_destroy);
        return [plan, shape, from, to, device](void* in, void* out, blade_stream stream) {
            blade_tensor a = blade_tensor_make(from, &shape, device, in);
            blade_tensor b = blade_tensor_make(to, &shape, device, out);
            return blade_cast_process(plan.get(), &a, &b, stream);
        };
    };
}

// Channelizer plans of one type, N = rate, M = taps, CUDA `kernel`. Null when the
// kernel does not serve the shape (reported by `created`).
inline plan_factory
channelizer_plans(const blade_shape& shape,
                  blade_dtype type,
                  int64_t rate,
                  int taps,
                  blade_channelizer_kernel kernel = BLADE_CHANNELIZER_KERNEL_AUTO)
{
    return [=](blade_device device) -> process_fn {
        blade_channelizer* raw = nullptr;
        blade_channelizer_config config = { type, type, rate, taps, BLADE_WINDOW_HAMMING, kernel };
        ok(blade_channelizer_create(&raw, &config, &shape, device), "channelizer create");
        auto plan = owned_plan(raw, blade_channelizer_destroy);
        const blade_shape out_shape = blade_channelizer_output_shape(raw);
        return [plan, shape, out_shape, type, device](void* in, void* out, blade_stream stream) {
            blade_tensor a = blade_tensor_make(type, &shape, device, in);
            blade_tensor b = blade_tensor_make(type, &out_shape, device, out);
            return blade_channelizer_process(plan.get(), &a, &b, stream);
        };
    };
}

} // namespace blade_test

#endif
