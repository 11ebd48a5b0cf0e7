/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/* read_bfr5(): the core reader's result copied into C++ containers. */

#include "device_block.h"
#include <gnuradio/blade/recipe.h>

#include <memory>
#include <stdexcept>

namespace gr {
namespace blade {

namespace {

template <typename T>
std::vector<T> copy(const T* data, int64_t count)
{
    return data ? std::vector<T>(data, data + count) : std::vector<T>();
}

std::vector<std::complex<double>> complexes(const double* pairs, int64_t count)
{
    std::vector<std::complex<double>> out;
    if (pairs == nullptr)
        return out;
    out.reserve(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; i++)
        out.emplace_back(pairs[2 * i], pairs[2 * i + 1]);
    return out;
}

std::vector<std::string> strings(char** values, int64_t count)
{
    std::vector<std::string> out;
    for (int64_t i = 0; values != nullptr && i < count; i++)
        out.emplace_back(values[i]);
    return out;
}

std::optional<std::string> text(const char* value)
{
    if (value == nullptr)
        return std::nullopt;
    return std::string(value);
}

} // namespace

namespace {

bool conjugated(const std::string& convention)
{
    if (convention == "blade")
        return false;
    if (convention == "seticore")
        return true;
    throw std::invalid_argument("calibration_convention '" + convention +
                                "': \"blade\" (cal_all as stored, BLADE's) or \"seticore\" "
                                "(seticore multiplies by conj(cal_all))");
}

} // namespace

blade_bfr5* read_bfr5_core(const recipe& r)
{
    const bool conjugate = conjugated(r.calibration_convention);
    blade_bfr5* raw = nullptr;
    throw_on_error(blade_bfr5_read(r.path.c_str(), &raw), "blade.read_bfr5");
    if (conjugate)
        blade_bfr5_conjugate_calibration(raw);
    return raw;
}

recipe read_bfr5(const std::string& path, const std::string& calibration_convention)
{
    recipe r;
    r.path = path;
    r.calibration_convention = calibration_convention;
    blade_bfr5* raw = read_bfr5_core(r);
    std::unique_ptr<blade_bfr5, decltype(&blade_bfr5_free)> owner(raw, blade_bfr5_free);
    const int64_t A = raw->antennas, P = raw->polarizations, F = raw->channels;
    const int64_t B = raw->beams, T = raw->times;

    r.path = raw->path;
    r.antennas = A;
    r.polarizations = P;
    r.channels = F;
    r.beams = B;
    r.times = T;
    r.antenna_positions = copy(raw->antenna_positions, 3 * A);
    r.antenna_position_frame = raw->antenna_position_frame;
    r.antenna_positions_ecef = copy(raw->antenna_positions_ecef, 3 * A);
    r.latitude = raw->latitude;
    r.longitude = raw->longitude;
    r.altitude = raw->altitude;
    r.antenna_names = strings(raw->antenna_names, A);
    r.antenna_numbers = copy(raw->antenna_numbers, A);
    r.antenna_diameters = copy(raw->antenna_diameters, A);
    r.telescope_name = text(raw->telescope_name);
    r.phase_center_ra = raw->phase_center_ra;
    r.phase_center_dec = raw->phase_center_dec;
    r.obsid = text(raw->obsid);
    r.frequencies = copy(raw->frequencies, F);
    r.instrument_name = text(raw->instrument_name);
    r.cal_all = complexes(raw->cal_all, F * P * A);
    r.refant = text(raw->refant);
    r.cal_k = copy(raw->cal_k, P * A);
    r.cal_b = complexes(raw->cal_b, F * P * A);
    r.cal_g = complexes(raw->cal_g, P * A);
    r.beam_ras = copy(raw->beam_ras, B);
    r.beam_decs = copy(raw->beam_decs, B);
    r.source_names = strings(raw->source_names, B);
    r.delays = copy(raw->delays, T * B * A);
    r.rates = copy(raw->rates, T * B * A);
    r.time_array = copy(raw->time_array, T);
    r.jds = copy(raw->jds, T);
    r.dut1 = copy(raw->dut1, raw->dut1_count);
    return r;
}

} // namespace blade
} // namespace gr
