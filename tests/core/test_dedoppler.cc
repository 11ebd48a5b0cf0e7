// SPDX-License-Identifier: MIT
// Dedoppler on the CPU: path sums worked out by hand, the Taylor tree and brute force
// against paths this file builds itself, injected drifting tones found where they
// were put, the statistics, flagging and blanking, the hit rule, edge shapes and
// the validation messages.
#define BOOST_TEST_MODULE dedoppler
#include <boost/test/unit_test.hpp>

#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <random>

using blade_test::ok;

namespace {

// A spectrogram [B, T, F] in host memory.
struct spectrogram {
    int64_t beams, spectra, channels;
    std::vector<float> values;
    spectrogram(int64_t b, int64_t t, int64_t f, float fill = 0.0f)
        : beams(b), spectra(t), channels(f), values(static_cast<size_t>(b * t * f), fill)
    {
    }
    float& at(int64_t b, int64_t t, int64_t f)
    {
        return values[static_cast<size_t>((b * spectra + t) * channels + f)];
    }
    float at(int64_t b, int64_t t, int64_t f) const
    {
        return values[static_cast<size_t>((b * spectra + t) * channels + f)];
    }
    blade_shape shape(bool rank3 = true) const
    {
        return rank3 ? blade_shape_btf(beams, spectra, channels)
                     : blade_shape_tf(spectra, channels);
    }
};

spectrogram
noise(int64_t b, int64_t t, int64_t f, uint32_t seed, float mean = 100.0f, float sigma = 1.0f)
{
    spectrogram s(b, t, f);
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(mean, sigma);
    for (auto& v : s.values)
        v = normal(rng);
    return s;
}

// Small integers: every sum of them is exact in float32, so methods that add the
// same values agree bit for bit whatever the order.
spectrogram integers(int64_t b, int64_t t, int64_t f, uint32_t seed)
{
    spectrogram s(b, t, f);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> uniform(0, 1000);
    for (auto& v : s.values)
        v = static_cast<float>(uniform(rng));
    return s;
}

blade_dedoppler_config config_of(double foff,
                                 double tsamp,
                                 int64_t nfpc,
                                 double max_drift,
                                 double min_drift = 0,
                                 blade_dedoppler_method method = BLADE_DEDOPPLER_TAYLOR)
{
    blade_dedoppler_config c = blade_dedoppler_config_default();
    c.foff_hz = foff;
    c.tsamp_s = tsamp;
    c.nfpc = nfpc;
    c.max_drift_hz_per_s = max_drift;
    c.min_drift_hz_per_s = min_drift;
    c.method = method;
    return c;
}

struct plan {
    blade_dedoppler* search = nullptr;
    blade_shape shape;
    blade_dedoppler_geometry geometry;
    plan(const blade_dedoppler_config& config, const blade_shape& s) : shape(s)
    {
        ok(blade_dedoppler_create(&search, &config, &shape, blade_device_cpu()), "create");
        geometry = blade_dedoppler_get_geometry(search);
    }
    ~plan() { blade_dedoppler_destroy(search); }
    plan(const plan&) = delete;
    plan& operator=(const plan&) = delete;

    std::vector<int64_t> drifts() const
    {
        std::vector<int64_t> k(static_cast<size_t>(geometry.drift_count));
        blade_dedoppler_drift_indices(search, k.data());
        return k;
    }
    std::vector<float> integrate(const spectrogram& s)
    {
        blade_shape plane_shape = blade_dedoppler_plane_shape(search);
        std::vector<float> plane(static_cast<size_t>(blade_shape_count(&plane_shape)), -7.0f);
        blade_tensor in = blade_tensor_make(
            BLADE_F32, &shape, blade_device_cpu(), const_cast<float*>(s.values.data()));
        blade_tensor out =
            blade_tensor_make(BLADE_F32, &plane_shape, blade_device_cpu(), plane.data());
        ok(blade_dedoppler_integrate(search, &in, &out, nullptr), "integrate");
        return plane;
    }
    std::vector<blade_dedoppler_hit> process(const spectrogram& s, int64_t* dropped = nullptr)
    {
        std::vector<blade_dedoppler_hit> hits(
            static_cast<size_t>(blade_dedoppler_hit_capacity(search)));
        int64_t count = -1, lost = -1;
        blade_tensor in = blade_tensor_make(
            BLADE_F32, &shape, blade_device_cpu(), const_cast<float*>(s.values.data()));
        ok(blade_dedoppler_process(search, &in, hits.data(), &count, &lost, nullptr), "process");
        hits.resize(static_cast<size_t>(count));
        if (dropped)
            *dropped = lost;
        return hits;
    }
    float plane_at(const std::vector<float>& plane, int64_t beam, int64_t k, int64_t f) const
    {
        const auto list = drifts();
        const auto d = std::find(list.begin(), list.end(), k) - list.begin();
        return plane[static_cast<size_t>((beam * geometry.drift_count + d) * geometry.channels +
                                         f)];
    }
};

// This file's own paths, from the definitions in dedoppler.h (written separately
// from the library's dedoppler_tree.h on purpose).
int64_t tree_path(int64_t p, int64_t t, int64_t padded)
{
    if (padded == 1)
        return 0;
    const int64_t half = padded / 2;
    return t < half ? tree_path(p / 2, t, half) : (p + 1) / 2 + tree_path(p / 2, t - half, half);
}

int64_t tree_offset(int64_t k, int64_t t, int64_t padded)
{
    if (k == 0)
        return 0;
    const int64_t magnitude = std::llabs(k), block = (magnitude - 1) / (padded - 1);
    const int64_t offset = block * t + tree_path(magnitude - block * (padded - 1), t, padded);
    return k < 0 ? -offset : offset;
}

int64_t nearest_offset(int64_t k, int64_t t, int64_t padded)
{
    if (k == 0 || padded <= 1) // one spectrum: every path stays where it starts
        return 0;
    const double exact = static_cast<double>(k) * t / (padded - 1);
    return static_cast<int64_t>(std::round(exact)); // std::round: halves away from zero
}

// Sum of a path given its offsets, in double; NaN when it leaves the band.
double
path_sum(const spectrogram& s, int64_t beam, int64_t start, int64_t k, int64_t padded, bool tree)
{
    if (start + k < 0 || start + k >= s.channels)
        return std::nan("");
    double total = 0;
    for (int64_t t = 0; t < s.spectra; t++)
        total += s.at(
            beam, t, start + (tree ? tree_offset(k, t, padded) : nearest_offset(k, t, padded)));
    return total;
}

// Add a tone of `amplitude` per spectrum that moves `rate` channels per spectrum from
// `start`, split between the two nearest channels.
void inject(spectrogram& s, int64_t beam, double start, double rate, float amplitude)
{
    for (int64_t t = 0; t < s.spectra; t++) {
        const double position = start + rate * t;
        const auto low = static_cast<int64_t>(std::floor(position));
        const double fraction = position - low;
        if (low >= 0 && low < s.channels)
            s.at(beam, t, low) += static_cast<float>(amplitude * (1 - fraction));
        if (fraction > 0 && low + 1 >= 0 && low + 1 < s.channels)
            s.at(beam, t, low + 1) += static_cast<float>(amplitude * fraction);
    }
}

std::string create_error(const blade_dedoppler_config& config, const blade_shape& shape)
{
    blade_dedoppler* search = reinterpret_cast<blade_dedoppler*>(0x1);
    const blade_status status =
        blade_dedoppler_create(&search, &config, &shape, blade_device_cpu());
    BOOST_TEST(status == BLADE_ERROR_INVALID_ARGUMENT);
    BOOST_TEST(search == nullptr);
    return blade_last_error();
}

const blade_dedoppler_hit* hit_at(const std::vector<blade_dedoppler_hit>& hits,
                                  int64_t beam,
                                  int64_t channel,
                                  int64_t tolerance = 0)
{
    for (const auto& h : hits)
        if (h.beam == beam && std::llabs(h.channel - channel) <= tolerance)
            return &h;
    return nullptr;
}

} // namespace

BOOST_AUTO_TEST_CASE(path_sums_worked_by_hand)
{
    // T = 4, F = 8: s[t][f] = 1000 (t + 1) + f. A path of offsets o(t) from f sums
    // 10000 + 4 f + Σ o(t). T' − 1 = 3: k = 1 is offsets 0 0 1 1 (Σ 2), k = 2 is
    // 0 1 1 2 (Σ 4), k = 3 is 0 1 2 3 (Σ 6), negative k their mirror images.
    spectrogram s(1, 4, 8);
    for (int t = 0; t < 4; t++)
        for (int f = 0; f < 8; f++)
            s.at(0, t, f) = 1000.0f * (t + 1) + f;
    // foff 3 Hz, tsamp 1 s: step 1 Hz/s, so max 3 Hz/s is k = -3 ... 3
    for (auto method : { BLADE_DEDOPPLER_TAYLOR, BLADE_DEDOPPLER_BRUTE_FORCE }) {
        plan p(config_of(3.0, 1.0, 8, 3.0, 0, method), s.shape());
        BOOST_TEST(p.geometry.drift_step_hz_per_s == 1.0);
        BOOST_TEST((p.drifts() == std::vector<int64_t>{ -3, -2, -1, 0, 1, 2, 3 }));
        const auto plane = p.integrate(s);
        BOOST_TEST(p.plane_at(plane, 0, 0, 5) == 10020.0f);
        BOOST_TEST(p.plane_at(plane, 0, 1, 2) == 10010.0f);
        BOOST_TEST(p.plane_at(plane, 0, 2, 2) == 10012.0f);
        BOOST_TEST(p.plane_at(plane, 0, 3, 4) == 10022.0f); // ends at channel 7
        BOOST_TEST(std::isnan(p.plane_at(plane, 0, 3, 5))); // would end at 8
        BOOST_TEST(p.plane_at(plane, 0, -1, 2) == 10006.0f);
        BOOST_TEST(p.plane_at(plane, 0, -3, 3) == 10006.0f); // ends at channel 0
        BOOST_TEST(std::isnan(p.plane_at(plane, 0, -3, 2)));
        BOOST_TEST(std::isnan(p.plane_at(plane, 0, -1, 0)));
    }
}

BOOST_AUTO_TEST_CASE(the_drift_grid_and_its_geometry)
{
    // BL high resolution: foff 2.7939677 Hz, tsamp 18.253611 s, T = 16: step =
    // foff / (15 tsamp) = 0.0102042 Hz/s, so 4 Hz/s is k = 391 (391.997...).
    const double foff = 2.7939677238464355, tsamp = 18.253611008;
    plan p(config_of(foff, tsamp, 64, 4.0), blade_shape_tf(16, 256));
    const double step = foff / (15 * tsamp);
    BOOST_TEST(std::abs(p.geometry.drift_step_hz_per_s - step) < 1e-15);
    BOOST_TEST(p.geometry.max_drift_index == 391);
    BOOST_TEST(p.geometry.min_drift_index == 0);
    BOOST_TEST(p.geometry.drift_count == 2 * 391 + 1);
    BOOST_TEST(p.geometry.window == 2 * 392);
    BOOST_TEST(p.geometry.padded_spectra == 16);
    BOOST_TEST(p.geometry.coarse_channels == 4);
    BOOST_TEST(p.geometry.drift_blocks == 27); // |k| 1 ... 391 in blocks of 15
    // negative foff: the signed step is negative, the grid the same
    plan q(config_of(-foff, tsamp, 64, 4.0, 1.0), blade_shape_btf(2, 12, 256));
    BOOST_TEST(q.geometry.drift_step_hz_per_s == -step);
    BOOST_TEST(q.geometry.padded_spectra == 16);  // T = 12 is padded
    BOOST_TEST(q.geometry.min_drift_index == 98); // 1 / step = 97.9998...
    BOOST_TEST(q.geometry.drift_count == 2 * (391 - 98 + 1));
    BOOST_TEST(q.geometry.beams == 2);
    const auto k = q.drifts();
    BOOST_TEST(k.front() == -391);
    BOOST_TEST(k[391 - 98] == -98);
    BOOST_TEST(k[391 - 98 + 1] == 98);
    BOOST_TEST(k.back() == 391);
    // a bound that is a whole number of steps includes that step
    plan r(config_of(3.0, 1.0, 8, 2.0, 2.0), blade_shape_tf(4, 8)); // step 1 Hz/s
    BOOST_TEST((r.drifts() == std::vector<int64_t>{ -2, 2 }));
    const blade_shape plane = blade_dedoppler_plane_shape(r.search);
    BOOST_TEST(plane.rank == 3);
    BOOST_TEST(plane.dims[0] == 1);
    BOOST_TEST(plane.dims[1] == 2);
    BOOST_TEST(plane.dims[2] == 8);
}

BOOST_AUTO_TEST_CASE(tree_and_brute_force_against_paths_built_here)
{
    // Integer data: sums are exact, so each method must equal this file's sum along
    // its own path exactly. T = 1 ... 32 (padded when not a power of two), drifts over
    // several blocks and both signs, several beams, an odd F.
    uint32_t seed = 1;
    for (int64_t spectra : { 1, 2, 3, 4, 5, 8, 12, 16, 32 }) {
        const spectrogram s = integers(2, spectra, 97, seed++);
        const int64_t padded =
            spectra <= 1 ? 1 : int64_t{ 1 } << static_cast<int>(std::ceil(std::log2(spectra)));
        const double tsamp = 1.0, foff = 1.0;
        const double max_drift =
            spectra == 1 ? 0.0 : 2.5 * foff / tsamp; // 2.5 channels per spectrum
        for (auto method : { BLADE_DEDOPPLER_TAYLOR, BLADE_DEDOPPLER_BRUTE_FORCE }) {
            plan p(config_of(foff, tsamp, 97, max_drift, 0, method), s.shape());
            const auto plane = p.integrate(s);
            const auto drifts = p.drifts();
            int64_t bad = 0;
            for (int64_t b = 0; b < 2; b++)
                for (size_t d = 0; d < drifts.size(); d++)
                    for (int64_t f = 0; f < 97; f++) {
                        const double want =
                            path_sum(s, b, f, drifts[d], padded, method == BLADE_DEDOPPLER_TAYLOR);
                        const float have = plane[(b * drifts.size() + d) * 97 + f];
                        if (!(std::isnan(want) ? std::isnan(have)
                                               : have == static_cast<float>(want)) &&
                            bad++ == 0)
                            BOOST_TEST_MESSAGE("T " << spectra << " k " << drifts[d] << " f " << f
                                                    << ": " << have << " != " << want);
                    }
            BOOST_TEST(bad == 0,
                       "T = " << spectra << " " << blade_dedoppler_method_name(method) << ": "
                              << bad << " path sums differ");
        }
    }
}

BOOST_AUTO_TEST_CASE(tree_equals_brute_force_where_the_header_says)
{
    // T' <= 8: every path; T' = 16: offsets p in {0, 1, 2, 4, 7, 8, 11, 13, 14, 15} of
    // every block, i.e. whole channels per spectrum among them; elsewhere differences.
    for (int64_t spectra : { 4, 8, 16 }) {
        const spectrogram s = integers(1, spectra, 301, 40 + static_cast<uint32_t>(spectra));
        const double max_drift = 3.0; // foff = tsamp = 1: 3 channels per spectrum
        plan tree(config_of(1.0, 1.0, 301, max_drift), s.shape());
        plan brute(config_of(1.0, 1.0, 301, max_drift, 0, BLADE_DEDOPPLER_BRUTE_FORCE), s.shape());
        const auto a = tree.integrate(s), b = brute.integrate(s);
        const auto drifts = tree.drifts();
        const int64_t span = spectra - 1;
        for (size_t d = 0; d < drifts.size(); d++) {
            const int64_t magnitude = std::llabs(drifts[d]);
            const int64_t p = magnitude == 0 ? 0 : magnitude - (magnitude - 1) / span * span;
            const bool exact = spectra <= 8 || p == 0 || p == 1 || p == 2 || p == 4 || p == 7 ||
                               p == 8 || p == 11 || p == 13 || p == 14 || p == 15;
            bool equal = true;
            for (int64_t f = 0; f < 301; f++) {
                const float x = a[d * 301 + f], y = b[d * 301 + f];
                equal = equal && ((std::isnan(x) && std::isnan(y)) || x == y);
            }
            if (exact)
                BOOST_TEST(equal, "T " << spectra << " k " << drifts[d] << " should be exact");
            else
                BOOST_TEST(!equal, "T " << spectra << " k " << drifts[d] << " should differ");
        }
    }
}

BOOST_AUTO_TEST_CASE(injected_tones_are_found_where_they_were_put)
{
    // 16 spectra of Gaussian noise (mean 100, sigma 1), 4 coarse channels of 512;
    // foff 1 Hz, tsamp 1 s: step 1/15 Hz/s, max 1 Hz/s is k = ±15 (one channel per
    // spectrum), window N = 30. Each tone adds 3 per spectrum in one channel along the
    // nearest-channel path of its k: a path sum excess of 48 over a zero-drift spread
    // of 4 (sqrt 16), SNR about 12. Brute force follows every tone exactly. The tree
    // follows it exactly where its path is the nearest-channel one (p = |k| in {0, 1,
    // 2, 4, 7, 8, 11, 13, 14, 15} at T' = 16), else within one drift step and one
    // channel, losing at most 2 of the 16 pixels.
    spectrogram s = noise(1, 16, 2048, 7);
    struct tone {
        int64_t start, k;
        bool tree_exact;
    } tones[] = {
        { 200, 0, true },    // zero drift
        { 600, 3, false },   // positive; a path where the tree steps differently
        { 900, -4, true },   // negative
        { 1400, 15, true },  // the edge of the range, one channel per spectrum
        { 1530, -15, true }, // the other edge
        { 1020, 12, false }, // crosses from coarse channel 1 into 2 (at 1024)
        { 1800, 7, true },
    };
    for (const auto& t : tones)
        for (int64_t i = 0; i < 16; i++)
            s.at(0, i, t.start + nearest_offset(t.k, i, 16)) += 3.0f;
    std::vector<blade_dedoppler_hit> exact;
    for (auto method : { BLADE_DEDOPPLER_BRUTE_FORCE, BLADE_DEDOPPLER_TAYLOR }) {
        auto config = config_of(1.0, 1.0, 512, 1.0, 0, method);
        config.snr_threshold = 8;
        plan p(config, s.shape(false));
        const auto hits = p.process(s);
        BOOST_TEST(hits.size() == std::size(tones), blade_dedoppler_method_name(method));
        for (const auto& t : tones) {
            const bool follows = method == BLADE_DEDOPPLER_BRUTE_FORCE || t.tree_exact;
            const auto* h = hit_at(hits, 0, t.start, follows ? 0 : 1);
            BOOST_TEST_REQUIRE(h != nullptr, "no hit at " << t.start);
            BOOST_TEST(h->coarse_channel == h->channel / 512);
            BOOST_TEST(h->channel_in_coarse == h->channel % 512);
            if (follows) {
                BOOST_TEST(h->channel == t.start);
                BOOST_TEST(h->drift_index == t.k,
                           "tone at " << t.start << ": k " << h->drift_index);
                BOOST_TEST(std::abs(h->drift_rate_hz_per_s - t.k / 15.0) < 1e-12);
                BOOST_TEST(h->snr > 9.0f);
                BOOST_TEST(h->snr < 16.0f);
            } else {
                BOOST_TEST(std::llabs(h->drift_index - t.k) <= 1,
                           "tone at " << t.start << ": k " << h->drift_index);
            }
            if (method == BLADE_DEDOPPLER_BRUTE_FORCE) {
                exact.push_back(*h);
            } else {
                const auto& e =
                    *std::find_if(exact.begin(), exact.end(), [&](const blade_dedoppler_hit& x) {
                        return x.channel == t.start;
                    });
                if (follows) // the same pixels, summed in float32 by the tree: rounding
                             // only
                    BOOST_TEST(std::abs(h->snr - e.snr) <= 1e-5f * e.snr);
                // else at most 2 of the tone's pixels (3 each) missed, over a spread of
                // about 4 (3 allows for the estimate's own noise): 2 SNR at most
                BOOST_TEST(h->snr >= e.snr - 2 * 3.0f / 3.0f);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(drifts_between_grid_points_are_found_within_a_step)
{
    // A tone of 0.3 channels per spectrum is k = 4.5, its power split between two
    // channels in most spectra (paths catch about 3/4 of it): the best path is k = 4
    // or 5 and the start within one channel, with either method.
    spectrogram s = noise(1, 16, 512, 8);
    inject(s, 0, 300, 0.3, 4.0f);
    for (auto method : { BLADE_DEDOPPLER_TAYLOR, BLADE_DEDOPPLER_BRUTE_FORCE }) {
        auto config = config_of(1.0, 1.0, 512, 1.0, 0, method);
        config.snr_threshold = 6;
        plan p(config, s.shape());
        const auto hits = p.process(s);
        BOOST_TEST_REQUIRE(hits.size() == 1u);
        BOOST_TEST(std::llabs(hits[0].channel - 300) <= 1);
        BOOST_TEST((hits[0].drift_index == 4 || hits[0].drift_index == 5));
    }
}

BOOST_AUTO_TEST_CASE(negative_channel_width_negates_the_drift_rate)
{
    // Same data, foff < 0: the path towards higher channels is a falling frequency.
    spectrogram t = noise(1, 8, 256, 9);
    for (int64_t i = 0; i < 8; i++)
        t.at(0, i, 100 + nearest_offset(3, i, 8)) += 4.0f;
    plan up(config_of(2.0, 0.5, 256, 4.0), t.shape());
    plan down(config_of(-2.0, 0.5, 256, 4.0), t.shape());
    const auto a = up.process(t), b = down.process(t);
    BOOST_TEST_REQUIRE(a.size() == 1u);
    BOOST_TEST_REQUIRE(b.size() == 1u);
    BOOST_TEST(a[0].drift_index == 3);
    BOOST_TEST(b[0].drift_index == 3);
    // step = 2 / (7 * 0.5) Hz/s
    BOOST_TEST(std::abs(a[0].drift_rate_hz_per_s - 3 * 2.0 / 3.5) < 1e-12);
    BOOST_TEST(std::abs(b[0].drift_rate_hz_per_s + 3 * 2.0 / 3.5) < 1e-12);
    BOOST_TEST(a[0].snr == b[0].snr);
}

BOOST_AUTO_TEST_CASE(several_beams_are_searched_independently)
{
    spectrogram s = noise(3, 16, 256, 10);
    inject(s, 0, 50, 0.0, 4.0f);
    inject(s, 2, 180, -0.6, 4.0f); // k = -9
    plan p(config_of(1.0, 1.0, 128, 1.0), s.shape());
    const auto hits = p.process(s);
    BOOST_TEST_REQUIRE(hits.size() == 2u);
    BOOST_TEST(hits[0].beam == 0);
    BOOST_TEST(hits[0].channel == 50);
    BOOST_TEST(hits[0].drift_index == 0);
    BOOST_TEST(hits[1].beam == 2);
    BOOST_TEST(hits[1].channel == 180);
    BOOST_TEST(hits[1].drift_index == -9);
    BOOST_TEST(hits[1].coarse_channel == 1);
    BOOST_TEST(hits[1].channel_in_coarse == 52);
}

BOOST_AUTO_TEST_CASE(one_spectrum_searches_the_zero_drift_only)
{
    spectrogram s = noise(1, 1, 300, 11);
    s.at(0, 0, 77) += 20.0f;
    plan p(config_of(1.0, 1.0, 300, 0.0), s.shape(false));
    BOOST_TEST(p.geometry.drift_count == 1);
    BOOST_TEST(p.geometry.window == 0);
    BOOST_TEST(p.geometry.drift_step_hz_per_s == 0.0);
    const auto hits = p.process(s);
    BOOST_TEST_REQUIRE(hits.size() == 1u);
    BOOST_TEST(hits[0].channel == 77);
    BOOST_TEST(hits[0].drift_rate_hz_per_s == 0.0);
}

BOOST_AUTO_TEST_CASE(statistics_follow_their_definitions)
{
    // 2 coarse channels of 41 (odd) and a [T = 2] spectrogram: z = column sums.
    spectrogram s = noise(1, 2, 82, 12, 50.0f, 3.0f);
    for (auto normalization : { BLADE_DEDOPPLER_NORM_MAD, BLADE_DEDOPPLER_NORM_TURBO_SETI }) {
        auto config = config_of(1.0, 1.0, 41, 0.5);
        config.normalization = normalization;
        plan p(config, s.shape());
        p.process(s);
        float centres[2], spreads[2];
        ok(blade_dedoppler_last_statistics(p.search, centres, spreads, nullptr), "statistics");
        for (int c = 0; c < 2; c++) {
            std::vector<double> z;
            for (int f = 0; f < 41; f++)
                z.push_back(static_cast<float>(static_cast<double>(s.at(0, 0, c * 41 + f)) +
                                               s.at(0, 1, c * 41 + f)));
            std::sort(z.begin(), z.end());
            double centre, spread;
            if (normalization == BLADE_DEDOPPLER_NORM_MAD) {
                centre = z[20];
                std::vector<double> deviation;
                for (double v : z)
                    deviation.push_back(std::abs(v - centre));
                std::sort(deviation.begin(), deviation.end());
                spread = 1.482602218505602 * deviation[20];
            } else {
                // p5 at 0.05 * 40 = 2 exactly, p95 at 38: the 37 values z[2] ... z[38]
                centre = z[20];
                double mean = 0, squares = 0;
                for (int i = 2; i <= 38; i++)
                    mean += z[i] / 37;
                for (int i = 2; i <= 38; i++)
                    squares += (z[i] - mean) * (z[i] - mean);
                spread = std::sqrt(squares / 37);
            }
            BOOST_TEST(centres[c] == static_cast<float>(centre));
            BOOST_TEST(std::abs(spreads[c] - spread) <= 1e-6 * spread,
                       spreads[c] << " != " << spread);
        }
    }
    // even counts: the median is the mean of the two middle values
    spectrogram e(1, 1, 4);
    e.values = { 1, 7, 3, 100 };
    plan q(config_of(1.0, 1.0, 4, 0.0), e.shape());
    q.process(e);
    float centre, spread;
    ok(blade_dedoppler_last_statistics(q.search, &centre, &spread, nullptr), "statistics");
    BOOST_TEST(centre == 5.0f);                                      // (3 + 7) / 2
    BOOST_TEST(spread == static_cast<float>(1.482602218505602 * 3)); // |z - 5| = 4 2 2 95 -> 3
}

BOOST_AUTO_TEST_CASE(a_constant_coarse_channel_gives_no_hits)
{
    spectrogram s(1, 4, 64, 1.0f);
    s.at(0, 0, 10) = 50.0f;
    plan p(config_of(1.0, 1.0, 64, 0.5), s.shape());
    BOOST_TEST(p.process(s).empty());
}

BOOST_AUTO_TEST_CASE(the_window_keeps_the_strongest_and_ties)
{
    // max 1 Hz/s at step 1/15: N = 2 * 15 = 30. A tone 20 channels from a brighter one
    // is no hit; 40 away it is. Two equal tones 22 apart in noise that repeats every
    // 22 channels have equal best paths: both are hits (no strictly larger
    // neighbour), as in turbo_seti.
    const auto run = [](int64_t second_start, float second_amplitude, bool periodic) {
        spectrogram s = noise(1, 16, 512, 13);
        if (periodic)
            for (int64_t t = 0; t < 16; t++)
                for (int64_t f = 22; f < 512; f++)
                    s.at(0, t, f) = s.at(0, t, f - 22);
        for (int64_t t = 0; t < 16; t++) {
            s.at(0, t, 198) += 6.0f;
            s.at(0, t, second_start) += second_amplitude;
        }
        plan p(config_of(1.0, 1.0, 512, 1.0), s.shape());
        BOOST_TEST(p.geometry.window == 30);
        return p.process(s);
    };
    auto hits = run(218, 4.0f, false);
    BOOST_TEST_REQUIRE(hits.size() == 1u);
    BOOST_TEST(hits[0].channel == 198);
    hits = run(238, 4.0f, false);
    BOOST_TEST_REQUIRE(hits.size() == 2u);
    BOOST_TEST(hits[1].channel == 238);
    hits = run(220, 6.0f, true);
    BOOST_TEST_REQUIRE(hits.size() == 2u);
    BOOST_TEST(hits[0].channel == 198);
    BOOST_TEST(hits[1].channel == 220);
    BOOST_TEST(hits[0].snr == hits[1].snr);
}

BOOST_AUTO_TEST_CASE(capacity_keeps_the_first_hits_and_counts_the_rest)
{
    spectrogram s = noise(1, 8, 1024, 14);
    for (int i = 0; i < 5; i++)
        inject(s, 0, 100 + 200 * i, 0.0, 6.0f);
    auto config = config_of(1.0, 1.0, 1024, 0.5);
    config.hit_capacity = 2;
    plan p(config, s.shape());
    int64_t dropped = -1;
    const auto hits = p.process(s, &dropped);
    BOOST_TEST_REQUIRE(hits.size() == 2u);
    BOOST_TEST(dropped == 3);
    BOOST_TEST(hits[0].channel == 100);
    BOOST_TEST(hits[1].channel == 300);
    // the timings count every hit found, kept or dropped, and their steps took time
    const blade_dedoppler_timings t = blade_dedoppler_last_timings(p.search);
    BOOST_TEST(t.candidates == 5);
    BOOST_TEST((t.moments_s >= 0 && t.statistics_s >= 0 && t.integrate_s > 0 && t.select_s >= 0));
}

BOOST_AUTO_TEST_CASE(dc_blanking_removes_the_dc_spike)
{
    spectrogram s = noise(1, 16, 1024, 15);
    for (int64_t t = 0; t < 16; t++) {
        s.at(0, t, 128) += 50.0f; // the DC bins of both coarse channels of 256 ... 4
        s.at(0, t, 640) += 50.0f;
    }
    inject(s, 0, 400, 0.0, 5.0f);
    auto config = config_of(1.0, 1.0, 256, 0.5);
    plan plain(config, s.shape());
    BOOST_TEST(plain.process(s).size() == 3u);
    config.blank_dc = true;
    plan blanked(config, s.shape());
    const auto hits = blanked.process(s);
    BOOST_TEST_REQUIRE(hits.size() == 1u);
    BOOST_TEST(hits[0].channel == 400);
    // the working copy is the blanked one; the input is untouched
    BOOST_TEST(s.at(0, 0, 128) > 140.0f);
    const auto plane = blanked.integrate(s);
    const float expected = [&] {
        float total = 0;
        std::vector<float> column(16);
        for (int t = 0; t < 16; t++)
            column[t] = (s.at(0, t, 127) + s.at(0, t, 129)) * 0.5f;
        while (column.size() > 1) { // the tree's order
            std::vector<float> next;
            for (size_t i = 0; i < column.size(); i += 2)
                next.push_back(column[i] + column[i + 1]);
            column = next;
        }
        total = column[0];
        return total;
    }();
    BOOST_TEST(blanked.plane_at(plane, 0, 0, 128) == expected);
}

BOOST_AUTO_TEST_CASE(spectral_kurtosis_flags_rfi_and_keeps_noise)
{
    // Gamma-distributed powers of shape n = 8 (Stokes I of 4 integrated spectra), 64
    // spectra; channel 300 switches between 0.1 and 10 times the level (pulsed RFI):
    // SK far above 1. The flagged channel is left out of the statistics and gives
    // no hit; unflagged noise channels are at most a few at 5 sigma.
    const int64_t spectra = 64, channels = 1024;
    spectrogram s(1, spectra, channels);
    std::mt19937 rng(16);
    std::gamma_distribution<float> gamma(8.0f, 1.0f);
    for (auto& v : s.values)
        v = gamma(rng);
    for (int64_t t = 0; t < spectra; t++)
        s.at(0, t, 300) *= (t % 4 == 0) ? 10.0f : 0.1f;
    inject(s, 0, 700, 0.0,
           3.0f); // a steady tone: SK below 1, mildly (kept at 5 sigma? see below)
    auto config = config_of(1.0, 1.0, 512, 0.2);
    config.sk_shape = 8;
    config.sk_sigmas = 5;
    plan p(config, s.shape());
    const auto hits = p.process(s);
    std::vector<uint8_t> flags(channels);
    ok(blade_dedoppler_last_statistics(p.search, nullptr, nullptr, flags.data()), "flags");
    BOOST_TEST(flags[300] == 1);
    const auto flagged = std::count(flags.begin(), flags.end(), 1);
    BOOST_TEST(flagged <= 4, flagged << " channels flagged");
    BOOST_TEST(hit_at(hits, 0, 300, 0) == nullptr);
    // without flagging the RFI channel is a hit
    plan q(config_of(1.0, 1.0, 512, 0.2), s.shape());
    BOOST_TEST(hit_at(q.process(s), 0, 300, 0) != nullptr);
}

BOOST_AUTO_TEST_CASE(repeated_and_threaded_runs_give_identical_results)
{
    spectrogram s = noise(2, 16, 20000, 17); // above the threaded threshold, several tiles
    inject(s, 1, 12345, 0.5, 3.0f);
    plan p(config_of(1.0, 1.0, 5000, 1.0), s.shape());
    const auto first = p.integrate(s), second = p.integrate(s);
    BOOST_TEST(std::memcmp(first.data(), second.data(), first.size() * 4) == 0);
    const auto a = p.process(s), b = p.process(s);
    BOOST_TEST_REQUIRE(a.size() == b.size());
    BOOST_TEST(std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0);
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_with_reasons)
{
    const blade_shape shape = blade_shape_tf(16, 1024);
    auto c = config_of(1.0, 1.0, 256, 1.0);
    auto message = create_error(c, blade_shape_aftp(1, 16, 1024, 1));
    BOOST_TEST(message.find("[T, F] or [B, T, F]") != std::string::npos, message);
    c.foff_hz = 0;
    message = create_error(c, shape);
    BOOST_TEST(message.find("foff_hz = 0") != std::string::npos, message);
    c = config_of(1.0, -1.0, 256, 1.0);
    message = create_error(c, shape);
    BOOST_TEST(message.find("tsamp_s = -1") != std::string::npos, message);
    c = config_of(1.0, 1.0, 300, 1.0);
    message = create_error(c, shape);
    BOOST_TEST(message.find("nfpc = 300") != std::string::npos, message);
    BOOST_TEST(message.find("divide the F = 1024") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, 1.0, 2.0);
    message = create_error(c, shape);
    BOOST_TEST(message.find("min_drift <= max_drift") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, 0.05, 0.01); // step 1/15 Hz/s: nothing in 0.01 ... 0.05
    message = create_error(c, shape);
    BOOST_TEST(message.find("holds no drift of the grid") != std::string::npos, message);
    BOOST_TEST(message.find("0.0666667") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, 1.0, 0.5);
    message = create_error(c, blade_shape_tf(1, 1024));
    BOOST_TEST(message.find("one spectrum (T = 1) has no drift") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, 1.0);
    c.snr_threshold = -1;
    message = create_error(c, shape);
    BOOST_TEST(message.find("SNR threshold -1") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, 1.0);
    c.hit_capacity = 0;
    message = create_error(c, shape);
    BOOST_TEST(message.find("hit_capacity 0") != std::string::npos, message);
    c = config_of(1.0, 1.0, 2, 1.0);
    c.blank_dc = true;
    message = create_error(c, shape);
    BOOST_TEST(message.find("nfpc >= 3") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, 1.0);
    c.sk_shape = 2;
    message = create_error(c, shape);
    BOOST_TEST(message.find("sk_sigmas 0 must be positive") != std::string::npos, message);
    c.sk_sigmas = 3;
    message = create_error(c, blade_shape_tf(1, 1024));
    BOOST_TEST(message.find("at least 2 spectra") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, 1.0);
    c.method = static_cast<blade_dedoppler_method>(7);
    message = create_error(c, shape);
    BOOST_TEST(message.find("unknown method code 7") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, 1.0);
    c.normalization = static_cast<blade_dedoppler_normalization>(5);
    message = create_error(c, shape);
    BOOST_TEST(message.find("unknown normalization code 5") != std::string::npos, message);
    c = config_of(1.0, 1.0, 256, NAN);
    message = create_error(c, shape);
    BOOST_TEST(message.find("must be finite") != std::string::npos, message);
    blade_dedoppler* search;
    BOOST_TEST(blade_dedoppler_create(&search, nullptr, &shape, blade_device_cpu()) ==
               BLADE_ERROR_INVALID_ARGUMENT);
}

BOOST_AUTO_TEST_CASE(bad_tensors_and_calls_are_refused)
{
    plan p(config_of(1.0, 1.0, 64, 1.0), blade_shape_tf(8, 128));
    std::vector<float> data(8 * 128, 1.0f);
    blade_shape wrong = blade_shape_tf(8, 64);
    blade_tensor in = blade_tensor_make(BLADE_F32, &wrong, blade_device_cpu(), data.data());
    std::vector<blade_dedoppler_hit> hits(65536);
    int64_t count = -1;
    BOOST_TEST(blade_dedoppler_process(p.search, &in, hits.data(), &count, nullptr, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    std::string message = blade_last_error();
    BOOST_TEST(message.find("plan was made for [8, 128]") != std::string::npos, message);
    BOOST_TEST(count == 0);
    in = blade_tensor_make(BLADE_F64, &p.shape, blade_device_cpu(), data.data());
    BOOST_TEST(blade_dedoppler_process(p.search, &in, hits.data(), &count, nullptr, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    in = blade_tensor_make(BLADE_F32, &p.shape, blade_device_cpu(), data.data());
    BOOST_TEST(blade_dedoppler_process(p.search, &in, nullptr, &count, nullptr, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    message = blade_last_error();
    BOOST_TEST(message.find("needs a hit list") != std::string::npos, message);
    float centre;
    BOOST_TEST(blade_dedoppler_last_statistics(p.search, &centre, nullptr, nullptr) ==
               BLADE_ERROR_INVALID_ARGUMENT);
    message = blade_last_error();
    BOOST_TEST(message.find("no statistics yet") != std::string::npos, message);
    blade_dedoppler_destroy(nullptr);
}
