/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_guppi_source = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_guppi_source_0 = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_guppi_source_1 = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_make = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_output_shape = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_output_item_size = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_files = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_chunks = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_tsamp = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_zero_filled_blocks = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_bytes_read = R"doc()doc";


static const char* __doc_gr_blade_guppi_source_warnings = R"doc()doc";
