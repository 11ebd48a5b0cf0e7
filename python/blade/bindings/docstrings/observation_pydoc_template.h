/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_observation = R"doc()doc";


static const char* __doc_gr_blade_observation_channelized = R"doc()doc";


static const char* __doc_gr_blade_observation_channels = R"doc()doc";


static const char* __doc_gr_blade_observation_coarse_channel = R"doc()doc";


static const char* __doc_gr_blade_observation_describe = R"doc()doc";


static const char* __doc_gr_blade_observation_frequencies = R"doc()doc";


static const char* __doc_gr_blade_observation_frequency = R"doc()doc";


static const char* __doc_gr_blade_observation_observation_0 = R"doc()doc";


static const char* __doc_gr_blade_observation_band = R"doc()doc";


static const char* __doc_gr_blade_observation_band_centre = R"doc()doc";
