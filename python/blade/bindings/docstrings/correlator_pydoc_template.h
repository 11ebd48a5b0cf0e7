/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_correlator = R"doc()doc";


static const char* __doc_gr_blade_correlator_baselines = R"doc()doc";


static const char* __doc_gr_blade_correlator_channel_integration = R"doc()doc";


static const char* __doc_gr_blade_correlator_chunks_per_output = R"doc()doc";


static const char* __doc_gr_blade_correlator_integration = R"doc()doc";


static const char* __doc_gr_blade_correlator_make = R"doc()doc";


static const char* __doc_gr_blade_correlator_path = R"doc()doc";
