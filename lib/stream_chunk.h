/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * What the two stream adapters (stream_to_tensor, tensor_to_stream) share: their
 * cf32 [A, F, T, P] chunk, their A*F*P sample-stream ports, and the receiver tag
 * keys they translate. Private header.
 */
#ifndef INCLUDED_BLADE_STREAM_CHUNK_H
#define INCLUDED_BLADE_STREAM_CHUNK_H

#include "device_block.h"

#include <gnuradio/gr_complex.h>
#include <gnuradio/io_signature.h>
#include <pmt/pmt.h>

#include <string>
#include <vector>

namespace gr {
namespace blade {

/*! The validated chunk of a stream adapter (std::invalid_argument naming `block`). */
inline tensor_spec stream_chunk_spec(const std::vector<int64_t>& shape, const std::string& block)
{
    const tensor_spec spec(BLADE_CF32, parse_shape(shape, block + " shape"));
    throw_on_error(blade_stream_adapter_check(&spec.shape, blade_stream_count(&spec.shape)), block);
    return spec;
}

/*! A*F*P: the number of sample streams of a chunk. */
inline int stream_count(const tensor_spec& chunk)
{
    return static_cast<int>(blade_stream_count(&chunk.shape));
}

/*! Exactly one gr_complex port per stream. */
inline gr::io_signature::sptr stream_signature(const tensor_spec& chunk)
{
    return gr::io_signature::make(stream_count(chunk), stream_count(chunk), sizeof(gr_complex));
}

/*! The receiver tags of UHD and other sources. */
inline const pmt::pmt_t& rx_time_key()
{
    static const pmt::pmt_t key = pmt::intern("rx_time");
    return key;
}
inline const pmt::pmt_t& rx_rate_key()
{
    static const pmt::pmt_t key = pmt::intern("rx_rate");
    return key;
}
inline const pmt::pmt_t& rx_freq_key()
{
    static const pmt::pmt_t key = pmt::intern("rx_freq");
    return key;
}

} // namespace blade
} // namespace gr

#endif
