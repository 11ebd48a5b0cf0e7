/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_device_sink = R"doc()doc";


static const char* __doc_gr_blade_device_sink_chunks_received = R"doc()doc";


static const char* __doc_gr_blade_device_sink_device = R"doc()doc";


static const char* __doc_gr_blade_device_sink_make = R"doc()doc";
