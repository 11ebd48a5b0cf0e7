/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_detector = R"doc()doc";


static const char* __doc_gr_blade_detector_detector_0 = R"doc()doc";


static const char* __doc_gr_blade_detector_detector_1 = R"doc()doc";


static const char* __doc_gr_blade_detector_make = R"doc()doc";


static const char* __doc_gr_blade_detector_device = R"doc()doc";


static const char* __doc_gr_blade_detector_mode = R"doc()doc";


static const char* __doc_gr_blade_detector_integration = R"doc()doc";


static const char* __doc_gr_blade_detector_chunks_per_output = R"doc()doc";


static const char* __doc_gr_blade_detector_output_shape = R"doc()doc";


static const char* __doc_gr_blade_detector_input_item_size = R"doc()doc";


static const char* __doc_gr_blade_detector_output_item_size = R"doc()doc";
