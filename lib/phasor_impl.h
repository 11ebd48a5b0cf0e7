/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#ifndef INCLUDED_BLADE_PHASOR_IMPL_H
#define INCLUDED_BLADE_PHASOR_IMPL_H

#include "device_block.h"
#include "phasor_setup.h"
#include <gnuradio/blade/phasor.h>

#include <mutex>

namespace gr {
namespace blade {

class phasor_impl : public phasor, public device_block
{
public:
    phasor_impl(const phasor_setup& setup,
                const std::string& requested_device,
                const blade_device& device);
    ~phasor_impl() override;

    std::string device() const override { return device_name(); }
    std::vector<int64_t> output_shape() const override
    {
        return shape_to_vector(output_spec(0).shape);
    }
    size_t output_item_size() const override { return output_spec(0).item_size(); }
    std::vector<double> last_delays() const override;
    void set_beams(const std::vector<std::vector<double>>& beams) override;
    void set_boresight(const std::vector<double>& boresight) override;
    void set_calibration(const std::vector<gr_complex>& calibration,
                         int64_t first_channel) override;

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void handle_update(const pmt::pmt_t& message);
    void check_axis_of_chunks();
    //! The blade_beams tag of the beams now in force (under d_plan_lock).
    pmt::pmt_t beams_tag() const;

    // The plan is used by work() and changed by set_*() and messages: the lock
    // makes a change take effect between two chunks, never within one.
    mutable std::mutex d_plan_lock;
    blade_phasor* d_plan = nullptr;
    int64_t d_antennas, d_polarizations, d_beams;
    std::vector<double> d_delays;
    bool d_warned_dubious_year = false;
    // What each beam is, for the blade_beams tag: names (recipe source names, else
    // "beamN"), directions and the boresight; tagged again after each change.
    std::vector<std::string> d_beam_names;
    std::vector<double> d_beam_ra, d_beam_dec;
    double d_boresight_ra = 0, d_boresight_dec = 0;
    bool d_beams_changed = true;
    blade_observation d_axis; // the channels the phasors are for
    bool d_axis_checked = false;
};

} // namespace blade
} // namespace gr

#endif
