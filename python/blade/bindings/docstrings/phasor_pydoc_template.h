/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_array_geometry = R"doc()doc";


static const char* __doc_gr_blade_phasor = R"doc()doc";


static const char* __doc_gr_blade_phasor_device = R"doc()doc";


static const char* __doc_gr_blade_phasor_last_delays = R"doc()doc";


static const char* __doc_gr_blade_phasor_make = R"doc()doc";


static const char* __doc_gr_blade_phasor_make_from_recipe = R"doc()doc";


static const char* __doc_gr_blade_phasor_options = R"doc()doc";


static const char* __doc_gr_blade_phasor_output_item_size = R"doc()doc";


static const char* __doc_gr_blade_phasor_output_shape = R"doc()doc";


static const char* __doc_gr_blade_phasor_set_beams = R"doc()doc";


static const char* __doc_gr_blade_phasor_set_boresight = R"doc()doc";


static const char* __doc_gr_blade_phasor_set_calibration = R"doc()doc";
