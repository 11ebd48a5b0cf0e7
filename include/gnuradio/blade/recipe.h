/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_RECIPE_H
#define INCLUDED_BLADE_RECIPE_H

#include <gnuradio/blade/api.h>

#include <blade/io/bfr5.h>

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace blade {

/*!
 * \brief A BFR5 beamformer recipe as read by read_bfr5().
 * \ingroup blade
 *
 * \details
 * Every dataset of the BFR5 format (docs/bfr5.md), checked against /diminfo and
 * converted to SI units: latitude and longitude in radians (stored in degrees),
 * frequencies in Hz (stored in GHz). Delays stay in nanoseconds as stored. Arrays
 * are flat here, row-major; in Python they are numpy arrays of the shapes given.
 * Optional datasets that the file lacks are empty (None in Python).
 */
struct BLADE_API recipe {
    std::string path; //!< the file read
    //! "blade": cal_all multiplies the voltages as stored (BLADE's and gr-blade's
    //! convention); "seticore": the file was made for seticore, which multiplies by
    //! conj(cal_all), so the complex gains here are the file's conjugated.
    std::string calibration_convention = "blade";
    int64_t antennas = 0;                       //!< /diminfo/nants (A)
    int64_t polarizations = 0;                  //!< /diminfo/npol (P)
    int64_t channels = 0;                       //!< /diminfo/nchan (F), absolute channels
    int64_t beams = 0;                          //!< /diminfo/nbeams (B)
    int64_t times = 0;                          //!< /diminfo/ntimes (T)
    std::vector<double> antenna_positions;      //!< [A, 3] m, in the stored frame
    std::string antenna_position_frame;         //!< "ecef", "xyz" or "enu"
    std::vector<double> antenna_positions_ecef; //!< [A, 3] ECEF m
    double latitude = 0;                        //!< rad
    double longitude = 0;                       //!< rad, east-positive
    double altitude = 0;                        //!< m
    std::vector<std::string> antenna_names;     //!< [A] (optional)
    std::vector<int64_t> antenna_numbers;       //!< [A] (optional)
    std::vector<double> antenna_diameters;      //!< [A] m (optional)
    std::optional<std::string> telescope_name;  //!< (optional)
    double phase_center_ra = 0;                 //!< boresight, rad
    double phase_center_dec = 0;                //!< rad
    std::optional<std::string> obsid;           //!< (optional)
    std::vector<double> frequencies;            //!< [F] Hz, from freq_array in GHz (optional)
    std::optional<std::string> instrument_name; //!< (optional)
    std::vector<std::complex<double>> cal_all;  //!< [F, P, A]
    std::optional<std::string> refant;          //!< (optional)
    std::vector<double> cal_k;                  //!< [P, A] (optional)
    std::vector<std::complex<double>> cal_b;    //!< [F, P, A] (optional)
    std::vector<std::complex<double>> cal_g;    //!< [P, A] (optional)
    std::vector<double> beam_ras;               //!< [B] rad
    std::vector<double> beam_decs;              //!< [B] rad
    std::vector<std::string> source_names;      //!< [B] (optional)
    std::vector<double> delays;                 //!< [T, B, A] ns (optional)
    std::vector<double> rates;                  //!< [T, B, A] ns/s (optional)
    std::vector<double> time_array;             //!< [T] unix s (optional)
    std::vector<double> jds;                    //!< [T] Julian dates (optional)
    std::vector<double> dut1;                   //!< 1 or [T] s (optional)
};

/*!
 * \brief Read a BFR5 recipe.
 * \ingroup blade
 *
 * Raises (RuntimeError in Python) with the file and the dataset named when the
 * file cannot be opened, is not HDF5, or has a missing required dataset or a
 * dataset of the wrong type or shape. calibration_convention "seticore" reads a
 * recipe made for seticore (its gains conjugated, docs/bfr5.md); "blade" (the
 * default) as stored.
 */
BLADE_API recipe read_bfr5(const std::string& path,
                           const std::string& calibration_convention = "blade");

/*!
 * \brief The core's recipe for `r` (read again from r.path, with r's calibration
 * convention applied): what blocks build their phasors from. The caller frees it
 * with blade_bfr5_free().
 */
BLADE_API blade_bfr5* read_bfr5_core(const recipe& r);

} // namespace blade
} // namespace gr

#endif /* INCLUDED_BLADE_RECIPE_H */
