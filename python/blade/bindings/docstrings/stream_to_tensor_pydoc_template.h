/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_stream_to_tensor = R"doc()doc";


static const char* __doc_gr_blade_stream_to_tensor_stream_to_tensor_0 = R"doc()doc";


static const char* __doc_gr_blade_stream_to_tensor_stream_to_tensor_1 = R"doc()doc";


static const char* __doc_gr_blade_stream_to_tensor_make = R"doc()doc";


static const char* __doc_gr_blade_stream_to_tensor_nstreams = R"doc()doc";


static const char* __doc_gr_blade_stream_to_tensor_item_size = R"doc()doc";


static const char* __doc_gr_blade_stream_to_tensor_port = R"doc()doc";
