/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_DETECTOR_H
#define INCLUDED_BLADE_DETECTOR_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Voltages to power, summed over time, within and across chunks (CPU or GPU).
 * \ingroup blade
 *
 * \details
 * Reads cf32 (or cf16) voltage chunks [A, F, T, P] (X at polarization index 0, Y at 1) and
 * writes f32 power chunks [A, F, T/I, Pout], the products summed (not averaged) over
 * I consecutive time samples. Modes: "I" (Stokes I, Pout 1: sum of |X|^2 + |Y|^2),
 * "XXYY" (Pout 2: sum |X|^2, sum |Y|^2), "cross" (Pout 4: sum |X|^2, sum |Y|^2,
 * sum Re(X Y*), sum Im(X Y*), upstream BLADE's 4-pol output), "IQUV" (Pout 4: IAU
 * Stokes for linear feeds, I = XX + YY, Q = XX - YY, U = 2 Re(X Y*),
 * V = -2 Im(X Y*)). With P = 1 only mode I is accepted (total power sum |X|^2).
 *
 * Integration: I (in time samples) either divides T, and each chunk gives T/I
 * output samples, or is a multiple of T, and K = I/T consecutive chunks give one
 * output chunk [A, F, 1, Pout]: K chunks in, one out, and chunks_per_output()
 * returns K. The sums are deterministic: the same input gives the same bits on every
 * run.
 *
 * Tags: the blade_tsamp tag is multiplied by I. When K > 1 only the tags of the
 * first chunk of each group travel (to that group's output chunk), and the
 * mid-chunk times (blade_time_mid_unix, blade_jd_mid) are moved to the middle of
 * the group when that chunk also carries blade_tsamp.
 *
 * Items: one item is one chunk padded to a multiple of 4096 bytes. The block takes
 * one chunk at a time and writes an output when a group completes, so its upstream
 * buffer holds two chunks whatever K (as a decimator it held 2 K: 102 GiB for BL's
 * 2^20-point product integrating 51 chunks of 1 GiB).
 *
 * Device: "auto" (the first GPU if any, else the CPU), "cpu", "cuda", "cuda:N", or
 * "emulated" (GPU-style device buffers in host memory, for testing without a GPU).
 */
class BLADE_API detector : virtual public gr::block, public virtual tensor_block
{
public:
    typedef std::shared_ptr<detector> sptr;

    /*!
     * \brief Make a detector block.
     *
     * \param shape Voltage chunk shape [A, F, T, P], P = 2 (or 1 for mode I).
     * \param mode "I", "XXYY", "cross" or "IQUV" (case-insensitive).
     * \param integration Time samples summed per output: a divisor of T, or a
     *        multiple of T to integrate across chunks.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     * \param input_type Voltage type: "cf32", or "cf16" (half precision, widened to
     *        float as it is read; the sums keep their precision).
     * \param scale Every output is multiplied by it (1: none; a half-precision chain
     *        that scaled its voltages by 2^-k passes 2^2k).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     const std::string& mode = "I",
                     int64_t integration = 1,
                     const std::string& device = "auto",
                     const std::string& input_type = "cf32",
                     double scale = 1.0);

    /*! \brief The mode ("I", "XXYY", "cross" or "IQUV"). */
    virtual std::string mode() const = 0;

    /*! \brief Time samples summed per output sample. */
    virtual int64_t integration() const = 0;

    /*! \brief Input chunks per output chunk (I / T when I > T, else 1). */
    virtual int64_t chunks_per_output() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_DETECTOR_H */
