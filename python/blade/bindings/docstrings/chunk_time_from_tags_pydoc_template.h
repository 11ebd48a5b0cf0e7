/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_chunk_time_from_tags = R"doc()doc";


static const char* __doc_gr_blade_chunk_time_from_tags_chunk_time_from_tags_0 = R"doc()doc";


static const char* __doc_gr_blade_chunk_time_from_tags_chunk_time_from_tags_1 = R"doc()doc";


static const char* __doc_gr_blade_chunk_time_from_tags_make = R"doc()doc";


static const char* __doc_gr_blade_chunk_time_from_tags_chunks = R"doc()doc";


static const char* __doc_gr_blade_chunk_time_from_tags_gaps = R"doc()doc";


static const char* __doc_gr_blade_chunk_time_from_tags_missing_chunks = R"doc()doc";


static const char* __doc_gr_blade_chunk_time_from_tags_input_item_size = R"doc()doc";
