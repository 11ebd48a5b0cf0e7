/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_dedoppler = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_drift_step = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_hits = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_make = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_padded_spectra = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_search_seconds = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_window = R"doc()doc";


static const char* __doc_gr_blade_dedoppler_windows = R"doc()doc";
