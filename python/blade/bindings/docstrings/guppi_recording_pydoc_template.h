/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_describe_guppi = R"doc()doc";


static const char* __doc_gr_blade_guppi_card = R"doc()doc";


static const char* __doc_gr_blade_guppi_card_guppi_card_0 = R"doc()doc";


static const char* __doc_gr_blade_guppi_card_guppi_card_1 = R"doc()doc";


static const char* __doc_gr_blade_guppi_description = R"doc()doc";


static const char* __doc_gr_blade_guppi_description_guppi_description_0 = R"doc()doc";


static const char* __doc_gr_blade_guppi_description_guppi_description_1 = R"doc()doc";


static const char* __doc_gr_blade_read_guppi_file_header = R"doc()doc";


static const char* __doc_gr_blade_read_guppi_header = R"doc()doc";
