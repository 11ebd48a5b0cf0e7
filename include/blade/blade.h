/* SPDX-License-Identifier: MIT */
/**
 * @file blade.h
 * @brief The gr-blade core: one include for the whole C API.
 *
 * The core is a C11 library (libblade) with a CPU backend and, when built with CUDA,
 * a GPU backend. It knows nothing of GNU Radio; GNU Radio blocks are thin adapters
 * around it. Every module follows the same plan pattern:
 * `blade_X_create()` validates and allocates, `blade_X_output_shape()` reports the
 * output shape, `blade_X_process()` only launches work, `blade_X_destroy()` frees.
 */
#ifndef BLADE_BLADE_H
#define BLADE_BLADE_H

#include <blade/astrometry.h>
#include <blade/cpu_threads.h>
#include <blade/device.h>
#include <blade/dtype.h>
#include <blade/io/bfr5.h>
#include <blade/io/filterbank_writer.h>
#include <blade/io/guppi_header.h>
#include <blade/io/guppi_reader.h>
#include <blade/io/guppi_writer.h>
#include <blade/io/observation.h>
#include <blade/io/output_files.h>
#include <blade/memory.h>
#include <blade/modules/beamformer.h>
#include <blade/modules/cast.h>
#include <blade/modules/channelizer.h>
#include <blade/modules/correlator.h>
#include <blade/modules/dedoppler.h>
#include <blade/modules/detector.h>
#include <blade/modules/duplicate.h>
#include <blade/modules/gather.h>
#include <blade/modules/permutation.h>
#include <blade/modules/phasor.h>
#include <blade/modules/polarizer.h>
#include <blade/modules/stream_adapter.h>
#include <blade/modules/subband.h>
#include <blade/status.h>
#include <blade/tensor.h>
#include <blade/version.h>

#endif /* BLADE_BLADE_H */
