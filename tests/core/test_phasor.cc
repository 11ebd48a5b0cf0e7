// SPDX-License-Identifier: MIT
// Phasor and astrometry on the CPU: unit conversions, the invariants of
// astrometry.md, the frequency axis, absolute calibration indexing, delay tables,
// validation messages, and the upload of a GPU-like device.
#define BOOST_TEST_MODULE phasor
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <cmath>
#include <complex>
#include <string>
#include <vector>

using blade_test::ok;
using cd = std::complex<double>;

namespace {

constexpr double pi = BLADE_PI;
constexpr double deg = pi / 180.0;

// An ATA-like array: reference near Hat Creek, antennas a few hundred metres out.
struct array_setup {
    double lon = -121.4733 * deg, lat = 40.8173 * deg, alt = 1019.2;
    std::vector<double> ecef; // [A][3]
    explicit array_setup(int antennas)
    {
        double reference[3];
        ok(blade_geodetic_to_ecef(lon, lat, alt, reference), "reference");
        for (int a = 0; a < antennas; a++) {
            const double enu[3] = { 37.0 * a - 80.0, 23.0 * ((a * 7) % 5) - 41.0, 0.3 * a };
            double offset[3];
            blade_enu_to_ecef_offset(lon, lat, enu, offset);
            for (int i = 0; i < 3; i++)
                ecef.push_back(reference[i] + offset[i]);
        }
    }
};

// 16 recorded channels of 0.5 MHz around 1.42 GHz from F-engine channel `schan`
// (channel c centred at 1420 + (c - 7.5) * 0.5 MHz); the chunks hold `channels` of
// them from `first`, channelized at `rate`: the observation the phasors are for.
blade_observation axis(int64_t channels, int64_t rate, int64_t first = 0, int64_t schan = 0)
{
    blade_observation recording{};
    recording.freq_first = 1.42e9 - 7.5 * 0.5e6;
    recording.chan_bw = 0.5e6;
    recording.nchan = 16;
    recording.nfpc = 1;
    recording.coarse_first = schan;
    blade_observation chunks;
    ok(blade_observation_select_channels(&recording, first, channels, &chunks), "channels");
    return blade_observation_channelized(&chunks, rate);
}

struct plan_holder {
    blade_phasor* plan = nullptr;
    explicit plan_holder(const blade_phasor_config& config,
                         blade_device device = blade_device_cpu())
    {
        ok(blade_phasor_create(&plan, &config, device), "create");
    }
    ~plan_holder() { blade_phasor_destroy(plan); }
};

blade_phasor_config geometry_config(const array_setup& array,
                                    int antennas,
                                    const std::vector<double>& ra,
                                    const std::vector<double>& dec,
                                    const blade_observation& frequency,
                                    int pols)
{
    blade_phasor_config c{};
    c.longitude = array.lon;
    c.latitude = array.lat;
    c.altitude = array.alt;
    c.antennas = antennas;
    c.antenna_positions = array.ecef.data();
    c.reference_antenna = 0;
    c.boresight_ra = 1.2;
    c.boresight_dec = 0.6;
    c.beams = static_cast<int64_t>(ra.size());
    c.beam_ra = ra.data();
    c.beam_dec = dec.data();
    c.observation = frequency;
    c.polarizations = pols;
    c.delay_mode = BLADE_DELAYS_GEOMETRY;
    return c;
}

double unix_of(double jd) { return (jd - BLADE_UNIX_EPOCH_JD) * 86400.0; }

std::vector<std::complex<float>>
compute(blade_phasor* plan, double jd, std::vector<double>* delays = nullptr)
{
    const blade_shape shape = blade_phasor_output_shape(plan);
    std::vector<std::complex<float>> out(blade_shape_count(&shape));
    blade_tensor tensor = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), out.data());
    std::vector<double> scratch(shape.dims[0] * shape.dims[1]);
    ok(blade_phasor_compute(plan,
                            unix_of(jd),
                            0.1,
                            delays ? (delays->resize(scratch.size()), delays->data()) : nullptr,
                            &tensor,
                            nullptr),
       "compute");
    return out;
}

std::string create_error(const blade_phasor_config& config)
{
    blade_phasor* plan = nullptr;
    const blade_status status = blade_phasor_create(&plan, &config, blade_device_cpu());
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(plan == nullptr);
    return blade_last_error();
}

const double jd_2024 = 2460400.75; // 2024-03-30 06:00 UTC

} // namespace

BOOST_AUTO_TEST_CASE(geodetic_ecef_round_trip_and_known_points)
{
    double xyz[3];
    ok(blade_geodetic_to_ecef(0, 0, 0, xyz), "equator");
    BOOST_TEST(std::abs(xyz[0] - 6378137.0) < 1e-6);
    BOOST_TEST(std::abs(xyz[1]) < 1e-6);
    BOOST_TEST(std::abs(xyz[2]) < 1e-6);
    ok(blade_geodetic_to_ecef(0, pi / 2, 0, xyz), "pole");
    BOOST_TEST(std::abs(xyz[2] - 6356752.314245) < 1e-5); // WGS84 semi-minor axis
    ok(blade_geodetic_to_ecef(pi / 2, 0, 100, xyz), "east");
    BOOST_TEST(std::abs(xyz[1] - 6378237.0) < 1e-6);

    const double sites[][3] = { { -121.4733 * deg, 40.8173 * deg, 1019.2 }, // ATA
                                { 21.4430 * deg, -30.7130 * deg, 1038.0 },  // MeerKAT
                                { 179.9 * deg, -89.0 * deg, -50.0 } };
    for (const auto& site : sites) {
        double lon, lat, alt;
        ok(blade_geodetic_to_ecef(site[0], site[1], site[2], xyz), "forward");
        ok(blade_ecef_to_geodetic(xyz, &lon, &lat, &alt), "back");
        BOOST_TEST(std::abs(lon - site[0]) < 1e-12);
        BOOST_TEST(std::abs(lat - site[1]) < 1e-12);
        BOOST_TEST(std::abs(alt - site[2]) < 1e-6);
    }
    // Degrees passed as radians are caught (upstream left BFR5 degrees unconverted).
    BOOST_TEST(blade_geodetic_to_ecef(-121.47, 40.82, 1000, xyz) == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("degrees?") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(enu_rotation_points_the_local_axes_the_right_way)
{
    // At longitude 0, latitude 0: east = +Y, north = +Z, up = +X.
    const double e[3] = { 1, 0, 0 }, n[3] = { 0, 1, 0 }, u[3] = { 0, 0, 1 };
    double out[3];
    blade_enu_to_ecef_offset(0, 0, e, out);
    BOOST_TEST(
        (std::abs(out[0]) < 1e-15 && std::abs(out[1] - 1) < 1e-15 && std::abs(out[2]) < 1e-15));
    blade_enu_to_ecef_offset(0, 0, n, out);
    BOOST_TEST(
        (std::abs(out[0]) < 1e-15 && std::abs(out[1]) < 1e-15 && std::abs(out[2] - 1) < 1e-15));
    blade_enu_to_ecef_offset(0, 0, u, out);
    BOOST_TEST(
        (std::abs(out[0] - 1) < 1e-15 && std::abs(out[1]) < 1e-15 && std::abs(out[2]) < 1e-15));
    // At longitude 90 deg east: east = -X. At the north pole, up = +Z.
    blade_enu_to_ecef_offset(pi / 2, 0, e, out);
    BOOST_TEST(std::abs(out[0] + 1) < 1e-15);
    blade_enu_to_ecef_offset(0.3, pi / 2, u, out);
    BOOST_TEST(std::abs(out[2] - 1) < 1e-15);
    // Up is the geodetic normal: a point 100 m up from a site converts back to
    // the same longitude/latitude, 100 m higher.
    const double lon = 21.443 * deg, lat = -30.713 * deg;
    double base[3], moved[3], up100[3] = { 0, 0, 100 }, offset[3];
    ok(blade_geodetic_to_ecef(lon, lat, 1000, base), "base");
    blade_enu_to_ecef_offset(lon, lat, up100, offset);
    for (int i = 0; i < 3; i++)
        moved[i] = base[i] + offset[i];
    double lon2, lat2, alt2;
    ok(blade_ecef_to_geodetic(moved, &lon2, &lat2, &alt2), "back");
    BOOST_TEST(std::abs(lon2 - lon) < 1e-13);
    BOOST_TEST(std::abs(lat2 - lat) < 1e-13);
    BOOST_TEST(std::abs(alt2 - 1100) < 1e-7);
    // A rotation keeps lengths.
    const double v[3] = { 3, -4, 12 };
    blade_enu_to_ecef_offset(1.1, -0.4, v, out);
    BOOST_TEST(std::abs(std::hypot(out[0], out[1], out[2]) - 13.0) < 1e-12);
}

BOOST_AUTO_TEST_CASE(channel_centres_follow_the_spec)
{
    // 16 recorded channels of 0.5 MHz around 1420 MHz: channel c is centred at
    // 1420 + (c - 7.5) * 0.5 MHz.
    blade_observation f = axis(4, 1, 3);
    for (int c = 0; c < 4; c++)
        BOOST_TEST(blade_observation_frequency(&f, c) == 1.42e9 + (3 + c - 7.5) * 0.5e6);
    // Rate 4: fine k of coarse c at centre + (k - 2) * 0.125 MHz (DC at bin 2).
    f = axis(2, 4, 3);
    for (int j = 0; j < 8; j++) {
        const double coarse = 1.42e9 + (3 + j / 4 - 7.5) * 0.5e6;
        BOOST_TEST(std::abs(blade_observation_frequency(&f, j) - (coarse + (j % 4 - 2) * 0.125e6)) <
                   1e-6);
        BOOST_TEST(blade_observation_coarse_channel(&f, j) == 3 + j / 4);
    }
    // Odd rate 3: the channelizer's fine centres (k - 3/2)/3 of the coarse width,
    // so the coarse centre falls between fine channels. Descending bands: negative
    // width (the recording's channel 0 at the top).
    blade_observation descending{};
    descending.freq_first = 1.42e9 + 7.5 * 0.5e6;
    descending.chan_bw = -0.5e6;
    descending.nchan = 1;
    descending.nfpc = 1;
    f = blade_observation_channelized(&descending, 3);
    BOOST_TEST(std::abs(blade_observation_frequency(&f, 0) - (1.42e9 + 7.5 * 0.5e6 + 0.25e6)) <
               1e-6);
    BOOST_TEST(std::abs(blade_observation_frequency(&f, 1) - (1.42e9 + 7.5 * 0.5e6 + 0.5e6 / 6)) <
               1e-6);
    blade_observation recording = axis(16, 1);
    BOOST_TEST(blade_observation_select_channels(&recording, 14, 4, &f) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(std::string(blade_last_error()).find("not within the 16 channels") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(boresight_beam_gives_zero_delay_and_the_calibration)
{
    const int A = 5, P = 2;
    array_setup array(A);
    const std::vector<double> ra = { 1.2, 1.21 }, dec = { 0.6, 0.59 };
    blade_phasor_config config = geometry_config(array, A, ra, dec, axis(3, 2, 1, 4), P);
    // Calibration rows for absolute channels 0..9, all distinct.
    const int rows = 10;
    std::vector<double> cal(2 * A * rows * P);
    for (size_t i = 0; i < cal.size(); i++)
        cal[i] = std::sin(0.37 * i + 0.1) * (1 + 0.01 * i);
    config.calibration = cal.data();
    config.calibration_channels = rows;
    plan_holder holder(config);
    std::vector<double> delays;
    const auto phasors = compute(holder.plan, jd_2024, &delays);
    const int F = 6;
    for (int a = 0; a < A; a++) {
        BOOST_TEST(delays[a] == 0.0); // beam 0 is the boresight
        for (int f = 0; f < F; f++)
            for (int p = 0; p < P; p++) {
                // Absolute channel SCHAN 4 + first 1 + coarse f / 2.
                const int row = 4 + 1 + f / 2;
                const cd expected(cal[2 * ((a * rows + row) * P + p)],
                                  cal[2 * ((a * rows + row) * P + p) + 1]);
                const auto got = phasors[((0 * A + a) * F + f) * P + p];
                BOOST_TEST(std::abs(cd(got) - expected) < 1e-6);
            }
    }
    // The reference antenna has delay 0 in every beam; others do not in beam 1.
    BOOST_TEST(delays[A + 0] == 0.0);
    BOOST_TEST(std::abs(delays[A + 3]) > 1e-9);
}

BOOST_AUTO_TEST_CASE(magnitude_is_the_calibration_and_phase_slope_is_the_delay)
{
    const int A = 4, P = 1, N = 8;
    array_setup array(A);
    const std::vector<double> ra = { 1.25, 1.1, 1.3 }, dec = { 0.62, 0.5, 0.7 };
    blade_phasor_config config = geometry_config(array, A, ra, dec, axis(5, N, 2), P);
    std::vector<double> cal(2 * A * 16 * P);
    for (size_t i = 0; i < cal.size(); i++)
        cal[i] = 0.5 + 0.3 * std::cos(1.7 * i);
    config.calibration = cal.data();
    config.calibration_channels = 16;
    plan_holder holder(config);
    std::vector<double> delays;
    const auto phasors = compute(holder.plan, jd_2024, &delays);
    const int F = 5 * N, B = 3;
    const double df = 0.5e6 / N;
    for (int b = 0; b < B; b++)
        for (int a = 0; a < A; a++) {
            const double delay = delays[b * A + a];
            for (int f = 0; f < F; f++) {
                const int row = 2 + f / N;
                const cd c(cal[2 * (a * 16 + row)], cal[2 * (a * 16 + row) + 1]);
                const cd w = cd(phasors[(b * A + a) * F + f]);
                BOOST_TEST(std::abs(std::abs(w) - std::abs(c)) < 2e-7);
                // Absolute phase: -2 pi delay nu_f (mod 2 pi) after the calibration.
                const double nu = 1.42e9 + (2 + f / N - 7.5) * 0.5e6 + (f % N - N / 2) * df;
                const double expected = -2 * pi * delay * nu;
                const double error = std::remainder(std::arg(w / c) - expected, 2 * pi);
                BOOST_TEST(std::abs(error) < 1e-6);
                if (f + 1 < F && (f + 1) / N == f / N) { // same calibration row
                    const cd next = cd(phasors[(b * A + a) * F + f + 1]);
                    const double slope =
                        std::remainder(std::arg(next / w) + 2 * pi * delay * df, 2 * pi);
                    BOOST_TEST(std::abs(slope) < 1e-6);
                }
            }
        }
}

BOOST_AUTO_TEST_CASE(calibration_is_broadcast_over_fine_channels_without_overflow)
{
    // Upstream BLADE indexed its calibration by fine channel and ran past the end
    // when the channelizer rate was above 1. Here a table covering exactly the
    // step's coarse channels is enough, and one row short is rejected.
    const int A = 2, P = 2, N = 16, C = 3;
    array_setup array(A);
    const std::vector<double> ra = { 1.2 }, dec = { 0.6 };
    blade_phasor_config config = geometry_config(array, A, ra, dec, axis(C, N, 5, 100), P);
    std::vector<double> cal(2 * A * C * P);
    for (size_t i = 0; i < cal.size(); i += 2)
        cal[i] = 1.0 + i; // real, distinct
    config.calibration = cal.data();
    config.calibration_channels = C;
    config.calibration_first_channel = 105; // SCHAN 100 + first 5
    plan_holder holder(config);
    const auto phasors = compute(holder.plan, jd_2024);
    for (int a = 0; a < A; a++)
        for (int f = 0; f < C * N; f++)
            for (int p = 0; p < P; p++)
                BOOST_TEST(phasors[(a * C * N + f) * P + p].real() ==
                           static_cast<float>(cal[2 * ((a * C + f / N) * P + p)]));

    config.calibration_first_channel = 106;
    const std::string message = create_error(config);
    BOOST_TEST(message.find("covers absolute channels 106..108") != std::string::npos);
    BOOST_TEST(message.find("need 105..107") != std::string::npos);
    // Replacing the calibration at run time is checked the same way.
    BOOST_TEST(blade_phasor_set_calibration(holder.plan, cal.data(), C, 104) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(blade_phasor_set_calibration(holder.plan, nullptr, 0, 0) == BLADE_OK);
    const auto ones = compute(holder.plan, jd_2024);
    BOOST_TEST(std::abs(ones[0] - std::complex<float>(1, 0)) < 1e-7);
}

BOOST_AUTO_TEST_CASE(delay_tables_interpolate_linearly_or_with_rates)
{
    const int A = 2, B = 1;
    blade_phasor_config config{};
    config.antennas = A;
    config.beams = B;
    config.polarizations = 1;
    config.observation = axis(1, 1);
    const std::vector<double> times = { 1000.0, 1010.0, 1030.0 };
    const std::vector<double> delays = { 0, 1e-9, 0, 3e-9, 0, -1e-9 }; // [T][B][A]
    const std::vector<double> rates = { 0, 1e-10, 0, 2e-10, 0, 0 };
    config.table = { 3, times.data(), delays.data(), rates.data() };
    auto at = [](double unix_time) { return unix_time; }; // the core takes unix seconds
    const double tolerance = 1e-18;
    double out[2];

    config.delay_mode = BLADE_DELAYS_TABLE_LINEAR;
    {
        plan_holder holder(config);
        ok(blade_phasor_delays(holder.plan, at(1005.0), 0, out), "linear");
        BOOST_TEST(std::abs(out[1] - 2e-9) < tolerance);
        ok(blade_phasor_delays(holder.plan, at(1020.0), 0, out), "linear");
        BOOST_TEST(std::abs(out[1] - 1e-9) < tolerance);
        BOOST_TEST(blade_phasor_delays(holder.plan, at(1031.0), 0, out) ==
                   BLADE_ERROR_INVALID_ARGUMENT);
        BOOST_TEST(std::string(blade_last_error()).find("outside the delay table") !=
                   std::string::npos);
        // Beams come from the table in this mode.
        const double r = 0, d = 0;
        BOOST_TEST(blade_phasor_set_beams(holder.plan, 1, &r, &d) == BLADE_ERROR_INVALID_ARGUMENT);
    }
    config.delay_mode = BLADE_DELAYS_TABLE_RATES;
    {
        plan_holder holder(config);
        ok(blade_phasor_delays(holder.plan, at(1012.0), 0, out), "rates");
        BOOST_TEST(std::abs(out[1] - (3e-9 + 2 * 2e-10)) < tolerance); // nearest row 1010
        ok(blade_phasor_delays(holder.plan, at(1003.0), 0, out), "rates");
        BOOST_TEST(std::abs(out[1] - (1e-9 + 3 * 1e-10)) < tolerance);
        ok(blade_phasor_delays(holder.plan, at(1045.0), 0, out), "rates extrapolate one spacing");
        BOOST_TEST(std::abs(out[1] - (-1e-9)) < tolerance);
        BOOST_TEST(blade_phasor_delays(holder.plan, at(1055.0), 0, out) ==
                   BLADE_ERROR_INVALID_ARGUMENT);
    }
    config.table.rates = nullptr;
    BOOST_TEST(create_error(config).find("need the delay rates") != std::string::npos);
    const std::vector<double> unordered = { 1000.0, 1000.0, 1030.0 };
    config.delay_mode = BLADE_DELAYS_TABLE_LINEAR;
    config.table.unix_times = unordered.data();
    BOOST_TEST(create_error(config).find("increase strictly") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_rejected_with_the_reason)
{
    const int A = 3;
    array_setup array(A);
    const std::vector<double> ra = { 1.2 }, dec = { 0.6 };
    blade_phasor_config config = geometry_config(array, A, ra, dec, axis(2, 1), 2);
    config.reference_antenna = 3;
    BOOST_TEST(create_error(config).find("reference antenna 3 is not one of the 3") !=
               std::string::npos);
    config.reference_antenna = 0;
    config.latitude = 40.8; // degrees given as radians
    BOOST_TEST(create_error(config).find("array reference position") != std::string::npos);
    config.latitude = array.lat;
    config.beams = 0;
    BOOST_TEST(create_error(config).find("beams (0)") != std::string::npos);
    config.beams = 1;
    std::vector<double> broken = array.ecef;
    broken[4] = NAN;
    config.antenna_positions = broken.data();
    BOOST_TEST(create_error(config).find("antenna position[4] is not finite") != std::string::npos);
    config.antenna_positions = array.ecef.data();
    config.observation.nfpc = 0;
    BOOST_TEST(create_error(config).find("0 fine channels per coarse channel") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(emulated_device_uploads_once_per_step_and_dubious_years_warn)
{
    const int A = 3, P = 2;
    array_setup array(A);
    const std::vector<double> ra = { 1.22, 1.18 }, dec = { 0.6, 0.61 };
    const blade_phasor_config config = geometry_config(array, A, ra, dec, axis(4, 2), P);
    plan_holder cpu(config);
    blade_device emulated;
    ok(blade_device_parse("emulated", &emulated), "emulated");
    plan_holder gpu_like(config, emulated);
    const blade_shape shape = blade_phasor_output_shape(gpu_like.plan);
    const size_t bytes = blade_tensor_bytes(BLADE_CF32, &shape);
    void* device_memory = nullptr;
    ok(blade_device_alloc(emulated, bytes, &device_memory), "alloc");
    blade_tensor tensor = blade_tensor_make(BLADE_CF32, &shape, emulated, device_memory);
    blade_copy_stats before, after;
    blade_copy_stats_get(&before);
    const double jd_2031 = 2463000.5;
    for (double jd : { jd_2024, jd_2031 }) {
        ok(blade_phasor_compute(gpu_like.plan, unix_of(jd), 0.1, nullptr, &tensor, nullptr),
           "emulated");
        const auto reference = compute(cpu.plan, jd);
        BOOST_TEST(std::memcmp(reference.data(), device_memory, bytes) == 0);
        BOOST_TEST(blade_phasor_dubious_year(gpu_like.plan) == (jd == jd_2031));
    }
    blade_copy_stats_get(&after);
    BOOST_TEST(after.count[BLADE_COPY_HOST_TO_DEVICE] - before.count[BLADE_COPY_HOST_TO_DEVICE] ==
               2u);
    BOOST_TEST(after.bytes[BLADE_COPY_HOST_TO_DEVICE] - before.bytes[BLADE_COPY_HOST_TO_DEVICE] ==
               2 * bytes);
    // A host tensor handed to the emulated plan is refused.
    blade_tensor wrong = blade_tensor_make(BLADE_CF32, &shape, blade_device_cpu(), device_memory);
    BOOST_TEST(blade_phasor_compute(gpu_like.plan, unix_of(jd_2024), 0, nullptr, &wrong, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    blade_device_free(emulated, device_memory);
}

BOOST_AUTO_TEST_CASE(missing_recipe_file_is_named)
{
    blade_bfr5* recipe = nullptr;
    BOOST_TEST(blade_bfr5_read("/nonexistent/recipe.bfr5", &recipe) == BLADE_ERROR_IO);
    BOOST_TEST(recipe == nullptr);
    BOOST_TEST(std::string(blade_last_error()).find("/nonexistent/recipe.bfr5: cannot open") !=
               std::string::npos);
}
