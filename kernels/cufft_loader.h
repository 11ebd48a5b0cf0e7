/* SPDX-License-Identifier: MIT */
/*
 * cuFFT, opened at run time through cuda_library.h (never linked): the few entry
 * points the core uses, loaded once per process on first use. Not installed.
 */
#ifndef BLADE_KERNELS_CUFFT_LOADER_H
#define BLADE_KERNELS_CUFFT_LOADER_H

#include <cufft.h>

#include <blade/status.h>

struct blade_cufft_api {
    decltype(&cufftCreate) create;
    decltype(&cufftMakePlanMany64) make_plan_many64;
    decltype(&cufftSetStream) set_stream;
    decltype(&cufftExecC2C) exec_c2c;
    decltype(&cufftDestroy) destroy;
};

/* The loaded API, or a failure naming the library and what was tried. */
blade_status blade_cufft_load(const blade_cufft_api** api);

/* "CUFFT_ALLOC_FAILED" etc. */
const char* blade_cufft_result_name(cufftResult result);

#endif
