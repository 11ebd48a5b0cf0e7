/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "beamformer_impl.h"
#include "observation_tags.h"
#include <gnuradio/blade/metadata.h>
#include <gnuradio/io_signature.h>

#include <stdexcept>
#include <vector>

namespace gr {
namespace blade {

namespace {

blade_beamformer_config parse_config(const std::string& input_type,
                                     const std::string& output_type,
                                     bool incoherent,
                                     bool incoherent_sqrt,
                                     const std::string& path)
{
    blade_beamformer_config config = blade_beamformer_config_default();
    config.input_type = parse_dtype(input_type, "blade.beamformer input_type");
    config.output_type = parse_dtype(output_type, "blade.beamformer output_type");
    config.incoherent = incoherent;
    config.incoherent_sqrt = incoherent_sqrt;
    if (blade_beamformer_path_parse(path.c_str(), &config.path) != BLADE_OK)
        throw std::invalid_argument(std::string("blade.beamformer path: ") + blade_last_error());
    return config;
}

} // namespace

beamformer::sptr beamformer::make(const std::vector<int64_t>& input_shape,
                                  const std::vector<int64_t>& phasor_shape,
                                  const std::string& input_type,
                                  const std::string& output_type,
                                  bool incoherent,
                                  bool incoherent_sqrt,
                                  const std::string& path,
                                  const std::string& device)
{
    const blade_beamformer_config config =
        parse_config(input_type, output_type, incoherent, incoherent_sqrt, path);
    const tensor_spec voltages(config.input_type,
                               parse_shape(input_shape, "blade.beamformer input_shape"));
    const tensor_spec phasors(BLADE_CF32,
                              parse_shape(phasor_shape, "blade.beamformer phasor_shape"));
    const blade_device resolved = resolve_device(device, "beamformer");
    blade_beamformer* made = nullptr;
    throw_on_error(
        blade_beamformer_create(&made, &config, &voltages.shape, &phasors.shape, resolved),
        "blade.beamformer");
    beamformer_plan plan(made, &blade_beamformer_destroy);
    const tensor_spec beams(config.output_type, blade_beamformer_output_shape(made));
    return gnuradio::make_block_sptr<beamformer_impl>(
        std::move(plan), voltages, phasors, beams, device, resolved);
}

beamformer_impl::beamformer_impl(beamformer_plan plan,
                                 const tensor_spec& voltages,
                                 const tensor_spec& phasors,
                                 const tensor_spec& beams,
                                 const std::string& requested_device,
                                 const blade_device& device)
    : gr::sync_block("beamformer",
                     device_signature(device, { voltages.item_size(), phasors.item_size() }),
                     device_signature(device, 1, beams.item_size())),
      device_block("beamformer", requested_device, device),
      d_plan(std::move(plan))
{
    set_port_specs({ voltages, phasors }, { beams });
    // Tags of the voltages follow their chunk (work() copies them); those of the
    // phasors would duplicate the time tags, so they stay behind.
    set_tag_propagation_policy(TPP_CUSTOM);
    log_device_choice(d_logger);
}

std::string beamformer_impl::path() const
{
    return blade_beamformer_path_name(blade_beamformer_path_used(d_plan.get()));
}

bool beamformer_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

int beamformer_impl::work(int noutput_items,
                          gr_vector_const_void_star& input_items,
                          gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&]() {
        const auto* voltages = static_cast<const char*>(input_items[0]);
        const auto* phasors = static_cast<const char*>(input_items[1]);
        auto* beams = static_cast<char*>(output_items[0]);
        const size_t voltage_size = input_item_size(), phasor_size = phasor_item_size();
        const size_t beam_size = output_item_size();
        for (int i = 0; i < noutput_items; i++) {
            const blade_tensor x = tensor(input_spec(0), voltages + i * voltage_size);
            const blade_tensor w = tensor(input_spec(1), phasors + i * phasor_size);
            blade_tensor y = tensor(output_spec(0), beams + i * beam_size);
            check(blade_beamformer_process(d_plan.get(), &x, &w, &y, stream()), "beamforming");
        }
        synchronize();
        std::vector<gr::tag_t> tags;
        get_tags_in_range(tags, 0, nitems_read(0), nitems_read(0) + noutput_items);
        static const pmt::pmt_t aspect = pmt::intern(tag::aspect);
        static const pmt::pmt_t beam = pmt::intern("beam");
        for (auto tag : tags) { // one output chunk per voltage chunk: same offset
            if (pmt::eq(tag.key, aspect))
                tag.value = beam; // axis A now counts beams, not antennas
            add_item_tag(0, tag);
        }
        // What each beam is comes with the phasors: passed on, with the incoherent
        // beam appended, so each beam's file gets its own name and position.
        static const pmt::pmt_t beams_key = pmt::intern(tag::beams);
        std::vector<gr::tag_t> identities;
        get_tags_in_range(identities, 1, nitems_read(1), nitems_read(1) + noutput_items, beams_key);
        for (const auto& tag : identities) {
            beam_set set = beams_from_tag(tag.value);
            if (output_spec(0).shape.dims[0] == this->beams() + 1) // the incoherent beam
                set.add_incoherent();
            add_item_tag(0,
                         nitems_written(0) + (tag.offset - nitems_read(1)),
                         beams_key,
                         beams_tag_value(set));
        }
        return noutput_items;
    });
}

} // namespace blade
} // namespace gr
