/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_beamforming_bundle = R"doc()doc";


static const char* __doc_gr_blade_beamforming_bundle_beams = R"doc()doc";


static const char* __doc_gr_blade_beamforming_options = R"doc()doc";


static const char* __doc_gr_blade_bundle = R"doc()doc";


static const char* __doc_gr_blade_bundle_chunks_per_output = R"doc()doc";


static const char* __doc_gr_blade_bundle_device = R"doc()doc";


static const char* __doc_gr_blade_bundle_devices = R"doc()doc";


static const char* __doc_gr_blade_bundle_input_item_size = R"doc()doc";


static const char* __doc_gr_blade_bundle_output_item_size = R"doc()doc";


static const char* __doc_gr_blade_bundle_output_shape = R"doc()doc";


static const char* __doc_gr_blade_bundle_output_type = R"doc()doc";


static const char* __doc_gr_blade_spectrometer_options = R"doc()doc";


static const char* __doc_gr_blade_bundle_precision = R"doc()doc";
