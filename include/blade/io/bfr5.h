/* SPDX-License-Identifier: MIT */
/**
 * @file io/bfr5.h
 * @brief BFR5 beamformer recipes (HDF5): reader and phasor configuration.
 *
 * A BFR5 file describes an observation for a beamformer: the array (antenna
 * positions, reference position), the boresight, the beams, the calibration and,
 * optionally, precomputed delays. blade_bfr5_read() reads every dataset of the
 * format, checks each one's type and shape against /diminfo, converts units
 * (latitude and longitude degrees -> radians, frequencies GHz -> Hz) and the
 * antenna frame (ecef, xyz or enu -> ECEF), and rejects anything malformed with a
 * message naming the file and the dataset. HDF5's own error printing is switched
 * off during the read; nothing is printed.
 *
 * Required datasets: /diminfo/{nants, npol, nchan, nbeams, ntimes},
 * /telinfo/{antenna_positions, antenna_position_frame, latitude, longitude,
 * altitude}, /obsinfo/{phase_center_ra, phase_center_dec}, /calinfo/cal_all,
 * /beaminfo/{ras, decs}. The others are optional (NULL or absent when missing)
 * but checked when present.
 *
 * Types accepted: integers of any width for integers, float32/float64 for reals,
 * complex numbers as HDF5 compounds with members r and i of float32 or float64
 * (found by name), strings fixed- or variable-length. Scalars may be stored with
 * shape () or (1,).
 *
 * Calibration rows are absolute F-engine channels: cal_all[SCHAN + c] belongs to
 * recorded channel c. Phasors are cal_all * exp(-2 pi i f tau) (BLADE's
 * convention); seticore uses conj(cal_all) instead.
 */
#ifndef BLADE_BFR5_H
#define BLADE_BFR5_H

#include <stdbool.h>
#include <stdint.h>

#include <blade/export.h>
#include <blade/modules/phasor.h>
#include <blade/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A recipe read from a BFR5 file. Complex arrays are (re, im) double pairs. */
typedef struct blade_bfr5 {
    char* path; /**< the file read */

    /* /diminfo */
    int64_t antennas;      /**< nants (A) */
    int64_t polarizations; /**< npol (P) */
    int64_t channels;      /**< nchan (F): absolute channels 0 .. F-1 */
    int64_t beams;         /**< nbeams (B) */
    int64_t times;         /**< ntimes (T) of /delayinfo */

    /* /telinfo */
    double* antenna_positions;      /**< [A][3] metres, as stored */
    char antenna_position_frame[8]; /**< "ecef", "xyz" or "enu" (lower case) */
    double* antenna_positions_ecef; /**< [A][3] ECEF metres (converted) */
    double latitude;                /**< radians (stored in degrees) */
    double longitude;               /**< radians, east-positive (stored in degrees) */
    double altitude;                /**< metres */
    char** antenna_names;           /**< [A] or NULL */
    int64_t* antenna_numbers;       /**< [A] or NULL */
    double* antenna_diameters;      /**< [A] metres or NULL */
    char* telescope_name;           /**< or NULL */

    /* /obsinfo */
    double phase_center_ra;  /**< boresight, radians */
    double phase_center_dec; /**< radians */
    char* obsid;             /**< or NULL */
    double* frequencies;     /**< [F] Hz (freq_array, stored in GHz), or NULL */
    char* instrument_name;   /**< or NULL */

    /* /calinfo */
    double* cal_all; /**< [F][P][A] complex, as stored */
    char* refant;    /**< or NULL */
    double* cal_k;   /**< [P][A] real, or NULL */
    double* cal_b;   /**< [F][P][A] complex, or NULL */
    double* cal_g;   /**< [P][A] complex, or NULL */

    /* /beaminfo */
    double* beam_ras;    /**< [B] radians */
    double* beam_decs;   /**< [B] radians */
    char** source_names; /**< [B] or NULL */

    /* /delayinfo (all NULL / 0 when the group is absent) */
    double* delays;     /**< [T][B][A] nanoseconds, or NULL */
    double* rates;      /**< [T][B][A] ns/s, or NULL */
    double* time_array; /**< [T] unix seconds, or NULL */
    double* jds;        /**< [T] Julian dates, or NULL */
    double* dut1;       /**< [dut1_count] seconds, or NULL */
    int64_t dut1_count; /**< 1 (a scalar) or T */

    /* The same data in the phasor module's order and units. */
    double* calibration;    /**< [A][F][P] complex: cal_all transposed */
    double* delays_seconds; /**< [T][B][A] seconds, or NULL */
    double* rates_seconds;  /**< [T][B][A] s/s, or NULL */
} blade_bfr5;

/**
 * Read and check a recipe. On failure `*recipe` is NULL and the message names the
 * file and the dataset (::BLADE_ERROR_IO: cannot open; ::BLADE_ERROR_FORMAT: not
 * HDF5, a missing, mistyped or misshaped dataset).
 */
BLADE_CORE_API blade_status blade_bfr5_read(const char* path, blade_bfr5** recipe);

/**
 * Keep only beams `selection[0..count-1]` (recipe beam indices, in that order; a
 * beam may appear twice) of a recipe: beam directions, source names and the
 * /delayinfo tables are reordered to match, and `beams` becomes `count`. Out of
 * range indices or an empty selection give ::BLADE_ERROR_INVALID_ARGUMENT naming
 * the file and the beam count; the recipe is then unchanged.
 */
BLADE_CORE_API blade_status blade_bfr5_select_beams(blade_bfr5* recipe,
                                                    const int64_t* selection,
                                                    int64_t count);

/**
 * Conjugate the recipe's complex gains (cal_all, cal_b, cal_g and the calibration
 * derived from them): for a recipe made for seticore, which multiplies the voltages
 * by conj(cal_all) where gr-blade, as BLADE, multiplies by cal_all (docs/bfr5.md).
 */
BLADE_CORE_API void blade_bfr5_conjugate_calibration(blade_bfr5* recipe);

/** Release a recipe (NULL is ignored). */
BLADE_CORE_API void blade_bfr5_free(blade_bfr5* recipe);

/**
 * Check that a recipe fits a recording of `antennas` antennas and `polarizations`
 * polarizations whose chunks have the frequency axis `axis` (their F-engine channels
 * must lie within the recipe's nchan). The message names the file and the dataset.
 */
BLADE_CORE_API blade_status blade_bfr5_check_recording(const blade_bfr5* recipe,
                                                       int64_t antennas,
                                                       int64_t polarizations,
                                                       const blade_observation* axis);

/**
 * The recipe's reference antenna: the index in /telinfo/antenna_names of the
 * antenna /calinfo/refant names, or 0 when there is no such antenna.
 */
BLADE_CORE_API int64_t blade_bfr5_reference_antenna(const blade_bfr5* recipe);

/**
 * Fill a phasor configuration from a recipe for chunks on `axis` (after a
 * channelizer: the fine axis): array, boresight,
 * beams and calibration from the recipe; delays from geometry or from
 * /delayinfo (`mode`), relative to antenna `reference_antenna` (negative: the
 * recipe's, blade_bfr5_reference_antenna()). The configuration points into `recipe`, which must outlive
 * blade_phasor_create() (the plan copies what it needs). Runs
 * blade_bfr5_check_recording() first.
 */
BLADE_CORE_API blade_status blade_bfr5_phasor_config(const blade_bfr5* recipe,
                                                     const blade_observation* axis,
                                                     int64_t antennas,
                                                     int64_t polarizations,
                                                     int64_t reference_antenna,
                                                     blade_delay_mode mode,
                                                     blade_phasor_config* config);

#ifdef __cplusplus
}
#endif

#endif /* BLADE_BFR5_H */
