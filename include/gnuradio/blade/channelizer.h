/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_CHANNELIZER_H
#define INCLUDED_BLADE_CHANNELIZER_H

#include <gnuradio/blade/api.h>
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/sync_block.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief Split every coarse channel into N fine channels (FFT or polyphase
 * filterbank), on the CPU or a GPU.
 * \ingroup blade
 *
 * \details
 * Input chunks are cf32 (or, with dtype "cf16", half-precision) voltages [A, F, T, P]
 * (antennas or beams, coarse channels, time samples, polarizations); output chunks
 * are of the same type, [A, F*N, T/N, P]. The rate N
 * must divide T. With taps = 1 every run of N consecutive samples of a coarse
 * channel becomes one spectrum of N fine channels:
 *
 *   y[a, f*N + k, s, p] = sum over n of x[a, f, s*N + n, p] (-1)^n exp(-2 pi i k n / N)
 *
 * an unnormalised FFT with the zero frequency in the middle: fine channel k is
 * centred (k - N/2)/N coarse channel widths from the coarse centre, DC is channel
 * N/2, channel 0 is centred on the coarse channel's lower edge (for odd N as well;
 * the coarse centre then falls between channels). N = 1 passes chunks through.
 *
 * With taps M of 2 to 64 the block is a polyphase filterbank: each output spectrum
 * comes from the last M*N samples (this chunk's and, for the first blocks of a
 * chunk, the previous chunk's; zeros before the first chunk) weighted by a window x
 * sinc prototype filter of M*N taps, normalised so that a tone at a channel centre
 * has the same amplitude as with the plain FFT. Channels are then flat to a
 * fraction of a dB where the plain FFT loses 3.9 dB at channel edges, and leak
 * far less into their neighbours. Output spectrum s belongs to input block s (the
 * newest of its M blocks), so chunk timing is unchanged; the filter's centre lies
 * (M-1)/2 output samples earlier. Window: rectangular, hamming, hann, blackman or
 * blackman-harris (ignored when taps = 1).
 *
 * Items: one item is one chunk padded to a multiple of 4096 bytes; input and output
 * items have the same size. In Python, blade.item_size(shape, "cf32") gives it and
 * blade.pack and blade.unpack convert to and from numpy arrays.
 *
 * Tags: the block rewrites the frequency and time axis of each chunk:
 * blade_chan_bw becomes chan_bw/N, blade_freq_first (centre of channel 0) becomes
 * freq_first - chan_bw/2 (the centre of the first fine channel; for N greater than
 * 1), blade_tsamp becomes tsamp*N, and blade_nfpc (fine channels per coarse
 * channel) becomes nfpc*N; a chunk that carries chan_bw or freq_first but no nfpc
 * gets nfpc = N. Every other tag passes through unchanged.
 *
 * Device: "auto" (the first GPU if any, else the CPU; the choice is logged),
 * "cpu", "cuda", "cuda:N", or "emulated" (GPU-style device buffers in host memory,
 * for testing without a GPU).
 */
class BLADE_API channelizer : virtual public gr::sync_block, public virtual tensor_block
{
public:
    typedef std::shared_ptr<channelizer> sptr;

    /*!
     * \brief Make a channelizer block.
     *
     * \param shape Shape of one input chunk, [A, F, T, P].
     * \param rate N, fine channels per coarse channel; must divide T.
     * \param device "auto", "cpu", "cuda", "cuda:N" or "emulated".
     * \param taps M, taps per polyphase branch: 1 is the plain FFT, 2 to 64 a
     *        polyphase filterbank.
     * \param window Prototype window when taps is 2 or more: rectangular, hamming,
     *        hann, blackman, blackman-harris.
     * \param dtype Element type of input and output: "cf32", or "cf16" (half
     *        precision in and out).
     */
    static sptr make(const std::vector<int64_t>& shape,
                     int64_t rate,
                     const std::string& device = "auto",
                     int taps = 1,
                     const std::string& window = "hamming",
                     const std::string& dtype = "cf32");

    /*! \brief N, fine channels per coarse channel. */
    virtual int64_t rate() const = 0;

    /*! \brief M, taps per polyphase branch (1: plain FFT). */
    virtual int taps() const = 0;

    /*! \brief The window name ("hamming", ...). */
    virtual std::string window() const = 0;

    /*! \brief The prototype filter, M*N taps (N ones when taps = 1). */
    virtual std::vector<double> prototype() const = 0;
};

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_CHANNELIZER_H */
