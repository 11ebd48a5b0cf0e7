/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_gather = R"doc()doc";


static const char* __doc_gr_blade_gather_gather_0 = R"doc()doc";


static const char* __doc_gr_blade_gather_gather_1 = R"doc()doc";


static const char* __doc_gr_blade_gather_make = R"doc()doc";


static const char* __doc_gr_blade_gather_device = R"doc()doc";


static const char* __doc_gr_blade_gather_axis = R"doc()doc";


static const char* __doc_gr_blade_gather_multiplier = R"doc()doc";


static const char* __doc_gr_blade_gather_output_shape = R"doc()doc";


static const char* __doc_gr_blade_gather_input_item_size = R"doc()doc";


static const char* __doc_gr_blade_gather_output_item_size = R"doc()doc";
