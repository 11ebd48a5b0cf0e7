/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_dedoppler_hit = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_options = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_dedoppler_search = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_device = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_drift_count = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_drift_step = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_dropped = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_options = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_padded_spectra = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_search = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_window = R"doc()doc";
