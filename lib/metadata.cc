/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include <gnuradio/blade/metadata.h>

namespace gr {
namespace blade {

static_assert(sizeof(chunk_time) == 64, "chunk_time is a 64-byte item");

std::map<std::string, std::string> tag_keys()
{
    return {
        { "time_start_unix", tag::time_start_unix },
        { "time_mid_unix", tag::time_mid_unix },
        { "jd_start", tag::jd_start },
        { "jd_mid", tag::jd_mid },
        { "dut1", tag::dut1 },
        { "tsamp", tag::tsamp },
        { "freq_first", tag::freq_first },
        { "chan_bw", tag::chan_bw },
        { "nchan", tag::nchan },
        { "nfpc", tag::nfpc },
        { "coarse_first", tag::coarse_first },
        { "block_index", tag::block_index },
        { "file_name", tag::file_name },
        { "source_name", tag::source_name },
        { "telescope", tag::telescope },
        { "ra", tag::ra },
        { "dec", tag::dec },
        { "az", tag::az },
        { "za", tag::za },
        { "aspect", tag::aspect },
        { "dropped", tag::dropped },
        { "beams", tag::beams },
    };
}

} // namespace blade
} // namespace gr
