/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * The flowgraph timeline (runtime.h: timeline_start / timeline_stop): what each block
 * did and when, per work call, per chunk of device work, per upload. Recording costs
 * one relaxed atomic load per work call while it is off, so it is always compiled in.
 *
 * Host spans are steady-clock intervals on the calling thread. Device spans come from
 * blade_events recorded on the block's stream around each chunk's process call: the
 * block then waits for its stream (every device block does, at the end of its work),
 * so the last event ends just before that wait returns, and each chunk's interval is
 * placed back from there by the events' elapsed times (no clock correlation between
 * host and GPU is needed; the error is the wait's wake-up latency, microseconds).
 */
#ifndef INCLUDED_BLADE_TIMELINE_H
#define INCLUDED_BLADE_TIMELINE_H

#include <blade/blade.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {
namespace timeline {

/*! True while a timeline is being recorded. */
bool recording();

/*! Microseconds since timeline_start() on the steady clock. */
double now_us();

/*! Add one span to the timeline (ignored when not recording). */
void add(const std::string& track, const char* what, double start_us, double end_us, int64_t count);

/*! A host span from construction to destruction (when recording at construction). */
class host_span
{
public:
    host_span(const std::string& track, const char* what, int64_t count = 0);
    ~host_span();
    void set_count(int64_t count) { d_count = count; }

private:
    const std::string& d_track;
    const char* d_what;
    int64_t d_count;
    double d_start;
    bool d_on;
};

/*!
 * Device spans of one block: mark() after queueing each chunk's work on the stream,
 * finish() right after waiting for the stream; one "device" span per chunk.
 */
class device_spans
{
public:
    ~device_spans();
    void begin(const blade_device& device, blade_stream stream);
    void mark(blade_stream stream);
    void finish(const std::string& track);

private:
    std::vector<blade_event*> d_events;
    blade_device d_device{};
    size_t d_used = 0;
    bool d_on = false;
};

} // namespace timeline
} // namespace blade
} // namespace gr

#endif
