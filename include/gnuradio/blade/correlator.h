/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CORRELATOR_H
#define INCLUDED_BLADE_CORRELATOR_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief The X of an FX correlator: every baseline and polarization product of
 * channelized voltages, summed over time (within and across chunks) and optionally
 * over adjacent channels (CPU or GPU).
 * \ingroup blade
 *
 * \details
 * Reads voltage chunks [A, F, T, P] (cf32 or ci8, P = 1 or 2, X at index 0) and
 * writes cf32 visibility chunks [B, F/Fc, T/I, P²], B = A(A+1)/2 baselines,
 * autocorrelations included, in the core's order (i ≤ j, row by row of the upper
 * triangle): V_ij = Σ x_i conj(x_j), products XX, XY, YX, YY, **summed** over I time
 * samples and Fc channels (docs/correlator.md, include/blade/modules/correlator.h).
 *
 * Integration: I divides T (T/I outputs per chunk) or is a multiple of T: K = I/T
 * chunks then give one output chunk [B, F/Fc, 1, P²] (chunks_per_output() = K),
 * taken one chunk at a time as the detector takes them, so that the buffer feeding
 * the block holds two chunks whatever K.
 *
 * Tags: blade_tsamp is multiplied by I; with Fc > 1, blade_chan_bw is multiplied by
 * Fc, blade_nchan divided by it and blade_freq_first moved to the centre of the
 * first group; blade_aspect becomes "baseline". When K > 1 only the first chunk's
 * tags of a group travel, with its mid-chunk times moved to the group's middle. A
 * negative blade_chan_bw (a lower-sideband band) makes the block conjugate the
 * outputs so that they are the sky's.
 *
 * Path ("precision"): "auto" (fp32 on a GPU), "fp32" (CUDA cores), "fp16" (tensor
 * cores, compute capability 8.0+, fp16 operands and float32 sums; ci8 voltages are
 * exact in fp16) or "fp64" (the CPU reference, CPU only). The CPU computes the fp64
 * reference for every path but "fp32", which it sums in float32 through OpenBLAS
 * where gr-blade has it (path() says which). operand_scale (fp16 with cf32 voltages): the voltages
 * are multiplied by it before they are rounded to fp16 (0: 1).
 *
 * Device: "auto", "cpu", "cuda", "cuda:N" or "emulated".
 */
class BLADE_API correlator : virtual public gr::block, public virtual tensor_block
{
public:
    typedef std::shared_ptr<correlator> sptr;

    /*!
     * \brief Make a correlator block.
     *
     * \param shape Voltage chunk shape [A, F, T, P], P = 1 or 2.
     * \param input_type "cf32" or "ci8".
     * \param integration Time samples summed per output: a divisor of T, or a
     *        multiple of T to integrate across chunks.
     * \param channel_integration Adjacent channels summed per output (divides F).
     * \param path "auto", "fp32", "fp16" or "fp64".
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     * \param operand_scale fp16 path with cf32 voltages: scale before rounding (0: 1).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& input_type = "cf32",
                     int64_t integration = 1,
                     int64_t channel_integration = 1,
                     const std::string& path = "auto",
                     const std::string& device = "auto",
                     float operand_scale = 0.0f);

    /*! \brief Time samples summed per output. */
    virtual int64_t integration() const = 0;

    /*! \brief Adjacent channels summed per output. */
    virtual int64_t channel_integration() const = 0;

    /*! \brief Input chunks per output chunk (I / T when I > T, else 1). */
    virtual int64_t chunks_per_output() const = 0;

    /*! \brief The path computed with: "fp64" (or "fp32" through BLAS) on the CPU, else "fp32" or "fp16". */
    virtual std::string path() const = 0;

    /*! \brief Baselines per output chunk, A(A+1)/2. */
    virtual int64_t baselines() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CORRELATOR_H */
