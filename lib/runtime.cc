/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "device_block.h"
#include <gnuradio/blade/runtime.h>

#include <mutex>
#include <stdexcept>

namespace gr {
namespace blade {

std::string version() { return blade_version(); }

std::string build_commit() { return blade_build_commit(); }

std::vector<std::string> backends()
{
    std::vector<std::string> names{ "cpu" };
    if (blade_has_cuda_backend())
        names.push_back("cuda");
    return names;
}

std::vector<gpu_info> gpus()
{
    std::vector<gpu_info> found;
    const int count = blade_gpu_count();
    for (int i = 0; i < count; i++) {
        blade_gpu_info info;
        if (blade_gpu_info_get(i, &info) != BLADE_OK)
            continue;
        gpu_info gpu;
        gpu.index = i;
        gpu.name = info.name;
        gpu.total_memory = info.total_memory;
        gpu.free_memory = info.free_memory;
        gpu.compute_major = info.compute_major;
        gpu.compute_minor = info.compute_minor;
        gpu.multiprocessors = info.multiprocessors;
        gpu.memory_bandwidth = info.memory_bandwidth;
        found.push_back(gpu);
    }
    return found;
}

std::string resolve_device(const std::string& device)
{
    char text[32];
    return blade_device_format(resolve_device(device, "resolve_device"), text, sizeof text);
}

std::vector<std::string> resolve_devices(const std::string& device,
                                         const std::vector<std::string>& devices,
                                         int64_t channels)
{
    std::vector<std::string> resolved;
    if (!devices.empty()) {
        if (!device.empty() && device != "auto")
            throw std::invalid_argument("give either device ('" + device +
                                        "') or devices (a list), not both");
        for (const auto& name : devices) {
            if (name == "all")
                throw std::invalid_argument("devices: 'all' stands alone (device=\"all\"), "
                                            "not inside a list");
            resolved.push_back(resolve_device(name));
        }
        return resolved;
    }
    if (device != "all")
        return { resolve_device(device) };
    int64_t count = blade_gpu_count();
    if (count == 0) // GPUs were asked for: running on the CPU instead would be a surprise
        throw std::runtime_error("device 'all' means every GPU, and no CUDA GPU was found; "
                                 "use 'auto' or 'cpu' to run on the CPU");
    if (channels > 0)
        while (count > 1 && channels % count != 0)
            count--;
    for (int64_t index = 0; index < count; index++)
        resolved.push_back("cuda:" + std::to_string(index));
    return resolved;
}

double measure_transfer(const std::vector<std::string>& devices,
                        size_t bytes,
                        int repeats,
                        const std::string& direction)
{
    if (direction != "upload" && direction != "download")
        throw std::invalid_argument("measure_transfer direction: '" + direction +
                                    "' (\"upload\" or \"download\")");
    std::vector<blade_device> parsed;
    for (const auto& name : devices)
        parsed.push_back(resolve_device(name, "measure_transfer"));
    double rate = 0;
    throw_on_error(blade_measure_transfer(parsed.data(),
                                          static_cast<int>(parsed.size()),
                                          bytes,
                                          repeats,
                                          direction == "upload" ? BLADE_COPY_HOST_TO_DEVICE
                                                                : BLADE_COPY_DEVICE_TO_HOST,
                                          &rate),
                   "measure_transfer");
    return rate;
}

double measure_duplex_transfer(const std::string& device,
                               size_t upload_bytes,
                               size_t download_bytes,
                               int repeats)
{
    double seconds = 0;
    throw_on_error(blade_measure_duplex_transfer(resolve_device(device, "measure_duplex_transfer"),
                                                 upload_bytes,
                                                 download_bytes,
                                                 repeats,
                                                 &seconds),
                   "measure_duplex_transfer");
    return seconds;
}

size_t item_size(const std::vector<int64_t>& shape, const std::string& dtype)
{
    return tensor_spec(parse_dtype(dtype, "item_size"), parse_shape(shape, "item_size"))
        .item_size();
}

std::map<std::string, uint64_t> copy_stats()
{
    static const char* names[4] = {
        "host_to_host", "host_to_device", "device_to_host", "device_to_device"
    };
    blade_copy_stats stats;
    blade_copy_stats_get(&stats);
    std::map<std::string, uint64_t> result;
    for (int i = 0; i < 4; i++) {
        result[names[i]] = stats.count[i];
        result[std::string(names[i]) + "_bytes"] = stats.bytes[i];
    }
    return result;
}

void reset_copy_stats() { blade_copy_stats_reset(); }

std::map<std::string, uint64_t> device_memory_stats()
{
    blade_device_memory_stats stats;
    blade_device_memory_stats_get(&stats);
    return { { "bytes_in_use", stats.bytes_in_use }, { "peak_bytes", stats.peak_bytes } };
}

void reset_device_memory_peak() { blade_device_memory_stats_reset_peak(); }

namespace {
std::mutex failures_mutex;
std::vector<std::string> recorded_failures;
} // namespace

void record_failure(const std::string& message)
{
    std::lock_guard<std::mutex> lock(failures_mutex);
    recorded_failures.push_back(message);
}

std::vector<std::string> failures()
{
    std::lock_guard<std::mutex> lock(failures_mutex);
    return recorded_failures;
}

void clear_failures()
{
    std::lock_guard<std::mutex> lock(failures_mutex);
    recorded_failures.clear();
}

} // namespace blade
} // namespace gr
