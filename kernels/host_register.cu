// SPDX-License-Identifier: MIT
//
// Page-locking host memory that the core did not allocate (GNU Radio's host
// buffers), so that copies to and from it take the pinned DMA path.

#include "cuda_backend.h"
#include "cuda_check.h"

extern "C" blade_status blade_cuda_host_register(void* pointer, size_t bytes)
{
    BLADE_CUDA_TRY(cudaHostRegister(pointer, bytes, cudaHostRegisterDefault));
    return BLADE_OK;
}

extern "C" void blade_cuda_host_unregister(void* pointer)
{
    if (cudaHostUnregister(pointer) != cudaSuccess)
        (void)cudaGetLastError(); // it was never registered: nothing to undo
}
