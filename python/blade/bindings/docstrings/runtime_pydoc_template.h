/* SPDX-License-Identifier: MIT */
#include "pydoc_macros.h"
#define D(...) DOC(gr, blade, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */


static const char* __doc_gr_blade_gpu_info = R"doc()doc";


static const char* __doc_gr_blade_gpu_info_gpu_info_0 = R"doc()doc";


static const char* __doc_gr_blade_gpu_info_gpu_info_1 = R"doc()doc";


static const char* __doc_gr_blade_version = R"doc()doc";


static const char* __doc_gr_blade_build_commit = R"doc()doc";


static const char* __doc_gr_blade_backends = R"doc()doc";


static const char* __doc_gr_blade_gpus = R"doc()doc";


static const char* __doc_gr_blade_resolve_device = R"doc()doc";


static const char* __doc_gr_blade_resolve_devices = R"doc()doc";


static const char* __doc_gr_blade_measure_transfer = R"doc()doc";


static const char* __doc_gr_blade_item_size = R"doc()doc";


static const char* __doc_gr_blade_copy_stats = R"doc()doc";


static const char* __doc_gr_blade_reset_copy_stats = R"doc()doc";


static const char* __doc_gr_blade_failures = R"doc()doc";


static const char* __doc_gr_blade_clear_failures = R"doc()doc";


static const char* __doc_gr_blade_device_memory_stats = R"doc()doc";


static const char* __doc_gr_blade_reset_device_memory_peak = R"doc()doc";


static const char* __doc_gr_blade_timeline_event = R"doc()doc";


static const char* __doc_gr_blade_timeline_recording = R"doc()doc";


static const char* __doc_gr_blade_timeline_start = R"doc()doc";


static const char* __doc_gr_blade_timeline_stop = R"doc()doc";


static const char* __doc_gr_blade_measure_duplex_transfer = R"doc()doc";
