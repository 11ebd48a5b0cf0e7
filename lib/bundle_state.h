/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * What every bundle remembers to answer gr::blade::bundle's questions (private
 * header): its input, its devices and where its chain ends. Written once for Mode
 * H, B and BH.
 */
#ifndef INCLUDED_BLADE_BUNDLE_STATE_H
#define INCLUDED_BLADE_BUNDLE_STATE_H

#include "bundle_chain.h"
#include <gnuradio/blade/bundle.h>
#include <gnuradio/io_signature.h>

namespace gr {
namespace blade {

class bundle_state : public virtual bundle
{
public:
    std::vector<int64_t> output_shape() const override { return d_output.shape; }
    std::string output_type() const override { return d_output.dtype; }
    size_t input_item_size() const override
    {
        return bundle_item_size(d_input_shape, d_input_type);
    }
    size_t output_item_size() const override
    {
        return bundle_item_size(d_output.shape, d_output.dtype);
    }
    int64_t chunks_per_output() const override { return d_output.chunks_per_item; }
    std::string device() const override { return join_devices(d_devices); }
    std::vector<std::string> devices() const override { return d_devices; }

protected:
    bundle_state(const std::vector<int64_t>& input_shape,
                 const std::string& input_type,
                 const std::vector<std::string>& devices)
        : d_input_shape(input_shape), d_input_type(input_type), d_devices(devices)
    {
    }

    std::vector<int64_t> d_input_shape;
    std::string d_input_type;
    std::vector<std::string> d_devices;
    std::string d_precision = "fp32";
    chain_end d_output;
};

/*! A bundle's implementation: its public interface (a hier block) and its state. */
template <typename Public>
class bundle_impl : public Public, public bundle_state
{
protected:
    using bundle_state::bundle_state;

public:
    // Here rather than in bundle_state: mode_x declares precision() too.
    std::string precision() const override { return d_precision; }

protected:
    /*! The chain is built: its end is the bundle's output. */
    void finish(const chain_end& end)
    {
        d_output = end;
        this->set_output_signature(
            gr::io_signature::make(1, 1, static_cast<int>(bundle_item_size(end.shape, end.dtype))));
        this->connect(end.block, end.port, this->self(), 0);
    }
};

/*!
 * The element type of a bundle's intermediates for its `precision` option: cf32 for
 * "fp32", cf16 for "fp16"; anything else is refused naming bundle `what`.
 */
std::string working_type(const std::string& precision, const std::string& what);

/*! Resolve a bundle's device or devices (runtime.h), for `shape`'s channels. */
std::vector<std::string> bundle_devices(const spectrometer_options& options,
                                        const std::vector<int64_t>& shape);

} // namespace blade
} // namespace gr

#endif
