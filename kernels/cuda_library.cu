// SPDX-License-Identifier: MIT
#include "cuda_library.h"
#include "internal.h"

#include <dlfcn.h>

#include <string>

blade_status blade_cuda_library_open(const char* const* candidates, const char* what, void** handle)
{
    *handle = nullptr;
    std::string tried;
    for (const char* const* name = candidates; *name != nullptr; name++) {
        *handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (*handle != nullptr)
            return BLADE_OK;
        tried += tried.empty() ? "" : ", ";
        tried += *name;
    }
    return blade_fail(BLADE_ERROR_UNSUPPORTED,
                      "%s is needed on the GPU but could not be loaded (tried %s; add the "
                      "CUDA toolkit's lib64 directory to LD_LIBRARY_PATH, or use "
                      "device='cpu')",
                      what,
                      tried.c_str());
}

blade_status
blade_cuda_library_symbol(void* handle, const char* symbol, const char* what, void** function)
{
    *function = dlsym(handle, symbol);
    if (*function == nullptr)
        return blade_fail(BLADE_ERROR_UNSUPPORTED,
                          "%s was loaded but has no %s (incompatible version?)",
                          what,
                          symbol);
    return BLADE_OK;
}
