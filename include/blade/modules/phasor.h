/* SPDX-License-Identifier: MIT */
/**
 * @file modules/phasor.h
 * @brief Phasor: beamforming delays [B, A] and phasors [B, A, F, 1, P] per step.
 *
 * For every step (one chunk of data, at one time) the module computes, for B beams
 * and A antennas:
 *
 * - **delays** (seconds, double): in geometry mode
 *   delay[b, a] = tau_a(beam b) - tau_a(boresight), with
 *   tau_a(dir) = (W_a(dir) - W_ref(dir)) / c and W the projection of the antenna's
 *   position (relative to the array reference position, along the ECEF axes) onto
 *   the observed direction (astrometry.h). The data are assumed phased to the
 *   boresight upstream; the reference antenna always gets 0. In table mode the
 *   delays come from a table (a BFR5 recipe's /delayinfo), interpolated to the
 *   step's time, and are used as they are.
 * - **phasors** (cf32): phasor[b, a, f, 0, p] = cal[a, f, p] * exp(-2 pi i delay[b, a]
 *   nu_f), nu_f the sky frequency of channel f's centre, cal the calibration of f's
 *   coarse channel; exp(+2 pi i ...) for a lower-sideband band (chan_bw < 0), whose
 *   voltages are the sky's conjugates. Computed in double precision, stored as cf32.
 *   A beamformer computes y = sum_a x * phasor (no conjugation).
 *
 * Frequencies come from the observation of the chunks the phasors are for
 * (config.observation, io/observation.h; after a channelizer: the fine axis, which
 * blade_observation_channelized() gives): channel f is centred at freq_first +
 * f·chan_bw and belongs to F-engine channel coarse_first + f / nfpc. The phasor
 * tensor's F axis is observation.nchan.
 *
 * Calibration: a complex [A, calibration_channels, P] table whose row r belongs to
 * absolute (F-engine) coarse channel calibration_first_channel + r. Channel f uses
 * the row of its F-engine channel. A table that does not cover the channels is
 * rejected.
 *
 * The sines and cosines run on the CPU: an exact phase every 1024 channels and one
 * channel's rotation per (beam, antenna); the channels between are reached by
 * repeated rotation (double precision) and multiplied by the calibration. For a CUDA
 * device those seeds (kilobytes) are uploaded on the stream given (one counted
 * host-to-device copy) and a kernel expands them into the output tensor with the
 * host's arithmetic, so the phasors equal the CPU plan's bit for bit without
 * crossing PCIe (Mode B ×1024 at the ATA node: 700 MB of phasors per chunk). Other
 * GPU-like devices get the phasors computed into pinned host memory and uploaded.
 */
#ifndef BLADE_PHASOR_H
#define BLADE_PHASOR_H

#include <stdbool.h>
#include <stdint.h>

#include <blade/device.h>
#include <blade/export.h>
#include <blade/io/observation.h>
#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where the delays come from. */
typedef enum blade_delay_mode {
    BLADE_DELAYS_GEOMETRY = 0,     /**< astrometry of the array and the beams */
    BLADE_DELAYS_TABLE_LINEAR = 1, /**< table, linear interpolation between rows */
    BLADE_DELAYS_TABLE_RATES = 2   /**< table, nearest row plus rate x time offset */
} blade_delay_mode;

/**
 * Precomputed delays (a BFR5 recipe's /delayinfo). Table modes accept times
 * within [unix_times[0], unix_times[times-1]]; the rates mode also up to one
 * row spacing beyond either end (any time when the table has one row).
 */
typedef struct blade_delay_table {
    int64_t times;            /**< rows (>= 1; >= 2 for linear interpolation) */
    const double* unix_times; /**< [times] unix seconds, strictly increasing */
    const double* delays;     /**< [times][beams][antennas], seconds */
    const double* rates;      /**< [times][beams][antennas], s/s (rates mode only; else NULL) */
} blade_delay_table;

/** Configuration of a phasor plan. Arrays are copied at creation. */
typedef struct blade_phasor_config {
    double longitude;                /**< array reference, rad, east-positive (WGS84) */
    double latitude;                 /**< array reference, rad */
    double altitude;                 /**< array reference, m above the ellipsoid */
    int64_t antennas;                /**< A */
    const double* antenna_positions; /**< [A][3] ECEF metres (geometry mode) */
    int64_t reference_antenna;       /**< index of the antenna whose delay is 0 */
    double boresight_ra;             /**< rad (ICRS): the direction the data are phased to */
    double boresight_dec;            /**< rad */
    int64_t beams;                   /**< B */
    const double* beam_ra;           /**< [B] rad (geometry mode) */
    const double* beam_dec;          /**< [B] rad */
    /** The chunks' frequency axis (freq_first, chan_bw, nchan, nfpc, coarse_first;
     *  the other fields are not used): after a channelizer, its fine axis. */
    blade_observation observation;
    int64_t polarizations; /**< P */
    /** [A][calibration_channels][P] complex as (re, im) double pairs; NULL: all 1. */
    const double* calibration;
    int64_t calibration_channels;      /**< rows of the calibration table */
    int64_t calibration_first_channel; /**< absolute channel of calibration row 0 */
    blade_delay_mode delay_mode;       /**< geometry or table */
    /** Geometry mode: delay[b, a] = tau_a(beam b), without subtracting the
     *  boresight's (for data that were not phased upstream). Default false. */
    bool absolute_delays;
    blade_delay_table table; /**< table modes only */
} blade_phasor_config;

/** An opaque phasor plan. */
typedef struct blade_phasor blade_phasor;

/**
 * Validate the configuration and prepare a plan whose phasors go to `device`.
 * @return ::BLADE_ERROR_INVALID_ARGUMENT naming the offending field.
 */
BLADE_CORE_API blade_status blade_phasor_create(blade_phasor** plan,
                                                const blade_phasor_config* config,
                                                blade_device device);

/** Shape of the phasor tensor: [B, A, observation.nchan, 1, P]. */
BLADE_CORE_API blade_shape blade_phasor_output_shape(const blade_phasor* plan);

/**
 * Delays [B][A] in seconds for the step whose middle is at `unix_time` (UTC unix
 * seconds; ERFA gets it as a two-part Julian date, see blade_unix_to_jd_split()) with
 * UT1 - UTC = `dut1` s. Table modes use the time only.
 */
BLADE_CORE_API blade_status blade_phasor_delays(blade_phasor* plan,
                                                double unix_time,
                                                double dut1,
                                                double* delays);

/**
 * Delays (optional, [B][A] seconds; NULL to skip) and phasors at `unix_time` (cf32 tensor of
 * blade_phasor_output_shape() on the plan's device) for one step. On a GPU-like
 * device the upload is queued on `stream`; the next call waits for it before
 * reusing its staging memory.
 */
BLADE_CORE_API blade_status blade_phasor_compute(blade_phasor* plan,
                                                 double unix_time,
                                                 double dut1,
                                                 double* delays,
                                                 blade_tensor* phasors,
                                                 blade_stream stream);

/** True when the last step's date was flagged "dubious year" by ERFA (a warning). */
BLADE_CORE_API bool blade_phasor_dubious_year(const blade_phasor* plan);

/** Replace the beam directions (geometry mode; the count must stay B). */
BLADE_CORE_API blade_status blade_phasor_set_beams(blade_phasor* plan,
                                                   int64_t beams,
                                                   const double* ra,
                                                   const double* dec);

/** Replace the boresight direction (geometry mode). */
BLADE_CORE_API blade_status blade_phasor_set_boresight(blade_phasor* plan, double ra, double dec);

/**
 * Replace the calibration: [A][channels][P] (re, im) pairs, row r = absolute
 * channel first_channel + r; NULL: all ones. Rejected (plan unchanged) if it does
 * not cover the step's channels.
 */
BLADE_CORE_API blade_status blade_phasor_set_calibration(blade_phasor* plan,
                                                         const double* calibration,
                                                         int64_t channels,
                                                         int64_t first_channel);

/** Release the plan (NULL is ignored). Synchronize the stream of the last
 *  blade_phasor_compute() first: its upload may still read the plan's memory. */
BLADE_CORE_API void blade_phasor_destroy(blade_phasor* plan);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_PHASOR_H */
