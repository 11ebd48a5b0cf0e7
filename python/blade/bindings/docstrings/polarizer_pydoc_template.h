/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_polarizer = R"doc()doc";


static const char* __doc_gr_blade_polarizer_polarizer_0 = R"doc()doc";


static const char* __doc_gr_blade_polarizer_polarizer_1 = R"doc()doc";


static const char* __doc_gr_blade_polarizer_make = R"doc()doc";


static const char* __doc_gr_blade_polarizer_device = R"doc()doc";


static const char* __doc_gr_blade_polarizer_output_basis = R"doc()doc";


static const char* __doc_gr_blade_polarizer_output_shape = R"doc()doc";


static const char* __doc_gr_blade_polarizer_input_item_size = R"doc()doc";


static const char* __doc_gr_blade_polarizer_output_item_size = R"doc()doc";
