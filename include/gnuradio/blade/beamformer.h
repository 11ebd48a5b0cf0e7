/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_BEAMFORMER_H
#define INCLUDED_BLADE_BEAMFORMER_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Coherent (and incoherent) beams from antenna voltages and phasors (CPU or GPU).
 * \ingroup blade
 *
 * \details
 * Two inputs: voltages x [A, F, T, P] on port 0 and phasors w [B, A, F, 1, P] on
 * port 1, one phasor chunk per voltage chunk (for instance from the phasor block).
 * The output chunk [B, F, T, P] holds the coherent beams
 *
 *     y[b, f, t, p] = sum over a of x[a, f, t, p] * w[b, a, f, 0, p]
 *
 * (no conjugation: the phasors carry the sign of the delay correction). With
 * incoherent set, one more beam follows them (output [B + 1, F, T, P]): the power
 * sum over antennas of |w[0, a, f, 0, p]|^2 |x[a, f, t, p]|^2 (beam 0's calibration
 * amplitudes, no phases) in the real part, imaginary part zero; incoherent_sqrt
 * writes its square root, so that a detector after the block squares it back to
 * power. Phasors of shape [B, A] are the MeerKAT-style variant: one weight per beam
 * and antenna, shared by every channel and polarization.
 *
 * Any A, B, F and T (T = 1 after full channelization too); P is 1 or 2. Voltages
 * are cf32, cf16 or ci8 (cf16 and ci8 are converted while loading, exactly as a cast
 * to cf32 would); beams are cf32 or cf16. Phasors are cf32.
 *
 * Path (GPU arithmetic; the CPU sums in float32 and emulates fp16): "fp32" (CUDA
 * cores, float32), "tf32" (tensor cores with TF32 operands: error at most 2^-10 of
 * the sum of |x||w| per output, RMS about 4e-5 of it), "tf32x3" (tensor cores with
 * split TF32 operands: float32 accuracy), "fp16" (tensor cores with half operands
 * and float32 sums, the fastest: error about 2^-11 of the sum of |x||w|; cf32
 * voltages must stay within the half range), or "auto" (tf32x3 when A >= 32,
 * B >= 32 and T >= 64, else fp32; never fp16). path() reports the path in use.
 *
 * Items: one item is one chunk, the row-major tensor padded to a multiple of 4096
 * bytes; blade.item_size(shape, type) gives the byte counts, blade.pack and
 * blade.unpack convert numpy arrays. Stream tags of the voltages pass to the beams
 * (the blade_aspect tag becomes "beam"); tags on the phasor input are not
 * propagated.
 *
 * Device: "auto" (the first GPU if any, else the CPU), "cpu", "cuda", "cuda:N", or
 * "emulated" (GPU-style device buffers in host memory, for tests). On a GPU both
 * inputs and the output stay in device memory between gr-blade GPU blocks.
 */
class BLADE_API beamformer : virtual public gr::sync_block, public virtual tensor_block
{
public:
    typedef std::shared_ptr<beamformer> sptr;

    /*!
     * \brief Make a beamformer block.
     *
     * \param input_shape Voltage chunk shape [A, F, T, P], P in {1, 2}.
     * \param phasor_shape Phasor chunk shape [B, A, F, 1, P], or [B, A] for one
     *        weight per beam and antenna.
     * \param input_type Voltage element type: cf32, cf16 or ci8.
     * \param output_type Beam element type: cf32 or cf16.
     * \param incoherent Append the incoherent beam after the B coherent beams.
     * \param incoherent_sqrt Write the square root of the incoherent power.
     * \param path "auto", "fp32", "tf32", "tf32x3" or "fp16" (GPU arithmetic).
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     */
    static sptr make(const std::vector<int64_t>& input_shape,
                     const std::vector<int64_t>& phasor_shape,
                     const std::string& input_type = "cf32",
                     const std::string& output_type = "cf32",
                     bool incoherent = false,
                     bool incoherent_sqrt = false,
                     const std::string& path = "auto",
                     const std::string& device = "auto");

    /*! \brief The arithmetic path in use ("fp32", "tf32", "tf32x3" or "fp16"). */
    virtual std::string path() const = 0;

    /*! \brief Number of coherent beams B. */
    virtual int64_t beams() const = 0;

    /*! \brief Bytes of one phasor item (port 1). */
    virtual size_t phasor_item_size() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_BEAMFORMER_H */
