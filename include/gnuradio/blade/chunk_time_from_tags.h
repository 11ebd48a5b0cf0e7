/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CHUNK_TIME_FROM_TAGS_H
#define INCLUDED_BLADE_CHUNK_TIME_FROM_TAGS_H

#include <gnuradio/blade/api.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Rebuild the chunk-time stream from the time tags of a chunk stream, and
 * report chunks that never arrived.
 * \ingroup blade
 *
 * \details
 * For chunks that come over a network (a ZeroMQ source with tags passed) rather
 * than from guppi_source, which emits the chunk-time stream itself. Input: the
 * chunks [A, F, T, P] (only their tags are read, never their data, so the same
 * output can feed a GPU block as well). Output: one chunk_time item per chunk,
 * for a phasor block or a Mode B / Mode BH bundle.
 *
 * Per chunk: unix_start from the time_start_unix tag (or, without one, the previous
 * chunk's plus T tsamp), unix_mid from time_mid_unix (or unix_start + T tsamp / 2),
 * jd_start and jd_mid from their tags (or from the unix times), dut1 and tsamp
 * from the latest tags, flags bit 0 when the chunk carries a dropped_blocks tag.
 * step counts chunks from the first one received, gaps included.
 *
 * Gaps: a chunk whose start time is not the previous chunk's plus T tsamp (to half
 * a sample) follows missing chunks (a sender that fell behind a publisher, a
 * restarted worker) or is out of order. Each gap is logged with the missing chunk
 * numbers and times and counted (gaps(), missing_chunks()); with on_gap "stop" it
 * also ends the flowgraph and is recorded in blade.failures(). Steps skip the
 * missing chunks, so phasors stay right for the chunks that did arrive.
 */
class BLADE_API chunk_time_from_tags : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<chunk_time_from_tags> sptr;

    /*!
     * \brief Make the block.
     *
     * \param shape [A, F, T, P] of the chunks (T samples per chunk).
     * \param dtype Element type of the chunks (for the item size).
     * \param on_gap "report" (log and count) or "stop" (also end the flowgraph).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& dtype = "ci8",
                     const std::string& on_gap = "report");

    /*! \brief Chunks received so far. */
    virtual int64_t chunks() const = 0;

    /*! \brief Gaps found (each a run of missing chunks, or a step back in time). */
    virtual int64_t gaps() const = 0;

    /*! \brief Chunks missing in all gaps. */
    virtual int64_t missing_chunks() const = 0;

    /*! \brief Bytes of one input item. */
    virtual size_t input_item_size() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CHUNK_TIME_FROM_TAGS_H */
