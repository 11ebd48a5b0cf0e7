/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_beamformer = R"doc()doc";


static const char* __doc_gr_blade_beamformer_beamformer_0 = R"doc()doc";


static const char* __doc_gr_blade_beamformer_beamformer_1 = R"doc()doc";


static const char* __doc_gr_blade_beamformer_make = R"doc()doc";


static const char* __doc_gr_blade_beamformer_device = R"doc()doc";


static const char* __doc_gr_blade_beamformer_path = R"doc()doc";


static const char* __doc_gr_blade_beamformer_beams = R"doc()doc";


static const char* __doc_gr_blade_beamformer_output_shape = R"doc()doc";


static const char* __doc_gr_blade_beamformer_input_item_size = R"doc()doc";


static const char* __doc_gr_blade_beamformer_phasor_item_size = R"doc()doc";


static const char* __doc_gr_blade_beamformer_output_item_size = R"doc()doc";
