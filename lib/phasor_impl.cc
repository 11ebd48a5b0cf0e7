/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "observation_tags.h"
#include "phasor_impl.h"
#include <gnuradio/blade/metadata.h>
#include <gnuradio/io_signature.h>

#include <stdexcept>

namespace gr {
namespace blade {

namespace {

const pmt::pmt_t update_port = pmt::mp("update");

tensor_spec phasor_spec(const blade_phasor_config& config)
{
    const int64_t dims[5] = {
        config.beams, config.antennas, config.observation.nchan, 1, config.polarizations
    };
    blade_shape shape;
    throw_on_error(blade_shape_make(dims, 5, &shape), "blade.phasor");
    return tensor_spec(BLADE_CF32, shape);
}

// Validate before the scheduler sees the block: a bad argument raises in make().
blade_device checked_device(const phasor_setup& setup, const std::string& device)
{
    const blade_device resolved = resolve_device(device, "phasor");
    blade_phasor* probe = nullptr;
    throw_on_error(blade_phasor_create(&probe, &setup.config, blade_device_cpu()), "blade.phasor");
    blade_phasor_destroy(probe);
    return resolved;
}

std::vector<double> pmt_reals(const pmt::pmt_t& value, const std::string& what)
{
    std::vector<double> out;
    if (pmt::is_f64vector(value))
        return pmt::f64vector_elements(value);
    if (pmt::is_f32vector(value)) {
        for (float v : pmt::f32vector_elements(value))
            out.push_back(v);
        return out;
    }
    if (pmt::is_vector(value) || pmt::is_pair(value) || pmt::is_tuple(value)) {
        // Lists of numbers or of (ra, dec) pairs, as Python's to_pmt makes them.
        std::vector<pmt::pmt_t> items;
        if (pmt::is_vector(value))
            for (size_t i = 0; i < pmt::length(value); i++)
                items.push_back(pmt::vector_ref(value, i));
        else if (pmt::is_tuple(value))
            for (size_t i = 0; i < pmt::length(value); i++)
                items.push_back(pmt::tuple_ref(value, i));
        else
            for (pmt::pmt_t rest = value; pmt::is_pair(rest); rest = pmt::cdr(rest))
                items.push_back(pmt::car(rest));
        for (const auto& item : items) {
            if (pmt::is_number(item) && !pmt::is_complex(item)) {
                out.push_back(pmt::to_double(item));
            } else {
                const auto inner = pmt_reals(item, what);
                out.insert(out.end(), inner.begin(), inner.end());
            }
        }
        return out;
    }
    throw std::invalid_argument("message key '" + what + "' must hold real numbers");
}

std::vector<gr_complex> pmt_complexes(const pmt::pmt_t& value)
{
    if (pmt::is_c32vector(value))
        return pmt::c32vector_elements(value);
    if (pmt::is_c64vector(value)) {
        std::vector<gr_complex> out;
        for (const auto& v : pmt::c64vector_elements(value))
            out.emplace_back(static_cast<float>(v.real()), static_cast<float>(v.imag()));
        return out;
    }
    throw std::invalid_argument("message key 'calibration' must be a complex vector (c32 or c64)");
}

std::vector<std::vector<double>> pairs_of(const std::vector<double>& flat, const std::string& what)
{
    if (flat.size() % 2 != 0)
        throw std::invalid_argument("message key '" + what + "' must hold (ra, dec) pairs, " +
                                    std::to_string(flat.size()) + " values given");
    std::vector<std::vector<double>> rows;
    for (size_t i = 0; i < flat.size(); i += 2)
        rows.push_back({ flat[i], flat[i + 1] });
    return rows;
}

} // namespace

phasor::sptr
phasor::make(const observation& axis, const array_geometry& array, const phasor_options& options)
{
    phasor_setup setup;
    geometry_setup(setup, axis, array, options, "blade.phasor");
    const blade_device resolved = checked_device(setup, options.device);
    return gnuradio::make_block_sptr<phasor_impl>(setup, options.device, resolved);
}

phasor::sptr phasor::make_from_recipe(const observation& axis,
                                      const recipe& recipe,
                                      const phasor_options& options)
{
    phasor_setup setup;
    recipe_setup(setup, axis, recipe, options, "blade.phasor");
    const blade_device resolved = checked_device(setup, options.device);
    return gnuradio::make_block_sptr<phasor_impl>(setup, options.device, resolved);
}

phasor_impl::phasor_impl(const phasor_setup& setup,
                         const std::string& requested_device,
                         const blade_device& device)
    : gr::sync_block("phasor",
                     // The chunk-time stream is host data on every device.
                     gr::io_signature::make(1, 1, sizeof(chunk_time)),
                     device_signature(device, 1, phasor_spec(setup.config).item_size())),
      device_block("phasor", requested_device, device),
      d_antennas(setup.config.antennas),
      d_polarizations(setup.config.polarizations),
      d_beams(setup.config.beams),
      d_delays(static_cast<size_t>(setup.config.beams * setup.config.antennas), 0.0)
{
    set_port_specs({}, { phasor_spec(setup.config) });
    check(blade_phasor_create(&d_plan, &setup.config, blade_device_id()), "configuration");
    const blade_phasor_config& c = setup.config;
    d_beam_ra.assign(c.beam_ra, c.beam_ra + c.beams);
    d_beam_dec.assign(c.beam_dec, c.beam_dec + c.beams);
    d_beam_names = setup.beam_names;
    d_beam_names.resize(static_cast<size_t>(c.beams));
    for (size_t b = 0; b < d_beam_names.size(); b++)
        if (d_beam_names[b].empty())
            d_beam_names[b] = "beam" + std::to_string(b);
    d_boresight_ra = c.boresight_ra;
    d_boresight_dec = c.boresight_dec;
    d_axis = c.observation;
    message_port_register_in(update_port);
    set_msg_handler(update_port, [this](const pmt::pmt_t& message) { handle_update(message); });
    log_device_choice(d_logger);
}

phasor_impl::~phasor_impl() { blade_phasor_destroy(d_plan); }

std::vector<double> phasor_impl::last_delays() const
{
    std::lock_guard<std::mutex> lock(d_plan_lock);
    return d_delays;
}

void phasor_impl::set_beams(const std::vector<std::vector<double>>& beams)
{
    std::vector<double> ra, dec;
    split_directions(beams, ra, dec, "blade.phasor beams");
    std::lock_guard<std::mutex> lock(d_plan_lock);
    check(blade_phasor_set_beams(d_plan, static_cast<int64_t>(ra.size()), ra.data(), dec.data()),
          "beams");
    // New directions: the recipe's names no longer say what the beams point at.
    for (size_t b = 0; b < ra.size(); b++)
        if (ra[b] != d_beam_ra[b] || dec[b] != d_beam_dec[b])
            d_beam_names[b] = "beam" + std::to_string(b);
    d_beam_ra = ra;
    d_beam_dec = dec;
    d_beams_changed = true;
}

pmt::pmt_t phasor_impl::beams_tag() const
{
    beam_set set;
    for (size_t b = 0; b < d_beam_names.size(); b++)
        set.beams.push_back(beam_identity{ d_beam_names[b], d_beam_ra[b], d_beam_dec[b], true });
    set.boresight_ra = d_boresight_ra;
    set.boresight_dec = d_boresight_dec;
    return beams_tag_value(set);
}

void phasor_impl::set_boresight(const std::vector<double>& boresight)
{
    if (boresight.size() != 2)
        throw std::invalid_argument("blade.phasor: boresight must be (ra, dec) in radians");
    std::lock_guard<std::mutex> lock(d_plan_lock);
    check(blade_phasor_set_boresight(d_plan, boresight[0], boresight[1]), "boresight");
    d_boresight_ra = boresight[0];
    d_boresight_dec = boresight[1];
    d_beams_changed = true;
}

void phasor_impl::set_calibration(const std::vector<gr_complex>& calibration, int64_t first_channel)
{
    int64_t rows = 0;
    const std::vector<double> pairs = calibration_pairs(
        calibration, d_antennas, d_polarizations, rows, "blade.phasor calibration");
    std::lock_guard<std::mutex> lock(d_plan_lock);
    check(blade_phasor_set_calibration(
              d_plan, pairs.empty() ? nullptr : pairs.data(), rows, first_channel),
          "calibration");
}

void phasor_impl::handle_update(const pmt::pmt_t& message)
{
    try {
        if (!pmt::is_dict(message))
            throw std::invalid_argument("expected a dict with beams, boresight and/or calibration");
        const pmt::pmt_t none = pmt::PMT_NIL;
        const pmt::pmt_t beams = pmt::dict_ref(message, pmt::mp("beams"), none);
        const pmt::pmt_t boresight = pmt::dict_ref(message, pmt::mp("boresight"), none);
        const pmt::pmt_t calibration = pmt::dict_ref(message, pmt::mp("calibration"), none);
        const pmt::pmt_t first =
            pmt::dict_ref(message, pmt::mp("calibration_first_channel"), pmt::from_long(0));
        if (pmt::is_null(beams) && pmt::is_null(boresight) && pmt::is_null(calibration))
            throw std::invalid_argument("the dict has none of beams, boresight, calibration");
        if (!pmt::is_null(beams))
            set_beams(pairs_of(pmt_reals(beams, "beams"), "beams"));
        if (!pmt::is_null(boresight))
            set_boresight(pmt_reals(boresight, "boresight"));
        if (!pmt::is_null(calibration))
            set_calibration(pmt_complexes(calibration), pmt::to_long(first));
    } catch (const std::exception& error) {
        // A bad message must not stop the observation: keep the previous values.
        d_logger->error("update message ignored: {}", error.what());
    }
}

/* The chunk-time stream's tags (guppi_source puts the recording's axis on its first
 * item) must describe channels that hold the ones the phasors were made for: a
 * phasor block given another recording's axis would make wrong beams silently. */
void phasor_impl::check_axis_of_chunks()
{
    d_axis_checked = true;
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, nitems_read(0), nitems_read(0) + 1);
    const tagged_observation tagged = observation_from_tags(tags);
    if (!tagged.has_frequency)
        return;
    check(blade_observation_check_within(&tagged.observation, &d_axis, "the chunk times' tags"),
          "frequency axis");
}

bool phasor_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

int phasor_impl::work(int noutput_items,
                      gr_vector_const_void_star& input_items,
                      gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        if (!d_axis_checked)
            check_axis_of_chunks();
        const auto* times = static_cast<const chunk_time*>(input_items[0]);
        auto* out = static_cast<char*>(output_items[0]);
        const size_t out_size = output_item_size();
        for (int i = 0; i < noutput_items; i++) {
            const chunk_time& time = times[i];
            // Unix seconds keep ~0.2 us of resolution, a one-double JD ~40 us.
            double unix_time = time.unix_mid;
            if (unix_time == 0.0 && time.jd_mid != 0.0)
                unix_time = (time.jd_mid - BLADE_UNIX_EPOCH_JD) * 86400.0;
            if (unix_time == 0.0)
                throw std::runtime_error("blade.phasor: chunk-time item " +
                                         std::to_string(time.step) +
                                         " has neither unix_mid nor jd_mid");
            blade_tensor phasors = tensor(output_spec(0), out + i * out_size);
            std::lock_guard<std::mutex> lock(d_plan_lock);
            check(blade_phasor_compute(
                      d_plan, unix_time, time.dut1, d_delays.data(), &phasors, stream()),
                  "phasors");
            if (d_beams_changed) {
                static const pmt::pmt_t key = pmt::intern(tag::beams);
                add_item_tag(0, nitems_written(0) + i, key, beams_tag());
                d_beams_changed = false;
            }
            if (blade_phasor_dubious_year(d_plan) && !d_warned_dubious_year) {
                d_warned_dubious_year = true;
                d_logger->warn("ERFA flags the date (unix {:.0f}) as a dubious year (beyond "
                               "its leap-second table); phasors are computed all the same",
                               unix_time);
            }
        }
        synchronize();
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
