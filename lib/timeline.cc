/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/* The flowgraph timeline: see timeline.h and runtime.h. */

#include "timeline.h"
#include <gnuradio/blade/runtime.h>

#include <atomic>
#include <chrono>
#include <mutex>

namespace gr {
namespace blade {
namespace timeline {
namespace {

std::atomic<bool> g_recording{ false };
std::chrono::steady_clock::time_point g_origin = std::chrono::steady_clock::now();
std::mutex g_mutex;
std::vector<timeline_event> g_events;

} // namespace

bool recording() { return g_recording.load(std::memory_order_relaxed); }

double now_us()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - g_origin)
        .count();
}

void add(const std::string& track, const char* what, double start_us, double end_us, int64_t count)
{
    if (!recording())
        return;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_events.push_back(timeline_event{ track, what, start_us, end_us - start_us, count });
}

host_span::host_span(const std::string& track, const char* what, int64_t count)
    : d_track(track), d_what(what), d_count(count), d_start(0.0), d_on(recording())
{
    if (d_on)
        d_start = now_us();
}

host_span::~host_span()
{
    if (d_on && d_count >= 0) // a negative count: nothing was done, nothing to show
        add(d_track, d_what, d_start, now_us(), d_count);
}

device_spans::~device_spans()
{
    for (blade_event* event : d_events)
        blade_event_destroy(event);
}

void device_spans::begin(const blade_device& device, blade_stream stream)
{
    d_on = recording() && blade_device_is_gpu_like(device);
    d_used = 0;
    if (!d_on)
        return;
    if (d_events.empty()) {
        blade_event* event = nullptr;
        if (blade_event_create(device, &event) != BLADE_OK) {
            d_on = false;
            return;
        }
        d_events.push_back(event);
    }
    d_device = device;
    d_on = blade_event_record(d_events[0], stream) == BLADE_OK;
    d_used = 1;
}

void device_spans::mark(blade_stream stream)
{
    if (!d_on)
        return;
    if (d_used == d_events.size()) {
        blade_event* event = nullptr;
        if (blade_event_create(d_device, &event) != BLADE_OK) {
            d_on = false;
            return;
        }
        d_events.push_back(event);
    }
    d_on = blade_event_record(d_events[d_used], stream) == BLADE_OK;
    d_used++;
}

void device_spans::finish(const std::string& track)
{
    if (!d_on || d_used < 2)
        return;
    const double end = now_us();
    // Chunk i ran between events i and i + 1; the last event ended about now.
    std::vector<double> ends_before_last(d_used, 0.0);
    for (size_t i = 0; i + 1 < d_used; i++) {
        double ms = 0.0;
        if (blade_event_elapsed_ms(d_events[i], d_events[d_used - 1], &ms) != BLADE_OK)
            return;
        ends_before_last[i] = ms * 1e3;
    }
    for (size_t i = 0; i + 1 < d_used; i++)
        add(track, "device", end - ends_before_last[i], end - ends_before_last[i + 1], 1);
    d_on = false;
}

} // namespace timeline

void timeline_start()
{
    std::lock_guard<std::mutex> lock(timeline::g_mutex);
    timeline::g_events.clear();
    timeline::g_origin = std::chrono::steady_clock::now();
    timeline::g_recording.store(true);
}

std::vector<timeline_event> timeline_stop()
{
    timeline::g_recording.store(false);
    std::lock_guard<std::mutex> lock(timeline::g_mutex);
    std::vector<timeline_event> events;
    events.swap(timeline::g_events);
    return events;
}

bool timeline_recording() { return timeline::recording(); }

} // namespace blade
} // namespace gr
