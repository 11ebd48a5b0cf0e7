// SPDX-License-Identifier: MIT
// Placeholder while the kernels are written.
#include "correlator_backend.h"
#include "cuda_check.h"

extern "C" size_t blade_cuda_correlator_workspace(const blade_correlator_job*) { return 0; }

extern "C" blade_status blade_cuda_correlate(const blade_correlator_job*, const float*, float*, void*)
{
    return blade_fail(BLADE_ERROR_UNSUPPORTED, "correlator: no kernels yet");
}
