/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */

#include "permutation_impl.h"
#include <gnuradio/io_signature.h>

#include <memory>

namespace gr {
namespace blade {

permutation::sptr permutation::make(const std::vector<int64_t>& shape,
                                    const std::vector<int>& axes,
                                    const std::string& dtype,
                                    const std::string& device)
{
    const tensor_spec input(parse_dtype(dtype, "blade.permutation dtype"),
                            parse_shape(shape, "blade.permutation shape"));
    const blade_device resolved = resolve_device(device, "permutation");
    // The plan is made first: the output item size (the block's io signature)
    // follows from the validated axes.
    blade_permutation_config config = {};
    config.dtype = input.dtype;
    config.naxes = static_cast<int>(axes.size()); // more than 5 never equals the rank
    for (size_t i = 0; i < axes.size() && i < BLADE_MAX_RANK; i++)
        config.axes[i] = axes[i];
    blade_permutation* created = nullptr;
    throw_on_error(blade_permutation_create(&created, &config, &input.shape, resolved),
                   "blade.permutation");
    // Owned here until the block exists (its constructor may still throw).
    std::unique_ptr<blade_permutation, void (*)(blade_permutation*)> plan(
        created, blade_permutation_destroy);
    auto block =
        gnuradio::make_block_sptr<permutation_impl>(input, axes, device, resolved, plan.get());
    plan.release();
    return block;
}

permutation_impl::permutation_impl(const tensor_spec& input,
                                   const std::vector<int>& axes,
                                   const std::string& requested_device,
                                   const blade_device& device,
                                   blade_permutation* plan)
    : gr::sync_block(
          "permutation",
          device_signature(device, 1, input.item_size()),
          device_signature(
              device,
              1,
              tensor_spec(input.dtype, blade_permutation_output_shape(plan)).item_size())),
      device_block("permutation", requested_device, device),
      d_axes(axes),
      d_plan(plan)
{
    set_port_specs({ input }, { tensor_spec(input.dtype, blade_permutation_output_shape(plan)) });
    log_device_choice(d_logger);
}

permutation_impl::~permutation_impl() { blade_permutation_destroy(d_plan); }

bool permutation_impl::start()
{
    check_neighbours_at_start(*this, d_logger);
    return gr::sync_block::start();
}

int permutation_impl::work(int noutput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    return process_chunks(d_logger,
                          noutput_items,
                          input_items,
                          output_items,
                          "permutation",
                          [this](const blade_tensor& in, blade_tensor& out) {
                              return blade_permutation_process(d_plan, &in, &out, stream());
                          });
}

} // namespace blade
} // namespace gr
