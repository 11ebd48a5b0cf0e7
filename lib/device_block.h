/* -*- c++ -*- */
/* SPDX-License-Identifier: MIT */
/*
 * What every gr-blade block shares (private header): the device it runs on and the
 * buffer type that follows from it, its CUDA stream, the tensor each port carries,
 * checks of the neighbours at start, and turning core failures into exceptions.
 */
#ifndef INCLUDED_BLADE_DEVICE_BLOCK_H
#define INCLUDED_BLADE_DEVICE_BLOCK_H

#include "timeline.h"
#include <gnuradio/blade/tensor_block.h>
#include <gnuradio/block.h>
#include <gnuradio/buffer.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/logger.h>
#include <blade/blade.h>

#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace blade {

class device_buffer;

/*! The tensor one port carries per item: element type and shape. */
struct tensor_spec {
    blade_dtype dtype = BLADE_CF32;
    blade_shape shape = {};

    tensor_spec() = default;
    tensor_spec(blade_dtype type, const blade_shape& extents) : dtype(type), shape(extents) {}

    size_t bytes() const { return blade_tensor_bytes(dtype, &shape); }
    /*! Bytes of one GNU Radio item; throws std::length_error, saying what to do, if
     *  the chunk is larger than GNU Radio's largest item (2 GiB). */
    size_t item_size() const;
    std::string str() const; // "cf32 [2, 3, 4, 2]"
    bool operator==(const tensor_spec& other) const
    {
        return dtype == other.dtype && blade_shape_equal(&shape, &other.shape);
    }
    bool operator!=(const tensor_spec& other) const { return !(*this == other); }
};

/*! Parse an element type name, throwing std::invalid_argument naming `what`. */
blade_dtype parse_dtype(const std::string& name, const std::string& what);

/*! Build a shape from a list of extents, throwing std::invalid_argument naming `what`. */
blade_shape parse_shape(const std::vector<int64_t>& dims, const std::string& what);

/*! A shape as the list Python and GRC use. */
std::vector<int64_t> shape_to_vector(const blade_shape& shape);

/*!
 * Resolve "auto" / "cpu" / "cuda" / "cuda:N" / "emulated" for block `block_name`.
 * Throws std::runtime_error with the core's explanation (e.g. no GPU present).
 */
blade_device resolve_device(const std::string& text, const std::string& block_name);

/*! The io signature of `nports` ports of `item_size` bytes on `device`'s buffers. */
gr::io_signature::sptr device_signature(const blade_device& device, int nports, size_t item_size);

/*! Like device_signature() with one item size per port. */
gr::io_signature::sptr device_signature(const blade_device& device,
                                        const std::vector<size_t>& item_sizes);

/*! Throw std::runtime_error("<context>: <blade_last_error()>") unless status is OK. */
void throw_on_error(blade_status status, const std::string& context);

/*!
 * What a decimating block (detector, correlator) must know before it exists: the
 * tensor of its output and the chunks per output (GNU Radio's decimation), asked of
 * a plan of its module made on the CPU, which also validates the configuration (a
 * bad one raises in make()). `integration` only words the error of a group longer
 * than GNU Radio's decimation (an int) allows.
 */
struct probed_decimation {
    tensor_spec output;
    int chunks_per_output;
};

template <typename Plan, typename Config>
probed_decimation
probe_decimation(blade_status (*create)(Plan**, const Config*, const blade_shape*, blade_device),
                 void (*destroy)(Plan*),
                 blade_shape (*output_shape)(const Plan*),
                 int64_t (*steps)(const Plan*),
                 const Config& config,
                 const blade_shape& input,
                 blade_dtype output_type,
                 int64_t integration,
                 const std::string& block_name)
{
    Plan* probe = nullptr;
    throw_on_error(create(&probe, &config, &input, blade_device_cpu()), block_name);
    const tensor_spec output(output_type, output_shape(probe));
    const int64_t chunks = steps(probe);
    destroy(probe);
    if (chunks > std::numeric_limits<int>::max())
        throw std::invalid_argument(block_name + ": integration " + std::to_string(integration) +
                                    " spans more chunks than GNU Radio's decimation allows");
    return { output, static_cast<int>(chunks) };
}

/*!
 * \brief Mix-in of every gr-blade block.
 *
 * Holds the resolved device and a stream on it, the tensor of each port, and
 * verifies at start() that every upstream gr-blade block produces exactly the
 * tensor this block expects on the same device. It implements the tensor_block
 * accessors once, from the device and the tensors of port 0, for every block
 * whose public interface is a tensor_block.
 */
class device_block : public virtual tensor_block
{
public:
    device_block(const std::string& block_name,
                 const std::string& requested_device,
                 const blade_device& device);
    virtual ~device_block();

    device_block(const device_block&) = delete;
    device_block& operator=(const device_block&) = delete;

    std::string device() const override { return device_name(); }
    std::vector<int64_t> output_shape() const override;
    size_t input_item_size() const override;
    size_t output_item_size() const override;

    const blade_device& blade_device_id() const { return d_device; }
    std::string device_name() const;
    blade_stream stream() const { return d_stream; }

    /*!
     * Where GNU Radio places the buffer of an upstream host block when it replaces
     * it for one of this block's inputs: this block's device (a GPU block uploads
     * its input). A channel split answers the host (pinned memory, read in place).
     */
    virtual blade_device input_buffer_device() const { return d_device; }

    /*!
     * A core call that overwrites one output chunk with its result: `chunk` is the
     * chunk as the block (or the stage before) left it, and the result takes the
     * same memory as the stage's result tensor (see append_in_place_stage()).
     */
    using in_place_stage =
        std::function<blade_status(const blade_tensor& chunk, blade_stream stream)>;

    /*!
     * Rewrites the tags of one output chunk for a stage (a channelizer's fine axis);
     * tags it adds come from `srcid`, warnings go to `logger` (the host block's).
     */
    using stage_tags = std::function<void(
        std::vector<gr::tag_t>& chunk_tags, const pmt::pmt_t& srcid, const gr::logger_ptr& logger)>;

    /*!
     * Run `stage` on each output chunk of port 0, in place, after this block's own
     * process and before GNU Radio sees the chunk: how a bundle runs a stage that
     * may overwrite its input (a polarizer after a cast or a channelizer; a
     * channelizer with T = N after a gather) without a block and a device buffer of
     * its own. `result` is the tensor the chunk holds afterwards, of the same item
     * size; it becomes this port's output tensor (what neighbours are checked
     * against). Blocks whose work() is process_chunks() (cast, channelizer,
     * permutation, polarizer) and the gather run stages; only the gather rewrites
     * tags for them (`tags`). Call before the flowgraph starts. The stage's time
     * counts as this block's on the timeline; `what` names it in errors
     * ("<block>: <what>: <core message>"). Throws std::logic_error for a result of
     * another item size, or tags this block cannot rewrite.
     */
    void append_in_place_stage(const std::string& what,
                               const tensor_spec& result,
                               in_place_stage stage,
                               stage_tags tags = {});

    /*! Whether this block rewrites the tags of its chunks for its stages. */
    virtual bool rewrites_stage_tags() const { return false; }

    /*! What append_in_place_stage() added, in order. */
    std::vector<std::string> in_place_stage_names() const;

    const tensor_spec& input_spec(size_t port) const { return d_inputs.at(port); }
    const tensor_spec& output_spec(size_t port) const { return d_outputs.at(port); }
    size_t ninput_specs() const { return d_inputs.size(); }
    size_t noutput_specs() const { return d_outputs.size(); }

protected:
    /*! Declare the tensors of the ports (call in the constructor). */
    void set_port_specs(std::vector<tensor_spec> inputs, std::vector<tensor_spec> outputs);

    /*! The tensor this block's own process writes on port 0, before any stage. */
    const tensor_spec& produced_output_spec() const { return d_produced; }

    /*! Run the in-place stages on one output chunk of port 0 at `chunk`. */
    void run_in_place_stages(void* chunk);

    /*! Apply the stages' tag rewrites to the tags of one output chunk. */
    void rewrite_stage_tags(std::vector<gr::tag_t>& chunk_tags,
                            const pmt::pmt_t& srcid,
                            const gr::logger_ptr& logger) const;

    /*! Throw a descriptive error if a neighbour does not fit. */
    void check_neighbours(gr::block& self) const;

    /*! Throw unless this block can read `buffer`'s memory (GPU blocks: own device). */
    void check_memory(const gr::buffer_sptr& buffer, const std::string& where) const;

    /*!
     * Call from start(): check the neighbours; a misfit is logged, recorded in
     * blade.failures(), and makes work() end the flowgraph. (GNU Radio calls
     * start() on the block's own thread, where an exception would hang the run.)
     */
    void check_neighbours_at_start(gr::block& self, const gr::logger_ptr& logger);

    /*!
     * Run a work() body. An exception (a core or CUDA failure) must not escape
     * work(): GNU Radio would stop this block's thread and leave the others waiting
     * forever. It is logged, recorded in blade.failures(), and the block returns
     * WORK_DONE so that the flowgraph ends.
     */
    int guarded_work(const gr::logger_ptr& logger, const std::function<int()>& body);

    /*!
     * The work() of a block with one input and one output port, one chunk out per
     * chunk in: `process` each chunk (a core process call on stream()), then wait
     * for the device. Failures are handled as guarded_work() does.
     */
    int
    process_chunks(const gr::logger_ptr& logger,
                   int noutput_items,
                   gr_vector_const_void_star& input_items,
                   gr_vector_void_star& output_items,
                   const char* what,
                   const std::function<blade_status(const blade_tensor&, blade_tensor&)>& process);

    /*! Record a failure (logged and kept for blade.failures()). */
    void fail(const gr::logger_ptr& logger, const std::string& message);

    /*! Wait for the work queued on stream() (GPU); no-op on the CPU. */
    void synchronize() const;

    /*! Throw "<block>: <context>: <core message>" unless status is OK. */
    void check(blade_status status, const char* context) const;

    /*! A tensor descriptor of port data at `data` with `spec`. */
    blade_tensor tensor(const tensor_spec& spec, const void* data) const;

    /*! Log which device "auto" chose, once, through the block's logger. */
    void log_device_choice(const gr::logger_ptr& logger) const;

    std::string d_block_name;

private:
    std::string d_requested_device;
    blade_device d_device;
    blade_stream d_stream = nullptr;
    std::vector<tensor_spec> d_inputs;
    std::vector<tensor_spec> d_outputs;
    bool d_failed = false;
    std::string d_track; // this block on the timeline: its alias and device
    // Input buffers that upload a host writer's chunks: waited for before work.
    std::vector<device_buffer*> d_uploading_inputs;
    timeline::device_spans d_device_spans;
    struct stage_entry {
        std::string what;
        tensor_spec result;
        in_place_stage run;
        stage_tags tags;
    };
    std::vector<stage_entry> d_in_place_stages;
    tensor_spec d_produced; // port 0's tensor as this block's own process writes it
};

/*! Record a failure message ("blade.<block>: ...") for failures(). */
void record_failure(const std::string& message);

} // namespace blade
} // namespace gr

#endif
