/*
 * Copyright 2020 Free Software Foundation, Inc.
 *
 * This file is part of GNU Radio
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */

#include <pybind11/pybind11.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace py = pybind11;

// Headers for binding functions
/**************************************/
// The following comment block is used for
// gr_modtool to insert function prototypes
// Please do not delete
/**************************************/
// BINDING_FUNCTION_PROTOTYPES(
void bind_cast(py::module& m);
void bind_device_source(py::module& m);
void bind_device_sink(py::module& m);
void bind_mode_b(py::module& m);
void bind_mode_h(py::module& m);
void bind_mode_bh(py::module& m);
void bind_runtime(py::module& m);
void bind_metadata(py::module& m);
void bind_phasor(py::module& m);
void bind_delays(py::module& m);
void bind_recipe(py::module& m);
void bind_beamformer(py::module& m);
void bind_guppi_recording(py::module& m);
void bind_guppi_source(py::module& m);
void bind_guppi_sink(py::module& m);
void bind_filterbank_sink(py::module& m);
void bind_polarizer(py::module& m);
void bind_detector(py::module& m);
void bind_gather(py::module& m);
void bind_channelizer(py::module& m);
void bind_duplicate(py::module& m);
void bind_permutation(py::module& m);
void bind_download(py::module& m);
void bind_stream_to_tensor(py::module& m);
void bind_tensor_to_stream(py::module& m);
void bind_channel_split(py::module& m);
void bind_channel_merge(py::module& m);
void bind_chunk_time_from_tags(py::module& m);
void bind_correlator(py::module& m);
void bind_mode_x(py::module& m);
void bind_observation(py::module& m);
void bind_bundle(py::module& m);
void bind_tensor_block(py::module& m);
void bind_dedoppler_search(py::module& m);
void bind_dedoppler(py::module& m);
// ) END BINDING_FUNCTION_PROTOTYPES


// We need this hack because import_array() returns NULL
// for newer Python versions.
// This function is also necessary because it ensures access to the C API
// and removes a warning.
void* init_numpy()
{
    import_array();
    return NULL;
}

PYBIND11_MODULE(blade_python, m)
{
    // Initialize the numpy C API
    // (otherwise we will see segmentation faults)
    init_numpy();

    // Allow access to base block methods
    py::module::import("gnuradio.gr");

    /**************************************/
    // The following comment block is used for
    // gr_modtool to insert binding function calls
    // Please do not delete
    /**************************************/
    // BINDING_FUNCTION_CALLS(
    bind_observation(m);
    bind_tensor_block(m); // before the blocks and bundles that derive from it
    bind_bundle(m);
    bind_cast(m);
    bind_device_source(m);
    bind_device_sink(m);
    bind_runtime(m);
    bind_metadata(m);
    bind_phasor(m);
    bind_delays(m);
    bind_recipe(m);
    bind_beamformer(m);
    bind_guppi_recording(m);
    bind_guppi_source(m);
    bind_guppi_sink(m);
    bind_filterbank_sink(m);
    bind_polarizer(m);
    bind_detector(m);
    bind_gather(m);
    bind_channelizer(m);
    bind_mode_b(m);
    bind_mode_h(m);
    bind_mode_bh(m);
    bind_duplicate(m);
    bind_permutation(m);
    bind_download(m);
    bind_stream_to_tensor(m);
    bind_tensor_to_stream(m);
    bind_channel_split(m);
    bind_channel_merge(m);
    bind_chunk_time_from_tags(m);
    bind_dedoppler_search(m);
    bind_dedoppler(m);
    bind_correlator(m);
    bind_mode_x(m);
    // ) END BINDING_FUNCTION_CALLS
}