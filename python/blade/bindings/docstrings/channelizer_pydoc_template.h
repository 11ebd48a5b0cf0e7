/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_channelizer = R"doc()doc";


static const char* __doc_gr_blade_channelizer_channelizer_0 = R"doc()doc";


static const char* __doc_gr_blade_channelizer_channelizer_1 = R"doc()doc";


static const char* __doc_gr_blade_channelizer_make = R"doc()doc";


static const char* __doc_gr_blade_channelizer_device = R"doc()doc";


static const char* __doc_gr_blade_channelizer_output_shape = R"doc()doc";


static const char* __doc_gr_blade_channelizer_input_item_size = R"doc()doc";


static const char* __doc_gr_blade_channelizer_output_item_size = R"doc()doc";


static const char* __doc_gr_blade_channelizer_rate = R"doc()doc";


static const char* __doc_gr_blade_channelizer_taps = R"doc()doc";


static const char* __doc_gr_blade_channelizer_window = R"doc()doc";


static const char* __doc_gr_blade_channelizer_prototype = R"doc()doc";
