/* SPDX-License-Identifier: MIT */
/*
 * Loading CUDA math libraries (cuFFT, cuBLAS) at run time. libblade links only the
 * static CUDA runtime so that it loads, and falls back to the CPU, on hosts without
 * a driver or toolkit; linking cuFFT statically would also add hundreds of MB. The
 * libraries are opened the first time a module needs them, with a clear error
 * naming the library when it is missing. Not installed.
 */
#ifndef BLADE_KERNELS_CUDA_LIBRARY_H
#define BLADE_KERNELS_CUDA_LIBRARY_H

#include <blade/status.h>

/* Open the first loadable of `candidates` (NULL-terminated sonames); `what` names
 * the library in the error ("cuFFT"). The handle stays open for the process. */
blade_status
blade_cuda_library_open(const char* const* candidates, const char* what, void** handle);

/* Resolve `symbol` from an opened library into `*function`. */
blade_status
blade_cuda_library_symbol(void* handle, const char* symbol, const char* what, void** function);

#endif
