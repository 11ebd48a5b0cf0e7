/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_channel_merge = R"doc()doc";


static const char* __doc_gr_blade_channel_merge_channel_merge_0 = R"doc()doc";


static const char* __doc_gr_blade_channel_merge_channel_merge_1 = R"doc()doc";


static const char* __doc_gr_blade_channel_merge_make = R"doc()doc";


static const char* __doc_gr_blade_channel_merge_parts = R"doc()doc";


static const char* __doc_gr_blade_channel_merge_input_shape = R"doc()doc";


static const char* __doc_gr_blade_channel_merge_input_item_size = R"doc()doc";


static const char* __doc_gr_blade_channel_merge_output_item_size = R"doc()doc";


static const char* __doc_gr_blade_channel_merge_devices = R"doc()doc";
