/* SPDX-License-Identifier: MIT */
/**
 * @file modules/channelizer.h
 * @brief Channelizer: split every coarse channel into N fine channels, with an
 *        optional polyphase filterbank (PFB) front end.
 *
 * Input x is cf32 or cf16 [A, F, T, P]; the rate N must divide T. Output y is cf32
 * or cf16 [A, F*N, T/N, P]. With taps M = 1 (the plain FFT, as upstream BLADE):
 *
 *     y[a, f*N + k, s, p] = sum_{n=0}^{N-1} x[a, f, s*N + n, p] * (-1)^n
 *                                             * exp(-2 pi i k n / N)
 *
 * consecutive, non-overlapping, unnormalised N-point forward FFTs along time, with
 * the zero frequency moved to the middle by the (-1)^n modulation.
 *
 * **Frequencies.** A tone at offset nu (in units of the coarse channel width,
 * -1/2 <= nu < 1/2) from the coarse centre lands in fine channel k where
 * k = N*nu + N/2 (mod N), i.e. fine channel k is centred at (k - N/2)/N. For even N
 * this is the usual fftshift: DC is channel N/2, channel 0 is centred on the lower
 * edge of the coarse channel and collects both of its edges. For odd N the same
 * formula gives fractional centres: channel 0 is still centred on the coarse edge
 * (-1/2, equivalently +1/2), the other channels sit at (k - N/2)/N, and the coarse
 * centre falls halfway between channels (N-1)/2 and (N+1)/2; a tone exactly at a
 * fine-channel centre also changes sign from one output sample s to the next
 * (because (-1)^n restarts every block while N is odd). Every N gives the linear
 * axis freq(f*N + k) = freq_coarse(0) - chan_bw/2 + (f*N + k) * chan_bw/N, except
 * N = 1, which is the identity (the one "fine" channel is the coarse channel).
 *
 * **Half precision (cf16).** Input and output types are chosen independently
 * (::blade_channelizer_config). The maths is float32 either way: cf16 input is
 * converted to float on load (exactly), cf16 output is the float32 result rounded
 * to the nearest half (ties to even; beyond 65504 it becomes infinity, a NaN becomes
 * the canonical quiet NaN). The polyphase history keeps the input's values as
 * float32 (exact for cf16). Both backends give the same bits for cf16 output as for
 * cf32 output rounded (the CPU exactly so; CUDA differs from the CPU in float32 by
 * the FFT's rounding, so by at most one half-precision step).
 *
 * **Polyphase filterbank (taps M >= 2).** A prototype low-pass filter h of L = M*N
 * taps,
 *
 *     g[j] = w[j] * sinc(beta * (j - (L-1)/2) / N),   sinc(u) = sin(pi u)/(pi u), sinc(0) = 1
 *     h[j] = N * g[j] / sum_i g[i]                     (j = 0 .. L-1; sum h = N)
 *
 * with w the symmetric window of length L chosen by ::blade_channelizer_window
 * (theta = 2 pi j / (L-1)): rectangular 1; hamming 0.54 - 0.46 cos(theta); hann
 * 0.5 - 0.5 cos(theta); blackman 0.42 - 0.5 cos(theta) + 0.08 cos(2 theta);
 * blackman-harris 0.35875 - 0.48829 cos(theta) + 0.14128 cos(2 theta)
 * - 0.01168 cos(3 theta). The bandwidth factor beta puts the channel edges at -3 dB:
 * it is the value in [0.5, 2] for which the filter's response half a fine channel
 * from its centre, |sum_j g[j] cos(pi (j - (L-1)/2) / N)|, is 1/sqrt(2) of its
 * response at the centre, |sum_j g[j]|; found by 50 bisection steps in double
 * precision starting from [0.5, 2] (moving the lower end up while the edge response
 * is below 1/sqrt(2)), beta being the middle of the final interval. (beta = 1 would
 * cut off at the channel edge, where a window-designed filter is at -6 dB; the
 * plain FFT is at -3.9 dB there.) Adjacent channels thus cross at half power, a
 * tone between two channels keeps its power summed over both, and the passband is
 * flat to a fraction of a dB inside. (For 2 taps with the widest windows no beta
 * in the range reaches -3 dB and the result is the nearest end.) The
 * normalisation makes a tone at a fine-channel centre come out with the same
 * amplitude as from the plain FFT. Then
 *
 *     y[a, f*N + k, s, p] = sum_{n=0}^{N-1} (-1)^n exp(-2 pi i k n / N)
 *                           * sum_{m=0}^{M-1} h[m*N + n] * xs[a, f, (s - M + 1 + m)*N + n, p]
 *
 * where xs is the continuous time series of each (a, f, p) across chunks: indices
 * 0 .. T-1 are the current chunk, negative indices the previous chunks' last
 * (M-1)*N samples (the plan keeps them as history between process calls; before
 * the first chunk, and after blade_channelizer_reset(), they are zero). Output
 * block s thus uses the M*N input samples ending with input block s
 * (s*N .. s*N + N-1): it is produced when block s has arrived, so chunk timing
 * and tags are unchanged, while the filter's centre lies (M-1)*N/2 input samples
 * earlier (its group delay, (M-1)/2 output samples). M = 1 is the plain FFT above
 * (no filter; the window is not used).
 *
 * Usage:
 * @code
 *   blade_channelizer* channelizer;
 *   blade_channelizer_config config = { BLADE_CF32, BLADE_CF32, 8192, 1,
 *                                       BLADE_WINDOW_RECTANGULAR };
 *   blade_shape shape = blade_shape_aftp(16, 192, 8192, 2);
 *   if (blade_channelizer_create(&channelizer, &config, &shape, device) != BLADE_OK)
 *       fprintf(stderr, "%s\n", blade_last_error());
 *   blade_shape out = blade_channelizer_output_shape(channelizer); // [16, 1572864, 1, 2]
 *   blade_channelizer_process(channelizer, &input, &output, stream);
 *   blade_channelizer_destroy(channelizer);
 * @endcode
 *
 * Backends: the CPU (and the emulated device) use FFTW (planned once at creation,
 * FFTW_ESTIMATE so results are deterministic) with OpenMP threads over batches of
 * transforms. CUDA has three implementations (::blade_channelizer_kernel), for
 * power-of-two N and P: single-pass kernels that keep a tile of the chunk in shared
 * memory (GPUs of compute capability 8.0 and newer, which have the 70-140 KB of
 * shared memory per block they need): "shared" (N <= 8192) loads the tile into shared
 * memory, transforms it there and stores it; "direct" (N <= 16384, tiles of all
 * polarizations up to 16384 values) does the first FFT pass on values read straight
 * from global memory and the last one straight into y ("direct-half": the same
 * with the shared tile's 8192 values and 512 threads). Longer power-of-two N
 * (2^15 ... 2^22) take "four-step": N = N1*N2, one kernel transforms the N2-point
 * columns, rotates them and writes a workspace, a second transforms the N1-point rows
 * into y (two passes over memory). Any other N or P, or an older GPU, takes the
 * general path: a planarizing kernel, cuFFT (loaded at run time) and a reordering
 * kernel. All agree to float32 FFT accuracy: differences stay below
 * 1e-6 * log2(N) of the output RMS.
 */
#ifndef BLADE_CHANNELIZER_H
#define BLADE_CHANNELIZER_H

#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/export.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Window of the polyphase prototype filter (see the file description). */
typedef enum blade_channelizer_window {
    BLADE_WINDOW_RECTANGULAR = 0, /**< 1 (a truncated sinc) */
    BLADE_WINDOW_HAMMING,         /**< 0.54 - 0.46 cos */
    BLADE_WINDOW_HANN,            /**< 0.5 - 0.5 cos */
    BLADE_WINDOW_BLACKMAN,        /**< 0.42 - 0.5 cos + 0.08 cos 2 */
    BLADE_WINDOW_BLACKMAN_HARRIS, /**< 4-term, -92 dB sidelobes */
    BLADE_WINDOW_COUNT
} blade_channelizer_window;

/** Largest number of taps per branch of the polyphase filter. */
#define BLADE_CHANNELIZER_MAX_TAPS 64

/** Range searched for the prototype's bandwidth factor beta. */
#define BLADE_CHANNELIZER_BETA_MIN 0.5
/** Range searched for the prototype's bandwidth factor beta. */
#define BLADE_CHANNELIZER_BETA_MAX 2.0

/**
 * Which CUDA implementation a plan uses (the CPU backend has one; it ignores this).
 * See the backends in the file description; ::BLADE_CHANNELIZER_KERNEL_AUTO picks the
 * one expected fastest, the others are for comparing them.
 */
typedef enum blade_channelizer_kernel {
    BLADE_CHANNELIZER_KERNEL_AUTO = 0,    /**< the fastest that serves the shape */
    BLADE_CHANNELIZER_KERNEL_SHARED,      /**< one pass, tile in shared memory (N <= 8192) */
    BLADE_CHANNELIZER_KERNEL_DIRECT,      /**< one pass, first and last FFT pass on global memory
                                            (N <= 16384) */
    BLADE_CHANNELIZER_KERNEL_GENERAL,     /**< planarize, cuFFT, reorder (any N, P) */
    BLADE_CHANNELIZER_KERNEL_FOUR_STEP,   /**< two passes of tiles, N = N1*N2 (2^15 ... 2^22) */
    BLADE_CHANNELIZER_KERNEL_DIRECT_HALF, /**< "direct" with the shared tile's size: 512
                                               threads, 8192 values (N <= 8192) */
    BLADE_CHANNELIZER_KERNEL_COUNT
} blade_channelizer_kernel;

/** Configuration of a channelizer. */
typedef struct blade_channelizer_config {
    blade_dtype input_type;  /**< ::BLADE_CF32 or ::BLADE_CF16 (cast integer voltages first) */
    blade_dtype output_type; /**< ::BLADE_CF32 or ::BLADE_CF16 */
    int64_t rate;            /**< N: fine channels per coarse channel; divides T */
    int taps;                /**< M: 1 = plain FFT, 2..64 = polyphase filterbank */
    blade_channelizer_window window; /**< prototype window (used when taps >= 2) */
    blade_channelizer_kernel kernel; /**< CUDA implementation; 0 (auto) unless comparing */
} blade_channelizer_config;

/** An opaque channelizer plan. */
typedef struct blade_channelizer blade_channelizer;

/** Name of a window ("hamming", "blackman-harris"; "" if unknown). */
BLADE_CORE_API const char* blade_channelizer_window_name(blade_channelizer_window window);

/**
 * Parse a window name: rectangular, hamming, hann, blackman, blackman-harris
 * (also "blackmanharris", any case).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming the accepted names if unknown.
 */
BLADE_CORE_API blade_status blade_channelizer_window_parse(const char* name,
                                                           blade_channelizer_window* window);

/**
 * The prototype filter h of the file description, `taps * rate` values, computed in
 * double precision (the plans use these values rounded to float). taps = 1 gives
 * `rate` ones (the plain FFT).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for taps outside 1..64, rate < 1 or an
 *         unknown window.
 */
BLADE_CORE_API blade_status blade_channelizer_prototype(int64_t rate,
                                                        int taps,
                                                        blade_channelizer_window window,
                                                        double* filter);


/**
 * Validate the configuration and shape and prepare a channelizer on `device`
 * (FFT plans, twiddles, the filter and its zeroed history).
 * @return ::BLADE_ERROR_INVALID_ARGUMENT for a shape that is not [A, F, T, P], a
 *         type other than cf32 or cf16, a rate that does not divide T, or taps or window
 *         out of range, or an unknown kernel; ::BLADE_ERROR_NO_DEVICE for a CUDA
 *         device in a build or host without one; ::BLADE_ERROR_UNSUPPORTED when cuFFT
 *         is needed but cannot be loaded, or the kernel asked for does not serve the
 *         shape on this GPU.
 */
BLADE_CORE_API blade_status blade_channelizer_create(blade_channelizer** channelizer,
                                                     const blade_channelizer_config* config,
                                                     const blade_shape* input_shape,
                                                     blade_device device);

/** Output shape [A, F*N, T/N, P]. */
BLADE_CORE_API blade_shape blade_channelizer_output_shape(const blade_channelizer* channelizer);

/**
 * Channelize `input` into `output` (of the configured types and the shapes as
 * created, on the plan's device). With taps >= 2 this also updates the plan's
 * history, so chunks must be processed in time order, on one stream (or with the
 * previous call finished). On CUDA the work is queued on `stream` and this returns
 * at once.
 *
 * **In place.** With one spectrum per row and chunk (T = N, so the output is
 * [A, F*N, 1, P]) and one type in and out, `output` may be `input` itself (the same
 * address), on both backends and with every kernel: a row's spectra then occupy
 * exactly its input's bytes, and each row is read (a polarization at a time on the
 * GPU's tiles; the first of two passes in the four-step and general kernels) before
 * any of its spectra are written. The result is bit for bit the out-of-place one;
 * the filter history is kept from the input before it is overwritten. With T > N a
 * row's spectra interleave over the whole row, which other threads still read, so
 * in place is refused; so is any partial overlap (::BLADE_ERROR_INVALID_ARGUMENT,
 * naming the reason).
 */
BLADE_CORE_API blade_status blade_channelizer_process(blade_channelizer* channelizer,
                                                      const blade_tensor* input,
                                                      blade_tensor* output,
                                                      blade_stream stream);

/**
 * Forget the polyphase history (as before the first chunk: zeros), e.g. after a gap
 * in the data. Queued on `stream` on CUDA. No effect with taps = 1.
 */
BLADE_CORE_API blade_status blade_channelizer_reset(blade_channelizer* channelizer,
                                                    blade_stream stream);

/** Release the plan (NULL is ignored). */
BLADE_CORE_API void blade_channelizer_destroy(blade_channelizer* channelizer);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_CHANNELIZER_H */
