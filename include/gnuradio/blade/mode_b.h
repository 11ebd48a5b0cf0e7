/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_MODE_B_H
#define INCLUDED_BLADE_MODE_B_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/bundle.h>
#include <gnuradio/blade/observation.h>
#include <gnuradio/blade/recipe.h>
#include <gnuradio/hier_block2.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Mode B: the beamformer bundle, from a recording to beams.
 * \ingroup blade
 *
 * \details
 * Voltages: cast to cf32 -> optional channelizer (rate N, optionally a polyphase
 * filterbank) -> optional polarizer -> beamformer -> detector (power) or, with
 * detector "none", a cast to the output type (beamformed voltages). Without a
 * channelizer or polarizer, ci8 voltages go straight into the beamformer, which
 * converts them as it loads them. Phasors: a phasor block computes one phasor
 * chunk per data chunk from the BFR5 recipe (array, beams, calibration) and the
 * chunk's time.
 *
 * Inputs: 0, voltage chunks [A, F, T, P] (the recording's antennas, channels,
 * samples, polarizations); 1, the chunk-time stream of the same chunks (the second
 * output of guppi_source; gr::blade::chunk_time items). Output: [B(+1), F*N,
 * T/(N*I) or 1, Pout] f32 power, or [B(+1), F*N, T/N, P] voltages. Aspect b < B is
 * recipe beam beams[b] (all recipe beams in order when beams is empty); with the
 * incoherent beam, aspect B is the incoherent sum of all antennas' power.
 *
 * The chunks' observation (axis) places each (fine) channel's centre for the
 * phasors and its F-engine channel for the calibration. The chunk-time stream's
 * tags, when they carry the frequency axis (guppi_source's do), must agree with it:
 * the phasor block checks at the first chunk. Each beam's name and direction travel
 * with the output as the blade_beams tag (a filterbank_sink names its files by it).
 *
 * Device: every block runs on one device; on a GPU the chain uploads the voltages
 * once per chunk (the phasors too, a few hundred kB), keeps every intermediate in
 * device memory, and downloads the result once.
 *
 * Several devices (devices ["cuda:0", "cuda:1"], or device "all"): the channels
 * are split into one equal sub-band per device (channel_split), each device runs
 * its own copy of the chain on its sub-band, uploading its channels straight from
 * the pinned input buffer, and the outputs are merged by channel (channel_merge)
 * into pinned host memory: the output is what one device gives, bit for bit.
 * The upstream block must then be a host block (guppi_source, a ZeroMQ source),
 * and so must the downstream block. The number of devices must divide F.
 * Each device's phasor block computes the phasors of its own channels (calibration
 * rows by absolute channel), from the same chunk times.
 */
class BLADE_API mode_b : virtual public gr::hier_block2, public virtual beamforming_bundle
{
public:
    typedef std::shared_ptr<mode_b> sptr;

    /*!
     * \brief Make a Mode B bundle.
     *
     * \param shape [A, F, T, P] of the voltage chunks.
     * \param axis The observation of the chunks (their coarse channels: frequency,
     *        width, F-engine channels; Recording.observation in Python).
     * \param recipe The BFR5 recipe (read_bfr5()): array, beams, calibration; its
     *        antennas and polarizations must be the chunks'.
     * \param options The chain (beamforming_options): channelizer, polarizer,
     *        detector ("none" for voltages of output_type), integration, beams,
     *        incoherent (unset: on), delays, beamformer path, device or devices.
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const observation& axis,
                     const recipe& recipe,
                     const beamforming_options& options = beamforming_options());
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_MODE_B_H */
