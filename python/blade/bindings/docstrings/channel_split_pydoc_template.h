/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_channel_split = R"doc()doc";


static const char* __doc_gr_blade_channel_split_channel_split_0 = R"doc()doc";


static const char* __doc_gr_blade_channel_split_channel_split_1 = R"doc()doc";


static const char* __doc_gr_blade_channel_split_make = R"doc()doc";


static const char* __doc_gr_blade_channel_split_parts = R"doc()doc";


static const char* __doc_gr_blade_channel_split_output_shape = R"doc()doc";


static const char* __doc_gr_blade_channel_split_input_item_size = R"doc()doc";


static const char* __doc_gr_blade_channel_split_output_item_size = R"doc()doc";


static const char* __doc_gr_blade_channel_split_devices = R"doc()doc";
